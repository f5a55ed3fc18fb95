"""Check many files: config per file, suppressions, `--jobs N` worker processes, a progress bar.

`check_file` is the unit of work (a top-level function, so worker processes can run it); it
returns data only. `check_paths` keeps the input order whatever order the workers finish in.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import suppress
from .analyze import check_text
from .config import Config, ConfigError, Resolver
from .parse import InputError

PROGRESS_MIN_FILES = 8


def collect(paths: list[str]) -> list[Path]:
    """Files named, and *.tir under directories named (sorted, recursively)."""
    out = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(sorted(path.rglob("*.tir")))
        else:
            out.append(path)
    return out


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
    path: str
    report: object = None                          # analyze.FileReport
    error: tuple | None = None                     # (message, line, col) of an InputError
    lines: list = field(default_factory=list)


def _config_kwargs(config: Config, check_kwargs: dict | None) -> dict:
    """check_text's arch / assumptions: the config's, unless check_kwargs (--assume) gives its own."""
    kw = dict(check_kwargs or {})
    if kw.get("arch") is None:
        kw["arch"] = config.arch
    if "assumptions" not in kw:
        kw["assumptions"] = list(config.assumptions.values())
    return kw


def check_file(path: str, limits, config: Config, check_kwargs: dict | None = None) -> FileResult:
    res = FileResult(path)
    try:
        text = read(Path(path))
        res.lines = text.splitlines()
        report = check_text(text, path, limits, **_config_kwargs(config, check_kwargs))
    except InputError as e:    # exceptions with extra fields do not survive pickling: send data
        res.error = (e.message, e.line, e.col)
        return res
    suppress.apply_to_report(report, text, config.enabled_rules(path))   # filters report in place
    res.report = report
    return res


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
                progress: bool | None = None, check_kwargs: dict | None = None):
    """Returns (results in input order, config errors). `jobs` 0 means one per CPU."""
    files = [str(p) for p in collect(paths)]
    configs, errors = {}, []
    for f in files:
        try:
            configs[f] = resolver.for_file(f)
            configs[f].enabled_rules(f)          # a bad selector is an input error, exit 2
        except ConfigError as e:
            errors.append(e)
    if errors:
        return [], errors
    bar = Progress(len(files), enabled=progress if progress is not None else None)
    jobs = jobs or os.cpu_count() or 1
    results = []
    try:
        if jobs <= 1 or len(files) <= 1:
            for f in files:
                results.append(check_file(f, limits, configs[f], check_kwargs))
                bar.step(f)
        else:
            with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
                futs = [pool.submit(check_file, f, limits, configs[f], check_kwargs) for f in files]
                for f, fut in zip(files, futs):
                    results.append(fut.result())
                    bar.step(f)
    finally:
        bar.close()
    return results, errors
