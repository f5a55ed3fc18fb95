"""Generate corpus/unseen_tvm_builtins: hand-written TVMScript kernels from apache/tvm's own tests that call
TVM's PTX builtins (T.ptx_cp_async, ptx_commit_group/ptx_wait_group, create_barriers,
ptx_init_barrier_thread_count, ptx_arrive_barrier, ptx_arrive_barrier_expect_tx, ptx_wait_barrier,
ptx_cp_async_barrier, ptx_cp_async_bulk, ptx_ldmatrix, ptx_mma, ptx_mma_sp), lowered by the TVM bundled with
tilelang 0.1.15 exactly as corpus/unseen_tvm/lower_tvm.py does (its lower_device / codegen are reused).

Upstream sources: apache/tvm commit bc1a904ec1ad89454ee6577d66cde1268b8f6bc8 (the parent of 859498dc01,
"[TIRx] Bringup TIRx Infrastructure", which deleted the indexed-barrier tests; HEAD's tests use the new
T.ptx[...] dialect that the bundled TVM does not have). The test files are read from SRC (default
/tmp/tvmb/src); if missing they are extracted with `git show` from a local apache/tvm clone (TVM_GIT).

Single-bug variants (`<kernel>__drop_<what>.tir`) are made textually from the lowered TIR by deleting one
line; the header says which.

Run: python corpus/unseen_tvm_builtins/lower_builtins.py
"""
import importlib.util
import json
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
COMMIT = "bc1a904ec1ad89454ee6577d66cde1268b8f6bc8"
SRC = os.environ.get("SRC", "/tmp/tvmb/src")
TVM_GIT = os.environ.get("TVM_GIT", "/work/.mirror/apache+tvm/repo")
FILES = {
    "test_tir_ptx_cp_async.py": "tests/python/tirx-base/test_tir_ptx_cp_async.py",
    "test_s_tir_transform_inject_ptx_async_copy.py":
        "tests/python/s_tir/transform/test_s_tir_transform_inject_ptx_async_copy.py",
    "test_tir_ptx_ldmatrix.py": "tests/python/tirx-base/test_tir_ptx_ldmatrix.py",
    "test_tir_ptx_mma.py": "tests/python/tirx-base/test_tir_ptx_mma.py",
    "test_tir_ptx_mma_sp.py": "tests/python/tirx-base/test_tir_ptx_mma_sp.py",
}
os.makedirs(SRC, exist_ok=True)
for base, path in FILES.items():
    if not os.path.exists(os.path.join(SRC, base)):
        txt = subprocess.check_output(["git", "-C", TVM_GIT, "show", f"{COMMIT}:{path}"])
        open(os.path.join(SRC, base), "wb").write(txt)


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LT = _load(os.path.join(HERE, "..", "unseen_tvm", "lower_tvm.py"), "lower_tvm")  # loads bundled TVM
import tvm  # noqa: E402

T = LT.T
ASYNC, NOASYNC = LT.ASYNC, LT.NOASYNC


def src(base):
    return _load(os.path.join(SRC, base), base[:-3])


cp = src("test_tir_ptx_cp_async.py")
inj = src("test_s_tir_transform_inject_ptx_async_copy.py")
ldm = src("test_tir_ptx_ldmatrix.py")
mma = src("test_tir_ptx_mma.py")
mmasp = src("test_tir_ptx_mma_sp.py")


def origin(base, test):
    return f"apache/tvm@{COMMIT} {FILES[base]}::{test}"


KERNELS = []  # (name, origin, builder, config)
K = lambda *a: KERNELS.append(a)  # noqa: E731

# --- indexed mbarrier API (create_barriers / ptx_*_barrier*) and bulk copy
K("cp_async_barrier", origin("test_tir_ptx_cp_async.py", "test_ptx_cp_async_barrier (ptx_cp_async_barrier)"),
  lambda: cp.ptx_cp_async_barrier, NOASYNC)
K("cp_async_bulk", origin("test_tir_ptx_cp_async.py", "test_ptx_cp_async_bulk (ptx_cp_async_bulk)"),
  lambda: cp.ptx_cp_async_bulk, NOASYNC)
