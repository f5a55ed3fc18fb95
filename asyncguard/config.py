"""`[tool.asyncguard]` in the checked repository's pyproject.toml, and the command line over it.

    [tool.asyncguard]
    select = ["AG1", "AG201"]          # codes, code prefixes, rule names or "ALL" (default ALL)
    ignore = ["AG002"]
    arch = "sm_90"                     # default target architecture (--arch overrides)

    [tool.asyncguard.per-file-ignores]
    "kernels/legacy/*.tir" = ["AG101"] # globs relative to the pyproject.toml's directory

    [tool.asyncguard.assumptions]      # facts about symbolic sizes, kept for the prover
    K = "K >= 1"

    [tool.asyncguard.tilelang]         # `.py` kernels: lowered on the CPU, then checked
    archs = ["sm_80", "sm_90a"]        # each kernel is lowered for each (default: ["sm_90a"])
    timeout = 600                      # seconds to import one module and lower its kernels
    "kernels/gemm.py:matmul" = [{M = 1024, N = 1024, K = 1024, block_M = 128}]  # argument sets

The file used is the nearest pyproject.toml with a `[tool.asyncguard]` table, found by walking
up from each checked file (or the one `--config` names). Rule selection follows ruff: the
config's select/ignore are applied first, then the command line's; a `--select` replaces the
selection made so far, an `--ignore` removes from it.
"""
from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .diagnostics import RULES

KEYS = ("select", "ignore", "per-file-ignores", "arch", "assumptions", "tilelang")
DEFAULT_ARCHS = ("sm_90a",)
DEFAULT_LOWER_TIMEOUT = 600.0


class ConfigError(Exception):
    def __init__(self, message: str, path: str = "<config>"):
        super().__init__(message)
        self.message, self.path, self.line, self.col = message, path, 1, 1

    def __str__(self) -> str:
        return f"{self.path}: error: {self.message}"


def resolve(selectors, where: str = "<config>") -> set[str]:
    """Rule codes named by selectors: "ALL", a code, a code prefix ("AG1") or a rule name."""
    from .report.rules_doc import load_all_rules
    load_all_rules()
    out = set()
    for sel in selectors:
        s = str(sel).strip()
        if not s:
            continue
        if s.upper() == "ALL":
            hit = set(RULES)
        else:
            hit = {c for c, r in RULES.items() if c.startswith(s.upper()) or r.name == s}
        if not hit:
            raise ConfigError(f"unknown rule selector {s!r} (see `asyncguard rules`)", where)
        out |= hit
    return out


@dataclass(frozen=True)
class Config:
    """One project's settings. `root` is the directory that per-file-ignores globs are relative to."""
    path: str | None = None
    root: str | None = None
    select: tuple = ()
    ignore: tuple = ()
    per_file_ignores: tuple = ()   # ((glob, (selectors...)), ...)
    arch: str | None = None
    assumptions: dict = field(default_factory=dict)
    cli_select: tuple = ()
    cli_ignore: tuple = ()
    archs: tuple = ()                # [tool.asyncguard.tilelang] archs (`.py` kernels)
    lower_timeout: float = DEFAULT_LOWER_TIMEOUT
    arg_sets: tuple = ()             # (("kernels/gemm.py", "matmul", ({...}, ...)), ...)

    def with_cli(self, select=None, ignore=None, arch=None) -> "Config":
        return Config(self.path, self.root, self.select, self.ignore, self.per_file_ignores,
                      arch or self.arch, dict(self.assumptions),
                      tuple(select or ()), tuple(ignore or ()),
                      (arch,) if arch else self.archs,    # --arch: lower `.py` kernels for it only
                      self.lower_timeout, self.arg_sets)

    def lowering_archs(self) -> list[str]:
        """Archs a `.py` kernel is lowered for: --arch, else the tilelang table's archs, else arch,
        else sm_90a."""
        if self.archs:
            return list(self.archs)
        return [self.arch] if self.arch else list(DEFAULT_ARCHS)

    def factory_args(self, file: str | Path) -> dict[str, list[dict]]:
        """{factory name: [argument set, ...]} configured for this `.py` file."""
        p = Path(file).resolve()
        root = Path(self.root).resolve() if self.root else Path.cwd().resolve()
        return {name: [dict(a) for a in sets] for rel, name, sets in self.arg_sets
                if (root / rel).resolve() == p}

    def enabled_rules(self, file: str | Path | None = None) -> set[str]:
        where = self.path or "<command line>"
        rules = set(RULES)
        for select, ignore in ((self.select, self.ignore), (self.cli_select, self.cli_ignore)):
            if select:
                rules = resolve(select, where)
            rules -= resolve(ignore, where)
        if file is not None:
            for glob, sels in self.per_file_ignores:
                if self._matches(glob, file):
                    rules -= resolve(sels, where)
        return rules

    def _matches(self, glob: str, file) -> bool:
        p = Path(file).resolve()
        root = Path(self.root).resolve() if self.root else Path.cwd().resolve()
        try:
            rel = PurePosixPath(p.relative_to(root).as_posix())
        except ValueError:
            rel = PurePosixPath(p.as_posix())
        if "/" not in glob:                       # like ruff: a bare name matches the basename too
            if fnmatch.fnmatchcase(rel.name, glob):
                return True
        return fnmatch.fnmatchcase(str(rel), glob) or fnmatch.fnmatchcase(str(rel), glob.lstrip("./"))


