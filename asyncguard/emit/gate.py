"""`asyncguard sanitize FILE...`: run each kernel's synchronization skeleton on a GPU.

Per kernel: static verdict (asyncguard check) -> emit the skeleton (emit/cuda.py) -> numpy
reference (emit/reference.py) -> compile (NVRTC through cuda-python; nvcc as fallback) ->
launch through cuda-python with the launch attributes applied and read back -> compare every
traced read with the reference -> re-run this command under `compute-sanitizer --tool racecheck`
and `--tool synccheck` (a child process that only loads the compiled cubins and launches them)
and parse their reports. Exit 0 every kernel passed, 1 a failure, 2 no GPU / no sanitizer.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.sax.saxutils as xs
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CARVEOUT = 100          # requested preferred carveout (percent of the maximum shared memory)
MARK = "@@AGSAN"


# ---------------------------------------------------------------- cuda-python
def _cuda():
    try:
        from cuda.bindings import driver, nvrtc      # cuda-python >= 12.6
    except ImportError:
        from cuda import cuda as driver, nvrtc       # older cuda-python
    return driver, nvrtc


class GpuError(Exception):
    pass


def _ok(ret, what):
    """cuda-python calls return (status, *values): raise on a bad status, return the value(s)."""
    ret = ret if isinstance(ret, tuple) else (ret,)
    if int(ret[0]) != 0:
        raise GpuError(f"{what}: {ret[0]}")
    vals = ret[1:]
    return None if not vals else vals[0] if len(vals) == 1 else vals


def compile_cubin(source: str, name: str, arch: str) -> tuple[bytes, str]:
    """cubin bytes and the compiler used (NVRTC through cuda-python, else nvcc). Needs no GPU."""
    _, nv = _cuda()
    try:
        prog = _ok(nv.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [], []), "nvrtcCreateProgram")
        opts = [f"--gpu-architecture={arch}".encode(), b"-lineinfo", b"--std=c++17"]
        ret = nv.nvrtcCompileProgram(prog, len(opts), opts)
        if int(ret[0]) != 0:
            size = _ok(nv.nvrtcGetProgramLogSize(prog), "log size")
            log = b" " * size
            nv.nvrtcGetProgramLog(prog, log)
            raise GpuError("NVRTC: " + log.decode(errors="replace")[-2000:])
        size = _ok(nv.nvrtcGetCUBINSize(prog), "cubin size")
        buf = b" " * size
        _ok(nv.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
        return buf, "nvrtc"
    except GpuError as err:
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            raise
        with tempfile.TemporaryDirectory() as d:
            src, out = Path(d, f"{name}.cu"), Path(d, f"{name}.cubin")
            src.write_text(source)
            r = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-lineinfo", "-o", str(out), str(src)],
                               capture_output=True, text=True)
            if r.returncode:
                raise GpuError(f"{err}; nvcc: {r.stderr[-2000:]}") from None
            return out.read_bytes(), "nvcc"


def _compile_job(job: tuple) -> tuple:
    """(source, name, arch, cubin path) -> (cubin path, compiler, None) or (None, None, error)."""
    source, name, arch, out = job
    try:
        cubin, how = compile_cubin(source, name, arch)
    except Exception as err:  # noqa: BLE001 -- GpuError, or cuda-python missing in a worker
        return None, None, str(err)[-1500:]
    Path(out).write_bytes(cubin)
    return out, how, None


class Gpu:
    def __init__(self):
        self.cu, self.nvrtc = _cuda()
        cu = self.cu
        _ok(cu.cuInit(0), "cuInit")
        n = _ok(cu.cuDeviceGetCount(), "cuDeviceGetCount")
        if not n:
            raise GpuError("no CUDA device")
        self.dev = _ok(cu.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = _ok(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        _ok(cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        A = cu.CUdevice_attribute
        self.cc = (_ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev), "attr"),
                   _ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev), "attr"))
        name = _ok(cu.cuDeviceGetName(64, self.dev), "cuDeviceGetName")
        self.name = bytes(name).split(b"\0")[0].decode()
        self.arch = f"sm_{self.cc[0]}{self.cc[1]}" + ("a" if self.cc[0] == 9 else "")

    def recover(self) -> None:
        """After a launch fault (a sticky error) the context is unusable: release and re-create this
        process's primary context (the GPU itself is not reset)."""
        cu = self.cu
        cu.cuDevicePrimaryCtxRelease(self.dev)
        cu.cuDevicePrimaryCtxReset(self.dev)
        self.ctx = _ok(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        _ok(cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def launch(self, plan: dict, cubin: bytes, recover: bool = True) -> dict:
        """Load, set attributes, launch once, read the trace back."""
        cu = self.cu
        self._keep = np.frombuffer(cubin, dtype=np.uint8).copy()
        mod = _ok(cu.cuModuleLoadData(self._keep.ctypes.data), "cuModuleLoadData")
        fn = _ok(cu.cuModuleGetFunction(mod, plan["kernel"].encode()), "cuModuleGetFunction")
        FA = cu.CUfunction_attribute
        smem = plan["smem"]
        wanted = {"MAX_DYNAMIC_SHARED_SIZE_BYTES": smem, "PREFERRED_SHARED_MEMORY_CARVEOUT": CARVEOUT}
        got, not_taken = {}, []
        for key, val in wanted.items():
            attr = getattr(FA, "CU_FUNC_ATTRIBUTE_" + key)
            ret = cu.cuFuncSetAttribute(fn, attr, val)
            if int(ret[0]) != 0:
                not_taken.append(f"{key}={val} refused ({ret[0]})")
            got[key] = _ok(cu.cuFuncGetAttribute(attr, fn), "cuFuncGetAttribute")
            if got[key] != val:
                not_taken.append(f"{key}: set {val}, read back {got[key]}")
        got["SHARED_SIZE_BYTES(static)"] = _ok(cu.cuFuncGetAttribute(FA.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn), "attr")
        T, nslots, maxr = plan["threads_total"], plan["nslots"], max(plan["maxr"], 1)
        from .reference import make_pool
        pool = make_pool(T, plan["per"])
        host = {
            "trace": np.zeros(max(nslots, 1) * T * maxr, dtype=np.uint32),
            "counts": np.zeros(max(nslots, 1) * T, dtype=np.uint32),
            "flags": np.zeros(4, dtype=np.uint32),
            "slot": np.asarray(plan["slots"], dtype=np.int32),
            "pool": pool,
            "sink": np.zeros((max(nslots, 1) + 1) * max(smem, 16), dtype=np.uint8),   # + a scratch slice
        }
        dev = {}
        try:
            for k, a in host.items():
                dev[k] = _ok(cu.cuMemAlloc(max(a.nbytes, 16)), "cuMemAlloc")
                _ok(cu.cuMemcpyHtoD(dev[k], a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
            vals = [np.array([int(dev[k])], dtype=np.uint64) for k in ("trace", "counts", "flags", "slot", "pool", "sink")]
            vals += [np.array([plan["per"]], dtype=np.uint32), np.array([maxr], dtype=np.uint32),
                     np.array([max(nslots, 1)], dtype=np.uint32)]
            params = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
            gx, gy, gz = plan["grid"]
            bx, by, bz = plan["block"]
            t0 = time.time()
            _ok(cu.cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, smem, 0, params.ctypes.data, 0), "cuLaunchKernel")
            _ok(cu.cuCtxSynchronize(), "kernel")
            secs = time.time() - t0
            for k in ("trace", "counts", "flags", "sink"):
                _ok(cu.cuMemcpyDtoH(host[k].ctypes.data, dev[k], host[k].nbytes), "cuMemcpyDtoH")
        except GpuError:
            if recover:
                self.recover()
            raise
        finally:
            if dev.get("trace") is not None:
                for d in dev.values():
                    cu.cuMemFree(d)
                cu.cuModuleUnload(mod)
        return {"trace": host["trace"].reshape(max(nslots, 1), T, maxr), "counts": host["counts"].reshape(max(nslots, 1), T),
                "sink": host["sink"][: max(nslots, 1) * max(smem, 16)].reshape(max(nslots, 1), max(smem, 16)),
                "timeouts": int(host["flags"][0]), "attrs": got, "not_taken": not_taken, "seconds": secs}


# ---------------------------------------------------------------- one kernel
@dataclass
class Case:
    path: str
    func: str
    static: str = ""
    static_rules: list = field(default_factory=list)
    emitted: object = None
    not_emitted: str | None = None
    refs: list = field(default_factory=list)
    plan: dict = field(default_factory=dict)
    hang: str | None = None
    ref_problem: str | None = None
    result: dict = field(default_factory=dict)
    same_as: "Case | None" = None    # an earlier case with the identical skeleton (its run is shared)

    @property
    def id(self) -> str:
        return f"{self.path}::{self.func}"


GATE_SIZES = 4     # symbolic kernels run at this many of the sizes the checker lists


def gate_sizes(program) -> list[dict]:
    """Concrete values for a kernel's symbolic sizes: a few of those the checker itself runs
    (prover.sizes), smallest first, the induction's far value left out (too long to trace)."""
    if not program.symbols:
        return [{}]
    from ..prover.sizes import plan_sizes
    listed = plan_sizes(program, []).values
    values = listed[:-1] or listed
    picks = sorted({0, 1, min(3, len(values) - 1), len(values) // 2})
    return [values[i] for i in picks if i < len(values)][:GATE_SIZES]


def prepare(paths, jobs: int = 1) -> list[Case]:
    """Static verdict, skeleton and numpy reference of every kernel (and size instance) in
    `paths`; files in parallel over `jobs` processes."""
    from ..runner import collect
    files = [str(p) for p in collect(paths)]
    if jobs > 1 and len(files) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(jobs) as pool:
            per_file = list(pool.map(_prepare_file, files, chunksize=1))
    else:
        per_file = [_prepare_file(f) for f in files]
    return [c for cases in per_file for c in cases]


def _prepare_file(path: str) -> list[Case]:
    from ..analyze import check_text
    from ..diagnostics import verdict
    from ..engine.program import elaborate
    from ..parse import parse
    from . import reference
    from .cuda import EmitError, emit

    text = Path(path).read_text()
    static_err = "?"
    try:
        report = check_text(text, path)
        statics = {k.name: (verdict(k.findings), sorted({f.rule.code for f in k.findings})) for k in report.kernels}
    except Exception as err:  # noqa: BLE001 -- the gate reports, it does not crash
        statics, static_err = {}, f"check failed: {type(err).__name__}: {err}"
    cases = []
    for func in parse(text, path).functions:
        try:
            program = elaborate(func)
            sizes = gate_sizes(program)
        except Exception as err:  # noqa: BLE001
            c = Case(path, func.name, not_emitted=f"elaboration failed: {type(err).__name__}: {err}")
            c.static, c.static_rules = statics.get(func.name, (static_err, []))
            cases.append(c)
            continue
        for size in sizes:
            label = func.name + ("[" + ",".join(f"{k}={v}" for k, v in size.items()) + "]" if size else "")
            c = Case(path, label)
            c.static, c.static_rules = statics.get(func.name, (static_err, []))
            cases.append(c)
            try:
                kname = "ag_" + re.sub(r"[^A-Za-z0-9_]", "_", f"{Path(path).stem}_{label}")
                e = emit(func, program, kname, sizes=size)
            except EmitError as err:
                c.not_emitted = str(err)
                continue
            except Exception as err:  # noqa: BLE001
                c.not_emitted = f"emitter error {type(err).__name__}: {err}"
                continue
            launch = program.launch
            blocks = launch.sample_blocks() if program.block_dependent else [{}]
            gx, gy, _ = launch.blocks
            nblocks = launch.blocks[0] * launch.blocks[1] * launch.blocks[2]
            slots = [-1] * nblocks
            for i, b in enumerate(blocks):
                bid = b.get("blockIdx.x", 0) + b.get("blockIdx.y", 0) * gx + b.get("blockIdx.z", 0) * gx * gy
                slots[bid] = i
            for b in blocks:
                r = reference.compute(program, e, b, sizes=size)
                c.refs.append(r)
                c.hang = c.hang or r.hang
                c.ref_problem = c.ref_problem or r.problem
            maxr = max((len(x) for r in c.refs for x in r.reads), default=0)
            per = int(max((int(r.src_bytes.max()) for r in c.refs), default=0))
            c.plan = {"id": c.id, "kernel": e.kernel, "grid": list(e.grid), "block": list(e.threads),
                      "threads_total": launch.num_threads, "smem": e.smem_bytes, "nslots": len(blocks),
                      "slots": slots, "maxr": maxr, "per": -(-per // 16) * 16 or 16,
                      "hopper": "hopper" in e.features}
            e.info = {}           # op id -> model closures: used by the reference only, not picklable
            c.emitted = e
    return cases


def skeleton_key(c: Case) -> tuple:
    """Two cases with this key equal run the same code on the same launch and expect the same
    trace: the source without its kernel name and line comments, the launch, the reference."""
    src = re.sub(r"//[^\n]*", "", c.emitted.source.replace(c.emitted.kernel, "K"))
    plan = tuple((k, str(v)) for k, v in sorted(c.plan.items()) if k not in ("id", "kernel"))
    reads = tuple(tuple(h for h, _ in x) for r in c.refs for x in r.reads)
    return src, plan, reads


def compare(case: Case, run: dict) -> dict:
    mism, count_bad, sink_bad, first = 0, 0, 0, []
    for slot, ref in enumerate(case.refs):
        trace, counts = run["trace"][slot], run["counts"][slot]
        for t, reads in enumerate(ref.reads):
            if int(counts[t]) != len(reads):
                count_bad += 1
                if len(first) < 5:
                    first.append(f"block {ref.block or 0} thread {t}: {int(counts[t])} reads, reference {len(reads)}")
            for i, (h, line) in enumerate(reads[: trace.shape[1]]):
                if h is not None and int(trace[t, i]) != h:
                    mism += 1
                    if len(first) < 5:
                        first.append(f"block {ref.block or 0} thread {t} read #{i} (line {line}): "
                                     f"got {int(trace[t, i]):08x}, reference {h:08x}")
        if ref.sink is not None:           # bytes the bulk (TMA) stores left in this block's sink
            got = run["sink"][slot][: len(ref.sink)]
            bad = np.flatnonzero(got != ref.sink)
            sink_bad += len(bad)
            if len(bad) and len(first) < 5:
                first.append(f"block {ref.block or 0} TMA-store sink: {len(bad)} byte(s) differ from the "
                             f"reference, the first at shared offset {int(bad[0])}")
    return {"mismatches": mism, "count_mismatches": count_bad, "sink_mismatches": sink_bad, "first": first,
            "reads": sum(len(x) for r in case.refs for x in r.reads)}


# ---------------------------------------------------------------- sanitizer
# One sanitizer process per kernel and tool: racecheck's report lines cannot be attributed to a
# launch reliably (the tool front-end prints them asynchronously), and it does not report a hazard
# again at a location it already reported in the same process. The process's own summary line
# is then exactly this kernel's count.
_RACE_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
_ERR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")


def parse_sanitizer(tool: str, text: str, kid: str) -> dict:
    finished = f"{MARK} END {kid}" in text and f"{MARK} FAIL {kid}" not in text
    m = _RACE_SUMMARY.search(text) if tool == "racecheck" else None
    if m:
        hazards, errors, warnings = (int(x) for x in m.groups())
    else:
        e = _ERR_SUMMARY.search(text)
        hazards = errors = int(e.group(1)) if e else None
        warnings = 0
    lines = [ln for ln in text.splitlines() if ln.startswith("=========") and ln.strip("= ")
             and "COMPUTE-SANITIZER" not in ln][:12]
    fail = [ln for ln in text.splitlines() if ln.startswith(f"{MARK} FAIL")]
    return {"hazards": hazards, "errors": errors, "warnings": warnings, "finished": finished,
            "excerpt": lines, "launch_error": fail[0].split(" ", 3)[-1] if fail else None}


def _sanitize_one(san, tool, plan, work, timeout):
    pf = work / f"{plan['kernel']}.plan.json"
    pf.write_text(json.dumps([plan]))
    cmd = [san, "--tool", tool, "--print-limit", "100000", sys.executable, "-m", "asyncguard",
           "sanitize", "--child", str(pf)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        text = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        text = (out.decode(errors="replace") if isinstance(out, bytes) else out) + "\n[asyncguard: timed out]"
    (work / f"{plan['kernel']}.{tool}.log").write_text(text)
    return parse_sanitizer(tool, text, plan["id"])


def run_child(plan_file: str, trace_dir: str | None = None) -> int:
    """Load each cubin and launch it once, between markers (inside compute-sanitizer, or for the
    plain run with `trace_dir`, where each kernel's trace is saved). A launch fault leaves the
    context unusable: the child says so and exits 3; the parent starts a new one for the rest."""
    plans = json.loads(Path(plan_file).read_text())
    gpu = Gpu()
    for p in plans:
        print(f"{MARK} BEGIN {p['id']}", flush=True)
        try:
            r = gpu.launch(p, Path(p["cubin"]).read_bytes(), recover=False)
        except GpuError as err:
            print(f"{MARK} FAIL {p['id']} {err}", flush=True)
            return 3
        if trace_dir:
            np.savez(Path(trace_dir, p["kernel"] + ".npz"), trace=r["trace"], counts=r["counts"], sink=r["sink"],
                     meta=np.array(json.dumps({k: r[k] for k in ("timeouts", "attrs", "not_taken", "seconds")})))
        print(f"{MARK} RESULT {p['id']} timeouts={r['timeouts']}", flush=True)
        print(f"{MARK} END {p['id']}", flush=True)
    return 0


def run_plain(plans: list, work: Path, timeout: int) -> dict:
    """The plain (unsanitized) launches in child processes: id -> run dict, or {'error': ...}."""
    out: dict = {}
    todo = list(plans)
    while todo:
        pf = work / "plain.plan.json"
        pf.write_text(json.dumps(todo))
        try:
            r = subprocess.run([sys.executable, "-m", "asyncguard", "sanitize", "--child", str(pf),
                                "--trace-dir", str(work)], capture_output=True, text=True, timeout=timeout)
            text = r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            text = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        progressed = False
        for p in list(todo):
            npz = work / (p["kernel"] + ".npz")
            if npz.exists():
                d = np.load(npz)
                run = {"trace": d["trace"], "counts": d["counts"], "sink": d["sink"], **json.loads(str(d["meta"]))}
                out[p["id"]] = run
                todo.remove(p)
                progressed = True
                continue
            fail = next((ln for ln in text.splitlines() if ln.startswith(f"{MARK} FAIL {p['id']} ")), None)
            out[p["id"]] = {"error": fail.split(" ", 3)[-1] if fail else
                            f"the launching process ended without a result: {text.strip()[-300:]}"}
            todo.remove(p)
            progressed = True
            break          # the process died at this kernel: restart with the rest
        if not progressed:
            break
    return out


def find_sanitizer() -> str | None:
    return shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer")
         if os.path.exists(p)), None)


# ---------------------------------------------------------------- the command
def main(args) -> int:
    if getattr(args, "child", None):
        return run_child(args.child, getattr(args, "trace_dir", None))
    try:
        gpu = Gpu()
    except Exception as err:  # noqa: BLE001 -- ImportError, no driver, no device
        print(f"asyncguard sanitize: no GPU: {type(err).__name__}: {err}", file=sys.stderr)
        return 2
    san = find_sanitizer()
    if san is None and not args.no_sanitizer:
        print("asyncguard sanitize: no compute-sanitizer on PATH (or /usr/local/cuda/bin)", file=sys.stderr)
        return 2
    t0 = time.time()
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    cases = prepare(args.files, jobs)
    print(f"asyncguard sanitize: {gpu.name} ({gpu.arch}); {len(cases)} kernel(s) prepared in {time.time() - t0:.1f}s",
          file=sys.stderr)
    work = Path(args.keep or tempfile.mkdtemp(prefix="agsan-"))
    work.mkdir(parents=True, exist_ok=True)
    todo, first_of = [], {}
    for c in cases:
        res = c.result
        if c.emitted is None:
            res["status"] = "not emitted"
            continue
        (work / f"{c.emitted.kernel}.cu").write_text(c.emitted.source)
        if c.plan["hopper"] and gpu.cc[0] < 9:
            res["status"] = f"not run: needs sm_90 ({gpu.arch})"
            continue
        if c.hang:
            res["status"] = f"not launched: the engine predicts a hang ({c.hang})"
            continue
        key = skeleton_key(c)
        if key in first_of:              # same code, launch and expected trace: run it once
            c.same_as = first_of[key]
            continue
        first_of[key] = c
        todo.append(c)
    t1 = time.time()
    from concurrent.futures import ProcessPoolExecutor
    compile_jobs = [(c.emitted.source, c.emitted.kernel, gpu.arch, str(work / f"{c.emitted.kernel}.cubin"))
                    for c in todo]
    with ProcessPoolExecutor(jobs) as pool:
        compiled = list(pool.map(_compile_job, compile_jobs, chunksize=1))
    plans = []
    for c, (cubin, how, err) in zip(todo, compiled):
        if err is not None:
            c.result["status"], c.result["error"] = "compile failed", err
            continue
        c.plan["cubin"] = cubin
        c.result["compiler"] = how
        plans.append(c.plan)
    print(f"asyncguard sanitize: {len(todo)} distinct skeleton(s) compiled in {time.time() - t1:.1f}s "
          f"({sum(c.same_as is not None for c in cases)} kernel(s) share one of them)", file=sys.stderr)
    by_id = {c.id: c for c in cases}
    for kid, run in run_plain(plans, work, args.sanitizer_timeout * 4).items():
        c = by_id[kid]
        if "error" in run:
            c.result["status"], c.result["error"] = "launch failed", run["error"]
            continue
        c.result.update(status="ran", timeouts=run["timeouts"], attrs=run["attrs"], not_taken=run["not_taken"],
                        seconds=round(run["seconds"], 4), trace=compare(c, run))
    plans = [p for p in plans if by_id[p["id"]].result.get("status") == "ran"]
    if plans and not args.no_sanitizer:
        from concurrent.futures import ThreadPoolExecutor
        by_id = {c.id: c for c in cases}
        t1 = time.time()
        jobs = [(tool, p) for tool in ("racecheck", "synccheck") for p in plans]
        with ThreadPoolExecutor(max(1, args.sanitizer_jobs)) as ex:
            futs = [(tool, p, ex.submit(_sanitize_one, san, tool, p, work, args.sanitizer_timeout)) for tool, p in jobs]
            for tool, p, f in futs:
                by_id[p["id"]].result[tool] = f.result()
        print(f"asyncguard sanitize: {len(jobs)} sanitizer runs in {time.time() - t1:.1f}s", file=sys.stderr)
    for c in cases:
        if c.same_as is not None:
            c.result = dict(c.same_as.result, same_as=c.same_as.id)
    for c in cases:
        _judge(c, args.no_sanitizer)
    _print(cases)
    if args.junit:
        Path(args.junit).write_text(_junit(cases))
    if args.json:
        Path(args.json).write_text(json.dumps([_row(c) for c in cases], indent=1, default=str))
    return 1 if any(c.result["verdict"] == "fail" for c in cases) else 0


def _judge(c: Case, no_san: bool) -> None:
    r = c.result
    why = []
    if r.get("status") != "ran":
        r["verdict"] = "skip" if r.get("status") in ("not emitted",) or str(r.get("status", "")).startswith("not") else "fail"
        r["why"] = [r.get("error") or c.not_emitted or r.get("status")]
        return
    tr = r["trace"]
    if c.ref_problem:
        why.append(f"reference incomplete: {c.ref_problem}")
    if tr["mismatches"] or tr["count_mismatches"]:
        why.append(f"trace: {tr['mismatches']} read(s) differ, {tr['count_mismatches']} thread(s) with a different read count")
    if tr.get("sink_mismatches"):
        why.append(f"TMA-store sink: {tr['sink_mismatches']} byte(s) differ from the reference")
    if r["timeouts"]:
        why.append(f"{r['timeouts']} mbarrier wait(s) timed out")
    if r["not_taken"]:
        why.append("launch attributes not taken: " + "; ".join(r["not_taken"]))
    for tool in ("racecheck", "synccheck"):
        t = r.get(tool)
        if no_san:
            continue
        if t is None or t.get("hazards") is None:
            why.append(f"{tool}: no report")
        elif t["hazards"]:
            why.append(f"{tool}: {t['hazards']} report(s)")
        elif t.get("launch_error"):
            why.append(f"{tool}: launch failed under the tool ({t['launch_error']})")
        elif not t.get("finished", True):
            why.append(f"{tool}: run did not finish")
    r["verdict"] = "fail" if why else "pass"
    r["why"] = why


SYNC_RULES = ("AG1", "AG2", "AG3", "AG4")   # the rule families the gate observes; AG5xx are resources


def agree(c: Case) -> str:
    return agreement(c.static, c.static_rules, c.result.get("verdict"), c.result.get("status"))


def agreement(static: str, rules: list, verdict: str | None, status: str | None) -> str:
    """Does the static synchronization verdict match the GPU's (yes / no / n/a)? Resource findings
    (AG5xx: limits, alignment) are not synchronization: a kernel with only those is compared as
    clean, except that a launch the GPU refuses or faults confirms them."""
    d = {"pass": "clean", "fail": "buggy"}.get(verdict or "", "n/a")
    if d == "n/a" or static not in ("clean", "buggy", "warnings"):
        return "n/a"
    if d == "buggy" and status == "launch failed" and any(r.startswith("AG5") for r in rules):
        return "yes"
    s = "buggy" if any(r.startswith(SYNC_RULES) for r in rules) else "clean"
    return "yes" if s == d else "no"


def _row(c: Case) -> dict:
    r = c.result
    return {"kernel": c.id, "static": c.static, "static_rules": c.static_rules, "status": r.get("status"),
            "verdict": r.get("verdict"), "why": r.get("why"), "trace": r.get("trace"),
            "racecheck": r.get("racecheck"), "synccheck": r.get("synccheck"), "timeouts": r.get("timeouts"),
            "attrs": r.get("attrs"), "not_taken": r.get("not_taken"), "agree": agree(c),
            "not_emitted": c.not_emitted, "hang": c.hang, "error": r.get("error"),
            "same_as": r.get("same_as")}


def _cell(t):
    return "-" if t is None else (str(t["hazards"]) if t.get("hazards") is not None else "?")


def _print(cases) -> None:
    for c in cases:
        r = c.result
        tr = r.get("trace")
        trace = "-" if tr is None else ("ok" if not (tr["mismatches"] or tr["count_mismatches"]) else f"{tr['mismatches']} differ")
        if tr is not None and tr.get("sink_mismatches"):
            trace += f", sink {tr['sink_mismatches']} B differ"
        print(f"{r['verdict'].upper():4} {c.id}  static={c.static} racecheck={_cell(r.get('racecheck'))} "
              f"synccheck={_cell(r.get('synccheck'))} trace={trace} agree={agree(c)}")
        if r.get("same_as"):
            print(f"       same skeleton as {r['same_as']} (its run)")
        for w in r.get("why") or []:
            print(f"       {w}")


def _junit(cases) -> str:
    fails = sum(c.result["verdict"] == "fail" for c in cases)
    skips = sum(c.result["verdict"] == "skip" for c in cases)
    out = [f'<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuite name="asyncguard-sanitize" tests="{len(cases)}" failures="{fails}" skipped="{skips}">']
    for c in cases:
        r = c.result
        out.append(f'  <testcase classname={xs.quoteattr(c.path)} name={xs.quoteattr(c.func)}>')
        msg = "; ".join(str(w) for w in (r.get("why") or []))
        if r["verdict"] == "fail":
            out.append(f'    <failure message={xs.quoteattr(msg[:500])}>{xs.escape(json.dumps(_row(c), default=str))}</failure>')
        elif r["verdict"] == "skip":
            out.append(f'    <skipped message={xs.quoteattr(msg[:500])}/>')
        out.append("  </testcase>")
    out.append("</testsuite>")
    return "\n".join(out) + "\n"