K("inject_fp32x1_barrier", origin("test_s_tir_transform_inject_ptx_async_copy.py",
  "test_inject_async_copy_barrier (ptx_global_to_shared_copy_fp32x1_barrier), use_async_copy=1"),
  lambda: inj.ptx_global_to_shared_copy_fp32x1_barrier, ASYNC)
# --- cp.async groups
K("cp_async_group", origin("test_tir_ptx_cp_async.py", "test_ptx_cp_async (ptx_cp_async)"),
  lambda: cp.ptx_cp_async, NOASYNC)
K("inject_fp32x1", origin("test_s_tir_transform_inject_ptx_async_copy.py",
  "test_inject_async_copy (ptx_global_to_shared_copy_fp32x1), use_async_copy=1"),
  lambda: inj.ptx_global_to_shared_copy_fp32x1, ASYNC)
for dt, vs in (("float16", 8), ("float16", 4), ("float32", 4), ("int8", 16)):
    K(f"inject_vec_{dt}x{vs}", origin("test_s_tir_transform_inject_ptx_async_copy.py",
      f"test_inject_async_copy (generate_global_to_shared_vectorized_copy({dt!r}, {vs})), use_async_copy=1"),
      lambda dt=dt, vs=vs: inj.generate_global_to_shared_vectorized_copy(dt, vs), ASYNC)
K("inject_shared_dyn_fp16x8", origin("test_s_tir_transform_inject_ptx_async_copy.py",
  "test_inject_async_copy_shared_dyn (ptx_global_to_shared_dyn_copy_fp16x8), use_async_copy=1"),
  lambda: inj.ptx_global_to_shared_dyn_copy_fp16x8, ASYNC)


def _if_then_else_simple():
    # test_cp_async_in_if_then_else.simple_compute, the copy corpus/unseen_tvm/lower_tvm.py keeps verbatim
    return LT._upstream_if_then_else


K("cp_async_if_then_else_pipeline", origin("test_s_tir_transform_inject_ptx_async_copy.py",
  "test_cp_async_in_if_then_else (simple_compute), use_async_copy=1"), _if_then_else_simple, ASYNC)


def _mult_inlined():
    # test_multiplication_nodes_are_inlined.Before.main, verbatim
    @T.prim_func
    def main(A: T.Buffer((32, 128), "float16")):
        tx = T.launch_thread("threadIdx.x", T.int64(32))
        A_flattened = T.decl_buffer((4096,), "float16", data=A.data)
        A_shared = T.decl_buffer([4096], "float16", scope="shared")
        T.attr("default", "async_scope", 1)
        for i in range(16):
            cse_v1: T.int64 = T.Cast("int64", i)
            A_shared[T.Ramp(tx * T.int64(128) + cse_v1 * T.int64(8), T.int64(1), 8)] = (
                A_flattened[T.Ramp(tx * T.int64(128) + cse_v1 * T.int64(8), T.int64(1), 8)])
        T.ptx_commit_group()
        T.ptx_wait_group(0)
    return main


K("inject_int64_index_noconsumer", origin("test_s_tir_transform_inject_ptx_async_copy.py",
  "test_multiplication_nodes_are_inlined (Before.main), use_async_copy=1"), _mult_inlined, ASYNC)


# --- ldmatrix (specialised as the test does)
def _ldm(num, trans):
    f = ldm.ptx_ldmatrix
    _, _, pn, pt = f.params
    return f.specialize({pn: num, pt: trans})


for num in (1, 2, 4):
    for trans in (False, True):
        if (num, trans) in ((2, True),):
            continue
        K(f"ldmatrix_x{num}{'_trans' if trans else ''}", origin("test_tir_ptx_ldmatrix.py",
          f"test_ptx_ldmatrix (ptx_ldmatrix specialised num={num}, trans={trans})"),
          lambda num=num, trans=trans: _ldm(num, trans), NOASYNC)
# --- mma / mma_sp (register only)
for n in ("gemm_mma_m8n8k4_row_col_fp64pf64fp64", "gemm_mma_m16n8k16_row_col_fp16fp16fp32",
          "gemm_mma_m16n8k32_row_col_s8s8s32"):
    K(n.replace("gemm_", ""), origin("test_tir_ptx_mma.py", "test_" + n), lambda n=n: getattr(mma, n), NOASYNC)
