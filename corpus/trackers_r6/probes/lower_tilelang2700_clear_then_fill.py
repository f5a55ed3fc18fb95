"""How the tilelang2700 files start (TileLang 0.1.15, system python): python THIS ARCH > out.tir.
A single-buffer clear-then-fill through shared memory (the shape of tile-ai/tilelang#2703): T.clear(S) is lowered
to st.bulk on Blackwell; each thread then accumulates into a row another thread cleared."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

def clear_then_fill(M=64, N=64, threads=128, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=threads) as bx:
            S = T.alloc_shared((M,), dtype)
            T.clear(S)
            for i in T.Parallel(M):
                for j in T.serial(N):
                    S[i] += X[i, j]
            for i in T.Parallel(M):
                Y[i] = S[i]
    return main

if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_100a"
    low = lower_device(clear_then_fill(), arch, {})
    print(low.tir if hasattr(low, "tir") else low)
