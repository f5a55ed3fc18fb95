"""The gate's GPU side: compile skeletons, launch them in isolated processes, one per GPU.

Isolation. A launch fault (`CUDA_ERROR_ILLEGAL_ADDRESS`, `LAUNCH_FAILED`, ...) is sticky: the
CUDA context of the process that saw it is unusable. So no skeleton is launched in the gate's own
process: each visible GPU gets a launcher process (`python -m asyncguard.emit.launcher serve`,
`CUDA_VISIBLE_DEVICES` set to that GPU) fed one plan at a time. When a launch faults, the
launcher reports the fault and exits; when one does not answer within the per-kernel limit (a
hang), it is killed. Either way that kernel gets the fault or the timeout as its result, a fresh
launcher starts, and the kernels after it run in a clean context: no result depends on another
kernel. Kernel names are unique in a run and every result file is written fresh, so a run never
reads another kernel's (or an earlier run's) trace.

Several GPUs: plans are taken from one queue by one launcher per GPU, so a kernel's result does
not depend on which GPU ran it (every GPU is the same model; the plan fixes the launch).
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

CARVEOUT = 100          # requested preferred carveout (percent of the maximum shared memory)
MARK = "@@AGSAN"


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
    try:
        _, nv = _cuda()
    except ImportError as err:
        nv, first = None, GpuError(f"cuda-python: {err}")
    if nv is not None:
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
            first = err
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise first
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d, f"{name}.cu"), Path(d, f"{name}.cubin")
        src.write_text(source)
        r = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-lineinfo", "-o", str(out), str(src)],
                           capture_output=True, text=True)
        if r.returncode:
            raise GpuError(f"{first}; nvcc: {r.stderr[-2000:]}") from None
        return out.read_bytes(), "nvcc"


def compile_job(job: tuple) -> tuple:
    """(source, name, arch, cubin path) -> (cubin path, compiler, None) or (None, None, error)."""
    source, name, arch, out = job
    try:
        cubin, how = compile_cubin(source, name, arch)
    except Exception as err:  # noqa: BLE001 -- GpuError, or cuda-python missing in a worker
        return None, None, str(err)[-1500:]
    Path(out).write_bytes(cubin)
    return out, how, None


def visible_gpus(limit: int = 0) -> list[str]:
    """The GPUs this process may use, as CUDA_VISIBLE_DEVICES entries (at most `limit`; 0: all)."""
    cu, _ = _cuda()
    _ok(cu.cuInit(0), "cuInit")
    n = _ok(cu.cuDeviceGetCount(), "cuDeviceGetCount")
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    names = [s.strip() for s in env.split(",") if s.strip()][:n] if env else [str(i) for i in range(n)]
    return names[:limit] if limit else names


class Gpu:
    """Device 0 of this process (the launcher's CUDA_VISIBLE_DEVICES picks which GPU that is)."""

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

    def launch(self, plan: dict, cubin: bytes) -> dict:
        """Load, set attributes, launch once, read the trace back. A GpuError leaves the context
        unusable when it came from the kernel (the caller's process must end)."""
        cu = self.cu
        keep = np.frombuffer(cubin, dtype=np.uint8).copy()
        mod = _ok(cu.cuModuleLoadData(keep.ctypes.data), "cuModuleLoadData")
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
        S, T, R = max(plan["nslots"], 1), plan["threads_total"], max(plan["maxr"], 1)
        smem16 = max(smem, 16)
        pool, pool_at = pool_for(plan)
        host = {
            "trace": np.zeros(S * T * R, dtype=np.uint32),
            "counts": np.zeros(S * T, dtype=np.uint32),
            "flags": np.zeros(4, dtype=np.uint32),
            "bmap": np.asarray(plan["blocks"], dtype=np.int32).reshape(-1),   # real (x, y, z) per slot
            "pool": pool,
            "pool_at": pool_at,
            "sink": np.zeros((S + 1) * smem16, dtype=np.uint8),   # + a scratch slice
        }
        dev = {}
        try:
            for k, a in host.items():
                dev[k] = _ok(cu.cuMemAlloc(max(a.nbytes, 16)), "cuMemAlloc")
                _ok(cu.cuMemcpyHtoD(dev[k], a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
            vals = [np.array([int(dev[k])], dtype=np.uint64)
                    for k in ("trace", "counts", "flags", "bmap", "pool", "sink", "pool_at")]
            vals += [np.array([R], dtype=np.uint32),
                     np.array([S], dtype=np.uint32)]
            params = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
            gx, gy, gz = plan["launch_grid"]     # the traced blocks only (plan["grid"]: the kernel's)
            bx, by, bz = plan["block"]
            t0 = time.time()
            _ok(cu.cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, smem, 0, params.ctypes.data, 0), "cuLaunchKernel")
            _ok(cu.cuCtxSynchronize(), "kernel")
            secs = time.time() - t0
            for k in ("trace", "counts", "flags", "sink"):
                _ok(cu.cuMemcpyDtoH(host[k].ctypes.data, dev[k], host[k].nbytes), "cuMemcpyDtoH")
        finally:
            for d in dev.values():
                cu.cuMemFree(d)
            cu.cuModuleUnload(mod)
        return {"trace": host["trace"].reshape(S, T, R), "counts": host["counts"].reshape(S, T),
                "sink": host["sink"][: S * smem16].reshape(S, smem16),
                "timeouts": int(host["flags"][0]), "overruns": int(host["flags"][1]),
                "attrs": got, "not_taken": not_taken, "seconds": secs}


def pool_for(plan: dict) -> tuple[np.ndarray, np.ndarray]:
    """The global source of the skeleton's copies and where each thread's slice starts
    (patterns.make_pool), then the shared size plus 16 bytes of padding, so a copy that `ag_src`
    restarts at its slice's start (a block that copies more than the traced ones) stays inside."""
    from .patterns import make_pool
    pool, at = make_pool([int(n) for n in plan["slices"]])
    return np.concatenate([pool, np.zeros(max(plan["smem"], 16) + 16, np.uint8)]), at


META = ("timeouts", "overruns", "attrs", "not_taken", "seconds")


def save_run(path: Path, r: dict) -> None:
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, trace=r["trace"], counts=r["counts"], sink=r["sink"],
             meta=np.array(json.dumps({k: r[k] for k in META})))
    os.replace(tmp, path)


def load_run(path: Path) -> dict:
    d = np.load(path)
    return {"trace": d["trace"], "counts": d["counts"], "sink": d["sink"], **json.loads(str(d["meta"]))}


# ---------------------------------------------------------------- launcher processes
def launch_plans(plan_file: str, trace_dir: str | None = None) -> int:
    """Launch each plan of a JSON file once, between markers (inside compute-sanitizer, or with
    `trace_dir` to save each run). A fault ends the process (exit 3): its context is unusable."""
    plans = json.loads(Path(plan_file).read_text())
    gpu = Gpu()
    for p in plans:
        print(f"{MARK} BEGIN {p['id']}", flush=True)
        try:
            r = gpu.launch(p, Path(p["cubin"]).read_bytes())
        except GpuError as err:
            print(f"{MARK} FAIL {p['id']} {err}", flush=True)
            return 3
        if trace_dir:
            save_run(Path(trace_dir, p["kernel"] + ".npz"), r)
        print(f"{MARK} RESULT {p['id']} timeouts={r['timeouts']}", flush=True)
        print(f"{MARK} END {p['id']}", flush=True)
    return 0


def serve(trace_dir: str) -> int:
    """A launcher: read one plan (a JSON line) at a time from stdin, launch it, save its run,
    answer one line. Ends after a fault (exit 3) or at end of input."""
    try:
        gpu = Gpu()
    except Exception as err:  # noqa: BLE001
        print(f"{MARK} NOGPU {type(err).__name__}: {err}", flush=True)
        return 2
    print(f"{MARK} READY {gpu.name}", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        p = json.loads(line)
        try:
            r = gpu.launch(p, Path(p["cubin"]).read_bytes())
        except GpuError as err:
            print(f"{MARK} FAIL {p['id']}\t{err}", flush=True)
            return 3
        save_run(Path(trace_dir, p["kernel"] + ".npz"), r)
        print(f"{MARK} DONE {p['id']}", flush=True)
    return 0


class _Launcher:
    """One launcher process on one GPU, restarted after a fault or a hang. A spare process is
    started beside it, so a restart takes the spare (already past its Python and CUDA start-up,
    a second or more each) instead of waiting for a fresh one: the faulting variants of a run no
    longer cost a start-up each."""

    def __init__(self, gpu: str, work: Path, command: list | None = None, spare: bool = True):
        self.gpu, self.work, self.proc, self.lines = gpu, work, None, None
        self.command = command or [sys.executable, "-m", "asyncguard.emit.launcher", "serve"]
        self.started = 0
        self.keep_spare = spare
        self.spare = None               # (process, its line queue), started ahead

    def _spawn(self):
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=self.gpu)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "") if env.get("PYTHONPATH") else root
        proc = subprocess.Popen(self.command + [str(self.work)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, env=env, bufsize=1)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(proc, lines), daemon=True).start()
        return proc, lines

    def start(self, timeout: float) -> str | None:
        if self.spare is not None and self.spare[0].poll() is None:
            self.proc, self.lines = self.spare
        else:
            if self.spare is not None:
                self._kill(self.spare[0])
            self.proc, self.lines = self._spawn()
        self.spare = None
        self.started += 1
        kind, text = self._answer(timeout, ("READY", "NOGPU"))
        if kind == "READY" and self.keep_spare:
            self.spare = self._spawn()
        return None if kind == "READY" else f"{kind}: {text or '(nothing printed)'}"

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def _answer(self, timeout: float, kinds: tuple) -> tuple:
        """(kind, text): the launcher's next marker line of `kinds`, ('TIMEOUT', ...) or
        ('EXIT', what it printed)."""
        end, other = time.time() + timeout, []
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                return "TIMEOUT", "\n".join(other[-5:])
            if line is None:
                return "EXIT", "\n".join(other[-8:])
            if line.startswith(MARK + " "):
                kind, _, rest = line[len(MARK) + 1:].partition(" ")
                if kind in kinds:
                    return kind, (rest if kind != "NOGPU" else "no GPU: " + rest) if kind != "READY" else None
            other.append(line)

    @staticmethod
    def _kill(proc) -> None:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def stop(self) -> None:
        self._kill(self.proc)
        self.proc = None

    def close(self) -> None:
        """The end of the run: the launcher and its spare go."""
        self.stop()
        if self.spare is not None:
            self._kill(self.spare[0])
            self.spare = None

    def run(self, plan: dict, timeout: float) -> dict:
        """One kernel: its run, or {'error': the fault / timeout / crash}."""
        if self.proc is None:
            why = self.start(max(timeout, 120))
            if why:
                self.stop()
                return {"error": f"launcher on GPU {self.gpu} did not start: {why}"}
        out = self.work / (plan["kernel"] + ".npz")
        out.unlink(missing_ok=True)
        try:
            self.proc.stdin.write(json.dumps(plan) + "\n")
            self.proc.stdin.flush()
        except OSError as err:
            self.stop()
            return {"error": f"launcher on GPU {self.gpu} gone: {err}"}
        kind, text = self._answer(timeout, ("DONE", "FAIL"))
        if kind == "DONE" and out.exists():
            return dict(load_run(out), gpu=self.gpu)
        self.stop()                      # a fault, a hang or a crash: the next kernel gets a fresh one
        if kind == "FAIL":
            return {"error": text.partition("\t")[2] or text, "fault": True, "gpu": self.gpu}
        if kind == "TIMEOUT":
            return {"error": f"no result within {timeout:g} s (a hang): the launcher was killed",
                    "fault": True, "gpu": self.gpu}
        return {"error": f"the launcher died during this kernel: {text.strip()[-300:]}", "fault": True,
                "gpu": self.gpu}