K("mma_sp_m16n8k16_f16f16f32", origin("test_tir_ptx_mma_sp.py", "test_mma_sp_m16n8k16_f16 (mma_sp_m16n8k16_f16f16f32)"),
  lambda: mmasp.mma_sp_m16n8k16_f16f16f32, NOASYNC)


# --- hand-adapted (NOT upstream): upstream ptx_cp_async_bulk with the copy/wait repeated over a loop that reuses
# barrier 0, to probe phase handling: codegen prints ptx_wait_barrier with a constant parity 0 (ptx.cc
# PrintWaitBarrierAsm), so the second wait (phase 1) returns at once -> a real race on the second tile.
@T.prim_func
def _bulk_loop2(A: T.Buffer((2, 32, 128), "float16"), B: T.Buffer((2, 32, 128), "float16")) -> None:
    T.func_attr({"global_symbol": "default_function", "tirx.noalias": True})
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 1)
    T.launch_thread(tx, 32)
    with T.sblock():
        A_shared = T.sblock_alloc_buffer([32, 128], "float16", scope="shared")
        T.reads(A[0:2, 0:32, 0:128])
        T.writes(B[0:2, 0:32, 0:128])
        T.evaluate(T.create_barriers(1, dtype=""))
        T.evaluate(T.ptx_init_barrier_thread_count(0, 32, dtype=""))
        for k in T.serial(2):
            T.evaluate(T.ptx_cp_async_bulk(A_shared.data, tx * 128, A.data, k * 4096 + tx * 128, 256, 0,
                                           dtype="float16"))
            T.evaluate(T.ptx_arrive_barrier_expect_tx(0, 256, dtype=""))
            T.evaluate(T.ptx_wait_barrier(0, dtype=""))
            for i in range(128):
                B[k, tx, i] = A_shared[tx, i]


# two barriers, two bulk copies into two buffers, ids 0 and 1 (barrier array padded to 2 by codegen)
@T.prim_func
def _bulk_two_barriers(A: T.Buffer((32, 128), "float16"), C: T.Buffer((32, 128), "float16"),
                       B: T.Buffer((32, 128), "float16")) -> None:
    T.func_attr({"global_symbol": "default_function", "tirx.noalias": True})
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 1)
    T.launch_thread(tx, 32)
    with T.sblock():
        A_shared = T.sblock_alloc_buffer([32, 128], "float16", scope="shared")
        C_shared = T.sblock_alloc_buffer([32, 128], "float16", scope="shared")
        T.reads(A[0:32, 0:128], C[0:32, 0:128])
        T.writes(B[0:32, 0:128])
        T.evaluate(T.create_barriers(2, dtype=""))
        T.evaluate(T.ptx_init_barrier_thread_count(0, 32, dtype=""))
        T.evaluate(T.ptx_init_barrier_thread_count(1, 32, dtype=""))
        T.evaluate(T.ptx_cp_async_bulk(A_shared.data, tx * 128, A.data, tx * 128, 256, 0, dtype="float16"))
        T.evaluate(T.ptx_cp_async_bulk(C_shared.data, tx * 128, C.data, tx * 128, 256, 1, dtype="float16"))
        T.evaluate(T.ptx_arrive_barrier_expect_tx(0, 256, dtype=""))
        T.evaluate(T.ptx_arrive_barrier_expect_tx(1, 256, dtype=""))
        T.evaluate(T.ptx_wait_barrier(0, dtype=""))
        T.evaluate(T.ptx_wait_barrier(1, dtype=""))
        for i in range(128):
            B[tx, i] = A_shared[tx, i] + C_shared[tx, i]


K("hand_bulk_loop2_parity", "hand-adapted from test_tir_ptx_cp_async.py::test_ptx_cp_async_bulk @" + COMMIT
  + ": copy/expect_tx/wait repeated in a 2-iteration loop on barrier 0", lambda: _bulk_loop2, NOASYNC)
K("hand_bulk_two_barriers", "hand-adapted from test_tir_ptx_cp_async.py::test_ptx_cp_async_bulk @" + COMMIT
  + ": two bulk copies on barriers 0 and 1", lambda: _bulk_two_barriers, NOASYNC)

