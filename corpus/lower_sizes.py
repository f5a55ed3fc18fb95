"""Lower TileLang's own examples at OTHER sizes and configs than their defaults: the sizes corpus
(corpus/field_sizes/). corpus/field/ holds each example at its own defaults; asyncguard was built alongside
those. Here the same kernels are built with other block sizes, pipeline depths, thread counts, head dims,
group sizes, causal on/off, static vs dynamic shapes, for sm_80 and sm_90a (sm_100a where the example
targets it): parameters that change what TileLang's pipeliner, warp specializer and TMA lowering emit.

Usage (one command regenerates it; one subprocess per example file and arch set, niced):
    . /work/tl-venv/bin/activate
    nice -n 15 python corpus/lower_sizes.py [--out corpus/field_sizes] [--only SUBSTR ...] [--timeout S]
        [--resume] [--manifest-only]

How a kernel is obtained: the example file (from TileLang's `examples/` at COMMIT, extracted as
corpus/lower_field.py does) is executed as a module, not as `__main__`, with the GPU stubs of
corpus/lower_field.py installed and TileLang's compile entries replaced by the same lowering (so nothing
runs on a device). VARIANTS below names, per example, what to run after that: a call of the example's own
kernel builder (or its `main`) with the variant's parameters. Where a parameter is a constant inside the
example (a hard-coded `num_stages=2`, `block_M = 128`), the variant names a literal source replacement,
which must match exactly as often as stated (so a changed example fails loudly instead of silently
lowering the default). Each variant runs with a fresh module, and every (jit function, prim_func) it
compiles is lowered for each of its archs.

Output: NAME.tir with NAME = <exampledir>__<file-stem>__<variant>__<kernel>__<arch>, MANIFEST.md,
lowering.json. Byte-identical TIR is kept once, and TIR byte-identical to a kernel of corpus/field/ is not
kept at all (recorded as `same_as_field`): this corpus holds only lowerings the field corpus lacks.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lower_field  # noqa: E402  (the field corpus's GPU stubs, kernel stand-in and example tree)
from lowering import COMMIT, keep_distinct, scratch_dir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
S80, S90, S100 = ["sm_80"], ["sm_90a"], ["sm_100a"]
BOTH = ["sm_80", "sm_90a"]


def V(tag, run, archs=BOTH, patch=(), device="meta"):
    """One variant: `run` (Python statements executed in the example's module namespace), `patch`
    ((old, new, count) literal replacements of the example's source, each matching exactly `count`
    times), the archs, and where "cuda" tensors live (meta, or cpu for examples that read tensor values)."""
    return {"tag": tag, "run": run, "archs": list(archs), "patch": [list(p) for p in patch], "device": device}


def _argv_main(args: str) -> str:
    """Run an example's argparse `main()` with these command-line arguments."""
    return "import sys\nsys.argv = " + repr(["x"] + args.split()) + "\nmain()"


def _bf16_gemm(fn: str, m: int, n: int, k: int, tail: str) -> str:
    """Call a tcgen05 GEMM builder `fn(a, b, 128, 256, 64, 64, bf16, bf16, float, <tail>)` on bf16
    tensors of M x K and K x N."""
    return (f"import torch\na = torch.randn({m}, {k}, device='cuda', dtype=torch.bfloat16)\n"
            f"b = torch.randn({k}, {n}, device='cuda', dtype=torch.bfloat16)\n"
            f"{fn}(a, b, 128, 256, 64, 64, T.bfloat16, T.bfloat16, T.float, {tail})")


def _meta(name: str, shape: tuple, dtype: str) -> str:
    """One "cuda" tensor (meta, or cpu with device="cpu") named `name`: `torch.empty(shape)` of torch.<dtype>."""
    return f"import torch\n{name} = torch.empty({tuple(shape)!r}, dtype=torch.{dtype}, device='cuda')\n"


# example file (under examples/) -> variants. Sizes are small (the lowering, not the problem size, matters)
# but large enough that every pipelined loop runs more iterations than it has stages.
def _sparse_mla_bwd(topk: int) -> str:
    """Meta tensors of sparse_mla_bwd(): q, kv, o, do, indices (`topk` per token), lse, delta,
    offsets, token indices, dkv (S = 256 tokens, 64 heads, 576 = 512 + 64 dims)."""
    return (
    "import torch\nbf, i32 = torch.bfloat16, torch.int32\n"
    "q = torch.empty(256, 64, 576, dtype=bf, device='cuda')\nkv = torch.empty(256, 1, 576, dtype=bf, device='cuda')\n"
    "o = torch.empty(256, 64, 512, dtype=bf, device='cuda')\ndo = torch.empty(256, 64, 512, dtype=bf, device='cuda')\n"
    "lse = torch.empty(256, 64, dtype=torch.float32, device='cuda')\ndelta = torch.empty(256, 64, dtype=torch.float32, device='cuda')\n"
    "offs = torch.empty(3, dtype=i32, device='cuda')\ntok = torch.empty(256, 2, dtype=i32, device='cuda')\n"
    "dkv = torch.empty(256, 1, 576, dtype=torch.float32, device='cuda')\n"
    f"idx = torch.empty(256, 1, {topk}, dtype=i32, device='cuda')\n")

VARIANTS = {
    "gemm/example_gemm.py": [
        V("m512n512k512_b64x64x32", "matmul.compile(M=512, N=512, K=512, block_M=64, block_N=64, block_K=32)"),
        V("m512n512k1024_b128x256x64", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=256, block_K=64)"),
        V("s1_b128x128x32", "matmul.compile(M=512, N=512, K=512, block_M=128, block_N=128, block_K=32)",
          patch=[("num_stages=3", "num_stages=1", 1)]),
        V("s2_b128x128x64", "matmul.compile(M=512, N=512, K=512, block_M=128, block_N=128, block_K=64)",
          patch=[("num_stages=3", "num_stages=2", 1)]),
        V("s4_t256_b128x128x32", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=128, block_K=32)",
          patch=[("num_stages=3", "num_stages=4", 1), ("threads=128", "threads=256", 1)]),
    ],
    "gemm/example_gemm_persistent.py": [
        V("b64x64x32_s2_t128",
          "matmul_persistent.compile(M=1024, N=1024, K=512, block_M=64, block_N=64, block_K=32, threads=128, num_stages=2)"),
        V("b128x128x32_s3_t256",
          "matmul_persistent.compile(M=1024, N=1024, K=512, block_M=128, block_N=128, block_K=32, threads=256, num_stages=3)"),
    ],
    "gemm_splitk/example_tilelang_gemm_splitk.py": [
        V("s2_b64x64x32_k4",
          "import torch\na = torch.randn(512, 1024).cuda().half(); b = torch.randn(1024, 512).cuda().half()\n"
          "c = torch.zeros(512, 512).cuda().float()\nmatmul(a, b, c, 64, 64, 32, 4)",
          patch=[("num_stages=0", "num_stages=2", 1)]),
    ],
    "dynamic_shape/example_dynamic.py": [
        V("b64x64x32_s2_t128", "matmul_dynamic(512, 512, 512, 64, 64, 32, False, False, 'float16', 'float16', "
          "'float32', 2, 128)"),
        V("b128x256x64_s4_t256_tb", "matmul_dynamic(512, 512, 512, 128, 256, 64, False, True, 'float16', 'float16', "
          "'float32', 4, 256)"),
    ],
    "convolution/example_convolution.py": [
        V("b64x64x32_s2_t128", "main(['--n', '8', '--c', '64', '--h', '32', '--w', '32', '--f', '64', '--k', '3',"
          " '--s', '1', '--d', '1', '--p', '1'])",
          patch=[("block_n = 128\n    block_k = 32\n    num_stages = 3\n    threads = 256",
                  "block_n = 64\n    block_k = 32\n    num_stages = 2\n    threads = 128", 2)]),
    ],
    "flash_attention/example_mha_fwd_bshd.py": [
        V("d64_b64x64_s2_t128_causal", "flashattn(1, 4, 512, 64, True, block_M=64, block_N=64, num_stages=2, threads=128)"),
        V("d128_b128x64_s3_t256", "flashattn(1, 4, 512, 128, False, block_M=128, block_N=64, num_stages=3, threads=256)"),
        V("d256_b64x32_s1_t128_causal", "flashattn(1, 2, 256, 256, True, block_M=64, block_N=32, num_stages=1, threads=128)"),
    ],
    "flash_attention/example_mha_fwd_bhsd.py": [
        V("q256kv512_d64_b64x64_s2_t128_causal",
          "flashattn(1, 4, 256, 512, 64, True, block_M=64, block_N=64, num_stages=2, threads=128)"),
        V("q512kv512_d128_b128x128_s3_t256",
          "flashattn(1, 4, 512, 512, 128, False, block_M=128, block_N=128, num_stages=3, threads=256)"),
    ],
    "flash_attention/example_gqa_fwd_bshd.py": [
        V("g4_d64_b64x64_s1_t128_causal",
          "flashattn(1, 8, 512, 64, True, groups=4, block_M=64, block_N=64, num_stages=1, threads=128)"),
        V("g2_d128_b128x128_s3_t256",
          "flashattn(1, 8, 512, 128, False, groups=2, block_M=128, block_N=128, num_stages=3, threads=256)"),
    ],
    "flash_attention/example_mha_bwd_bhsd.py": [
        V("n512_d64_b64x32_s1_noncausal",
          "flashattn_bwd(1, 4, 512, 64, False, 64, 32)", patch=[("num_stages=2", "num_stages=1", 1)]),
        V("n512_d128_b64x64_s3_causal",
          "flashattn_bwd(1, 4, 512, 128, True, 64, 64)", patch=[("num_stages=2", "num_stages=3", 1)]),
        V("n256_d64_b128x64_noncausal", "flashattn_bwd(1, 4, 256, 64, False, 128, 64)"),
    ],
    "flash_attention/example_mha_bwd_bshd.py": [
        V("n512_d64_b64x64_s3_causal",
          "flashattn_bwd(1, 4, 512, 64, True, 64, 64)", patch=[("num_stages=2", "num_stages=3", 1)]),
        V("n256_d128_b64x32_noncausal", "flashattn_bwd(1, 4, 256, 128, False, 64, 32)"),
    ],
    "flash_attention/example_gqa_bwd.py": [
        V("split_g4_d64_b64x64_s1_t128_causal",
          "flashattn_bwd_split(1, 8, 512, 64, 64, True, 64, 64, threads=128, num_stages=1, groups=4)"),
        V("atomic_g2_d128_b128x64_s3_t256",
          "flashattn_bwd_atomic_add(1, 8, 512, 128, 128, False, 128, 64, threads=256, num_stages=3, groups=2)"),
    ],
    "flash_attention/example_gqa_bwd_tma_reduce.py": [
        V("atomic_g4_d64_b64x64_s1_t128_causal",
          "flashattn_bwd_atomic_add(1, 8, 512, 64, 64, True, 64, 64, threads=128, num_stages=1, groups=4)", archs=S90),
    ],
    "flash_attention/example_mha_fwd_varlen.py": [
        V("b2_h4_s512_d64_b128x64_s2_t256_causal", "main(batch=2, heads=4, seq_len=512, dim=64, causal=True)",
          patch=[("dim, causal, block_M=64, block_N=64, num_stages=1, threads=128)",
                  "dim, causal, block_M=128, block_N=64, num_stages=2, threads=256)", 1)], device="cpu"),
        # eleventh session: causal configs of the builder itself (the autotuner's space)
        V("h4_d128_b64x128_s3_t128_causal",
          "flashattn(2, 1024, 1024, 4, 128, True, block_M=64, block_N=128, num_stages=3, threads=128)"),
        V("h4_d64_b128x128_s2_t256_causal",
          "flashattn(2, 1024, 1024, 4, 64, True, block_M=128, block_N=128, num_stages=2, threads=256)"),
        V("h4_d64_b64x64_s0_t128_causal",
          "flashattn(2, 1024, 1024, 4, 64, True, block_M=64, block_N=64, num_stages=0, threads=128)"),
    ],
    "flash_attention/example_gqa_fwd_varlen.py": [
        V("b2_h8_g4_s512_d64_b64x64_s1_t128_causal", "main(2, 8, 512, 512, 64, 4, True)",
          patch=[("block_M=128, block_N=128, num_stages=2, threads=256)", "block_M=64, block_N=64, num_stages=1, threads=128)", 1)],
          device="cpu"),
        V("g2_h8_d128_b128x128_s2_t256_causal",
          "flashattn(2, 2, 1024, 1024, 8, 128, True, block_M=128, block_N=128, num_stages=2, threads=256)"),
        V("g4_h8_d64_b64x128_s3_t128_causal",
          "flashattn(2, 4, 1024, 1024, 8, 64, True, block_M=64, block_N=128, num_stages=3, threads=128)"),
    ],
    "flash_decoding/example_gqa_decode.py": [
        V("split4_n64_h64_s1_t128",
          "flashattn(1, 32, 8, 2048, 128, block_N=64, block_H=64, num_split=4, num_stages=1, threads=128)"),
        V("split1_n128_h64_s3_t128",
          "flashattn(1, 32, 8, 2048, 128, block_N=128, block_H=64, num_split=1, num_stages=3, threads=128)"),
        V("split2_n128_h64_s2_t128_d64", "flashattn(2, 32, 8, 4096, 64, block_N=128, block_H=64, num_split=2, num_stages=2, "
          "threads=128)"),
        V("split8_n64_h64_s0_t128_g16", "flashattn(1, 64, 4, 4096, 128, block_N=64, block_H=64, num_split=8, num_stages=0, "
          "threads=128)"),
    ],
    "flash_decoding/example_mha_inference.py": [
        V("q64kv2048_d64_causal", "main(1, 8, 64, 2048, 64, True)"),
        V("q128kv4096_d128_b64x64_split2_s3_noncausal", "flashattn(1, 8, 128, 4096, 128, False, 64, 64)",
          patch=[("\nnum_split = 4\n", "\nnum_split = 2\n", 1),
                 ("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=3)", 1)]),
        V("q128kv4096_d64_b128x128_split8_s1_causal", "flashattn(1, 8, 128, 4096, 64, True, 128, 128)",
          patch=[("\nnum_split = 4\n", "\nnum_split = 8\n", 1),
                 ("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=1)", 1)]),
    ],
    "deepseek_mla/example_mla_decode.py": [
        V("b4_h64_kv1024_n64_h64_split2",
          "flashattn(4, 64, 1, 1024, 512, 64, 64, 64, 2, (512 + 64) ** -0.5)"),

        # widening session: other KV pipeline depths (sm_90a: a ReduceOp layout check fails, as for the one above;
        # block_N = 32 fails a fragment layout on sm_80)
        V("b2_h128_kv2048_n64_h64_split1_s1", "flashattn(2, 128, 1, 2048, 512, 64, 64, 64, 1, (512 + 64) ** -0.5)", archs=S80,
          patch=[("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=1)", 2)]),
        V("b4_h64_kv2048_n64_h64_split4_s3", "flashattn(4, 64, 1, 2048, 512, 64, 64, 64, 4, (512 + 64) ** -0.5)", archs=S80,
          patch=[("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=3)", 2)]),
    ],
    "deepseek_mla/example_mla_decode_ws.py": [
        V("b4_h64_kv1024_n64_h64_split2",
          "flashattn(4, 64, 1, 1024, 512, 64, 64, 64, 2, (512 + 64) ** -0.5)", archs=S90),
        V("b2_h128_kv2048_split1_s3", "flashattn(2, 128, 1, 2048, 512, 64, 64, 64, 1, (512 + 64) ** -0.5)", archs=S90,
          patch=[("    num_stages = 2\n", "    num_stages = 3\n", 1)]),
        V("b4_h64_kv4096_split4_s4", "flashattn(4, 64, 1, 4096, 512, 64, 64, 64, 4, (512 + 64) ** -0.5)", archs=S90,
          patch=[("    num_stages = 2\n", "    num_stages = 4\n", 1)]),
    ],
    "deepseek_mla/example_mla_decode_paged.py": [
        V("b2_h128_kv2048_n64_h64_split1_bs128",
          "mla_decode_tilelang(2, 128, 1, 2048, 512, 64, 64, 64, 1, 128, (512 + 64) ** -0.5)"),
        V("b2_h128_kv2048_n64_h64_split4_bs64", "mla_decode_tilelang(2, 128, 1, 2048, 512, 64, 64, 64, 4, 64, (512 + 64) ** -0.5)",
          archs=S80),
        V("b2_h64_kv2048_n64_h64_split1_bs128_s1", "mla_decode_tilelang(2, 64, 1, 2048, 512, 64, 64, 64, 1, 128, (512 + 64) ** -0.5)",
          archs=S80, patch=[("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=1)", 2)]),
    ],
    "warp_specialize/example_warp_specialize_gemm_barrierpipe_stage2.py": [
        V("m512k1024_b128x128x64", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=128, block_K=64)", archs=S90),
        V("s3_m512k1024_b64x128x32", "matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=128, block_K=32)", archs=S90,
          patch=[("num_stages = 2", "num_stages = 3", 1)]),
        V("s4_m1024k2048_b128x128x64", "matmul.compile(M=1024, N=1024, K=2048, block_M=128, block_N=128, block_K=64)",
          archs=S90, patch=[("num_stages = 2", "num_stages = 4", 1)]),
        V("s3_m512k1024_b128x256x32", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=256, block_K=32)",
          archs=S90, patch=[("num_stages = 2", "num_stages = 3", 1)]),
    ],
    "warp_specialize/example_warp_specialize_gemm_softpipe_stage2.py": [
        V("s3_m512k1024_b128x128x64", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=128, block_K=64)",
          archs=S90, patch=[("num_stages=2", "num_stages=3", 1)]),
        V("s1_m512k1024_b64x64x32", "matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=64, block_K=32)",
          archs=S90, patch=[("num_stages=2", "num_stages=1", 1)]),
        V("s4_m1024k2048_b128x64x64", "matmul.compile(M=1024, N=1024, K=2048, block_M=128, block_N=64, block_K=64)",
          archs=S90, patch=[("num_stages=2", "num_stages=4", 1)]),
        V("m512k1024_b64x256x32", "matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=256, block_K=32)", archs=S90),
    ],
    "warp_specialize/example_warp_specialize_gemm_copy_1_gemm_0.py": [
        V("s3_m512k1024_b128x128x64", "matmul_warp_specialize_copy_1_gemm_0.compile(M=512, N=512, K=1024, "
          "block_M=128, block_N=128, block_K=64)", archs=S90, patch=[("num_stages=2", "num_stages=3", 1)]),
        V("s1_m512k1024_b64x128x64", "matmul_warp_specialize_copy_1_gemm_0.compile(M=512, N=512, K=1024, "
          "block_M=64, block_N=128, block_K=64)", archs=S90, patch=[("num_stages=2", "num_stages=1", 1)]),
        V("s4_m1024k2048_b128x128x32", "matmul_warp_specialize_copy_1_gemm_0.compile(M=1024, N=1024, K=2048, "
          "block_M=128, block_N=128, block_K=32)", archs=S90, patch=[("num_stages=2", "num_stages=4", 1)]),
    ],
    "warp_specialize/example_warp_specialize_gemm_copy_0_gemm_1.py": [
        V("s2_m512k1024_b128x128x32", "matmul_warp_specialize_copy_0_gemm_1.compile(M=512, N=512, K=1024, "
          "block_M=128, block_N=128, block_K=32)", archs=S90, patch=[("num_stages=0", "num_stages=2", 1)]),
        V("s3_m512k1024_b64x64x64", "matmul_warp_specialize_copy_0_gemm_1.compile(M=512, N=512, K=1024, "
          "block_M=64, block_N=64, block_K=64)", archs=S90, patch=[("num_stages=0", "num_stages=3", 1)]),
        V("m512k1024_b128x256x64", "matmul_warp_specialize_copy_0_gemm_1.compile(M=512, N=512, K=1024, "
          "block_M=128, block_N=256, block_K=64)", archs=S90),
    ],
    "warp_specialize/example_warp_specialize_gemm_copy_gemm_0_1.py": [
        V("s2_m512k1024_b128x128x32", "matmul_warp_specialize_copy_gemm_0_1.compile(M=512, N=512, K=1024, "
          "block_M=128, block_N=128, block_K=32)", archs=S90, patch=[("num_stages=0", "num_stages=2", 1)]),
        V("s3_m512k1024_b64x128x64", "matmul_warp_specialize_copy_gemm_0_1.compile(M=512, N=512, K=1024, "
          "block_M=64, block_N=128, block_K=64)", archs=S90, patch=[("num_stages=0", "num_stages=3", 1)]),
        V("m512k1024_b128x256x32", "matmul_warp_specialize_copy_gemm_0_1.compile(M=512, N=512, K=1024, "
          "block_M=128, block_N=256, block_K=32)", archs=S90),
    ],
    "warp_specialize/example_warp_specialize_flashmla.py": [
        V("h64_kv2048", "main(batch=2, heads=64, kv_heads=1, kv_ctx=2048, dim=512, pe_dim=64)", archs=S90),
        V("b4_h128_kv4096", "main(batch=4, heads=128, kv_heads=1, kv_ctx=4096, dim=512, pe_dim=64)", archs=S90),
        V("b2_h64_kv2048_d256", "flashattn(2, 64, 1, 2048, 256, 64, 64, 64, 1)", archs=S90),
    ],
    "blocksparse_attention/example_tilelang_block_sparse_attn.py": [
        V("b128x64_s2_t256_causal", "blocksparse_flashattn(1, 4, 512, 64, 8, is_causal=True)",
          patch=[("block_M = 64\n    block_N = 64\n    num_stages = 1\n    threads = 128",
                  "block_M = 128\n    block_N = 64\n    num_stages = 2\n    threads = 256", 1)]),
        V("b64x64_s3_d128_noncausal", "blocksparse_flashattn(1, 4, 512, 128, 8, is_causal=False)",
          patch=[("num_stages = 1\n    threads = 128", "num_stages = 3\n    threads = 128", 1)]),
        V("b64x64_s2_d64_causal", "blocksparse_flashattn(1, 4, 512, 64, 8, is_causal=True)",
          patch=[("num_stages = 1\n    threads = 128", "num_stages = 2\n    threads = 128", 1)]),
        V("b128x128_s3_t256_d64_noncausal", "blocksparse_flashattn(1, 4, 1024, 64, 8, is_causal=False)",
          patch=[("block_M = 64\n    block_N = 64\n    num_stages = 1\n    threads = 128",
                  "block_M = 128\n    block_N = 128\n    num_stages = 3\n    threads = 256", 1)]),
    ],
    # eleventh session: more examples with loaded lengths (windowed sink attention, block-causal
    # varlen) and one chunked linear-attention output kernel
    "attention_sink/example_gqa_sink_fwd_varlen.py": [
        V("g4_h8_d64_w128_b64x64_s2_t128_causal", "flashattn_sink(2, 4, 1024, 1024, 8, 64, True, window_size=128, "
          "block_M=64, block_N=64, num_stages=2, threads=128)"),
        V("g2_h8_d128_b128x128_s2_t256_causal", "flashattn_sink(2, 2, 1024, 1024, 8, 128, True, block_M=128, "
          "block_N=128, num_stages=2, threads=256)"),
    ],
    "block_causal_attention/block_causal_attention_varlen.py": [
        V("b2_h4_d64_dllm32_bs64_s2_t128", "_fwd_varlen_template(2, 4, 64, 32, 0.125, block_size=64, num_stages=2, threads=128)"),
        V("b2_h4_d128_dllm64_bs128_s1_t256", "_fwd_varlen_template(2, 4, 128, 64, 0.0884, block_size=128, num_stages=1, "
          "threads=256)"),
    ],
    "kda/chunk_o.py": [
        V("s256_h2_dk128_dv128_bdk64_s2_t128", "tilelang_chunk_fwd_o(1, 256, 2, 128, 128, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, 0.088, block_S=64, block_DK=64, block_DV=64, threads=128, num_stages=2)"),
        V("s256_h2_dk64_dv64_bdk32_s3_t256", "tilelang_chunk_fwd_o(1, 256, 2, 64, 64, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, 0.125, block_S=64, block_DK=32, block_DV=64, threads=256, num_stages=3)"),
        # widening session: fp16, DK = 256 split in 8 blocks with a 4-deep pipeline; an unpipelined 128-wide block
        V("s512_h2_dk256_dv64_fp16_bdk32_s4_t128", "tilelang_chunk_fwd_o(1, 512, 2, 256, 64, 'float16', 'float16', "
          "'float32', 'float32', 64, 0.0625, block_S=64, block_DK=32, block_DV=64, threads=128, num_stages=4)",
          archs=S90),   # sm_80: pipeline planning refuses the pipelined Q_shared (as for the two above)
        V("s512_h2_dk128_dv128_bdk128_bdv32_s0_t256", "tilelang_chunk_fwd_o(1, 512, 2, 128, 128, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, 0.088, block_S=64, block_DK=128, block_DV=32, threads=256, num_stages=0)"),
    ],
    # eleventh session, a last batch away from the session's changes: sparse, fp8 two-level
    # accumulation, chunked linear attention
    "gemm_sp/example_gemm_sp.py": [
        V("s3_b64x64x64_t128", "matmul_sp_fp16(512, 512, 1024, T.float, T.int16, 64, 64, 64, 3, 128, "
          "T.GemmWarpPolicy.Square, True)"),
        V("s1_b128x256x64_t256", "matmul_sp_fp16(512, 512, 1024, T.float, T.int16, 128, 256, 64, 1, 256, "
          "T.GemmWarpPolicy.Square, False)"),
        V("s2_b128x128x64_t128_fullrow", "matmul_sp_fp16(512, 512, 1024, T.float, T.int16, 128, 128, 64, 2, 128, "
          "T.GemmWarpPolicy.FullRow, True)"),
        V("s4_b64x128x128_t256_fullcol_f16acc", "matmul_sp_fp16(512, 512, 2048, T.float16, T.int16, 64, 128, 128, 4, 256, "
          "T.GemmWarpPolicy.FullCol, False)"),
    ],
    "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py": [
        V("e4m3_b64x128x128", "matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=128, block_K=128, "
          "dtype=T.float8_e4m3fn)"),
        V("e5m2_b128x64x64", "matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=64, block_K=64, "
          "dtype=T.float8_e5m2)"),
    ],
    "gdn/example_wy_fast.py": [
        V("s256_h2_dk128_dv128_s2_t128", "tilelang_recompute_w_u_fwd(1, 256, 2, 128, 128, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, block_S=64, block_DK=64, block_DV=64, threads=128, num_stages=2)"),
        V("s256_dk256_dv128_bdk32_bdv64_s3_t256", "tilelang_recompute_w_u_fwd(1, 256, 2, 256, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, 64, block_S=64, block_DK=32, block_DV=64, threads=256, num_stages=3)"),
        V("s256_dk128_dv128_fp16_bdk128_bdv32_s1_t64", "tilelang_recompute_w_u_fwd(1, 256, 2, 128, 128, T.float16, "
          "T.float16, T.float32, T.float32, 64, block_S=64, block_DK=128, block_DV=32, threads=64, num_stages=1)"),
    ],
    "linear_attention/example_retention_fwd.py": [
        V("b1_s512_h4_d64", "chunk_retention_fwd_kernel(1, 512, 4, 64, 64)"),
        # (with num_stages 2 or 3 TileLang 0.1.15 refuses the loop: "Multiple writes to overlapping
        # buffer regions ... buffer 'v'"; those variants lowered the default only while a patched
        # kernel body was ignored, see child())
    ],
    "blocksparse_attention/example_tilelang_sparse_gqa_decode_varlen_mask.py": [
        V("h32_hkv8_d128_n64_h64_s3_t128", "flashattn(2, 32, 8, 128, 128, 64, 64, 3, 128)"),
        V("h32_hkv8_d128_n32_h64_s1_t128", "flashattn(2, 32, 8, 128, 128, 32, 64, 1, 128)"),
    ],
    "blocksparse_gemm/example_blocksparse_gemm.py": [
        V("b64x64x32_s3_t128", "blocksparse_matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=64, block_K=32, "
          "num_stages=3, thread_num=128, enable_rasteration=True)"),
        V("b128x128x64_s1_t256", "blocksparse_matmul.compile(M=512, N=512, K=1024, block_M=128, block_N=128, "
          "block_K=64, num_stages=1, thread_num=256, enable_rasteration=False)"),
    ],
    "gemm_fp8/example_tilelang_gemm_fp8.py": [
        V("e4m3_b64x64x64_s2", "matmul.compile(M=512, N=512, K=1024, block_M=64, block_N=64, block_K=64, "
          "dtype=T.float8_e4m3fn)", archs=S90, patch=[("num_stages=3", "num_stages=2", 1)]),
    ],
    "flash_attention/example_gqa_fwd_bshd.py#hopper": [
        V("g8_d64_b128x64_s2_t256_causal",
          "flashattn(1, 16, 512, 64, True, groups=8, block_M=128, block_N=64, num_stages=2, threads=256)", archs=S90),
        V("g1_d128_b64x128_s4_t128",
          "flashattn(1, 4, 1024, 128, False, groups=1, block_M=64, block_N=128, num_stages=4, threads=128)", archs=S90),
    ],
    "attention_sink/example_mha_sink_bwd_bhsd.py": [
        V("n256_h2_d64_w64", "main(1, 2, 256, 64, 64)"),
    ],
    "deepseek_mla/example_mla_decode_persistent.py": [
        V("b4_h64_kv1024_n64_h64_split4", "flashattn(4, 64, 1, 1024, 512, 64, 64, 64, 4)"),
        V("b8_h128_kv2048_n64_h64_split2_s1", "flashattn(8, 128, 1, 2048, 512, 64, 64, 64, 2)", archs=S80,
          patch=[("T.Pipelined(loop_range, num_stages=2)", "T.Pipelined(loop_range, num_stages=1)", 1)]),
    ],
    "blocksparse_attention/example_tilelang_sparse_gqa_decode_varlen_indice.py": [
        V("h32_hkv8_d128_n64_h64_s1_t128", "flashattn(2, 32, 8, 128, 128, 64, 64, 1, 128)"),
        V("h32_hkv8_d128_n32_h64_s3_t128", "flashattn(2, 32, 8, 128, 128, 32, 64, 3, 128)"),
    ],
    "flash_decoding/example_gqa_decode_varlen_logits.py": [
        V("h32_k8_d128_n64_h64_s2_t128_nosink",
          "flashattn(2, 32, 8, 1024, 2048, 128, False, block_N=64, block_H=64, num_split=1, num_stages=2, threads=128)"),
        V("h32_k8_d128_n128_h64_s3_t128_sink",
          "flashattn(2, 32, 8, 1024, 2048, 128, True, block_N=128, block_H=64, num_split=1, num_stages=3, threads=128)"),
        V("h64_k4_d64_n64_h64_s1_t128_sink",
          "flashattn(2, 64, 4, 1024, 2048, 64, True, block_N=64, block_H=64, num_split=1, num_stages=1, threads=128)"),
    ],
    "gemm/example_gemm_intrinsics.py": [
        V("m512n512k1024", "tl_matmul.compile(M=512, N=512, K=1024, in_dtype=T.float16, out_dtype=T.float16, "
          "accum_dtype=T.float32)"),
    ],
    "gemm_streamk/example_tilelang_gemm_streamk.py": [
        V("s3_t128", "main()", patch=[("        2,\n        64,\n    )", "        3,\n        128,\n    )", 1)]),
    ],
    "attention_sink/example_mha_sink_fwd_bhsd.py": [
        V("q256kv512_d64_w128_b64x64_s2_t128",
          "flashattn(1, 4, 256, 512, 64, 128, block_M=64, block_N=64, num_stages=2, threads=128)"),
        V("q512kv512_d128_nowin_b128x128_s3_t256",
          "flashattn(1, 4, 512, 512, 128, None, block_M=128, block_N=128, num_stages=3, threads=256)"),
    ],
    "gdn/example_chunk_delta_h.py": [
        V("s512_dk128_dv128_bdv64_s2_t256",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 512, 2, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, True, True, True, True, block_DK=64, block_DV=64, threads=256, num_stages=2)"),
        V("s256_dk64_dv64_nog_noinit_s3_t128",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 256, 2, 64, 64, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, False, False, True, True, block_DK=64, block_DV=32, threads=128, num_stages=3)"),
        V("s1024_dk128_dv128_fp16_noinit_bdv64_s4_t256",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 1024, 2, 128, 128, T.float16, T.float16, T.float32, T.float32, "
          "T.float32, 64, True, False, True, False, block_DK=64, block_DV=64, threads=256, num_stages=4)"),
    ],
    "kda/chunk_delta_h_fwd.py": [
        V("s512_dk128_dv128_bdv64_s2_t256",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 512, 2, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, True, True, True, True, block_DK=64, block_DV=64, threads=256, num_stages=2)"),
        V("s512_dk64_dv128_fp16_nogk_noinit_bdv32_s3_t128",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 512, 2, 64, 128, T.float16, T.float16, T.float32, T.float32, "
          "T.float32, 64, False, False, False, True, block_DK=64, block_DV=32, threads=128, num_stages=3)"),
        V("s1024_dk128_dv128_bdv128_s1_t256_nosave",
          "tilelang_chunk_gated_delta_rule_fwd_h(1, 1024, 2, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, "
          "T.float32, 64, True, True, True, False, block_DK=64, block_DV=128, threads=256, num_stages=1)"),
    ],
    "gdn/example_chunk_o.py": [
        V("s512_dk128_dv128_b64_s2_t128",
          "tilelang_chunk_fwd_o(1, 512, 2, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, 64, 0.088, True, "
          "block_S=64, block_DK=64, block_DV=64, threads=128, num_stages=2)"),
        V("s512_dk256_dv128_nog_bdk64_bdv128_s3_t256",
          "tilelang_chunk_fwd_o(1, 512, 2, 256, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, 64, 0.0625, False, "
          "block_S=64, block_DK=64, block_DV=128, threads=256, num_stages=3)"),
        V("s512_dk128_dv64_fp16_bdk32_bdv32_s4_t128",
          "tilelang_chunk_fwd_o(1, 512, 2, 128, 64, T.float16, T.float16, T.float32, T.float32, 64, 0.088, True, "
          "block_S=64, block_DK=32, block_DV=32, threads=128, num_stages=4)"),
    ],
    "dequantize_gemm/example_dequant_gemm_fp4_hopper.py": [
        V("m256n256k512_b64x64x64_s3_t128",
          "matmul(256, 256, 512, T.float16, T.float16, T.float32, num_bits=4, block_M=64, block_N=64, block_K=64, "
          "num_stages=3, threads=128, split=1)", archs=S90),
        V("m256n256k1024_split2_b128x128x128_s1_t256",
          "matmul(256, 256, 1024, T.float16, T.float16, T.float32, num_bits=4, block_M=128, block_N=128, block_K=128, "
          "num_stages=1, threads=256, split=2)", archs=S90),
        V("m512n256k1024_b64x128x256_s2_t128",
          "matmul(512, 256, 1024, T.float16, T.float16, T.float32, num_bits=4, block_M=64, block_N=128, block_K=256, "
          "num_stages=2, threads=128, split=1)", archs=S90),
    ],
    "deepseek_v32/sparse_mla_fwd_pipelined.py": [
        V("s256_skv1024_h64_topk512",
          "import torch\nq = torch.randn(1, 256, 64, 576, dtype=torch.bfloat16, device='cuda')\n"
          "kv = torch.randn(1, 1024, 1, 576, dtype=torch.bfloat16, device='cuda')\n"
          "idx = torch.zeros(1, 256, 1, 512, dtype=torch.int32, device='cuda')\n"
          "sparse_mla_fwd(q, kv, idx, 1024, 64, 512, 64, 512, 1)", archs=S90),
    ],
    "gemm_tcgen05/gemm_tcgen5mma.py": [
        V("m1024n1024k1024_b128x256x64_s2", "",
          patch=[("M, N, K = 4096, 4096, 8192\nblock_M, block_N, block_K = 128, 128, 128",
                  "M, N, K = 1024, 1024, 1024\nblock_M, block_N, block_K = 128, 256, 64", 1),
                 ("num_stages = 0 if block_N >= 256 or block_M >= 256 or block_K >= 256 else 2", "num_stages = 2", 1)],
          archs=S100),
        V("m1024n1024k1024_b128x128x64_s4_t128", "",
          patch=[("M, N, K = 4096, 4096, 8192\nblock_M, block_N, block_K = 128, 128, 128",
                  "M, N, K = 1024, 1024, 1024\nblock_M, block_N, block_K = 128, 128, 64", 1),
                 ("num_stages = 0 if block_N >= 256 or block_M >= 256 or block_K >= 256 else 2", "num_stages = 4", 1),
                 ("threads = 256", "threads = 128", 1)],
          archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws.py": [
        V("1cta_b128x128x64_s3", "import sys\nsys.argv = ['x', '--m', '1024', '--n', '1024', '--k', '1024', '--block_N', "
          "'128', '--num_stages', '3', '--no-enable_2cta_tcgen5mma']\nmain()", archs=S100),
        V("2cta_b128x256x64_s4_notmastore", "import sys\nsys.argv = ['x', '--m', '1024', '--n', '1024', '--k', '1024', "
          "'--num_stages', '4', '--no-use_tma_store']\nmain()", archs=S100),
    ],
    # seventeenth session: the persistent 2-CTA, stream-K, cluster-launch-control, block-scaled and
    # fp8 x fp4 sm_100a GEMMs, each at sizes and depths other than the field corpus's one config
    "gemm_tcgen05/gemm_tcgen5mma_ws_persistent.py": [
        V("1cta_b128x128x64_s3_g4", _argv_main("--m 2048 --n 2048 --k 1024 --block_N 128 --num_stages 3 --group_size 4 "
                                               "--no-enable_2cta_tcgen5mma"), archs=S100),
        V("2cta_m2048n4096k1024_s4", _argv_main("--m 2048 --n 4096 --k 1024 --num_stages 4"), archs=S100),
        V("2cta_m4096n2048k2048_s6_notmastore_g4", _argv_main("--m 4096 --n 2048 --k 2048 --group_size 4 "
                                                              "--no-use_tma_store"), archs=S100),
        V("2cta_bk128_s3_sbn128", _argv_main("--m 2048 --n 4096 --k 2048 --block_K 128 --num_stages 3 "
                                             "--store_block_N 128"), archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws_persistent_streamk.py": [
        V("m2048n2048k4096_s4", _argv_main("--m 2048 --n 2048 --k 4096 --num_stages 4"), archs=S100),
        V("m4096n4096k2048_notmastore", _argv_main("--m 4096 --n 4096 --k 2048 --no-use_tma_store"), archs=S100),
    ],
    "gemm_tcgen05/gemm_tcgen5mma_ws_clc.py": [
        V("m2048n2048k1024_s4_g4", _bf16_gemm("gemm_clc_persistent_2cta", 2048, 2048, 1024, "4, 4, True"), archs=S100),
        V("pipelined_clc3_m2048n4096k1024",
          _bf16_gemm("gemm_clc_persistent_2cta_pipelined_clc", 2048, 4096, 1024, "6, 3, 8, True"), archs=S100),
        V("pipelined_clc2_notmastore",
          _bf16_gemm("gemm_clc_persistent_2cta_pipelined_clc", 2048, 2048, 1024, "4, 2, 4, False"), archs=S100),
    ],
    "aws/gemm.py": [   # the warp-specialized `gemm_ws` kernel is not in the field corpus at all
        V("ws_m2048n2048k2048", "main(kernel='gemm_ws', M=2048, N=2048, K=2048)", archs=S100),
        V("ws_bn128_s6_p2_m4096n2048k1024", "main(kernel='gemm_ws', M=4096, N=2048, K=1024, block_N=128, num_stages=6, "
          "num_persistent_stages=2)", archs=S100),
        V("s3_p1_m2048n4096k1024", "main(kernel='gemm', M=2048, N=4096, K=1024, num_stages=3, num_persistent_stages=1)",
          archs=S100),
    ],
    "deepseek_deepgemm/example_deepgemm_fp8_2xAcc.py": [
        V(f"m1024n1024k4096_bn{bn}_{out}", f"tl_gemm.get_kernel_source(M=1024, N=1024, K=4096, block_N={bn}, "
          f"in_dtype=T.float8_e4m3fn, out_dtype=T.{out}, accum_dtype=T.float32)", archs=S90)
        for bn, out in ((64, "float32"), (32, "bfloat16"))
    ],
    "grouped_gemm/example_grouped_gemm_fwd.py": [
        V("b64_192_k1024_m512_b64x128x64_s3_t256", "run_tilelang_grouped_gemm([64, 192], 1024, 512, 64, 128, 64, False, 3, 256)",
          device="cpu"),
        V("b128x3_k512_m256_b128x128x32_s2_t128_transb", "run_tilelang_grouped_gemm([128, 128, 128], 512, 256, 128, 128, 32, "
          "True, 2, 128)", device="cpu"),
    ],
    "deepseek_nsa/example_tilelang_nsa_fwd.py": [
        V(tag, "native_sparse_attention.get_kernel_source(batch=1, heads=16, seq_len=256, " + args + ")")
        for tag, args in (
            ("s256_d64_bs64_sel4_causal", "dim=64, is_causal=True, block_size=64, groups=16, selected_blocks=4, scale=0.1"),
            ("s256_d128_bs32_sel8_noncausal", "dim=128, is_causal=False, block_size=32, groups=16, selected_blocks=8, scale=0.1"))
    ],
    "blockscaled_gemm_sm100/gemm_mxfp8_blockscaled_1d1d.py": [
        V(tag, "import torch\nM, N, K = %d, %d, %d\n" % size +
          "a = torch.empty(M, K, device='cuda', dtype=torch.float8_e4m3fn)\n"
          "b = torch.empty(K, N, device='cuda', dtype=torch.float8_e4m3fn)\n"
          "g = (K // 128 + 3) // 4\n"
          "sfa = torch.empty(g * M, device='cuda', dtype=torch.uint32)\n"
          "sfb = torch.empty(g * N, device='cuda', dtype=torch.uint32)\n"
          + call + "(a, b, sfa, sfb, 128, 256, 128, T.float8_e4m3fn, T.bfloat16, T.float, %d)" % stages,
          archs=S100)
        for tag, size, call, stages in (
            ("1cta_m1024n1024k2048_s4", (1024, 1024, 2048), "mxfp8_blockscaled_gemm", 4),
            ("2cta_m1024n2048k2048_s6", (1024, 2048, 2048), "mxfp8_blockscaled_gemm_2cta", 6),
            ("2cta_persistent_m1024n8192k1024_s4", (1024, 8192, 1024), "mxfp8_blockscaled_gemm_2cta_persistent", 4))
    ],
    "seer_attention/block_sparse_attn_tilelang.py": [
        V("s512_d64_causal_s2", "blocksparse_flashattn(1, 2, 512, 512, 64, 8, True)",
          patch=[("    num_stages = 1\n", "    num_stages = 2\n", 1)]),
        V("q256_kv512_d128_noncausal", "blocksparse_flashattn(1, 2, 256, 512, 128, 8, False)"),
    ],
    "deepseek_mhc/example_mhc_post.py": [
        V("n64_h1536", "test(n=64, h=1536)"),
    ],
    "deepseek_mhc/example_mhc_pre.py": [
        V("n64_h2048_hc4", "test(64, 2048, 4)"),
        V("n32_h1024_hc2", "test(32, 1024, 2)"),
    ],
    # the fused MoE example reads routing tensors (bincount) before compiling, so corpus/field/ has
    # none of it; its two kernels are compiled here as its custom_kernel() does, at other sizes
    "fusedmoe/example_fusedmoe_tilelang.py": [
        V("shared_b64_s2_t128", "moe_forward_tilelang_shared.compile(dhidden=512, dexpert=256, num_tokens=256, "
                                "dtype=T.float16, block_token=64, block_dhidden=64, block_dexpert=64, threads=128, "
                                "num_stages=2)"),
        V("routed_b128_s1_t256", "moe_forward_tilelang_routed.compile(dhidden=512, dexpert=256, n_routed_experts=8, "
                                 "dtype=T.float16, group_sum=1024, group_count=8, block_token=128, "
                                 "block_dhidden=128, block_dexpert=128, threads=256, num_stages=1)"),
        V("routed_b64_s3_t128", "moe_forward_tilelang_routed.compile(dhidden=512, dexpert=256, n_routed_experts=4, "
                                "dtype=T.float16, group_sum=512, group_count=4, block_token=64, "
                                "block_dhidden=64, block_dexpert=64, threads=128, num_stages=3)"),
    ],
    # the example runs sparse_mla_fwd first (a symbolic output shape stops the field lowering
    # there), so corpus/field/ has none of its backward kernels: called here as sparse_mla_bwd()
    # calls them, on meta tensors (S = 256 tokens, 2 sequences)
    "dsa_sparse_finetune/sparse_mla_bwd.py": [
        V("bwd_h64_topk128", _sparse_mla_bwd(128) + "bwd(q, kv, do, idx, lse, delta, offs, tok, 64, 512, 64, 128, 1, None, True)"),
        V("bwd_topk256", _sparse_mla_bwd(256) + "bwd(q, kv, do, idx, lse, delta, offs, tok, 64, 512, 64, 256, "
                                                        "1, None, True)"),
        V("pre", _sparse_mla_bwd(128) + "preprocess(o, do)"),
        V("post", _sparse_mla_bwd(128) + "postprocess(dkv, 512, 64, 1)"),
    ],
    "deepseek_v4/fp8_fp4_gemm_1d1d_sm100.py": [
        V("m512n8192k2048", "fp8_fp4_gemm_1d1d_persistent(512, 8192, 2048, T.bfloat16)", archs=S100),
        V("m256n8192k512", "fp8_fp4_gemm_1d1d_persistent(256, 8192, 512, T.bfloat16)", archs=S100),
    ],
    "flash_attention_sm100/mha_fwd_bshd.py": [
        V("ts_d128_causal", "flashattn(1, 4, 512, 128, True, block_M=128, block_N=128, variant='ts')", archs=S100),
        V("ss_d64_b128x64", "flashattn(1, 4, 512, 64, False, block_M=128, block_N=64, variant='ss')", archs=S100),
        V("wasp_d128_s3_causal", "flashattn_wasp(1, 4, 512, 128, True, num_stages=3)", archs=S100),
        V("ts_d64_b128x64_noncausal", "flashattn(1, 4, 512, 64, False, block_M=128, block_N=64, variant='ts')",
          archs=S100),
        V("wasp_d64_s1_noncausal", "flashattn_wasp(1, 4, 512, 64, False, num_stages=1)", archs=S100),
    ],
    "flash_attention_sm100/gqa_fwd_bshd.py": [
        V("g4_ss_d128_causal", "flashattn(1, 8, 512, 128, True, groups=4, block_M=128, block_N=128, variant='ss')",
          archs=S100),
        V("g2_wasp_d128_s1", "flashattn_wasp(1, 8, 512, 128, False, groups=2, num_stages=1)", archs=S100),
        V("g2_ts_d128_noncausal", "flashattn(1, 8, 512, 128, False, groups=2, block_M=128, block_N=128, variant='ts')",
          archs=S100),
    ],
    # widening session: the rest of the KDA chunked kernels at block sizes, depths and thread counts other
    # than the field corpus's (the builders' own autotuning spaces)
    "kda/wy_fast.py": [
        V("s256_dk128_dv128_kg_bdk32_bdv64_s2_t128", "tilelang_recompute_w_u_fwd(1, 256, 2, 128, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, 64, False, True, block_S=64, block_DK=32, block_DV=64, threads=128, num_stages=2)"),
        V("s256_dk256_dv128_qgkg_bdk64_bdv32_s4_t256", "tilelang_recompute_w_u_fwd(1, 256, 2, 256, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, 64, True, True, block_S=64, block_DK=64, block_DV=32, threads=256, num_stages=4)"),
        V("s256_dk128_dv128_nogate_bdk64_bdv64_s1_t64", "tilelang_recompute_w_u_fwd(1, 256, 2, 128, 128, T.float16, "
          "T.float16, T.float32, T.float32, 64, False, False, block_S=64, block_DK=64, block_DV=64, threads=64, num_stages=1)"),
    ],
    "kda/chunk_bwd_dv.py": [
        V("s512_dv256_bdv64_s3_t128", "tilelang_chunk_bwd_kernel_dv_local(1, 512, 2, 256, 'bfloat16', 'bfloat16', "
          "'float32', 64, block_DV=64, threads=128, num_stages=3)"),
        V("s512_dv128_bf16do_bdv32_s2_t64", "tilelang_chunk_bwd_kernel_dv_local(1, 512, 2, 128, 'bfloat16', 'bfloat16', "
          "'bfloat16', 64, block_DV=32, threads=64, num_stages=2)"),
    ],
    "kda/chunk_bwd_gla_dA.py": [
        V("s512_dv256_bdv64_s2_t256", "tilelang_chunk_bwd_kernel_dv_local(1, 512, 2, 256, 1.0, 'bfloat16', 'float32', "
          "'bfloat16', 64, block_DV=64, threads=256, num_stages=2)"),
        V("s512_dv128_bdv32_s4_t64", "tilelang_chunk_bwd_kernel_dv_local(1, 512, 2, 128, 1.0, 'bfloat16', 'float32', "
          "'bfloat16', 64, block_DV=32, threads=64, num_stages=4)"),
    ],
    "kda/chunk_delta_bwd.py": [
        V("s512_dk128_dv128_bdv32_s2_t128", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 128, 128, 'bfloat16', "
          "'bfloat16', 'float32', 'float32', 'float32', 64, 128 ** -0.5, True, True, True, block_DV=32, threads=128, "
          "num_stages=2)", archs=S90),   # sm_80: pipeline planning refuses dv_shared when pipelined
        V("s512_dk64_dv128_nogk_nofinal_bdv64_s3_t256", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 64, 128, "
          "'bfloat16', 'bfloat16', 'float32', 'float32', 'float32', 64, 0.125, False, True, False, block_DV=64, "
          "threads=256, num_stages=3)", archs=S90),
        V("s512_dk128_dv64_bdv32_s0_t128", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 128, 64, 'bfloat16', "
          "'bfloat16', 'float32', 'float32', 'float32', 64, 128 ** -0.5, True, False, True, block_DV=32, threads=128, "
          "num_stages=0)"),
    ],
    "kda/wy_fast_bwd.py": [
        V("s256_dk128_dv128_bdk32_bdv32_s2_t128", "tilelang_wy_fast_bwd(1, 256, 2, 128, 128, T.float32, T.float32, "
          "T.float32, T.float32, T.float32, 64, block_DK=32, block_DV=32, threads=128, num_stages=2)"),
        V("s256_dk128_dv256_bdk64_bdv64_s3_t256", "tilelang_wy_fast_bwd(1, 256, 2, 128, 256, T.float32, T.float32, "
          "T.float32, T.float32, T.float32, 64, block_DK=64, block_DV=64, threads=256, num_stages=3)"),
    ],
    "kda/chunk_bwd_dqkwg.py": [
        V("s512_dk128_dv128_bdk64_bdv32_s2_t128", "chunk_bwd_dqkwg(1, 512, 2, 128, 128, 1.0, 64, T.float32, T.float32, "
          "block_DK=64, block_DV=32, threads=128, num_stages=2)"),
        V("s512_dk128_dv256_bdk32_bdv64_s3_t256", "chunk_bwd_dqkwg(1, 512, 2, 128, 256, 1.0, 64, T.float32, T.float32, "
          "block_DK=32, block_DV=64, threads=256, num_stages=3)"),
    ],
    "kda/chunk_bwd_intra.py": [
        V("s512_dk128_bdk32_s2_t128", "tilelang_chunk_bwd_intra(1, 512, 2, 128, T.float32, T.float32, T.float32, "
          "T.float32, T.float32, 64, block_DK=32, threads=128, num_stages=2)"),
        V("s512_dk64_bdk64_s1_t256", "tilelang_chunk_bwd_intra(1, 512, 2, 64, T.float32, T.float32, T.float32, "
          "T.float32, T.float32, 64, block_DK=64, threads=256, num_stages=1)"),
    ],
    "kda/chunk_intra_token_parallel.py": [
        V("s256_h8_dk128_bh4_s2_t128", "tilelang_chunk_kda_fwd_intra_token_parallel(1, 256, 8, 128, 'bfloat16', "
          "'bfloat16', 'float32', 'float32', 64, 16, block_H=4, threads=128, num_stages=2)"),
        V("s256_h8_dk64_bh2_s0_t256", "tilelang_chunk_kda_fwd_intra_token_parallel(1, 256, 8, 64, 'bfloat16', "
          "'bfloat16', 'float32', 'float32', 64, 16, block_H=2, threads=256, num_stages=0)"),
    ],
    # not in the field corpus: pipeline planning refuses it when pipelined (a_00_shared), so unpipelined;
    # its 16 x 16 sub-chunk GEMMs take at most 64 threads
    "kda/chunk_inter_solve_fused.py": [
        V("s256_dk128_bdk32_s0_t32", "tilelang_chunk_kda_fwd_inter_fused(1, 256, 2, 128, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, 16, 0.088, block_DK=32, threads=32, num_stages=0)"),
        V("s256_dk64_bdk64_s0_t64", "tilelang_chunk_kda_fwd_inter_fused(1, 256, 2, 64, 'bfloat16', 'bfloat16', "
          "'float32', 'float32', 64, 16, 0.125, block_DK=64, threads=64, num_stages=0)"),
    ],
    # widening session: the GDN kernels the sizes corpus had none of
    "gdn/example_chunk_scaled_dot_kkt.py": [
        V("s512_dk256_g_bdk32_s4_t128", "tilelang_chunk_scaled_dot_kkt_fwd(1, 512, 2, 256, 64, T.bfloat16, T.bfloat16, "
          "T.float32, True, block_S=64, block_DK=32, threads=128, num_stages=4)"),
        V("s512_dk128_fp16_nog_bdk64_s1_t256", "tilelang_chunk_scaled_dot_kkt_fwd(1, 512, 2, 128, 64, T.float16, "
          "T.float32, T.float32, False, block_S=64, block_DK=64, threads=256, num_stages=1)"),
    ],
    "gdn/example_chunk_delta_bwd.py": [   # sm_80: pipeline planning refuses it when pipelined (as in corpus/field/)
        V("s512_dk128_dv128_bdv64_s2_t256", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 128, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, 128 ** -0.5, True, True, True, block_DV=64, threads=256, "
          "num_stages=2)", archs=S90),
        V("s512_dk128_dv64_nog_bdv32_s3_t128", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 128, 64, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, 128 ** -0.5, False, True, False, block_DV=32, threads=128, "
          "num_stages=3)", archs=S90),
        V("s512_dk64_dv128_bdv32_s0_t128", "tilelang_chunk_gated_delta_rule_bwd_dhu(1, 512, 2, 64, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, 0.125, True, False, True, block_DV=32, threads=128, "
          "num_stages=0)"),
    ],
    "gdn/example_wy_fast_bwd_split.py": [   # sm_80: a reduce layout check fails (as in corpus/field/)
        V("bwd_s256_dk128_dv128_bdk64_bdv32_s2_t128", "tilelang_wy_fast_bwd(1, 256, 2, 128, 128, T.bfloat16, T.bfloat16, "
          "T.float32, T.float32, T.float32, 64, block_DK=64, block_DV=32, threads=128, num_stages=2)", archs=S90),
        V("split_s256_dk128_dv128_bdk64_bdv64_s2_t256", "tilelang_wy_fast_bwd_split(1, 256, 2, 128, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, block_DK=64, block_DV=64, threads=256, num_stages=2)",
          archs=S90),
    ],
    "gdn/example_chunk_o_bwd.py": [   # not in the field corpus (a reduce layout check fails at its defaults,
        # block_DK = 64; block_DK = 128 lowers; use_g=False and use_dw=False each failed with a script error)
        V("s256_dk128_dv128_bdk128_bdv64_s2_t128", "tilelang_chunk_o_bwd_dqkwg(1, 256, 2, 128, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, 128 ** -0.5, True, True, block_DK=128, block_DV=64, "
          "threads=128, num_stages=2)"),
        V("s256_dk128_dv128_g_bdk128_bdv32_s3_t256", "tilelang_chunk_o_bwd_dqkwg(1, 256, 2, 128, 128, T.bfloat16, "
          "T.bfloat16, T.float32, T.float32, T.float32, 64, 128 ** -0.5, True, True, block_DK=128, block_DV=32, "
          "threads=256, num_stages=3)"),
    ],
    "gdn/example_cumsum.py": [
        V("s512_h4_c32_headfirst_fwd_frag_t64", "tilelang_chunk_local_cumsum_scalar(1, 512, 4, 32, False, True, False, "
          "T.float16, T.float32, block_S=32, threads=64, use_fragment=True)"),
    ],
    # widening session: the weight-dequantizing GEMMs at tiles and depths of their autotuning spaces
    "dequantize_gemm/example_dequant_gemm_bf16_fp4_hopper.py": [
        V("m256n256k1024_twiddle_b128x128x128_s0_t128", "matmul(256, 256, 1024, T.bfloat16, T.bfloat16, T.float32, "
          "num_bits=4, fast_dequant=True, block_M=128, block_N=128, block_K=128, num_stages=0, threads=128, split=1)",
          archs=S90),
        V("m256n512k1024_simple_b64x256x128_s2_t512", "matmul(256, 512, 1024, T.bfloat16, T.bfloat16, T.float32, "
          "num_bits=4, fast_dequant=False, block_M=64, block_N=256, block_K=128, num_stages=2, threads=512, split=1)",
          archs=S90),
    ],
    "dequantize_gemm/example_dequant_gemm_bf16_mxfp4_hopper.py": [
        V("m256n256k1024_twiddle_bias_b128x128x128_s2_t256", "matmul(256, 256, 1024, T.bfloat16, T.bfloat16, T.float32, "
          "num_bits=4, scale_size=32, fast_dequant=True, with_bias=True, block_M=128, block_N=128, block_K=128, "
          "num_stages=2, threads=256, split=1)", archs=S90),
        V("m256n512k1024_simple_b64x128x64_s0_t128", "matmul(256, 512, 1024, T.bfloat16, T.bfloat16, T.float32, "
          "num_bits=4, scale_size=32, fast_dequant=False, with_bias=False, block_M=64, block_N=128, block_K=64, "
          "num_stages=0, threads=128, split=1)", archs=S90),
    ],
    "dequantize_gemm/example_dequant_gemm_fine_grained.py": [
        V("fp16_m512n512k1024_b64x64x64_s2_t128", "matmul(512, 512, 1024, 64, 64, 64, T.float16, T.float16, T.float32, 2, 128)"),
        V("int8_m512n512k1024_b128x128x64_s4_t256", "matmul(512, 512, 1024, 128, 128, 64, T.int8, T.int32, T.int32, 4, 256)"),
    ],
    "dequantize_gemm/example_dequant_gemm_w4a8.py": [
        V("m512n512k1024_b64x64x128_s2_t128", "matmul_int8xint4(512, 512, 1024, T.int8, T.int32, T.int32, num_bits=4, "
          "block_M=64, block_N=64, block_K=128, num_stages=2, threads=128)"),
        V("m512n512k2048_b128x128x256_s3_t256", "matmul_int8xint4(512, 512, 2048, T.int8, T.int32, T.int32, num_bits=4, "
          "block_M=128, block_N=128, block_K=256, num_stages=3, threads=256)"),
    ],
    # widening session: the fused chunked linear attention (not in corpus/field/: its inputs pass through a
    # stand-in l2norm there) and the Mamba-2 chunk kernels, at other tiles and depths
    "linear_attention/example_linear_attn_fwd.py": [
        V("b1_s512_h4_d128", "tl_fused_chunk_fwd_kernel(1, 512, 4, 128, 128)"),
        V("b1_s512_h4_d128_bk128_s2", "tl_fused_chunk_fwd_kernel(1, 512, 4, 128, 128)",
          patch=[("BK = BV = 64", "BK = BV = 128", 1), ("T.Pipelined(0, NT)", "T.Pipelined(0, NT, num_stages=2)", 1)]),
        V("b2_s1024_h4_d64_s3_t256", "tl_fused_chunk_fwd_kernel(2, 1024, 4, 64, 64)",
          patch=[("T.Pipelined(0, NT)", "T.Pipelined(0, NT, num_stages=3)", 1),
                 ("with T.Kernel(NV, NK, B * H) as", "with T.Kernel(NV, NK, B * H, threads=256) as", 1)]),
    ],
    "linear_attention/example_linear_attn_bwd.py": [
        V("b1_s512_h4_d128", "tl_fused_chunk_bwd_kernel(1, 512, 4, 128, 128)"),
        V("b1_s512_h4_d64_s2_t256", "tl_fused_chunk_bwd_kernel(1, 512, 4, 64, 64)",
          patch=[("T.Pipelined(0, NT)", "T.Pipelined(0, NT, num_stages=2)", 1),
                 ("T.Pipelined(1, NT + 1)", "T.Pipelined(1, NT + 1, num_stages=2)", 1),
                 ("with T.Kernel(NV, NK, B * H) as", "with T.Kernel(NV, NK, B * H, threads=256) as", 1)],
          archs=S80),   # (sm_90a: TileLang 0.1.15 fails with a layout conflict at 2 stages)
    ],
    "linear_attention/example_mamba_chunk_scan.py": [
        V("b2_s1024_c128_h8_d64_b128x32x64_s3_t128", "chunk_scan_fwd.compile(batch=2, seqlen=1024, chunk_size=128, "
          "ngroups=1, nheads=8, headdim=64, dstate=128, block_M=128, block_N=32, block_K=64, block_Dstate=128, "
          "num_stages=3, threads=128)"),
        V("b2_s1024_c256_h8_d128_b64x64x128_s4_t256", "chunk_scan_fwd.compile(batch=2, seqlen=1024, chunk_size=256, "
          "ngroups=2, nheads=8, headdim=128, dstate=128, block_M=64, block_N=64, block_K=128, block_Dstate=128, "
          "num_stages=4, threads=256)"),
    ],
    "linear_attention/example_mamba_chunk_state.py": [
        V("b2_s1024_c256_h8_d128_b128x64x32_s3_t128", "chunk_state_fwd.compile(batch=2, seqlen=1024, chunk_size=256, "
          "ngroups=1, nheads=8, headdim=128, dstate=128, block_M=128, block_N=64, block_K=32, num_stages=3, threads=128)"),
        V("b2_s1024_c128_h8_d64_b64x32x64_s1_t256", "chunk_state_fwd.compile(batch=2, seqlen=1024, chunk_size=128, "
          "ngroups=2, nheads=8, headdim=64, dstate=64, block_M=64, block_N=32, block_K=64, num_stages=1, threads=256)"),
    ],
    # nineteenth session (widening the examples with few configs): convolution, stream-K, split-K, fp8 GEMMs,
    # block-sparse GEMM, DeepSeek-V4 quantizers, hisa, DeepGEMM, aws, gemv, elementwise, norms, softmax, top-k,
    # quickstart, casts, DeepSeek-V3.2 indexer / sparse MLA, grouped GEMMs, dynamic shapes, MInference
    "convolution/example_convolution.py#widen": [
        V(tag, _meta("a", (8, 32, 32, 64), "float16") + _meta("b", (k, k, 64, f), "float16")
          + f"convolution(a, b, {s}, {d}, {p}, {bm}, {bn}, {bk}, {st}, {th})")
        for tag, k, f, s, d, p, bm, bn, bk, st, th in (
            ("k3_f128_b128x128x32_s3_t256", 3, 128, 1, 1, 1, 128, 128, 32, 3, 256),
            ("k3s2_f128_b64x128x64_s4_t128", 3, 128, 2, 1, 1, 64, 128, 64, 4, 128),
            ("k1_f64_b128x64x32_s1_t128", 1, 64, 1, 1, 0, 128, 64, 32, 1, 128),
            ("k3d2p2_f64_b64x64x32_s2_t128", 3, 64, 1, 2, 2, 64, 64, 32, 2, 128),
            ("k3_f256_b256x128x32_s2_t256", 3, 256, 1, 1, 1, 256, 128, 32, 2, 256))
    ],
    "gemm_streamk/example_tilelang_gemm_streamk.py#widen": [
        V(tag, "main()", patch=[("m = 256\nn = 1024\nk = 512\n", f"m = {m}\nn = {n}\nk = {k}\n", 1),
                                ("BLOCK_SIZE_M = 16\nBLOCK_SIZE_N = 128\nBLOCK_SIZE_K = 32\n",
                                 f"BLOCK_SIZE_M = {bm}\nBLOCK_SIZE_N = {bn}\nBLOCK_SIZE_K = {bk}\n", 1),
                                ("        2,\n        64,\n    )", f"        {st},\n        {th},\n    )", 1)],
          archs=S80)   # sm_90a: ProducerConsumerWS fails to replace the pipeline loop, at these configs as at the default
        for tag, m, n, k, bm, bn, bk, st, th in (
            ("m512n512k1024_b64x64x32_s2_t128", 512, 512, 1024, 64, 64, 32, 2, 128),
            ("m256n1024k512_b128x128x32_s3_t256", 256, 1024, 512, 128, 128, 32, 3, 256),
            ("m256n512k2048_b32x128x64_s1_t128", 256, 512, 2048, 32, 128, 64, 1, 128))
    ],
    "gemm_splitk/example_tilelang_gemm_splitk.py#widen": [
        V(tag, _meta("a", (512, 1024), dt) + _meta("b", (1024, 512), dt) + _meta("c", (512, 512), "float32")
          + f"matmul(a, b, c, {bm}, {bn}, {bk}, {sk}, dtype=T.{dt})",
          patch=[("num_stages=0", f"num_stages={st}", 1)]
                                + ([("threads=128", f"threads={th}", 1)] if th != 128 else []))
        for tag, dt, bm, bn, bk, sk, st, th in (
            ("s3_b128x128x32_k4", "float16", 128, 128, 32, 4, 3, 128),
            ("s0_b64x128x64_k8_t256", "float16", 64, 128, 64, 8, 0, 256),
            ("s1_b128x64x32_k2", "float16", 128, 64, 32, 2, 1, 128),
            ("bf16_s2_b128x128x64_k4_t256", "bfloat16", 128, 128, 64, 4, 2, 256))
    ],
    "gemm_splitk/example_tilelang_gemm_splitk_vectorize_atomicadd.py#widen": [
        V(tag, _meta("a", (512, 1024), "float16") + _meta("b", (1024, 512), "float16")
          + _meta("c", (512, 512), "float32") + f"matmul(a, b, c, {bm}, {bn}, {bk}, {sk})",
          patch=[("num_stages=0", f"num_stages={st}", 1)]
                                + ([("threads=128", f"threads={th}", 1)] if th != 128 else []))
        for tag, bm, bn, bk, sk, st, th in (
            ("s2_b64x64x32_k4", 64, 64, 32, 4, 2, 128),
            ("s3_b128x128x32_k8_t256", 128, 128, 32, 8, 3, 256))
    ],
    "gemm_fp8/example_tilelang_gemm_fp8.py#widen": [
        V(tag, f"matmul.compile(M=512, N=512, K=1024, block_M={bm}, block_N={bn}, block_K={bk}, dtype=T.{dt})",
          archs=S90, patch=[("num_stages=3", f"num_stages={st}", 1)]
                                           + ([("threads=128", f"threads={th}", 1)] if th != 128 else []))
        for tag, dt, bm, bn, bk, st, th in (
            ("e5m2_b128x128x128_s3", "float8_e5m2", 128, 128, 128, 3, 128),
            ("e4m3_b128x256x64_s4_t256", "float8_e4m3fn", 128, 256, 64, 4, 256),
            ("e4m3_b64x128x128_s1", "float8_e4m3fn", 64, 128, 128, 1, 128))
    ],
    "gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py#widen": [
        V("e4m3_b128x128x128_s4", "matmul.compile(M=512, N=512, K=2048, block_M=128, block_N=128, block_K=128, "
          "dtype=T.float8_e4m3fn)", archs=S90, patch=[("num_stages=3", "num_stages=4", 1)]),
        V("e5m2_b64x64x256_s2_t256", "matmul.compile(M=512, N=512, K=2048, block_M=64, block_N=64, block_K=256, "
          "dtype=T.float8_e5m2)", archs=S90,
          patch=[("num_stages=3", "num_stages=2", 1), ("threads=128", "threads=256", 1)]),
    ],
    "blocksparse_gemm/example_blocksparse_gemm.py#widen": [
        V(tag, f"blocksparse_matmul.compile(M=512, N=512, K=1024, block_M={bm}, block_N={bn}, block_K={bk}, "
          f"num_stages={st}, thread_num={th}, enable_rasteration={r})")
        for tag, bm, bn, bk, st, th, r in (
            ("b256x128x32_s2_t256", 256, 128, 32, 2, 256, True),
            ("b64x256x64_s3_t256_norast", 64, 256, 64, 3, 256, False),
            ("b128x64x32_s1_t128", 128, 64, 32, 1, 128, True),
            ("b128x128x64_s3_t128", 128, 128, 64, 3, 128, True))
    ],
    "deepseek_v4/act_quant.py#widen": [
        V("fp8_round_bs128", _meta("x", (256, 1024), "bfloat16") + "fp8_quant_kernel(x, block_size=128, round_scale=True)"),
        V("fp8_noround_bs64", _meta("x", (256, 1024), "bfloat16") + "fp8_quant_kernel(x, block_size=64, round_scale=False)"),
        V("fp4_bs32", _meta("x", (256, 1024), "bfloat16") + "fp4_quant_kernel(x, block_size=32)"),
        V("fp4_bs64", _meta("x", (256, 1024), "bfloat16") + "fp4_quant_kernel(x, block_size=64)"),
    ],
    "deepseek_v4/fp8_fp4_gemm_1d1d_sm100.py#widen": [
        V("m1024n4096k1024_f32out", "fp8_fp4_gemm_1d1d_persistent(1024, 4096, 1024, T.float32)", archs=S100),
    ],
    "dsa_hisa/clean_and_maintain_logits.py#widen": [
        V("s256_kv2048_t256_bk1024", _meta("lg", (256, 2048), "float32") + _meta("ks", (256,), "int32")
          + _meta("ke", (256,), "int32") + "clean_and_maintain_logits_(lg, ks, ke, threads=256, block_K=1024)"),
        V("s128_kv4096_t128_bk4096", _meta("lg", (128, 4096), "float32") + _meta("ks", (128,), "int32")
          + _meta("ke", (128,), "int32") + "clean_and_maintain_logits_(lg, ks, ke, threads=128, block_K=4096)"),
    ],
    "dsa_hisa/fp8_block_mean_pooling.py#widen": [
        V(tag, _meta("k", (4096, d), "float8_e4m3fn") + _meta("ks", (4096,), "float32")
          + f"fp8_native_block_mean_pooling(k, ks, dim={d}, pooling_block_size={pb}, block_N={bn}, threads={th})", archs=S90)
        for tag, d, pb, bn, th in (("d128_pb64_bn32_t128", 128, 64, 32, 128), ("d128_pb256_bn128_t256", 128, 256, 128, 256),
                                   ("d64_pb128_bn64_t128", 64, 128, 64, 128))
    ],
    "dsa_hisa/pool_mqa_fp8.py#widen": [
        V(tag, _meta("q", (256 * h, 128), "float8_e4m3fn") + _meta("bk", (512, 128), "float8_e4m3fn")
          + _meta("bks", (512,), "float32") + _meta("lg", (256, 512), "float32") + _meta("w", (256, h), "float32")
          + _meta("ks", (256,), "int32") + _meta("ke", (256,), "int32")
          + f"pool_mqa_attn_return_logits_fp8(q, bk, bks, lg, w, ks, ke, heads={h}, index_dim=128, block_N={bn}, "
          f"num_stages={st}, threads={th})", archs=S90)
        for tag, h, bn, st, th in (("h32_bn128_s2_t256", 32, 128, 2, 256), ("h16_bn128_s3_t256", 16, 128, 3, 256),
                                   ("h128_bn64_s1_t128", 128, 64, 1, 128))
    ],
    "deepseek_deepgemm/example_deepgemm_fp8_2xAcc.py#widen": [
        V(f"m1024n1024k4096_bn{bn}_s{st}_{out}", f"tl_gemm.get_kernel_source(M=1024, N=1024, K=4096, block_N={bn}, "
          f"in_dtype=T.float8_e4m3fn, out_dtype=T.{out}, accum_dtype=T.float32)", archs=S90,
          patch=[("num_stages=4", f"num_stages={st}", 1)])
        for bn, st, out in ((128, 2, "bfloat16"), (16, 3, "float32"), (64, 1, "bfloat16"))
    ],
    "aws/gemm.py#widen": [
        V("gemm_sbn128_s2_m2048n4096k1024", "main(kernel='gemm', M=2048, N=4096, K=1024, store_block_N=128, num_stages=2)",
          archs=S100),   # N = 2048 fails the example's own assert n_blocks % (2 * group_size) == 0
        V("gemm_bk128_s3_p1_m2048n4096k2048", "main(kernel='gemm', M=2048, N=4096, K=2048, block_K=128, num_stages=3, "
          "num_persistent_stages=1)", archs=S100),
        V("ws_sbn32_s3_p1_m2048n4096k1024", "main(kernel='gemm_ws', M=2048, N=4096, K=1024, store_block_N=32, num_stages=3, "
          "num_persistent_stages=1)", archs=S100),
    ],
    "aws/flash_attention.py#widen": [
        # not in corpus/field/ (its `flash_attention` kernel fails TileLang's ws_schedule sync-scope check, at the
        # default and at num_stages=1 alike); the warp-specialized kernel lowers
        V("ws_b1_h4_s2048", "main(kernel='flash_attention_ws', batch=1, heads=4, seq_len=2048)", archs=S100),
    ],
    "gemv/example_gemv.py#widen": [
        V("naive_n64_k64", "naive_gemv.compile(N=1024, K=1024, BLOCK_N=64, BLOCK_K=64)"),
        V("naive_splitk_n32_k32", "naive_splitk_gemv.compile(N=1024, K=1024, BLOCK_N=32, BLOCK_K=32)"),
        V("naive_splitk_n64_k16", "naive_splitk_gemv.compile(N=1024, K=1024, BLOCK_N=64, BLOCK_K=16)"),
        V("splitk_n32_k32_r32", "splitk_gemv.compile(N=1024, K=1024, BLOCK_N=32, BLOCK_K=32, reduce_threads=32)"),
        V("splitk_n16_k64_r8", "splitk_gemv.compile(N=1024, K=1024, BLOCK_N=16, BLOCK_K=64, reduce_threads=8)"),
        V("vec_n2_r32", "splitk_gemv_vectorized.compile(N=1024, K=1024, BLOCK_N=2, reduce_threads=32)"),
        V("vec_n8_r16", "splitk_gemv_vectorized.compile(N=1024, K=1024, BLOCK_N=8, reduce_threads=16)"),
        V("vec_tvm_n2_r32", "splitk_gemv_vectorized_tvm.compile(N=1024, K=1024, BLOCK_N=2, reduce_threads=32)"),
        V("vec_tvm_n32_r8", "splitk_gemv_vectorized_tvm.compile(N=1024, K=1024, BLOCK_N=32, reduce_threads=8)"),
        V("reducer_b128x128_s2_t256", "gemv_alloc_reducer.compile(M=1024, N=1024, block_M=128, block_N=128, num_stages=2, "
          "threads=256)"),
        V("reducer_b64x128_s3_t128", "gemv_alloc_reducer.compile(M=1024, N=1024, block_M=64, block_N=128, num_stages=3, "
          "threads=128)"),
        V("reducer_b32x64_s0_t64", "gemv_alloc_reducer.compile(M=1024, N=1024, block_M=32, block_N=64, num_stages=0, "
          "threads=64)"),
    ],
    "elementwise/example_elementwise_add.py#widen": [
        V(tag, _meta("a", (1024, 1024), i) + _meta("b", (1024, 1024), i)
          + f"elementwise_add(a, b, block_M={bm}, block_N={bn}, threads={th}, in_dtype=T.{i}, out_dtype=T.{o})")
        for tag, i, o, bm, bn, th in (("fp16_b64x64_t256", "float16", "float16", 64, 64, 256),
                                      ("fp32_b128x32_t128_fp16out", "float32", "float16", 128, 32, 128),
                                      ("bf16_b32x128_t64", "bfloat16", "bfloat16", 32, 128, 64))
    ],
    "norm/layernorm.py#widen": [
        V("fwd_n1024_d4096_m1_t128_fp16", "_layernorm_fwd(1024, 4096, blk_m=1, threads=128, in_dtype='float16', "
          "out_dtype='float16')"),
        V("fwd_n1024_d1024_m4_t256", "_layernorm_fwd(1024, 1024, blk_m=4, threads=256)"),
        V("bwd_n1024_d2048_m16_t128", "_layernorm_bwd(1024, 2048, blk_m=16, threads=128)"),
        V("bwd_n1024_d1024_m8_t512_fp16", "_layernorm_bwd(1024, 1024, blk_m=8, threads=512, in_dtype='float16')"),
    ],
    "norm/rms_norm.py#widen": [
        V("m1024_n2048_blkm2", "rms_norm.compile(M=1024, N=2048, blk_m=2)"),
        V("splitk_m1024_n4096_blkm1_blkk512", "rms_norm_splitk.compile(M=1024, N=4096, blk_m=1, blk_k=512)"),
        V("splitk_m1024_n4096_blkm4_blkk256", "rms_norm_splitk.compile(M=1024, N=4096, blk_m=4, blk_k=256)"),
    ],
    "online_softmax/online_softmax.py#widen": [
        V(tag, "", patch=[("M = 8192\nN = 8192\n", f"M = {m}\nN = {n}\n", 1),
                                          ("Y = softmax_kernel(X)\n", f"Y = softmax_kernel(X, BLOCK_M={bm}, BLOCK_N={bn})\n", 1)]
                                         + ([("threads=128", f"threads={th}", 1)] if th != 128 else []))
        for tag, m, n, bm, bn, th in (("m1024_n4096_bm1_bn1024", 1024, 4096, 1, 1024, 128),
                                      ("m1024_n8192_bm2_bn4096_t256", 1024, 8192, 2, 4096, 256),
                                      ("m2048_n2048_bm4_bn512", 2048, 2048, 4, 512, 128))
    ],
    "topk/example_topk.py#widen": [
        V(tag, _meta("lg", (m, n), "float32") + f"tl_topk(lg, {k}, blk_m={bm}, threads={th})")
        for tag, m, n, k, bm, th in (("m512_n64_k8_bm128_t256", 512, 64, 8, 128, 256),
                                     ("m512_n256_k4_bm64_t128", 512, 256, 4, 64, 128),
                                     ("m1024_n128_k6_bm256_t512", 1024, 128, 6, 256, 512))
    ],
    "quickstart.py#widen": [
        V(tag, "", patch=[("block_M = 128\nblock_N = 128\nblock_K = 32\n",
                                           f"block_M = {bm}\nblock_N = {bn}\nblock_K = {bk}\n", 1),
                                          ("num_stages=3", f"num_stages={st}", 1)]
                                         + ([("threads=128", f"threads={th}", 1)] if th != 128 else []))
        for tag, bm, bn, bk, st, th in (("b64x64x32_s2", 64, 64, 32, 2, 128), ("b128x256x32_s4_t256", 128, 256, 32, 4, 256),
                                        ("b128x128x64_s1", 128, 128, 64, 1, 128))
    ],
    "cast/example_per_token_cast_to_fp8.py#widen": [
        V("m1024_n2048_blkm16", _meta("x", (1024, 2048), "float32") + "per_token_cast_to_fp8(x, 16)"),
        V("m512_n1024_blkm32", _meta("x", (512, 1024), "float32") + "per_token_cast_to_fp8(x, 32)"),
    ],
    "cast/example_group_per_split_token_cast_to_fp8.py#widen": [
        V("m1024_n1024_bg2_blkm16_bf16", _meta("x", (1024, 1024), "bfloat16") + _meta("bs", (2,), "int32")
          + "group_per_split_token_cast_to_fp8(x, bs, 768, 16)"),
        V("m1024_n2048_bg4_blkm32_fp16", _meta("x", (1024, 2048), "float16") + _meta("bs", (4,), "int32")
          + "group_per_split_token_cast_to_fp8(x, bs, 512, 32)", patch=[("\ndtype = T.bfloat16\n", "\ndtype = T.float16\n", 1)]),
    ],
    "deepseek_v32/fp8_lighting_indexer.py#widen": [
        V(tag, _meta("q", (512 * h, 64), "float8_e4m3fn") + _meta("kv", (2048, 64), "float8_e4m3fn")
          + _meta("kvs", (2048,), "float32") + _meta("w", (512, h), "float32") + _meta("ks", (512,), "int32")
          + _meta("ke", (512,), "int32") + f"mqa_attn_return_logits(q, kv, kvs, w, ks, ke, block_N={bn}, num_stages={st}, "
          f"threads={th}, block_Q={bq})", archs=S90)
        for tag, h, bn, st, th, bq in (("h32_bn128_s2_t256_bq4", 32, 128, 2, 256, 4), ("h64_bn64_s1_t128_bq2", 64, 64, 1, 128, 2),
                                       ("h32_bn256_s0_t512_bq1", 32, 256, 0, 512, 1))
    ] + [
        V("clean_logits_t256_bk2048", _meta("lg", (512, 4096), "float32") + _meta("ks", (512,), "int32")
          + _meta("ke", (512,), "int32") + "clean_logits_(lg, ks, ke, threads=256, block_K=2048)", archs=S90),
    ],
    "deepseek_v32/topk_selector.py#widen": [
        V("topk512", _meta("x", (16, 8192), "float32") + _meta("ix", (16, 512), "int32") + _meta("st", (16,), "int32")
          + _meta("en", (16,), "int32") + "tl_topk_impl(x, ix, st, en)", patch=[]),
        V("topk1024_bs512", _meta("x", (16, 8192), "float32") + _meta("ix", (16, 1024), "int32") + _meta("st", (16,), "int32")
          + _meta("en", (16,), "int32") + "tl_topk_impl(x, ix, st, en)",
          patch=[("BLOCK_SIZE = 1024\n", "BLOCK_SIZE = 512\n", 1)]),
    ],
    "deepseek_v32/sparse_mla_fwd_seesaw.py#widen": [
        V(tag, _meta("q", (1, 256, h, 576), "bfloat16") + _meta("kv", (1, 1024, 1, 576), "bfloat16")
          + _meta("idx", (1, 256, 1, tk), "int32") + _meta("qs", (1,), "int32")
          + f"sparse_mla_fwd(q, kv, idx, qs, {h}, 512, 64, {tk}, 1, CP0=False)", archs=S90)   # CP0=True: max() of a symbol
        for tag, h, tk in (("s256_skv1024_h64_topk512", 64, 512), ("s256_skv1024_h128_topk1024", 128, 1024))
    ],
    "deepseek_v32/sparse_mla_fwd_pipelined.py#widen": [
        V("s256_skv1024_h128_topk1024", _meta("q", (1, 256, 128, 576), "bfloat16") + _meta("kv", (1, 1024, 1, 576), "bfloat16")
          + _meta("idx", (1, 256, 1, 1024), "int32") + "sparse_mla_fwd(q, kv, idx, 1024, 128, 512, 64, 1024, 1)", archs=S90),
    ],
    "grouped_gemm/example_grouped_gemm_bwd.py#widen": [
        V(tag, _meta("a", (bsum, 512), "float16") + _meta("b", (g, 512, 256), "float16") + _meta("bs", (g,), "int32")
          + _meta("bo", (g,), "int32") + _meta("bpo", (g,), "int32") + _meta("a2", (bsum, 256), "float16")
          + _meta("b2", (bsum, 512), "float16")
          + f"grouped_gemm_fwd(a, b, bs, bo, bpo, {bm}, {bn}, {bk}, {st}, {th})\n"
          + f"grouped_gemm_bwd(a2, b2, bs, bo, {bm}, {bn}, {bk}, {st}, {th})")
        for tag, bsum, g, bm, bn, bk, st, th in (("g2_b64x128x64_s2_t256", 192, 2, 64, 128, 64, 2, 256),
                                                 ("g4_b128x128x32_s3_t128", 512, 4, 128, 128, 32, 3, 128),
                                                 ("g3_b64x64x32_s1_t128", 384, 3, 64, 64, 32, 1, 128))
    ],
    "grouped_gemm/example_grouped_gemm_fwd.py#widen": [
        V("b64_64_128_k512_m256_b64x64x32_s4_t128", "run_tilelang_grouped_gemm([64, 64, 128], 512, 256, 64, 64, 32, False, 4, 128)",
          device="cpu"),
        V("b256x2_k512_m512_b128x256x64_s1_t256_transb", "run_tilelang_grouped_gemm([256, 256], 512, 512, 128, 256, 64, True, 1, 256)",
          device="cpu"),
    ],
    "grouped_gemm/example_grouped_gemm_fwd_ptr.py#widen": [
        V("g3_k512_n256_b64x128x32_t128", "tl.compile(grouped_gemm_ptr([64, 128, 192], 512, 256, 64, 128, 32, 1, 128), "
          "target='cuda', pass_configs={'tl.disable_warp_specialized': True})"),
        V("g2_k1024_n512_b128x128x64_t256", "tl.compile(grouped_gemm_ptr([256, 128], 1024, 512, 128, 128, 64, 1, 256), "
          "target='cuda', pass_configs={'tl.disable_warp_specialized': True})"),
        # the example keeps one stage on purpose ("multi-stage software pipelining on ptr-backed tensors is
        # not correct yet"): the two-stage lowering it avoids
        V("g3_k512_n256_b64x128x32_t128_s2", "tl.compile(grouped_gemm_ptr([64, 128, 192], 512, 256, 64, 128, 32, 2, 128), "
          "target='cuda', pass_configs={'tl.disable_warp_specialized': True})",
          patch=[("copy_num_stages = 1\n", "copy_num_stages = 2\n", 1)]),
    ],
    "dynamic_shape/example_dynamic.py#widen": [
        V(tag, f"matmul_dynamic(512, 512, 512, {bm}, {bn}, {bk}, {ta}, {tb}, '{i}', '{o}', '{acc}', {st}, {th})")
        for tag, bm, bn, bk, ta, tb, i, o, acc, st, th in (
            ("b128x128x32_s3_t128_ta", 128, 128, 32, True, False, "float16", "float16", "float32", 3, 128),
            ("b64x128x64_s1_t128_bf16", 64, 128, 64, False, False, "bfloat16", "bfloat16", "float32", 1, 128),
            ("b128x128x64_s2_t256_tatb_f32out", 128, 128, 64, True, True, "float16", "float32", "float32", 2, 256),
            ("b256x128x32_s3_t256", 256, 128, 32, False, False, "float16", "float16", "float32", 3, 256))
    ],
    # MInference has no kernel in corpus/field/: the example builds a CUDA C++ extension (nvcc, CUDA_HOME) for its
    # index conversion before building its kernel; the kernel builder itself needs no extension
    "minference/example_vertical_slash_sparse_attn.py#widen": [
        V("b1_h2_s1024_d64_v128_s32", "_tl_vs_sparse_flashattn(1, 2, 1024, 64, 128, 32)", archs=S90),
        V("b1_h2_s2048_d128_v256_s64", "_tl_vs_sparse_flashattn(1, 2, 2048, 128, 256, 64)", archs=S90),
        V("b1_h1_s1024_d64_v100_s20_st3", "_tl_vs_sparse_flashattn(1, 1, 1024, 64, 100, 20)", archs=S90,
          patch=[("    num_stages = 2\n    threads = 128\n", "    num_stages = 3\n    threads = 128\n", 1)]),
    ],
}


# ------------------------------------------------------------------------------------------------
# Child: run the variants of one example file
# ------------------------------------------------------------------------------------------------


def child(args):
    spec = json.load(open(args.spec))
    archs = spec["archs"]
    lower_field.TENSOR_DEVICE = spec["device"]
    os.makedirs(args.tmp, exist_ok=True)
    results = open(os.path.join(args.tmp, "results.jsonl"), "a", buffering=1)
    lower_field._install_stubs(archs[0])
    from tvm.target import Target
    import tilelang.cache  # noqa: F401
    import tilelang.jit.kernel  # noqa: F401

    lowering = lower_field.InterceptedLowering(archs, args.tmp, results)
    lowering.install()
    path = lower_field.enter_example(args.child)
    sys.argv = [path]
    src = open(path).read()
    for v in spec["variants"]:
        lowering.start_variant(v["tag"])
        t0 = time.time()

        def run(v=v):
            text = src
            for old, new, count in v["patch"]:
                found = text.count(old)
                if found != count:
                    raise ValueError(f"patch {old!r}: found {found} times, expected {count}")
                text = text.replace(old, new)
            # TileLang's eager @tilelang.jit functions and TVMScript's @T.prim_func / @T.macro read a
            # function's source from its file (inspect, through linecache) when they parse it: give
            # them the patched text, or a literal patched inside a kernel body (num_stages, threads)
            # is silently ignored and the example's own value lowered
            import linecache
            linecache.cache[path] = (len(text), None, text.splitlines(True), path)
            g = {"__name__": "asyncguard_sizes_variant", "__file__": path, "__builtins__": __builtins__}
            with Target({"kind": "cuda", "arch": archs[0]}):
                exec(compile(text, path, "exec"), g)  # noqa: S102 -- TileLang's own example, patched as stated
                exec(compile(v["run"], f"<variant {v['tag']}>", "exec"), g)  # noqa: S102
        outcome, why = lower_field.run_example(run, results, variant=v["tag"])
        results.write(json.dumps({"event": "end", "variant": v["tag"], "outcome": outcome, "why": why,
                                  "wall_s": round(time.time() - t0, 1)}) + "\n")
    results.close()
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------------------------------------
# Parent
# ------------------------------------------------------------------------------------------------


def example_path(key):
    """The example file of a VARIANTS key (a key may end in `#note`, to list one file twice)."""
    return key.split("#")[0]


def groups_of(rel):
    """The variants of one VARIANTS key, grouped by (archs, device): one child process each."""
    out = {}
    for v in VARIANTS[rel]:
        out.setdefault((tuple(v["archs"]), v["device"]), []).append(v)
    return out


def run_group(rel, archs, device, variants, examples, tmproot, timeout):
    tmp = os.path.join(tmproot, lower_field.sanitize(rel) + "__" + "_".join(archs) + "__" + device)
    if os.path.isdir(tmp):
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
    os.makedirs(tmp, exist_ok=True)
    spec_path = os.path.join(tmp, "spec.json")
    json.dump({"archs": list(archs), "device": device, "variants": variants}, open(spec_path, "w"))
    env = dict(os.environ, TILELANG_DISABLE_CACHE="1", CUDA_VISIBLE_DEVICES="", TQDM_DISABLE="1",
               TVM_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", os.path.join(examples, example_path(rel)), "--spec", spec_path,
           "--tmp", tmp]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout * len(variants))
        rc, tail = p.returncode, (p.stdout + p.stderr)[-2000:]
    except subprocess.TimeoutExpired:
        rc, tail = "timeout", ""
    events = lower_field.read_events(tmp)
    ended = {e["variant"] for e in events if e["event"] == "end"}
    for v in variants:
        if v["tag"] not in ended:
            events.append({"event": "end", "variant": v["tag"], "why": tail.strip().splitlines()[-1][:300] if tail.strip() else "",
                           "outcome": "timeout" if rc == "timeout" else f"crashed (rc={rc})"})
    return {"wall_s": round(time.time() - t0, 1), "events": events}


