"""Results cache: a checked text's report, keyed by (text, options, asyncguard's own source).

An unchanged kernel is not checked again: `check` over a repository pays only for what changed
(and, for `.py` kernels, for lowering them: the key is the lowered TIR). Entries live in the
user's cache directory (XDG: `$XDG_CACHE_HOME/asyncguard`, `~/.cache/asyncguard` on Linux;
platformdirs elsewhere); `ASYNCGUARD_CACHE_DIR` overrides it; `--no-cache` bypasses it.

The key holds a digest of the installed package's own source files, not only its version
number: a development checkout whose engine changed never reads a result the old engine
computed. Results that depend on the machine's speed (AG002 after --timeout) or on an engine
failure (AG003) are not stored.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path

from . import __version__
from .diagnostics import RULES

ENV_DIR = "ASYNCGUARD_CACHE_DIR"
FORMAT = "1"                      # bump when the stored objects change shape
NOT_STORED = ("AG002", "AG003")   # machine-speed or engine-failure results: recomputed every time


def default_dir() -> Path:
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env)
    import platformdirs
    return Path(platformdirs.user_cache_dir("asyncguard", appauthor=False))


@lru_cache(maxsize=1)
def code_digest() -> str:
    """asyncguard's version and the digest of its source (*.py, *.lark) as installed."""
    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).resolve().parent
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".lark") and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def key(text: str, options: dict) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, code_digest(), json.dumps(options, sort_keys=True, default=repr), text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


class ResultCache:
    """get/put of FileReports. Failures to read or write are misses, never errors: a cache."""

    def __init__(self, directory: str | Path | None = None):
        self.dir = Path(directory) if directory is not None else default_dir()

    def _file(self, k: str) -> Path:
        return self.dir / f"v{FORMAT}" / k[:2] / f"{k}.pickle"

    def get(self, k: str, path: str):
        try:
            with open(self._file(k), "rb") as f:
                report = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
            return None
        report.path = path               # the same text under another name: same findings, this name
        for kern in report.kernels:
            for f in kern.findings:
                f.path = path
                f.rule = RULES.get(f.rule.code, f.rule)   # the registry's own Rule objects
        return report

    def put(self, k: str, report) -> None:
        if any(f.rule.code in NOT_STORED for f in report.findings):
            return
        target = self._file(k)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(report, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)      # atomic: a concurrent reader sees the old entry or the new
        except OSError:
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