# --- single-bug variants: (new name, base kernel, substring identifying the ONE line to delete, what)
DROPS = [
    ("cp_async_bulk__drop_wait_barrier", "cp_async_bulk", "T.ptx_wait_barrier(0)"),
    ("cp_async_bulk__drop_expect_tx", "cp_async_bulk", "T.ptx_arrive_barrier_expect_tx(0, 256)"),
    ("cp_async_bulk__drop_init", "cp_async_bulk", "T.ptx_init_barrier_thread_count(0, 32)"),
    ("cp_async_barrier__drop_wait_barrier", "cp_async_barrier", "T.ptx_wait_barrier(0)"),
    ("cp_async_barrier__drop_cp_async_barrier", "cp_async_barrier", "T.ptx_cp_async_barrier(0)"),
    ("cp_async_barrier__drop_arrive", "cp_async_barrier", "T.ptx_arrive_barrier(0)"),
    ("inject_fp32x1_barrier__drop_wait_barrier", "inject_fp32x1_barrier", "T.ptx_wait_barrier(0)"),
    ("cp_async_group__drop_wait_group", "cp_async_group", "T.ptx_wait_group(0)"),
    ("inject_vec_float16x8__drop_commit_group", "inject_vec_float16x8", "T.ptx_commit_group()"),
    ("hand_bulk_two_barriers__drop_wait_barrier1", "hand_bulk_two_barriers", "T.ptx_wait_barrier(1)"),
]


def main():
    manifest = {}
    texts = {}
    for name, how, builder, config in KERNELS:
        rec = {"origin": how, "config": config}
        try:
            target, dev = LT.lower_device(builder(), config)
        except Exception as e:  # noqa: BLE001
            lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
            rec.update(status="lowering-failed", why=(lines[-1] if lines else repr(e))[:400])
            traceback.print_exc(limit=2)
            manifest[name] = rec
            print(f"{name}: LOWERING FAILED {rec['why']}")
            continue
        err, cu = LT.codegen(dev, target, config)
        rec["codegen"] = "ok" if err is None else "refused: " + err
        if cu is not None:
            os.makedirs("/tmp/tvmb/cuda", exist_ok=True)
            open(f"/tmp/tvmb/cuda/{name}.cu", "w").write(cu)
        funcs = sorted(dev.functions.items(), key=lambda kv: kv[0].name_hint)
        files = []
        for gv, func in funcs:
            fname = name if len(funcs) == 1 else f"{name}__{gv.name_hint}"
            text = tvm.IRModule({gv: func}).script()
            head = (f"# from {how}; lowered by corpus/unseen_tvm_builtins/lower_builtins.py with TVM 0.25.dev0 "
                    f"bundled by tilelang 0.1.15 (s_tir pipeline + finalize_device_passes, cuda sm_80, "
                    f"PassContext {json.dumps(config)}); device function {gv.name_hint}\n")
            open(os.path.join(HERE, fname + ".tir"), "w").write(head + text)
            texts[fname] = head + text
            files.append(fname + ".tir")
        rec.update(status="ok", files=files)
        manifest[name] = rec
        print(f"{name}: {files} codegen {rec['codegen']}")
    for new, base, needle in DROPS:
        if base not in texts:
            print(f"{new}: base {base} missing")
            continue
        lines = texts[base].splitlines(keepends=True)
        hits = [i for i, ln in enumerate(lines) if needle in ln]
        if len(hits) != 1:
            print(f"{new}: {len(hits)} lines match {needle!r}; skipped")
            manifest[new] = {"status": "variant-skipped", "why": f"{len(hits)} matches"}
            continue
        i = hits[0]
        # line numbers are 1-based in the base .tir file (header line included)
        head = f"# variant of {base}.tir: dropped line {i + 1}: {lines[i].strip()}\n"
        body = lines[:i] + lines[i + 1:]
        open(os.path.join(HERE, new + ".tir"), "w").write(head + "".join(body))
        manifest[new] = {"status": "ok", "origin": f"variant of {base}.tir: dropped line {i + 1}",
                         "files": [new + ".tir"]}
        print(f"{new}: dropped line {i + 1} of {base}")
    json.dump(manifest, open(os.path.join(HERE, "MANIFEST.json"), "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
