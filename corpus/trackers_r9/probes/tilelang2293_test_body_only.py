"""Side check (not a pair): tile-ai/tilelang#2293's regression-test TIR exactly as the test writes it
(test_thread_sync_shared_dyn_alias_different_element_sizes), run through 0.1.15's ThreadSync("shared.dyn") as the test
does; writes probes/tilelang2293_test_body_fixed.tir (as printed) and probes/tilelang2293_test_body.tir (same without the
inserted sync). python THIS"""
import os
import tilelang  # noqa: F401  (puts its bundled tvm on sys.path)
import tvm
from tvm.script import tirx as T


@T.prim_func(private=True)
def func():
    buf_dyn_shmem = T.alloc_buffer((2048,), "uint8", scope="shared.dyn")
    x_ub: T.handle("float32", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    y_ub: T.handle("float8_e4m3fn", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    x_local = T.alloc_buffer((4,), "float32", scope="local")
    y_local = T.alloc_buffer((4,), "float8_e4m3fn", scope="local")
    tx = T.launch_thread("threadIdx.x", 128)
    ty = T.launch_thread("threadIdx.y", 1)
    tz = T.launch_thread("threadIdx.z", 1)
    x_ub_1 = T.decl_buffer((512,), "float32", data=x_ub, scope="shared.dyn")
    y_ub_1 = T.decl_buffer((512,), "float8_e4m3fn", data=y_ub, scope="shared.dyn")
    x_local_1 = T.decl_buffer((4,), "float32", data=x_local.data, scope="local")
    y_local_1 = T.decl_buffer((4,), "float8_e4m3fn", data=y_local.data, scope="local")
    x_local_1[T.Ramp(0, 1, 4)] = x_ub_1[T.Ramp(tx * 4, 1, 4)]
    y_local_1[T.Ramp(0, 1, 4)] = T.Cast("float8_e4m3fnx4", x_local_1[T.Ramp(0, 1, 4)])
    y_ub_1[T.Ramp(tx * 4, 1, 4)] = y_local_1[T.Ramp(0, 1, 4)]


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    text = tilelang.transform.ThreadSync("shared.dyn")(tvm.IRModule({"main": func})).script()
    lines = [ln for ln in text.splitlines() if not ln.startswith("# from tvm.script import ir")
             and ln.strip() not in ("@I.ir_module", "class Module:")]
    lines = [ln[4:] if ln.startswith("    ") else ln for ln in lines]
    hdr = ["# Side check for tilelang#2293: the PR's regression-test TIR as written (no global load before the float32 read),"
           " after 0.1.15's ThreadSync."]
    fixed = lines[:1] + hdr + lines[1:]
    open(os.path.join(here, "tilelang2293_test_body_fixed.tir"), "w").write("\n".join(fixed) + "\n")
    buggy = [ln for ln in fixed if "tvm_storage_sync" not in ln]
    open(os.path.join(here, "tilelang2293_test_body.tir"), "w").write("\n".join(buggy) + "\n")
