"""Lower the TileLang 0.1.15 kernels behind the engine's handwritten corpus cases (CPU only).

Usage: . /work/tl-venv/bin/activate && python corpus/handwritten/lower_tilelang_cases.py OUTDIR

persistent_ws_gemm_sm90a.tir (T.Persistent GEMM), blocksparse_gemm_sm80.tir (the GEMM of
examples/blocksparse_gemm, written here in the 0.1.15 API), blocksparse_attn_sm80/sm90a.tir
(blocksparse_flashattn from examples/blocksparse_attention/example_tilelang_block_sparse_attn.py,
tile-ai/tilelang HEAD of the mirror, its @tilelang.jit decorator dropped). The .tir files carry a
header comment added after lowering; the single-bug variants are one-line edits of these.
"""
import os
import sys

import tilelang.language as T

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lowering import lower_device, write_text  # noqa: E402


def persistent_gemm(M, N, K, bM, bN, bK, stages, threads, sm_num=4, dtype="float16", acc="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(sm_num, threads=threads) as (block_id):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK, bN), dtype)
            C_local = T.alloc_fragment((bM, bN), acc)
            C_shared = T.alloc_shared((bM, bN), dtype)
            for bx, by in T.Persistent([T.ceildiv(M, bM), T.ceildiv(N, bN)], sm_num, block_id):
                T.clear(C_local)
                for k in T.Pipelined(T.ceildiv(K, bK), num_stages=stages):
                    T.copy(A[bx * bM, k * bK], A_shared)
                    T.copy(B[k * bK, by * bN], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
                T.copy(C_local, C_shared)
                T.copy(C_shared, C[bx * bM, by * bN])
    return main


def blocksparse_gemm(M, N, K, bM, bN, bK, stages, threads, dtype="float16", acc="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             BlockMask: T.Tensor((M // bM, N // bN, K // bK), "bool"), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((bM, bK), dtype)
            B_shared = T.alloc_shared((bK, bN), dtype)
            C_local = T.alloc_fragment((bM, bN), acc)
            C_shared = T.alloc_shared((bM, bN), dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=stages):
                if BlockMask[by, bx, k]:
                    T.copy(A[by * bM, k * bK], A_shared)
                    T.copy(B[k * bK, bx * bN], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * bM, bx * bN])
    return main


def blocksparse_flashattn(batch, heads, seq_len, dim, downsample_len, is_causal):
    block_M = 64
    block_N = 64
    num_stages = 1
    threads = 128
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    shape = [batch, heads, seq_len, dim]
    block_mask_shape = [batch, heads, downsample_len, downsample_len]

    dtype = "float16"
    accum_dtype = "float32"
    block_mask_dtype = "bool"

    def kernel_func(block_M, block_N, num_stages, threads):
        @T.prim_func
        def blocksparse_flashattn(
            Q: T.Tensor(shape, dtype),
            K: T.Tensor(shape, dtype),
            V: T.Tensor(shape, dtype),
            BlockSparseMask: T.Tensor(block_mask_shape, block_mask_dtype),
            Output: T.Tensor(shape, dtype),
        ):
            with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
                Q_shared = T.alloc_shared([block_M, dim], dtype)
                K_shared = T.alloc_shared([block_N, dim], dtype)
                V_shared = T.alloc_shared([block_N, dim], dtype)
                O_shared = T.alloc_shared([block_M, dim], dtype)
                acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
                acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
                acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
                scores_max = T.alloc_fragment([block_M], accum_dtype)
                scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
                scores_scale = T.alloc_fragment([block_M], accum_dtype)
                scores_sum = T.alloc_fragment([block_M], accum_dtype)
                logsum = T.alloc_fragment([block_M], accum_dtype)
                block_mask = T.alloc_fragment([downsample_len], block_mask_dtype)

                T.copy(Q[bz, by, bx * block_M : (bx + 1) * block_M, :], Q_shared)
                T.fill(acc_o, 0)
                T.fill(logsum, 0)
                T.fill(scores_max, -T.infinity(accum_dtype))

                T.copy(BlockSparseMask[bz, by, bx, :], block_mask)

                loop_range = (
                    T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N)) if is_causal else T.ceildiv(seq_len, block_N)
                )

                for k in T.Pipelined(loop_range, num_stages=num_stages):
                    if block_mask[k] != 0:
                        T.copy(K[bz, by, k * block_N : (k + 1) * block_N, :], K_shared)
                        if is_causal:
                            for i, j in T.Parallel(block_M, block_N):
                                acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, 0, -T.infinity(acc_s.dtype))
                        else:
                            T.clear(acc_s)
                        T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                        T.copy(scores_max, scores_max_prev)
                        T.fill(scores_max, -T.infinity(accum_dtype))
                        T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                        # To do causal softmax, we need to set the scores_max to 0 if it is -inf
                        # This process is called Check_inf in FlashAttention3 code, and it only need to be done
                        # in the first ceil_div(kBlockM, kBlockN) steps.
                        # for i in T.Parallel(block_M):
                        #     scores_max[i] = T.if_then_else(scores_max[i] == -T.infinity(accum_dtype), 0, scores_max[i])
                        for i in T.Parallel(block_M):
                            scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                        for i, j in T.Parallel(block_M, block_N):
                            # Instead of computing exp(x - max), we compute exp2(x * log_2(e) -
                            # max * log_2(e)) This allows the compiler to use the ffma
                            # instruction instead of fadd and fmul separately.
                            acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                        T.reduce_sum(acc_s, scores_sum, dim=1)
                        for i in T.Parallel(block_M):
                            logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                        T.copy(acc_s, acc_s_cast)

                        for i, j in T.Parallel(block_M, dim):
                            acc_o[i, j] *= scores_scale[i]

                        T.copy(V[bz, by, k * block_N : (k + 1) * block_N, :], V_shared)
                        T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] /= logsum[i]
                T.copy(acc_o, O_shared)
                T.copy(O_shared, Output[bz, by, bx * block_M : (bx + 1) * block_M, :])

        return blocksparse_flashattn

    return kernel_func(block_M, block_N, num_stages, threads)


KERNELS = {
    "persistent_ws_gemm_sm90a": (lambda: persistent_gemm(512, 512, 256, 128, 128, 64, 2, 256), "sm_90a"),
    "blocksparse_gemm_sm80": (lambda: blocksparse_gemm(256, 256, 256, 128, 128, 32, 2, 128), "sm_80"),
    "blocksparse_attn_sm80": (lambda: blocksparse_flashattn(1, 1, 128, 64, 2, False), "sm_80"),
    "blocksparse_attn_sm90a": (lambda: blocksparse_flashattn(1, 1, 128, 64, 2, False), "sm_90a"),
}

if __name__ == "__main__":
    out = sys.argv[1]
    for name, (factory, arch) in KERNELS.items():
        lowered = lower_device(factory(), arch)
        write_text(os.path.join(out, name + ".tir"), lowered.tir)
        print("lowered", name, "" if lowered.codegen_error is None else "(tir-only: CUDA codegen failed)")
