"""How the tilelang2865 files start (TileLang 0.1.15, system python): python THIS [ARCH] [DTYPE] > out.tir.
The kernel is the regression test tile-ai/tilelang#2865 added for issue #2628 (testing/python/issue/
test_tilelang_issue_2628.py, `make_kernel(8, dt, sum, 0)`, commit 03645a648), written as a plain T.prim_func with
K = 8: 8 threads, each loads A[tx], one tvm_thread_allreduce over threadIdx.x, thread results stored to C[0]."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device


def make_kernel(reduce_threads=8, dtype="int8"):
    K = reduce_threads

    @T.prim_func
    def kernel(A: T.Tensor((K,), dtype), C: T.Tensor((1,), dtype)):
        with T.Kernel(1, threads=(reduce_threads,)):
            tk = T.get_thread_binding(0)
            v = T.alloc_local((1,), dtype)
            v[0] = A[tk]
            Cr = T.alloc_local((1,), dtype)
            with T.attr(T.comm_reducer(lambda x, y: x + y, [T.cast(0, dtype)]), "reduce_scope",
                        T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), v[0], True, Cr[0], tk, dtype="handle"))
            C[0] = Cr[0]
    return kernel


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"
    dtype = sys.argv[2] if len(sys.argv) > 2 else "int8"
    cfg = {tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER: True, tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True}
    low = lower_device(make_kernel(8, dtype), arch, cfg)
    print(low.tir if hasattr(low, "tir") else low)