def field_shas():
    """sha256 of every .tir in the field corpora: a variant that lowers to one of them adds nothing."""
    out = {}
    for d in ("field", "field_sm120"):
        p = os.path.join(HERE, d)
        for f in sorted(os.listdir(p)) if os.path.isdir(p) else ():
            if f.endswith(".tir"):
                out[hashlib.sha256(open(os.path.join(p, f), "rb").read()).hexdigest()] = f"{d}/{f}"
    return out


def write_outputs(state, out, remove_stale):
    known = field_shas()
    kernels = []
    for rel in sorted(state["files"]):
        d = example_path(rel).split("/")[0] if "/" in example_path(rel) else "_top"
        stem = os.path.splitext(os.path.basename(example_path(rel)))[0]
        for tag, vr in sorted(state["files"][rel]["variants"].items()):
            for k in vr["kernels"]:
                if k["status"] == "fail" or not k.get("file"):
                    continue
                if "sha" not in k and os.path.exists(k["file"]):
                    k["sha"] = hashlib.sha256(open(k["file"], "rb").read()).hexdigest()
                if k.get("sha") in known:
                    k["same_as_field"], k["name"] = known[k["sha"]], None
                    continue
                base = "__".join(lower_field.sanitize(x) for x in (d, stem, tag, k["kernel"] or "main", k["arch"]))
                kernels.append((base, k))
    keep_distinct(kernels, out, remove_stale=remove_stale)


