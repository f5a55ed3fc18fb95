"""The Python API: `asyncguard.check(...) -> Report`, for a kernel repository's own tests.

    import asyncguard
    report = asyncguard.check("kernels/gemm.py")                  # a file or directory (.tir, .py)
    report = asyncguard.check(tir_text, arch="sm_90a")            # TVMScript text
    report = asyncguard.check(kernel_prim_func, arch="sm_80")     # a TileLang PrimFunc: lowered here
    report = asyncguard.check(matmul, args={"M": 1024, ...})      # a @tilelang.jit factory
    report = asyncguard.check(artifact)                           # what tilelang.lower returned
    for f in report.findings:
        print(f.rule, f.kind, f.severity, f.line, f.message, f.witness)

Paths go through the same runner as `asyncguard check` (config discovery in pyproject.toml,
suppression comments, the results cache when `cache=True`); the command line is argument
parsing and rendering over it. Nothing here prints.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from .analyze import Limits
from .config import Config, Resolver
from .runner import FileResult, check_file, check_paths

VERDICT_ORDER = ("clean", "warnings", "unknown", "buggy", "error")


@dataclass(frozen=True)
class Finding:
    """One finding: `rule` is the code (AG201), `name` its name (shared-race-raw), `kind` race,
    hang, invalid, resource or unsupported; `line`/`col` are in the checked TIR text (`path`);
    `witness` is the evidence (threads, statements, bytes; for a `.py` kernel also `kernel`,
    `args`, `arch` and `python`, its definition's FILE:LINE)."""
    rule: str
    name: str
    kind: str
    severity: str
    line: int
    col: int
    message: str
    witness: dict
    path: str

    @classmethod
    def _from(cls, f) -> "Finding":
        return cls(f.rule.code, f.rule.name, f.rule.kind, f.rule.severity, f.line, f.col,
                   f.message, dict(f.witness), f.path)


@dataclass(frozen=True)
class InputProblem:
    """Input that could not be checked (not TVMScript, import or lowering failed...)."""
    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


@dataclass(frozen=True)
class Unit:
    """One checked text: a .tir file, or one (kernel, argument set, arch) of a .py module."""
    path: str
    verdict: str
    kernels: tuple
    findings: tuple
    scope: tuple


@dataclass(frozen=True)
class Report:
    """Everything one `check` call found. `verdict`: the worst unit's (clean < warnings < unknown
    < buggy), or "error" when some input could not be checked (see `errors`)."""
    units: tuple
    errors: tuple = ()
    _results: tuple = field(default=(), repr=False, compare=False)

    @property
    def findings(self) -> list[Finding]:
        return [f for u in self.units for f in u.findings]

    @property
    def verdict(self) -> str:
        if self.errors:
            return "error"
        return max((u.verdict for u in self.units), key=VERDICT_ORDER.index, default="clean")

    @property
    def clean(self) -> bool:
        return self.verdict == "clean"

    def render(self, colour: bool = False) -> str:
        """The text `asyncguard check` prints: findings with their TIR lines, then verdicts."""
        from .report import render_text
        reports = [r.report for r in self._results if r.report is not None]
        text = render_text(reports, {r.path: r.lines for r in self._results}, colour)
        return "\n".join([str(e) for e in self.errors] + [text])


def _report(results: list[FileResult]) -> Report:
    units, errors = [], []
    for r in results:
        if r.error:
            errors.append(InputProblem(r.path, r.error[1], r.error[2], r.error[0]))
        if r.report is not None:
            rep = r.report
            units.append(Unit(rep.path, rep.verdict, tuple(k.name for k in rep.kernels),
                              tuple(Finding._from(f) for f in rep.findings),
                              tuple(s for k in rep.kernels for s in getattr(k, "scope", []))))
    return Report(tuple(units), tuple(errors), tuple(results))


def check(source, *, arch: str | None = None, assumptions=None, select=None, ignore=None,
          args: dict | list | None = None, config: str | os.PathLike | None = None,
          limits: Limits | None = None, cache: bool = False, jobs: int = 1,
          executor=None, path: str | None = None) -> Report:
    """Check `source` for shared-memory synchronization bugs.

    source: TVMScript text; a path (.tir, .py, or a directory of them); a TileLang PrimFunc;
      a `@tilelang.jit` factory (with `args`: one argument set, or a list of them); or an
      artifact / IRModule (anything with `device_mod`, or whose `str()` is TVMScript).
    arch: target for the resource checks, and the arch a PrimFunc/factory/.py kernel is lowered
      for (default: the config's `[tool.asyncguard.tilelang] archs`, else sm_90a).
    assumptions: facts about symbolic sizes ("K >= 1", "K % 32 == 0").
    select / ignore: rule selectors (codes, prefixes, names), over the config's.
    config: a pyproject.toml to use instead of discovery (paths only).
    cache: use the results cache (off by default here: tests should see the checker run).

    Safe to call from several threads: z3's term context is shared by the process and not
    thread-safe, so checks in threads of one process take turns at it
    (`prover.one_thread_at_a_time`); for parallel checks use `jobs` or `executor` (processes).
    """
    limits = limits or Limits()
    kwargs = {}
    if assumptions:
        kwargs["assumptions"] = [assumptions] if isinstance(assumptions, str) else list(assumptions)
    if arch:
        kwargs["arch"] = arch
    cache_dir = None
    if cache:
        from .cache import default_dir
        cache_dir = str(default_dir())
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        resolver = Resolver(str(config) if config else None, select, ignore, arch)
        results, errs = check_paths([os.fspath(source)], limits, resolver, jobs=jobs, progress=False,
                                    check_kwargs=kwargs or None, executor=executor,
                                    cache_dir=cache_dir)
        if errs:
            return Report((), tuple(InputProblem(e.path, e.line, e.col, e.message) for e in errs))
        return _report(results)
    cfg = Config().with_cli(select, ignore, arch)
    texts = _texts(source, arch, args, path)
    return _report([check_file(name, limits, cfg, kwargs or None, text=text, cache_dir=cache_dir)
                    for name, text in texts])


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and len(s) < 4096 and os.path.exists(s)


def _texts(source, arch, args, path) -> list[tuple[str, str]]:
    """(name, TIR text) pairs for an in-memory source."""
    if isinstance(source, str):
        if "\n" not in source and not source.lstrip().startswith(("#", "@")):
            raise FileNotFoundError(f"no such file: {source!r} (pass TVMScript text or a path)")
        return [(path or "<string>", source)]
    if hasattr(source, "device_mod"):                     # tilelang.lower(...)'s artifact
        return [(path or "<artifact>", str(source.device_mod))]
    kind = type(source).__name__
    if kind == "JITImpl":                                 # a @tilelang.jit factory
        if args is None:
            raise TypeError("checking a @tilelang.jit factory needs args={...} (one argument set "
                            "or a list of them)")
        from .frontends.tilelang_lower import lower_for
        name = getattr(getattr(source.func, "orig_func", None), "__name__", "kernel")
        out = []
        for a in ([args] if isinstance(args, dict) else list(args)):
            func = source.get_tir(**a)
            tir, _ = lower_for(func, arch or "sm_90a", getattr(source, "pass_configs", None))
            label = ",".join(f"{k}={v}" for k, v in a.items())
            out.append((path or f"<{name}[{label}]@{arch or 'sm_90a'}>", tir))
        return out
    if kind == "PrimFunc":                                # a TileLang kernel: lower it here
        from .frontends.tilelang_lower import lower_for
        tir, _ = lower_for(source, arch or "sm_90a", None)
        return [(path or f"<prim_func@{arch or 'sm_90a'}>", tir)]
    if kind == "IRModule":                                # already lowered device code
        return [(path or "<IRModule>", str(source))]
    raise TypeError(f"cannot check a {kind}: pass TVMScript text, a path, a PrimFunc, a "
                    "@tilelang.jit factory with args, or a lowered artifact")
