"""How the tilelang1540 files start (TileLang 0.1.15, system python): python THIS [ARCH] > out.tir.
The kernel is examples/deepseek_v32/fp8_lighting_indexer.py `mqa_attn_return_logits` (the kernel of
tile-ai/tilelang#1534, "SM120 hanging on examples/deepseek_v32/fp8_lighting_indexer.py", fixed by #1540),
reduced: static seq_len / seq_len_kv, heads=32, index_dim=64, block_Q=4 (block_Q * heads = 128 GEMM
columns, FullCol with 8 warps: the head reduction crosses warps), block_N=64, threads=256, num_stages=2, bf16
instead of fp8 (the synchronization does not depend on the element type). The tilelang1121 files are the same
script with ARCH sm_90a."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

SEQ, SEQ_KV, HEADS, DIM = 8, 256, 32, 64
BLOCK_Q, BLOCK_N, THREADS, STAGES = 4, 64, 256, 2


def indexer():
    dtype, accum, idx = "bfloat16", "float32", "int32"

    @T.prim_func
    def mqa_attn_return_logits(IndexQ: T.Tensor((SEQ * HEADS, DIM), dtype), IndexK: T.Tensor((SEQ_KV, DIM), dtype),
                               IndexKScale: T.Tensor((SEQ_KV,), accum), Logits: T.Tensor((SEQ, SEQ_KV), accum),
                               Weights: T.Tensor((SEQ, HEADS), accum), CuSeqLenKS: T.Tensor((SEQ,), idx),
                               CuSeqLenKE: T.Tensor((SEQ,), idx)):
        with T.Kernel(T.ceildiv(SEQ, BLOCK_Q), threads=THREADS) as bx:
            index_q_shared = T.alloc_shared([BLOCK_Q * HEADS, DIM], dtype)
            index_k_shared = T.alloc_shared([BLOCK_N, DIM], dtype)
            index_k_scale_fragment = T.alloc_fragment([BLOCK_N], accum)
            s = T.alloc_fragment([BLOCK_N, BLOCK_Q * HEADS], accum)
            s_reshaped = T.reshape(s, (BLOCK_N, BLOCK_Q, HEADS))
            logits = T.alloc_fragment([BLOCK_N, BLOCK_Q], accum)
            weights = T.alloc_fragment([BLOCK_Q, HEADS], accum)
            seq_len_i = bx * BLOCK_Q
            cu_k_s_min = T.alloc_var(idx)
            cu_k_e_max = T.alloc_var(idx)
            cu_k_s_min = 2147483647
            cu_k_e_max = -2147483648
            for bq_i in T.serial(BLOCK_Q):
                cu_k_s_min = T.min(cu_k_s_min, T.min(CuSeqLenKS[seq_len_i + bq_i], SEQ_KV))
            for bq_i in T.serial(BLOCK_Q):
                cu_k_e_max = T.max(cu_k_e_max, T.min(CuSeqLenKE[seq_len_i + bq_i], SEQ_KV))
            T.copy(IndexQ[seq_len_i * HEADS, 0], index_q_shared)
            T.copy(Weights[seq_len_i, 0], weights)
            for nbn_i in T.Pipelined(T.ceildiv(cu_k_e_max - cu_k_s_min, BLOCK_N), num_stages=STAGES):
                T.copy(IndexK[cu_k_s_min + nbn_i * BLOCK_N, 0], index_k_shared)
                T.copy(IndexKScale[cu_k_s_min + nbn_i * BLOCK_N], index_k_scale_fragment)
                T.gemm(index_k_shared, index_q_shared, s, transpose_B=True, clear_accum=True,
                       policy=T.GemmWarpPolicy.FullCol)
                for bn_i, bq_i, h_i in T.Parallel(BLOCK_N, BLOCK_Q, HEADS):
                    s_reshaped[bn_i, bq_i, h_i] = (T.max(s_reshaped[bn_i, bq_i, h_i], 0) * weights[bq_i, h_i]) * \
                        index_k_scale_fragment[bn_i]
                T.reduce_sum(s_reshaped, logits, dim=-1, clear=True)
                for bq_i, bn_i in T.Parallel(BLOCK_Q, BLOCK_N):
                    Logits[seq_len_i + bq_i, cu_k_s_min + nbn_i * BLOCK_N + bn_i] = logits[bn_i, bq_i]
    return mqa_attn_return_logits


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_120"
    low = lower_device(indexer(), arch, {tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    print(low.tir)
