"""Lower TileLang's dynamic M, N, K GEMM (examples/dynamic_shape/example_dynamic.py, the kernel of
`matmul_dynamic_mnk` with its main() configuration: 128x128x32 tiles, 3 stages, 128 threads, fp16 in,
fp32 accumulate, no transposes) to device TIR on a CPU with tilelang 0.1.15.

Usage: . /work/tl-venv/bin/activate && python corpus/dynamic/lower_dynamic.py sm_80 3   (or sm_90a 3)

The kernel is written out here (the example's @tilelang.jit wrapper builds the same prim_func from
tensors) with M, N, K as `T.dynamic`. For sm_80, CUDA codegen of this kernel fails in 0.1.15
("Downcast from tirx.Sub to ir.IntImm failed"), so, as every corpus script does ("tir-only",
corpus/lowering.py), the device module of `lower_to_host_device_ir` is saved: the TIR after the whole TIR
pipeline. Its tile copies are plain predicated stores (no cp.async), which is what that pipeline produced.
"""
import os
import sys

import tilelang.language as T

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lowering import last_line, lower_device  # noqa: E402


def build(block_M=128, block_N=128, block_K=32, num_stages=3, threads=128):
    M = T.dynamic("m")
    N = T.dynamic("n")
    K = T.dynamic("k")

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])
    return main


def main():
    arch, stages = sys.argv[1], int(sys.argv[2])
    name = f"gemm_{arch.replace('_', '')}_dynamic_mnk_s{stages}_128x128x32"
    lowered = lower_device(build(num_stages=stages), arch)
    open(f"{name}.tir", "w").write(lowered.tir)
    if lowered.cuda_source is not None:
        open(f"{name}.cu", "w").write(lowered.cuda_source)
    else:
        print("CUDA codegen failed:", last_line(lowered.codegen_error))
    print("wrote", name)


if __name__ == "__main__":
    main()