def run_isolated(plans: list, work: Path, gpus: list[str], timeout: float, progress=None,
                 command: list | None = None, per_gpu: int = 1, on_result=None) -> dict:
    """Every plan launched once, spread over `gpus` with `per_gpu` launchers each (separate
    processes, so separate CUDA contexts: a fault in one changes nothing in another; the host
    side of one -- loading a module, copying buffers, saving the trace -- overlaps another's
    kernel): id -> run or {'error'}. A plan's own `launch_timeout` (prepare.launch_limit)
    overrides `timeout`. Longest-limit plans go first, so a slow one does not form the tail.
    `command`: the launcher program (its last argument is the trace directory; tests).
    `on_result(id, run)` is called as each result comes in (one at a time)."""
    todo: queue.Queue = queue.Queue()
    for p in sorted(plans, key=lambda p: -float(p.get("launch_timeout") or 0)):
        todo.put(p)
    out: dict = {}
    lock = threading.Lock()

    def worker(gpu):
        lau = _Launcher(gpu, work, command)
        try:
            while True:
                try:
                    p = todo.get_nowait()
                except queue.Empty:
                    return
                r = lau.run(p, float(p.get("launch_timeout") or timeout))
                with lock:
                    out[p["id"]] = r
                    if on_result is not None:
                        on_result(p["id"], r)
                    if progress:
                        progress(len(out), len(plans))
        finally:
            lau.close()

    slots = [g for _ in range(max(1, per_gpu)) for g in gpus]
    threads = [threading.Thread(target=worker, args=(g,), daemon=True) for g in slots[:max(1, len(plans))]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) == 2:
        return serve(argv[1])
    if argv[:1] == ["once"] and len(argv) in (2, 3):
        return launch_plans(argv[1], argv[2] if len(argv) == 3 else None)
    print("usage: python -m asyncguard.emit.launcher serve TRACE_DIR | once PLANS.json [TRACE_DIR]",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
