"""How the matching tilelang2166 probe .tir was produced (TileLang 0.1.15, system python): python THIS > out.txt."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

def k(iters=4, block=128, dtype="float16", threads=128):
    @T.prim_func
    def main(
        A: T.Buffer((iters, block), dtype),
        B: T.Buffer((iters, block), dtype),
        B_out: T.Buffer((iters, block), dtype),
        A_out: T.Buffer((iters, block), dtype),
    ):
        with T.Kernel(1, threads=threads) as _:
            A_shared = T.alloc_shared((block,), dtype)
            B_shared = T.alloc_shared((block,), dtype)
            for ko in T.Pipelined(iters, num_stages=2):
                for i in T.Parallel(block):
                    B_shared[i] = B[ko, i]
                T.copy(A[ko, 0], A_shared)
                for i in T.Parallel(block):
                    B_out[ko, i] = B_shared[block - 1 - i]
                for i in T.Parallel(block):
                    A_out[ko, i] = A_shared[i]
    return main

if __name__ == "__main__":
    low = lower_device(k(), "sm_90a", {})
    print(low.tir if hasattr(low, "tir") else low)
