"""tile-ai/tilelang #3085 (fixes issue #3042): the PR's small repro as a TileLang kernel (128 threads; only threads
1..32 enter the `else`, write s[tx] and read s[33 - tx]; l[0] is then written out so the read is live), lowered for
sm_80 on the CPU by whichever TileLang is first on PYTHONPATH (default pass configs).  argv[1] = output .tir."""
import sys
import tilelang
import tilelang.language as T
import tvm
from tvm.target import Target

OUT = sys.argv[1]


@T.prim_func
def main(Out: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        s = T.alloc_shared((128,), "float32")
        l = T.alloc_local((1,), "float32")
        tx = T.get_thread_binding()
        if tx == 0 or tx >= 33:
            l[0] = 0.0
        else:
            s[tx] = T.cast(tx, "float32")
            l[0] = s[33 - tx]
        Out[tx] = l[0]


target = Target({"kind": "cuda", "arch": "sm_80"})
with tvm.transform.PassContext(opt_level=3), target:
    art = tilelang.lower(main, target=target)
open(OUT, "w").write(str(art.device_mod))
open(OUT[:-4] + ".cu", "w").write(art.kernel_source)
print("tilelang", tilelang.__version__, "->", OUT)
