"""Lower TileLang's own examples at PRODUCTION sizes: the large-sizes probe (corpus/unseen_large/).

corpus/field/ and corpus/field_sizes/ hold the examples at small sizes (M, N, K of 512 to 4096,
sequences of 256 to 4096). Users check the kernels they ship, at the sizes they ship: M = N = K =
8192, sequences of 8K to 32K, MLA decode over 16K of KV cache, persistent and stream-K GEMMs with
many waves per SM. Longer loops and more tiles per block test the loop skipping, the induction and
the step budget, and what a check costs.

The machinery is corpus/lower_sizes.py's (one subprocess per example and arch set, the field
corpus's GPU stubs, byte-identical kernels kept once); only the variant table differs.

Usage (one command regenerates it):
    nice -n 15 python corpus/lower_large.py [--out corpus/unseen_large] [--only SUBSTR ...] [--timeout S]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lower_sizes  # noqa: E402
from lower_sizes import S80, S90, S100, V, _argv_main, _bf16_gemm  # noqa: E402

SCALE = (512 + 64) ** -0.5

LARGE = {
    "gemm/example_gemm.py": [
        V("m8192n8192k8192_b128x128x32", "matmul.compile(M=8192, N=8192, K=8192, block_M=128, block_N=128, block_K=32)"),
        V("m4096n4096k16384_b128x256x64_s4_t256", "matmul.compile(M=4096, N=4096, K=16384, block_M=128, block_N=256, "
          "block_K=64)", patch=[("num_stages=3", "num_stages=4", 1), ("threads=128", "threads=256", 1)]),
    ],
    "gemm/example_gemm_persistent.py": [
        V("m8192n8192k4096_b128x128x32_s3_t256",
          "matmul_persistent.compile(M=8192, N=8192, K=4096, block_M=128, block_N=128, block_K=32, threads=256, num_stages=3)"),
    ],
    "dynamic_shape/example_dynamic.py": [
        V("b128x256x64_s4_t256", "matmul_dynamic(8192, 8192, 8192, 128, 256, 64, False, False, 'float16', 'float16', "
          "'float32', 4, 256)"),
    ],
    "flash_attention/example_mha_fwd_bshd.py": [
        V("s8192_h32_d128_b128x128_s2_t256_causal",
          "flashattn(1, 32, 8192, 128, True, block_M=128, block_N=128, num_stages=2, threads=256)"),
    ],
    "flash_attention/example_mha_fwd_bhsd.py": [
        V("q4096kv16384_d128_b128x128_s3_t256",
          "flashattn(1, 32, 4096, 16384, 128, False, block_M=128, block_N=128, num_stages=3, threads=256)"),
    ],
    "flash_attention/example_gqa_fwd_bshd.py": [
        V("s8192_h32_g8_d128_b128x128_s2_t256_causal",
          "flashattn(1, 32, 8192, 128, True, groups=8, block_M=128, block_N=128, num_stages=2, threads=256)"),
    ],
    "flash_attention/example_mha_bwd_bhsd.py": [
        V("s8192_h32_d128_b64x64_causal", "flashattn_bwd(1, 32, 8192, 128, True, 64, 64)"),
    ],
    "flash_attention/example_gqa_bwd.py": [
        V("atomic_s8192_h32_g8_d128_b64x64_s2_t256_causal",
          "flashattn_bwd_atomic_add(1, 32, 8192, 128, 128, True, 64, 64, threads=256, num_stages=2, groups=8)"),
    ],
    "flash_attention/example_gqa_bwd_tma_reduce.py": [
        V("atomic_s8192_h32_g8_d128_b64x64_s2_t256_causal",
          "flashattn_bwd_atomic_add(1, 32, 8192, 128, 128, True, 64, 64, threads=256, num_stages=2, groups=8)", archs=S90),
    ],
    "flash_attention/example_mha_fwd_varlen.py": [
        V("b8_s8192_h32_d128_b128x128_s2_t256_causal",
          "flashattn(8, 8192, 8192, 32, 128, True, block_M=128, block_N=128, num_stages=2, threads=256)"),
    ],
    "flash_decoding/example_gqa_decode.py": [
        V("kv32768_split8_n128_h64_s2_t128",
          "flashattn(1, 32, 8, 32768, 128, block_N=128, block_H=64, num_split=8, num_stages=2, threads=128)"),
    ],
    "deepseek_mla/example_mla_decode.py": [
        V("b16_h128_kv16384_split4", f"flashattn(16, 128, 1, 16384, 512, 64, 64, 64, 4, {SCALE})", archs=S80),
    ],
    "deepseek_mla/example_mla_decode_ws.py": [
        V("b16_h128_kv16384_split1", f"flashattn(16, 128, 1, 16384, 512, 64, 64, 64, 1, {SCALE})", archs=S90),
    ],
    "deepseek_mla/example_mla_decode_paged.py": [
        V("b16_h128_kv16384_split1_bs64", f"mla_decode_tilelang(16, 128, 1, 16384, 512, 64, 64, 64, 1, 64, {SCALE})"),
    ],
    "deepseek_mla/example_mla_decode_persistent.py": [
        V("b16_h128_kv16384_split2", "flashattn(16, 128, 1, 16384, 512, 64, 64, 64, 2)"),
    ],
    "warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py": [
        V("m8192k8192_b128x128x64", "matmul.compile(M=8192, N=8192, K=8192, block_M=128, block_N=128, block_K=64)", archs=S90),
    ],
    "warp_specialize/example_warp_specialize_gemm_copy_0_gemm_1.py": [
        V("s3_m8192k8192_b128x128x64", "matmul_warp_specialize_copy_0_gemm_1.compile(M=8192, N=8192, K=8192, "
          "block_M=128, block_N=128, block_K=64)", archs=S90, patch=[("num_stages=0", "num_stages=3", 1)]),
    ],
    "warp_specialize/example_warp_specialize_flashmla.py": [
        V("b16_h128_kv16384", "main(batch=16, heads=128, kv_heads=1, kv_ctx=16384, dim=512, pe_dim=64)", archs=S90),
    ],
    "blocksparse_attention/example_tilelang_block_sparse_attn.py": [
        # downsample_len = seq_len / block_N (64): the example's own mask shape for this length
        V("s8192_h32_d128_ds128_noncausal", "blocksparse_flashattn(1, 32, 8192, 128, 128, is_causal=False)"),
    ],
    "blocksparse_gemm/example_blocksparse_gemm.py": [
        V("m8192k8192_b128x128x64_s3_t256", "blocksparse_matmul.compile(M=8192, N=8192, K=8192, block_M=128, "
          "block_N=128, block_K=64, num_stages=3, thread_num=256, enable_rasteration=True)"),
    ],
    "gemm_fp8/example_tilelang_gemm_fp8.py": [
        V("e4m3_m8192k8192", "matmul.compile(M=8192, N=8192, K=8192, block_M=128, block_N=128, block_K=64, "
          "dtype=T.float8_e4m3fn)", archs=S90),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws.py": [
        V("2cta_m8192n8192k8192_s4", _argv_main("--m 8192 --n 8192 --k 8192 --num_stages 4"), archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws_persistent.py": [
        V("2cta_m8192n8192k8192_s4", _argv_main("--m 8192 --n 8192 --k 8192 --num_stages 4"), archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws_persistent_streamk.py": [
        V("m8192n8192k8192_s4", _argv_main("--m 8192 --n 8192 --k 8192 --num_stages 4"), archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws_clc.py": [
        V("m8192n8192k8192_s4_g4", _bf16_gemm("gemm_clc_persistent_2cta", 8192, 8192, 8192, "4, 4, True"), archs=S100),
    ],
    "aws/gemm.py": [
        V("ws_m8192n8192k8192", "main(kernel='gemm_ws', M=8192, N=8192, K=8192)", archs=S100),
    ],
    # second batch (same session): long sequences for the chunked linear-attention kernels, the
    # sparse and paged decodes, sm_100a attention, the block-scaled and fp8 x fp4 GEMMs
    "flash_attention_sm100/mha_fwd_bshd.py": [
        V("ss_s8192_h32_d128_causal", "flashattn(1, 32, 8192, 128, True, block_M=128, block_N=128, variant='ss')",
          archs=S100),
        V("wasp_s8192_h32_d128_s3_causal", "flashattn_wasp(1, 32, 8192, 128, True, num_stages=3)", archs=S100),
    ],
    "flash_attention_sm100/gqa_fwd_bshd.py": [
        V("g8_ts_s8192_h32_d128_noncausal", "flashattn(1, 32, 8192, 128, False, groups=8, block_M=128, block_N=128, "
          "variant='ts')", archs=S100),
    ],
    "gdn/example_chunk_delta_h.py": [
        V("s16384_h16_dk128_dv128_bdv64_s2_t256",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 16384, 16, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, True, True, True, True, block_DK=64, block_DV=64, threads=256, num_stages=2)"),
    ],
    "gdn/example_chunk_o.py": [
        V("s16384_h16_dk128_dv128_b64_s2_t128",
          "tilelang_chunk_fwd_o(1, 16384, 16, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, 64, 0.088, True, "
          "block_S=64, block_DK=64, block_DV=64, threads=128, num_stages=2)"),
    ],
    "kda/chunk_delta_h_fwd.py": [
        V("s16384_h16_dk128_dv128_bdv64_s2_t256",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 16384, 16, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, True, True, True, True, block_DK=64, block_DV=64, threads=256, num_stages=2)"),
    ],
    "linear_attention/example_retention_fwd.py": [
        V("b1_s8192_h32_d128", "chunk_retention_fwd_kernel(1, 8192, 32, 128, 128)"),
    ],
    # (the sparse GQA decodes, `example_tilelang_sparse_gqa_decode_varlen_{mask,indice}.py`, are not here:
    # their shared memory grows with the cache length, 12.6 MB at 32768, so no production size launches)
    "flash_decoding/example_gqa_decode_varlen_logits.py": [
        V("b8_h32_k8_d128_q1024_kv32768_n128_s2_sink",
          "flashattn(8, 32, 8, 1024, 32768, 128, True, block_N=128, block_H=64, num_split=1, num_stages=2, threads=128)"),
    ],
    "attention_sink/example_mha_sink_fwd_bhsd.py": [
        V("q8192kv8192_d128_w4096_b128x128_s2_t256",
          "flashattn(1, 32, 8192, 8192, 128, 4096, block_M=128, block_N=128, num_stages=2, threads=256)"),
    ],
    "seer_attention/block_sparse_attn_tilelang.py": [
        V("s8192_d128_ds128_noncausal", "blocksparse_flashattn(1, 32, 8192, 8192, 128, 128, False)"),
    ],
    "deepseek_v4/fp8_fp4_gemm_1d1d_sm100.py": [
        V("m8192n8192k8192", "fp8_fp4_gemm_1d1d_persistent(8192, 8192, 8192, T.bfloat16)", archs=S100),
    ],
    "gemm_streamk/example_tilelang_gemm_streamk.py": [
        V("s3_t128_m8192", "main()", patch=[("        2,\n        64,\n    )", "        3,\n        128,\n    )", 1),
                                            ("m = 256\nn = 1024\nk = 512\n", "m = 8192\nn = 8192\nk = 8192\n", 1)]),
    ],
}


if __name__ == "__main__":
    lower_sizes.VARIANTS = LARGE
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(lower_sizes.HERE, "unseen_large")]
    sys.exit(lower_sizes.main())
