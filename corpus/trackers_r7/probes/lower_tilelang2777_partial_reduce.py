"""How the tilelang2777 files start (TileLang 0.1.15, system python): python THIS [ARCH] > out.tir.
The kernel is the regression test tile-ai/tilelang#2777 added (testing/python/language/test_tilelang_language_reduce.py,
`_make_partial_reduce_kernel`, commit 0bc1913da), which is the PR description's repro: a 128-thread block where only
threads 0..63 own the fragment a T.reduce_sum reduces, so the AllReduce runs under `if tx < 64`."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

BLOCK_THREADS, FRAGMENT_THREADS, ROWS, WIDTH, VECTOR_SIZE = 128, 64, 4, 512, 8


def partial_reduce():
    def x_layout(i, j):
        return j // VECTOR_SIZE, i * VECTOR_SIZE + j % VECTOR_SIZE

    @T.prim_func
    def fragment_reduce(x: T.Tensor((ROWS, WIDTH), "float32"), out: T.Tensor((ROWS, WIDTH), "float32")):
        with T.Kernel(1, threads=BLOCK_THREADS):
            x_frag = T.alloc_fragment((ROWS, WIDTH), "float32")
            sum_frag = T.alloc_fragment((ROWS,), "float32")
            T.annotate_layout({
                x_frag: T.Fragment(x_frag.shape, forward_fn=x_layout),
                sum_frag: T.Fragment(sum_frag.shape, forward_fn=lambda i, rep: (rep, i), replicate=FRAGMENT_THREADS),
            })
            for i, j in T.Parallel(ROWS, WIDTH):
                x_frag[i, j] = x[i, j]
            T.reduce_sum(x_frag, sum_frag, dim=1)
            for i, j in T.Parallel(ROWS, WIDTH):
                out[i, j] = x_frag[i, j] / sum_frag[i]
    return fragment_reduce


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"
    cfg = {tilelang.PassConfigKey.TL_DISABLE_DATA_RACE_CHECK: True,
           tilelang.PassConfigKey.TL_DISABLE_THREAD_STORAGE_SYNC: True}
    low = lower_device(partial_reduce(), arch, cfg)
    print(low.tir if hasattr(low, "tir") else low)
