"""`.py` files: TileLang kernels lowered to device TIR in a child process, then checked as TIR.

The child (`tilelang_lower`) imports the user's module, finds module-level `@T.prim_func`
kernels and `@tilelang.jit` factories (called with each configured argument set), and lowers
each for each arch on the CPU. This side starts it with a time limit and turns whatever
happens into data: lowered units, or an input error naming the module or the kernel.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

NEEDS_TILELANG = ("checking .py kernels needs TileLang in this environment: "
                  "pip install 'asyncguard[tilelang]'")


@dataclass
class LoweredKernel:
    """One (kernel, argument set, arch) of a `.py` file: its device TIR, or why there is none."""
    file: str
    kernel: str
    args: dict | None
    arch: str | None
    def_line: int
    tir: str | None = None
    error: str | None = None
    note: str | None = None

    @property
    def name(self) -> str:
        """`kernels/gemm.py::matmul[M=1024,N=1024]@sm_90a`: what a report calls this unit."""
        args = "" if self.args is None else "[" + ",".join(f"{k}={v}" for k, v in self.args.items()) + "]"
        return f"{self.file}::{self.kernel}{args}" + (f"@{self.arch}" if self.arch else "")

    def tir_file_name(self, index: int | None) -> str:
        """`gemm.matmul.0.sm_90a.tir` for --emit-tir (index: the argument set's position)."""
        stem = Path(self.file).stem
        mid = f".{index}" if index is not None else ""
        return f"{stem}.{self.kernel}{mid}.{self.arch}.tir"


def tilelang_available() -> bool:
    try:
        return importlib.util.find_spec("tilelang") is not None
    except (ImportError, ValueError):   # a finder that refuses it, or a broken install
        return False


def _package_parent() -> str:
    """The directory holding this asyncguard package, so the child imports the same one."""
    return str(Path(__file__).resolve().parents[2])


def lower_file(path: str, config, cwd: str | None = None) -> tuple[list[LoweredKernel], tuple | None]:
    """(lowered units, error). error is (message, line, col) for the whole module: TileLang
    missing, the import failed, or the child ran out of time or died. A relative `path` is
    relative to `cwd` (the caller's directory: this may run in a worker elsewhere)."""
    if not tilelang_available():
        return [], (NEEDS_TILELANG, 1, 1)
    cwd = cwd or os.getcwd()
    absolute = Path(cwd, path).resolve()
    root = config.root or cwd
    try:
        rel = os.path.relpath(absolute, Path(root).resolve())
    except ValueError:
        rel = path
    req = {"file": str(absolute), "archs": config.lowering_archs(), "root": root,
           "args": config.factory_args(absolute), "rel": rel}
    timeout = config.lower_timeout
    with tempfile.TemporaryDirectory(prefix="asyncguard-lower-") as tmp:
        req_file, res_file = os.path.join(tmp, "request.json"), os.path.join(tmp, "result.json")
        with open(req_file, "w", encoding="utf-8") as f:
            json.dump(req, f)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([_package_parent()] + [p for p in [env.get("PYTHONPATH")] if p])
        try:
            proc = subprocess.run([sys.executable, "-m", "asyncguard.frontends.tilelang_lower",
                                   req_file, res_file], cwd=root, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [], (f"importing the module and lowering its kernels took more than {timeout:g} s "
                        f"([tool.asyncguard.tilelang] timeout); nothing checked", 1, 1)
        try:
            with open(res_file, encoding="utf-8") as f:
                result = json.load(f)
        except (OSError, ValueError):
            tail = [l for l in proc.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
            why = tail[-1].strip() if tail else f"exit status {proc.returncode}"
            return [], (f"the process importing the module died before answering: {why}", 1, 1)
    if result.get("error"):
        return [], (result["error"], result.get("error_line") or 1, 1)
    units = [LoweredKernel(path, k["kernel"], k["args"], k["arch"], k["def_line"], k["tir"],
                           k["error"], k["note"]) for k in result["kernels"]]
    return units, None


def emit_tir(units: list[LoweredKernel], directory: str, cwd: str | None = None) -> dict[int, str]:
    """Write each unit's TIR (byte for byte what was checked) under `directory` (relative to
    `cwd`); {id(unit): the file, spelt as `directory` is}."""
    os.makedirs(os.path.join(cwd or os.getcwd(), directory), exist_ok=True)
    multi = {}
    for u in units:
        multi.setdefault((u.kernel, u.arch), []).append(u)
    out = {}
    for u in units:
        if u.tir is None:
            continue
        group = multi[(u.kernel, u.arch)]
        index = group.index(u) if u.args is not None else None
        target = os.path.join(directory, u.tir_file_name(index))
        with open(os.path.join(cwd or os.getcwd(), target), "w", encoding="utf-8") as f:
            f.write(u.tir)
        out[id(u)] = target
    return out
