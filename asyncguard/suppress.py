"""Inline suppressions and rule selection, applied to a checked file after the checks ran.

    S_1[tx] = x   # asyncguard: ignore[AG201]
    y = S_1[0]    # asyncguard: ignore[AG201, AG101]   (codes or rule names)
    z = S_1[1]    # asyncguard: ignore                 (every rule on this line)

A suppression applies to findings reported on its own line. One that suppresses nothing is
reported as AG901 (unused-suppression), so stale comments do not hide future bugs.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from .diagnostics import RULES, Finding, rule

UNUSED_SUPPRESSION = rule("AG901", "unused-suppression", "invalid", "warning",
                          "an `# asyncguard: ignore` comment that suppresses nothing", """
## What it does
Reports an inline suppression comment (`# asyncguard: ignore[...]`) that matched no finding on
its line, or that names a rule which does not exist.

## Why is this bad?
A suppression outlives the bug it silenced: once the code changes, a stale comment sits there
ready to hide the next, real race on that line. A misspelt rule code suppresses nothing at all.

## Example
```python
S_1[tx] = x   # asyncguard: ignore[AG201]   (nothing races here any more)
```

## Use instead
```python
S_1[tx] = x
```

## Witness
The rule codes in the comment that suppressed nothing, and the comment's column.
""")

_PATTERN = re.compile(r"#\s*asyncguard:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


@dataclass
class Suppression:
    line: int
    col: int
    codes: tuple          # () = every rule
    used: set

    def covers(self, f: Finding) -> bool:
        return not self.codes or f.rule.code in self.codes or f.rule.name in self.codes


def _comments(text: str):
    """(line, col, comment text) of every comment; tokenize, so `#` inside strings is skipped."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.start[0], tok.start[1] + 1, tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        for n, line in enumerate(text.splitlines(), 1):   # not Python-like: plain scan
            i = line.find("#")
            if i >= 0:
                yield n, i + 1, line[i:]


def parse_suppressions(text: str) -> dict[int, Suppression]:
    out = {}
    for line, col, comment in _comments(text):
        m = _PATTERN.search(comment)
        if not m:
            continue
        codes = m.group("codes")
        codes = tuple(c.strip().upper() if c.strip().upper().startswith("AG") else c.strip()
                      for c in (codes or "").split(",") if c.strip())
        out[line] = Suppression(line, col + m.start(), codes, set())
    return out


def apply(findings: list[Finding], text: str, path: str, enabled: set[str] | None = None):
    """Drop findings of disabled rules and suppressed findings; return (kept, suppressed, unused).

    `unused` are AG901 findings (empty when AG901 itself is disabled)."""
    enabled = set(RULES) if enabled is None else enabled
    sups = parse_suppressions(text) if "asyncguard" in text else {}
    kept, suppressed = [], []
    for f in findings:
        if f.rule.code not in enabled:
            continue
        s = sups.get(f.line)
        if s is not None and s.covers(f):
            s.used.add(f.rule.code)
            suppressed.append(f)
        else:
            kept.append(f)
    unused = []
    if UNUSED_SUPPRESSION.code in enabled:
        by_name = {r.name: c for c, r in RULES.items()}
        for s in sups.values():
            if not s.codes:
                if not s.used:
                    unused.append(_unused(s, path, "suppression comment suppresses nothing", []))
                continue
            stale, unknown = [], []
            for c in s.codes:
                code = by_name.get(c, c)
                if code not in RULES:
                    unknown.append(c)
                elif code not in s.used and code in enabled:
                    stale.append(c)
            if unknown:
                unused.append(_unused(s, path, f"suppression names unknown rule(s): "
                                      f"{', '.join(unknown)}", unknown))
            if stale:
                unused.append(_unused(s, path, f"unused suppression: no {', '.join(stale)} "
                                      f"finding on line {s.line}", stale))
    return kept, suppressed, unused


def _unused(s: Suppression, path: str, msg: str, codes: list) -> Finding:
    return Finding(UNUSED_SUPPRESSION, s.line, s.col, msg, {"codes": list(codes)}, path)


def apply_to_report(report, text: str, enabled: set[str] | None = None):
    """Filter a FileReport in place (per kernel); file-level AG901 findings go to the last kernel."""
    all_suppressed = []
    flat = [f for k in report.kernels for f in k.findings]
    kept, suppressed, unused = apply(flat, text, report.path, enabled)
    keep_ids = {id(f) for f in kept}
    for k in report.kernels:
        k.findings = [f for f in k.findings if id(f) in keep_ids]
    all_suppressed.extend(suppressed)
    if unused:
        if report.kernels:
            k = report.kernels[-1]
            k.findings = sorted(k.findings + unused, key=lambda f: (f.line, f.col, f.rule.code))
    return all_suppressed, unused
