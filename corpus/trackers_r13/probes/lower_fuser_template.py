"""Syntax template only (not a pair file): TileLang 0.1.15's lowering of a TN bf16 GEMM with nvFuser #3863's tile
(CTA 128x256x64, two consumer warpgroups, 4 stages) for sm_90a, used to copy the wgmma descriptor / ptx_wgmma_ss
spelling into the hand transcriptions. python THIS [ws|nows] > out.tir"""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

def kern(M=256, N=512, K=512, bm=128, bn=256, bk=64, stages=4):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.bfloat16), B: T.Tensor((N, K), T.bfloat16), C: T.Tensor((M, N), T.float32)):
        with T.Kernel(N // bn, M // bm, threads=256) as (bx, by):
            A_s = T.alloc_shared((bm, bk), T.bfloat16)
            B_s = T.alloc_shared((bn, bk), T.bfloat16)
            C_l = T.alloc_fragment((bm, bn), T.float32)
            T.clear(C_l)
            for k in T.Pipelined(K // bk, num_stages=stages):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * bm, bx * bn])
    return main

if __name__ == "__main__":
    cfg = {} if sys.argv[1] == "ws" else {"tl.disable_warp_specialized": True}
    print(lower_device(kern(), "sm_90a", cfg).tir)
