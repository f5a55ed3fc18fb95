"""How the tilelang1980 files start (TileLang 0.1.15, system python): python THIS [ARCH] > out.tir.
The kernel is `gemm_persistent` of examples/gemm_sm100/gemm_tcgen5mma_ws_persistent.py as tile-ai/tilelang#1980
(commit 0f7c21474, "Add missing fences in GEMM SM100 examples") left it, i.e. WITH the four tcgen05 fences the PR
added; written as a plain T.prim_func with fixed shapes. Reduced: one CTA (sm_num = 1) that runs waves = 2 tiles
(tile_id = w: both TMEM accumulators and the tmem_full / tmem_empty handshake are exercised), M = 256, N = 128,
K = 128, block 128 x 128 x 64, num_stages = 2 (k_blocks = 2, a multiple of num_stages: the example's MMA indexes
the stage by `k % num_stages` while the TMA fills `phase % num_stages`, equal only then), the group_size tile
swizzle dropped (bx = w, by = 0), store_block_N = 64, use_tma_store = True. Set FENCES = 0 for the pre-fix form."""
import os
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

FENCES = int(os.environ.get("FENCES", "1"))


def gemm_persistent(M=256, N=128, K=128, block_M=128, block_N=128, store_block_N=64, block_K=64,
                    in_dtype="bfloat16", out_dtype="bfloat16", accum_dtype="float32", num_stages=2):
    k_blocks = K // block_K
    waves = (M // block_M) * (N // block_N)

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((K, N), in_dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(1, threads=256) as (block_id):
            A_shared = T.alloc_shared((num_stages, block_M, block_K), in_dtype)
            B_shared = T.alloc_shared((num_stages, block_K, block_N), in_dtype)
            C_tmem_0 = T.alloc_tmem([block_M, block_N], accum_dtype)
            C_tmem_1 = T.alloc_tmem([block_M, block_N], accum_dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, store_block_N), out_dtype)
            loaded = T.alloc_barrier([32] * num_stages)
            consumed = T.alloc_barrier([1] * num_stages)
            tmem_full = T.alloc_barrier([1] * 2)
            tmem_empty = T.alloc_barrier([128] * 2)
            tx = T.get_thread_binding()
            if tx < 32:  # warp 0: issue tma
                for w in T.unroll(waves):
                    bx = w
                    by = 0
                    for k in T.serial(k_blocks):
                        phase = w * k_blocks + k
                        T.mbarrier_wait_parity(consumed[phase % num_stages], ((phase // num_stages) & 1) ^ 1)
                        T.tma_copy(A[bx * block_M:(bx + 1) * block_M, k * block_K:(k + 1) * block_K],
                                   A_shared[phase % num_stages, :, :], barrier=loaded[phase % num_stages])
                        T.tma_copy(B[k * block_K:(k + 1) * block_K, by * block_N:(by + 1) * block_N],
                                   B_shared[phase % num_stages, :, :], barrier=loaded[phase % num_stages])
                        T.mbarrier_arrive(loaded[phase % num_stages])
            elif tx < 64:  # warp 1: issue tcgen5
                for w in T.unroll(waves):
                    T.mbarrier_wait_parity(tmem_empty[w & 1], ((w // 2) & 1) ^ 1)
                    if FENCES:
                        T.tcgen05_after_thread_sync()
                    for k in T.serial(k_blocks):
                        phase = w * k_blocks + k
                        T.mbarrier_wait_parity(loaded[phase % num_stages], (phase // num_stages) & 1)
                        if FENCES:
                            T.tcgen05_after_thread_sync()
                        if w & 1 == 0:
                            T.tcgen05_gemm(A_shared[k % num_stages, :, :], B_shared[k % num_stages, :, :], C_tmem_0,
                                           False, False, mbar=consumed[k % num_stages], clear_accum=k == 0)
                        else:
                            T.tcgen05_gemm(A_shared[k % num_stages, :, :], B_shared[k % num_stages, :, :], C_tmem_1,
                                           False, False, mbar=consumed[k % num_stages], clear_accum=k == 0)
                    T.tcgen05_mma_arrive(tmem_full[w & 1])
            elif 128 <= tx < 256:  # warp 4~7: epilogue
                for w in T.unroll(waves):
                    bx = w
                    by = 0
                    T.mbarrier_wait_parity(tmem_full[w & 1], (w // 2) & 1)
                    if FENCES:
                        T.tcgen05_after_thread_sync()
                    T.sync_threads(1, 128)
                    if (w & 1) == 0:
                        T.copy(C_tmem_0, C_local)
                    else:
                        T.copy(C_tmem_1, C_local)
                    if FENCES:
                        T.tcgen05_before_thread_sync()
                    T.mbarrier_arrive(tmem_empty[w & 1])
                    for i in T.unroll(block_N // store_block_N):
                        T.copy(C_local[:, i * store_block_N:(i + 1) * store_block_N], C_shared)
                        T.copy(C_shared, C[bx * block_M, by * block_N + i * store_block_N])
    return main


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_100a"
    low = lower_device(gemm_persistent(), arch, {})
    print(low.tir if hasattr(low, "tir") else low)
