"""How the tilelang2293 files start (TileLang 0.1.15, system python): python THIS [ARCH] > out.tir.
tile-ai/tilelang#2293 ("[TIR][Transform] Fix shared.dyn alias sync analysis", commit b0b945b39) gives no user kernel,
only a regression test, testing/python/transform/test_tilelang_transform_thread_sync.py
`test_thread_sync_shared_dyn_alias_different_element_sizes`, whose hand-written TIR is the post-merge body of a
float32 -> fp8 cast through shared memory: `buf_dyn_shmem` (2048 bytes), `x_ub` float32 and `y_ub` fp8 both at byte
offset 0, 128 threads, `x_local[0:4] = x_ub[tx*4:tx*4+4]`, cast, `y_ub[tx*4:tx*4+4] = y_local[0:4]`.
That test body on its own reads shared memory nothing wrote (asyncguard says AG417 on it; see MANIFEST), so this
script lowers the smallest TileLang kernel whose device TIR contains that body: `cast_fp8` below (global X -> x_shared
-> fragment -> fp8 fragment -> y_shared -> global Y). 0.1.15's MergeSharedMemoryAllocations places x_shared and
y_shared both at byte 0 and its ThreadSync (which has the fix) inserts the barrier the test asserts; the lines
between the global load and the global store are the test's lines (names x_shared/y_shared for x_ub/y_ub)."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device


@T.prim_func
def cast_fp8(X: T.Tensor((512,), "float32"), Y: T.Tensor((512,), "float8_e4m3fn")):
    with T.Kernel(1, threads=128) as bx:
        x_shared = T.alloc_shared((512,), "float32")
        y_shared = T.alloc_shared((512,), "float8_e4m3fn")
        x_local = T.alloc_fragment((512,), "float32")
        y_local = T.alloc_fragment((512,), "float8_e4m3fn")
        T.copy(X, x_shared)
        T.copy(x_shared, x_local)
        for i in T.Parallel(512):
            y_local[i] = x_local[i]
        T.copy(y_local, y_shared)
        T.copy(y_shared, Y)


if __name__ == "__main__":
    print(lower_device(cast_fp8, sys.argv[1] if len(sys.argv) > 1 else "sm_80").tir)