def write_manifest(state, out):
    rows, per_arch = [], {}
    for rel in sorted(state["files"]):
        for tag, vr in sorted(state["files"][rel]["variants"].items()):
            ks = []
            for k in vr["kernels"]:
                a = per_arch.setdefault(k["arch"], {"ok": 0, "tir-only": 0, "fail": 0, "kept": 0, "as_field": 0})
                a[k["status"]] += 1
                a["kept"] += bool(k.get("name"))
                a["as_field"] += bool(k.get("same_as_field"))
                tag_k = k.get("name") or (f"= field {k['same_as_field']}" if k.get("same_as_field") else
                                          f"= {k['duplicate_of']}" if k.get("duplicate_of") else "")
                note = f" ({k.get('why', '')[:90]})" if k["status"] != "ok" else ""
                ks.append(f"{k['kernel']}@{k['arch']}: {k['status']}{note} {tag_k}".strip())
            v = next(x for x in VARIANTS.get(rel, []) if x["tag"] == tag) if any(
                x["tag"] == tag for x in VARIANTS.get(rel, [])) else {"run": "?", "patch": []}
            how = "`" + v["run"].replace("\n", "; ").replace("|", "\\|") + "`"
            if v["patch"]:
                how += "; source: " + "; ".join(f"`{o!r}` -> `{n!r}`".replace("|", "\\|") for o, n, _ in v["patch"])
            rows.append(f"| `{rel}` | {tag} | {how} | {vr['outcome']} ({vr.get('wall_s', '?')}s) | "
                        + "<br>".join(x.replace("|", "\\|") for x in ks)
                        + f" | {(vr.get('why') or '')[:160].replace('|', chr(92) + '|')} |")
    lines = ["# Sizes corpus: TileLang's own examples at other sizes and configs, lowered on a CPU", "",
             f"Source: TileLang `examples/` at commit `{COMMIT}` (mirror `tile-ai/tilelang`), lowered by tilelang "
             f"{lower_field._tl_version()} with `corpus/lower_sizes.py` (its docstring says how). Regenerate: "
             "`nice -n 15 python corpus/lower_sizes.py`; this file alone: `python corpus/lower_sizes.py "
             "--manifest-only`.", "",
             "| arch | lowered (ok) | tir-only | failed | same TIR as a field kernel (not kept) | distinct .tir kept |",
             "|---|---|---|---|---|---|"]
    for a in sorted(per_arch):
        x = per_arch[a]
        lines.append(f"| {a} | {x['ok']} | {x['tir-only']} | {x['fail']} | {x['as_field']} | {x['kept']} |")
    lines += ["", "| example | variant | how | outcome | kernels | note |", "|---|---|---|---|---|---|"] + rows
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def record(state, rel, result):
    f = state["files"].setdefault(rel, {"variants": {}})
    by_variant = {}
    for ev in result["events"]:
        v = ev.get("variant")
        slot = by_variant.setdefault(v, {"kernels": []})
        if ev["event"] == "kernel":
            slot["kernels"].append(ev)
        elif ev["event"] == "end":
            slot.update(outcome=ev["outcome"], why=ev["why"], wall_s=ev.get("wall_s"))
        elif ev["event"] == "traceback":
            slot["traceback"] = ev["text"]
    for v, slot in by_variant.items():
        if v is not None:
            f["variants"][v] = slot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", default=lower_field.DEFAULT_EXAMPLES)
    ap.add_argument("--out", default=os.path.join(HERE, "field_sizes"))
    ap.add_argument("--only", nargs="*", default=[], help="only example files whose path contains one of these")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per variant (a child gets this times its "
                    "number of variants)")
    ap.add_argument("--tmp", help="the children's temporary directory (default: one per --out)")
    ap.add_argument("--resume", action="store_true", help="keep lowering.json; run only variants not in it")
    ap.add_argument("--manifest-only", action="store_true", help="rewrite the .tir files and MANIFEST.md from "
                    "lowering.json")
    ap.add_argument("--child")
    ap.add_argument("--spec")
    args = ap.parse_args()
    args.tmp = args.tmp or scratch_dir("sizes", args.out)
    if args.child:
        return child(args)
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "lowering.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {"files": {}}
    if not (args.resume or args.only or args.manifest_only):
        state = {"files": {}}
    # Records of variants no longer listed (renamed, dropped) are not kept.
    for rel in list(state["files"]):
        tags = {v["tag"] for v in VARIANTS.get(rel, [])}
        state["files"][rel]["variants"] = {t: r for t, r in state["files"][rel]["variants"].items() if t in tags}
        if not state["files"][rel]["variants"]:
            del state["files"][rel]
    if args.manifest_only:
        write_outputs(state, args.out, remove_stale=True)
        with open(state_path, "w") as fh:
            json.dump(state, fh, indent=1, sort_keys=True)
        write_manifest(state, args.out)
        return 0
    examples = lower_field.ensure_examples(args.examples)
    for rel in VARIANTS:
        if args.only and not any(s in rel for s in args.only):
            continue
        for (archs, device), variants in groups_of(rel).items():
            done = state["files"].get(rel, {}).get("variants", {})
            # --resume runs what is missing, and again what lowered nothing (a patch fixed, a timeout).
            todo = [v for v in variants if not (args.resume and v["tag"] in done and any(
                k["status"] != "fail" for k in done[v["tag"]]["kernels"]))]
            if not todo:
                continue
            r = run_group(rel, list(archs), device, todo, examples, args.tmp, args.timeout)
            record(state, rel, r)
            for v in todo:
                vr = state["files"][rel]["variants"].get(v["tag"], {})
                ks = vr.get("kernels", [])
                print(f"{rel} [{v['tag']}] {','.join(archs)}: {vr.get('outcome')} {vr.get('wall_s')}s, "
                      f"{sum(k['status'] != 'fail' for k in ks)} lowered, {sum(k['status'] == 'fail' for k in ks)} "
                      f"failed {(vr.get('why') or '')[:150]}", flush=True)
            write_outputs(state, args.out, remove_stale=False)
            with open(state_path, "w") as fh:
                json.dump(state, fh, indent=1, sort_keys=True)
    write_outputs(state, args.out, remove_stale=not args.only)
    with open(state_path, "w") as fh:
        json.dump(state, fh, indent=1, sort_keys=True)
    write_manifest(state, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
