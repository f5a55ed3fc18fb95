"""How the tilelang2030 files start (TileLang 0.1.15, system python): python THIS [MODE] > out.tir.
The kernel is testing/python/language/test_tilelang_language_let_layout.py `blocksparse_copy_kernel`, the
"blocksparse copy kernel [that] uses a fragment buffer for block mask indices" of tile-ai/tilelang#2030
("[Bugfix] Fix incorrect sync hoist for fragment buffer conditions in ThreadSync"), with the sizes of its tests
(M=N=1024, block 128x128, N_S=8, fp16, default 128 threads). MODE ws (default pass configs, test_blocksparse_copy_tma)
or nows (TL_DISABLE_WARP_SPECIALIZED, test_blocksparse_copy_cp_async)."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

M = N = 1024
BLOCK_M = BLOCK_N = 128
N_S = N // BLOCK_N


def blocksparse_copy_kernel(M, N, N_S, block_M, block_N, dtype=T.float16):
    block_mask_shape = (M // block_M, N_S)

    @T.prim_func
    def main(
        A: T.Tensor((M, N), dtype),
        B: T.Tensor((M, N), dtype),
        BlockMask: T.Tensor(block_mask_shape, T.int32),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M)) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), dtype)
            B_shared = T.alloc_shared((block_M, block_N), dtype)
            block_mask_f = T.alloc_fragment((N_S,), T.int32)

            T.clear(B_shared)
            T.copy(BlockMask[by, :], block_mask_f)
            for i in T.Pipelined(N_S):
                a = block_mask_f[i]  # LetStmt: fragment buffer access
                if a >= 0:
                    T.copy(A[a, 0], A_shared)
                    T.copy(A_shared, B[by * block_M : (by + 1) * block_M, i * block_N : (i + 1) * block_N])

    return main


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "ws"
    arch = sys.argv[2] if len(sys.argv) > 2 else "sm_90a"
    cfg = {}
    if mode == "nows":
        cfg[tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED] = True
    low = lower_device(blocksparse_copy_kernel(M, N, N_S, BLOCK_M, BLOCK_N), arch, cfg)
    print(low.tir)
    if len(sys.argv) > 3:
        open(sys.argv[3], "w").write(low[1] or "")
