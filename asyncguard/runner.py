"""Check many files: config per file, suppressions, a results cache, workers, a progress bar.

`check_file` (a `.tir` text) and `check_python_file` (a `.py` module: lowered, then each kernel
checked) are the units of work: top-level functions that take and return data only, so any
`concurrent.futures` executor can run them -- `--jobs N` worker processes, or a Dask cluster
(`--executor dask://HOST:PORT`). `.tir` texts are read here and sent to the worker, so a remote
worker needs no access to them; `.py` modules are imported where the worker runs (a shared
checkout). `check_paths` keeps the input order whatever order the workers finish in.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import suppress
from .analyze import check_text
from .cache import ResultCache, key as cache_key
from .config import Config, ConfigError, Resolver
from .parse import InputError

PROGRESS_MIN_FILES = 8


SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "build", "dist"}


def collect(paths: list[str], python: bool = False) -> list[Path]:
    """Files named, and under directories named (sorted, recursively): every *.tir, and with
    `python` the *.py files that import TileLang (outside hidden, build and environment
    directories). A named .py file that does not import TileLang is left out: the pre-commit
    hook passes every changed .py file, and only kernel modules are imported."""
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = set(path.rglob("*.tir"))
            if python:
                found |= {py for py in path.rglob("*.py") if _kernel_module(py, path)}
            out.extend(sorted(found))
        elif not is_python(path) or not path.is_file() or _imports_tilelang(path):
            out.append(path)    # a missing .py file is still reported: cannot read file
    return out


def _kernel_module(py: Path, top: Path) -> bool:
    rel = py.relative_to(top).parts[:-1]
    if any(d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info") for d in rel):
        return False
    return _imports_tilelang(py)


def _imports_tilelang(py: Path) -> bool:
    try:
        text = py.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True             # unreadable: let the unit report why
    return "import tilelang" in text or "from tilelang" in text


def is_python(path: str | Path) -> bool:
    return str(path).endswith(".py")


def read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read file: {e.strerror or e}", 1, 1, str(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data[: e.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = e.start - (text.rfind("\n") + 1) + 1
        raise InputError("not UTF-8 text (binary file?)", line, col, str(path)) from None


@dataclass
class FileResult:
    path: str                                      # a file, or a `.py` kernel unit's name
    report: object = None                          # analyze.FileReport
    error: tuple | None = None                     # (message, line, col) of an InputError
    lines: list = field(default_factory=list)
    text: str | None = None                        # the text checked (lowered TIR for `.py`)
    source: str | None = None                      # the `.py` file a lowered kernel came from


def _config_kwargs(config: Config, check_kwargs: dict | None) -> dict:
    """check_text's arch / assumptions: the config's, unless check_kwargs (--assume) gives its own."""
    kw = dict(check_kwargs or {})
    if kw.get("arch") is None:
        kw["arch"] = config.arch
    if "assumptions" not in kw:
        kw["assumptions"] = list(config.assumptions.values())
    return kw


@dataclass(frozen=True)
class RunOptions:
    """What every unit of work needs besides its input (sent to workers once per unit)."""
    limits: object                                 # analyze.Limits
    check_kwargs: dict | None = None               # --assume, --arch
    cache_dir: str | None = None                   # None: no results cache
    emit_tir: str | None = None                    # --emit-tir DIR
    cwd: str | None = None                         # relative paths: the caller's, not a worker's


def _checked(text: str, path: str, limits, config: Config, check_kwargs, cache_dir):
    """check_text through the results cache; suppressions applied after (they read the text)."""
    kwargs = _config_kwargs(config, check_kwargs)
    cache = k = None
    if cache_dir is not None:
        cache = ResultCache(cache_dir)
        k = cache_key(text, {"limits": vars(limits), **kwargs})
        report = cache.get(k, path)
        if report is not None:
            return report
    report = check_text(text, path, limits, **kwargs)
    if cache is not None:
        cache.put(k, report)
    return report


def check_file(path: str, limits, config: Config, check_kwargs: dict | None = None,
               text: str | None = None, cache_dir: str | None = None) -> FileResult:
    """One TIR text (read from `path` unless given)."""
    res = FileResult(path)
    try:
        text = read(Path(path)) if text is None else text
        res.lines = text.splitlines()
        report = _checked(text, path, limits, config, check_kwargs, cache_dir)
    except InputError as e:    # exceptions with extra fields do not survive pickling: send data
        res.error = (e.message, e.line, e.col)
        return res
    suppress.apply_to_report(report, text, config.enabled_rules(path))   # filters report in place
    res.report = report
    return res


def check_python_file(path: str, config: Config, options: RunOptions) -> list[FileResult]:
    """A `.py` module: one FileResult per (kernel, argument set, arch), each named after it
    (LoweredKernel.name); one FileResult carrying the error when the module could not be used."""
    from .frontends.python import emit_tir, lower_file
    units, error = lower_file(path, config, options.cwd)
    if error is not None:
        return [FileResult(path, error=error)]
    written = {}
    if options.emit_tir:
        written = emit_tir(units, options.emit_tir, options.cwd)
    out = []
    for u in units:
        if u.error is not None:   # named at the kernel's def line, in the .py file
            out.append(FileResult(path, error=(f"{u.name}: {u.error}", u.def_line, 1), source=path))
            continue
        res = check_file(u.name, options.limits, config, options.check_kwargs, text=u.tir,
                         cache_dir=options.cache_dir)
        res.text, res.source = u.tir, path
        if res.report is not None:
            where = {"kernel": u.kernel, "args": u.args, "arch": u.arch,
                     "python": f"{path}:{u.def_line}"}
            if id(u) in written:
                where["tir_file"] = written[id(u)]
            if u.note:
                where["note"] = u.note
            for f in res.report.findings:
                f.witness.update(where)
        out.append(res)
    return out   # a module with no kernel (helpers, macros) gives no result: nothing to check


def run_unit(path: str, config: Config, options: RunOptions, text: str | None) -> list[FileResult]:
    """The unit of work an executor runs: a `.py` module, or a `.tir` text read by the caller."""
    if is_python(path):
        return check_python_file(path, config, options)
    if text is None:
        raise ValueError(f"{path}: a .tir unit needs its text")
    return [check_file(path, options.limits, config, options.check_kwargs, text=text,
                       cache_dir=options.cache_dir)]


class Progress:
    """A one-line bar on stderr, only on a terminal and only for more than PROGRESS_MIN_FILES."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = total > PROGRESS_MIN_FILES and getattr(self.stream, "isatty", lambda: False)()
        self.total, self.done, self.enabled = total, 0, enabled

    def step(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        fill = width * self.done // max(self.total, 1)
        label = label if len(label) <= 40 else "..." + label[-37:]
        self.stream.write(f"\r\x1b[2K[{'#' * fill}{'.' * (width - fill)}] "
                          f"{self.done}/{self.total} {label}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


def check_paths(paths: list[str], limits, resolver: Resolver, jobs: int = 1,
                progress: bool | None = None, check_kwargs: dict | None = None,
                executor: Executor | None = None, cache_dir: str | None = None,
                emit_tir: str | None = None):
    """Returns (results in input order, config errors). `jobs` 0 means one per CPU; `executor`
    (any concurrent.futures.Executor) replaces the process pool. A `.py` file gives one result
    per lowered kernel, in the order its module defines them."""
    files = [str(p) for p in collect(paths, python=True)]
    configs, errors = {}, []
    for f in files:
        try:
            configs[f] = resolver.for_file(f)
            configs[f].enabled_rules(f)          # a bad selector is an input error, exit 2
        except ConfigError as e:
            errors.append(e)
    if errors:
        return [], errors
    options = RunOptions(limits, check_kwargs, cache_dir, emit_tir, os.getcwd())
    bar = Progress(len(files), enabled=progress if progress is not None else None)
    jobs = jobs or os.cpu_count() or 1
    results = []
    try:
        if executor is None and (jobs <= 1 or len(files) <= 1):
            for f in files:
                results.extend(_run_here(f, configs[f], options))
                bar.step(f)
        else:
            own = executor is None
            pool = ProcessPoolExecutor(max_workers=min(jobs, len(files))) if own else executor
            try:
                futs = []
                for f in files:
                    text, early = _text_for(f)
                    futs.append(early if early is not None else
                                pool.submit(run_unit, f, configs[f], options, text))
                for f, fut in zip(files, futs):
                    results.extend(fut if isinstance(fut, list) else _result(f, fut))
                    bar.step(f)
            finally:
                if own:
                    pool.shutdown()
    finally:
        bar.close()
    return results, errors


def _result(path: str, fut) -> list[FileResult]:
    """A worker's results; a unit the executor itself lost (a worker died, a remote scheduler
    could not load the task) is an error for that file, never a traceback."""
    try:
        return fut.result()
    except Exception as e:  # noqa: BLE001 -- the executor's failure, not the checker's
        why = (str(e).strip().splitlines() or [""])[-1]
        return [FileResult(path, error=(f"the executor failed on this file: {type(e).__name__}"
                                        + (f": {why}" if why else ""), 1, 1))]


def _text_for(path: str) -> tuple[str | None, list | None]:
    """A `.tir` file's text, read here (remote workers need not see the file), or the
    unreadable file's result; nothing for `.py` (the worker imports it)."""
    if is_python(path):
        return None, None
    try:
        return read(Path(path)), None
    except InputError as e:
        return None, [FileResult(path, error=(e.message, e.line, e.col))]


def _run_here(path: str, config: Config, options: RunOptions) -> list[FileResult]:
    text, early = _text_for(path)
    return early if early is not None else run_unit(path, config, options, text)
