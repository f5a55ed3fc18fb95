"""Helpers for tests that check a kernel text and single-edit variants of it."""
from asyncguard.analyze import check_text


def edit(text: str, old: str, new: str) -> str:
    """`text` with its one occurrence of `old` replaced by `new`."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


def outcome(text: str):
    """(verdict, {(rule, line)}, report) of checking `text`."""
    report = check_text(text)
    return report.verdict, {(f.rule.code, f.line) for f in report.findings}, report


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first occurrence of `needle` in `text`."""
    return text[: text.index(needle)].count("\n") + 1
