"""Edits as data, applied at line granularity: every byte outside an inserted or changed line
stays as it was (line endings, tabs, a missing final newline).

An `Edit` refers to lines of the *original* text, so edits found separately combine by union.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

OPS = ("insert-before", "insert-after", "replace", "delete")


@dataclass(frozen=True, order=True)
class Edit:
    line: int          # 1-based line of the original text (insert-after: the anchor's last line)
    op: str            # one of OPS
    text: str = ""     # inserted statement without indentation, or the whole new line (replace)
    indent: str = ""   # indentation of an inserted statement, copied from its neighbour
    why: str = field(default="", compare=False)

    def __post_init__(self):
        assert self.op in OPS, self.op

    @property
    def inserts(self) -> bool:
        return self.op.startswith("insert")

    def describe(self) -> str:
        if self.inserts:
            where = "before" if self.op == "insert-before" else "after"
            return f"insert `{self.text}` {where} line {self.line}"
        if self.op == "replace":
            return f"line {self.line}: `{self.text.strip()}`"
        return f"delete line {self.line}"


@dataclass(frozen=True)
class Fix:
    """A repair: edits of the original text, how sure we are, and the proof's evidence."""
    edits: tuple
    safety: str = "proved"         # proved: checker clean after, and every edit is necessary
    fixed: tuple = ()              # (code, line) of the findings it removes
    proof: tuple = ()              # ("remove" | "raise", edit description, finding code that returns)

    @property
    def inserted(self) -> int:
        return sum(1 for e in self.edits if e.inserts)

    @property
    def changed(self) -> int:
        return sum(1 for e in self.edits if not e.inserts)


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split at "\\n" only (what the parser counts)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def eol_of(lines: list[str]) -> str:
    crlf = sum(1 for ln in lines if ln.endswith("\r\n"))
    return "\r\n" if crlf and crlf * 2 >= len(lines) - 1 else "\n"


def body(line: str) -> str:
    return line.rstrip("\n").rstrip("\r") if line.endswith("\n") else line


def apply_edits(text: str, edits) -> tuple[str, list]:
    """(new text, line map): map[i] is the original 1-based line of new line i + 1, or None for
    an inserted line."""
    lines = split_lines(text)
    eol = eol_of(lines)
    before: dict[int, list] = {}
    after: dict[int, list] = {}
    repl: dict[int, Edit] = {}
    for e in edits:
        if e.op == "insert-before":
            before.setdefault(e.line, []).append(e)
        elif e.op == "insert-after":
            after.setdefault(e.line, []).append(e)
        else:
            if e.line in repl and repl[e.line] != e:
                raise ValueError(f"two edits change line {e.line}")
            repl[e.line] = e
    out, lmap = [], []
    for n, ln in enumerate(lines, 1):
        end = ln[len(body(ln)):]
        line_eol = end or eol
        for e in before.get(n, ()):
            out.append(e.indent + e.text + line_eol)
            lmap.append(None)
        r = repl.get(n)
        if r is None:
            out.append(ln)
            lmap.append(n)
        elif r.op == "replace":
            out.append(r.text + end)
            lmap.append(n)
        # delete: nothing
        for e in after.get(n, ()):
            if not out[-1].endswith("\n"):          # the last line had no newline: keep it so
                out[-1] = out[-1] + eol
                out.append(e.indent + e.text)
            else:
                out.append(e.indent + e.text + line_eol)
            lmap.append(None)
    return "".join(out), lmap


def unified_diff(path: str, old: str, new: str) -> str:
    a, b = split_lines(old), split_lines(new)
    diff = difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}")
    out = []
    for d in diff:
        out.append(d if d.endswith("\n") else d + "\n\\ No newline at end of file\n")
    return "".join(out)
