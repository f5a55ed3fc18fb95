"""Compiler-style text: `path:line:col: RULE message`, then the source line, a caret, the witness."""
from __future__ import annotations


def _side(name: str, a: dict) -> str:
    loops = ", ".join(f"{k}={v}" for k, v in a.get("loops", {}).items())
    return (f"  {name}: line {a['line']} {a['op']} ({a['access']}) by thread {a['thread']}"
            + (f" [{loops}]" if loops else "")
            + f", {a['buffer']}[{a['elements'][0]}:{a['elements'][1]}] = smem bytes {a['bytes'][0]}..{a['bytes'][1] - 1}")


def render_finding(f, source_lines: list[str] | None = None) -> str:
    out = [f"{f.path}:{f.line}:{f.col}: {f.rule.code} [{f.rule.kind}] {f.message}"]
    if source_lines and 1 <= f.line <= len(source_lines):
        src = source_lines[f.line - 1].rstrip("\r\n")
        out.append(f"  {f.line:>5} | {src}")
        out.append(f"        | {' ' * max(f.col - 1, 0)}^")
    w = f.witness
    if "first" in w and "second" in w:
        out.append(_side("first ", w["first"]))
        out.append(_side("second", w["second"]))
    if w.get("missing"):
        out.append(f"  missing: {w['missing']}")
    return "\n".join(out)


def render_text(reports, sources: dict | None = None) -> str:
    chunks = []
    n_findings = 0
    for rep in reports:
        lines = (sources or {}).get(rep.path)
        for f in rep.findings:
            chunks.append(render_finding(f, lines))
            n_findings += 1
    summary = []
    for rep in reports:
        summary.append(f"{rep.path}: {rep.verdict}")
    chunks.append("\n".join(summary))
    return "\n".join(chunks)
