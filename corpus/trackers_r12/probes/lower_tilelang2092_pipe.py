"""How the tilelang2092 files start (TileLang 0.1.15, system python): python THIS K NUM_STAGES > out.tir.
A minimal T.Pipelined cp.async copy kernel (1 block, 32 threads, fp32, 32 elements a stage) lowered for sm_80 with
default pass configs by asyncguard.frontends.tilelang_lower.lower_device. K=5, NUM_STAGES=4 matches the shape of
tile-ai/tilelang#2092's regression test (5 iterations, stage 3, so three groups in flight and a three-consumer tail)."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

def kern(K=5, stages=4, blk=32, threads=32):
    @T.prim_func
    def main(A: T.Tensor((K * blk,), T.float32), B: T.Tensor((K * blk,), T.float32)):
        with T.Kernel(1, threads=threads) as bx:
            S = T.alloc_shared((blk,), T.float32)
            for k in T.Pipelined(K, num_stages=stages):
                T.copy(A[k * blk:(k + 1) * blk], S)
                for j in T.Parallel(blk):
                    B[k * blk + j] = S[j] * 2.0
    return main

if __name__ == "__main__":
    K = int(sys.argv[1]); st = int(sys.argv[2])
    low = lower_device(kern(K, st), "sm_80", {})
    print(low.tir)
