"""Rules and findings: data only. Checks create findings; `asyncguard.report` renders them.

Every rule is one frozen `Rule` in `RULES`, with a stable code (`AGnnn`), a kind
(race | hang | invalid | resource | unsupported), a severity, and a doc with fixed headings
that `asyncguard explain`, the docs and machine-readable outputs all read.
"""
from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("race", "hang", "invalid", "resource", "unsupported")
SEVERITIES = ("error", "warning", "note")
DOC_HEADINGS = ("What it does", "Why is this bad?", "Example", "Use instead", "Witness")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    kind: str
    severity: str
    summary: str
    doc: str

    def __post_init__(self):
        assert self.kind in KINDS and self.severity in SEVERITIES, self


RULES: dict[str, Rule] = {}


def rule(code: str, name: str, kind: str, severity: str, summary: str, doc: str) -> Rule:
    if code in RULES:
        raise ValueError(f"duplicate rule code {code}")
    r = Rule(code, name, kind, severity, summary, doc.strip())
    RULES[code] = r
    return r


@dataclass
class Finding:
    rule: Rule
    line: int
    col: int
    message: str
    witness: dict = field(default_factory=dict)
    path: str = "<string>"

    def __post_init__(self):
        # a let renamed apart from a shadowed one (`i_s_5%2`, engine/scopes.py) is shown by the
        # name the source gives it; the line says which binding
        if "%" in self.message:
            from .engine.scopes import source_names
            self.message = source_names(self.message)

    def as_dict(self) -> dict:
        return {"rule": self.rule.code, "name": self.rule.name, "kind": self.rule.kind,
                "severity": self.rule.severity, "path": self.path, "line": self.line,
                "col": self.col, "message": self.message, "witness": self.witness}


def verdict(findings: list) -> str:
    """clean: nothing found and everything understood; unknown: something was not understood."""
    if any(f.rule.severity == "error" and f.rule.kind != "unsupported" for f in findings):
        return "buggy"
    if any(f.rule.kind == "unsupported" for f in findings):
        return "unknown"
    if findings:
        return "warnings"
    return "clean"