def _list(value, key: str, where: str) -> tuple:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.asyncguard] {key} must be a list of rule selectors", where)
    return tuple(value)


def from_table(table: dict, path: str | None = None, root: str | None = None) -> Config:
    where = path or "<config>"
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"[tool.asyncguard] unknown key(s): {', '.join(unknown)} "
                          f"(known: {', '.join(KEYS)})", where)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError("[tool.asyncguard.per-file-ignores] must be a table of glob = [rules]", where)
    assumptions = table.get("assumptions", {})
    if not isinstance(assumptions, dict):
        raise ConfigError("[tool.asyncguard.assumptions] must be a table", where)
    arch = table.get("arch")
    if arch is not None and not isinstance(arch, str):
        raise ConfigError("[tool.asyncguard] arch must be a string such as \"sm_90\"", where)
    archs, timeout, arg_sets = _tilelang_table(table.get("tilelang", {}), where)
    cfg = Config(path, root,
                 _list(table.get("select", []), "select", where),
                 _list(table.get("ignore", []), "ignore", where),
                 tuple((g, _list(v, f"per-file-ignores.{g!r}", where)) for g, v in pfi.items()),
                 arch, dict(assumptions), (), (), archs, timeout, arg_sets)
    cfg.enabled_rules()   # validate every selector now, not at the first file
    for _, sels in cfg.per_file_ignores:
        resolve(sels, where)
    return cfg


def _tilelang_table(t, where: str):
    """archs, timeout and `"file.py:factory" = [{...}, ...]` argument sets."""
    if not isinstance(t, dict):
        raise ConfigError("[tool.asyncguard.tilelang] must be a table", where)
    archs = t.get("archs", [])
    if isinstance(archs, str):
        archs = [archs]
    if not isinstance(archs, list) or not all(isinstance(a, str) and a.startswith("sm_") for a in archs):
        raise ConfigError('[tool.asyncguard.tilelang] archs must be a list such as ["sm_80", "sm_90a"]', where)
    timeout = t.get("timeout", DEFAULT_LOWER_TIMEOUT)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError("[tool.asyncguard.tilelang] timeout must be a positive number of seconds", where)
    arg_sets = []
    for key, sets in t.items():
        if key in ("archs", "timeout"):
            continue
        file, sep, name = key.rpartition(":")
        if not sep or not file.endswith(".py") or not name.isidentifier():
            raise ConfigError(f"[tool.asyncguard.tilelang] unknown key {key!r} (known: archs, timeout, "
                              f'and "path/to/file.py:factory" = [{{NAME = value, ...}}, ...])', where)
        if isinstance(sets, dict):
            sets = [sets]
        if not isinstance(sets, list) or not sets or not all(isinstance(a, dict) for a in sets):
            raise ConfigError(f"[tool.asyncguard.tilelang] {key!r} must be a list of argument tables "
                              f"such as [{{M = 1024, N = 1024}}]", where)
        arg_sets.append((file, name, tuple(dict(a) for a in sets)))
    return tuple(archs), float(timeout), tuple(arg_sets)


def load(pyproject: str | Path) -> Config:
    """Read `[tool.asyncguard]` from a pyproject.toml (an empty Config if it has none)."""
    p = Path(pyproject)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read config: {e.strerror or e}", str(p)) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"invalid TOML: {e}", str(p)) from None
    table = data.get("tool", {}).get("asyncguard")
    if table is None:
        return Config(str(p), str(p.resolve().parent))
    return from_table(table, str(p), str(p.resolve().parent))


def find(start: str | Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.asyncguard] table, walking up from `start`."""
    p = Path(start).resolve()
    for d in ([p] if p.is_dir() else []) + list(p.parents):
        cand = d / "pyproject.toml"
        if cand.is_file():
            try:
                text = cand.read_text(encoding="utf-8")
            except OSError:
                continue
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                if "tool.asyncguard" in text:    # ours, but broken: say so, never skip it
                    raise ConfigError(f"invalid TOML: {e}", str(cand)) from None
                continue
            if "asyncguard" in data.get("tool", {}):
                return cand
    return None


class Resolver:
    """Config per checked file: the one `--config` names, else discovery (cached per directory)."""

    def __init__(self, config_file: str | None = None, select=None, ignore=None, arch=None):
        self.cli = (select, ignore, arch)
        self.fixed = load(config_file).with_cli(*self.cli) if config_file else None
        self.cache: dict[Path, Config] = {}

    def for_file(self, file: str | Path) -> Config:
        if self.fixed is not None:
            return self.fixed
        d = Path(file).resolve().parent
        if d not in self.cache:
            found = find(d)
            base = load(found) if found else Config()
            self.cache[d] = base.with_cli(*self.cli)
        return self.cache[d]
