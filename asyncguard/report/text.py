"""Compiler-style text: `path:line:col: RULE message`, then the source line, a caret, the witness."""
from __future__ import annotations

import os

_SGR = {"bold": "1", "red": "1;31", "yellow": "1;33", "cyan": "1;36", "green": "1;32", "dim": "2"}
_LEVEL_COLOUR = {"error": "red", "warning": "yellow", "note": "cyan"}


def use_colour(stream, mode: str = "auto") -> bool:
    """--color always/never, else colour only on a terminal, and never when NO_COLOR is set."""
    if mode in ("always", "never"):
        return mode == "always"
    if os.environ.get("NO_COLOR", ""):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def _c(text: str, style: str, colour: bool) -> str:
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if colour else text


def _side(name: str, a: dict) -> str:
    loops = ", ".join(f"{k}={v}" for k, v in a.get("loops", {}).items())
    return (f"  {name}: line {a['line']} {a['op']} ({a['access']}) by thread {a['thread']}"
            + (f" [{loops}]" if loops else "")
            + f", {a['buffer']}[{a['elements'][0]}:{a['elements'][1]}] = smem bytes {a['bytes'][0]}..{a['bytes'][1] - 1}")


def render_finding(f, source_lines: list[str] | None = None, colour: bool = False) -> str:
    lvl = _LEVEL_COLOUR.get(f.rule.severity, "bold")
    out = [f"{_c(f'{f.path}:{f.line}:{f.col}:', 'bold', colour)} "
           f"{_c(f.rule.code, lvl, colour)} [{f.rule.kind}] {f.message}"]
    if source_lines and 1 <= f.line <= len(source_lines):
        src = source_lines[f.line - 1].rstrip("\r\n")
        out.append(f"  {_c(f'{f.line:>5} |', 'dim', colour)} {src}")
        out.append(f"        {_c('|', 'dim', colour)} {' ' * max(f.col - 1, 0)}{_c('^', 'green', colour)}")
    w = f.witness
    if "first" in w and "second" in w:
        out.append(_side("first ", w["first"]))
        out.append(_side("second", w["second"]))
    if w.get("missing"):
        out.append(f"  missing: {w['missing']}")
    if w.get("python"):   # lowered from a .py kernel: where it is defined, and the TIR written
        out.append(f"  python: {w['python']} (kernel {w.get('kernel')})"
                   + (f"; tir: {w['tir_file']}" if w.get("tir_file") else ""))
    return "\n".join(out)


def render_text(reports, sources: dict | None = None, colour: bool = False) -> str:
    chunks = []
    n_findings = 0
    for rep in reports:
        lines = (sources or {}).get(rep.path)
        for f in rep.findings:
            chunks.append(render_finding(f, lines, colour))
            n_findings += 1
    summary = []
    for rep in reports:
        style = {"buggy": "red", "clean": "green", "unknown": "yellow", "warnings": "yellow"}
        summary.append(f"{rep.path}: {_c(rep.verdict, style.get(rep.verdict, 'bold'), colour)}")
        for k in rep.kernels:   # what the verdict covers, when it is more than the launch as written
            summary.extend(f"  scope: {line}" for line in getattr(k, "scope", [])
                           if line != "the launch as written")
    chunks.append("\n".join(summary))
    return "\n".join(chunks)
