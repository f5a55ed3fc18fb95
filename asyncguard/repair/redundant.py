"""The redundant-synchronization lint (AG601-AG603, rules in `asyncguard.checks.redundant`):
each sync is removed, or each wait count raised, and the kernel re-checked through the repair
search's oracle. Opt-in: `asyncguard check --redundant`, `asyncguard fix --remove-redundant`.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from ..checks.redundant import (GROW_CALLS, REDUNDANT_BARRIER, REDUNDANT_WAIT, SYNC_CALLS,
                                WAIT_CALLS, WAIT_CAN_GROW)
from ..diagnostics import Finding
from .candidates import Generator
from .edits import Edit, apply_edits
from .prefix import check_removals
from .search import Oracle, SearchBudget, _rarer_collections, raise_while_safe
from .tree import Tree, call_of


def _sync_stmts(tree):
    out = []
    for s in tree.stmts:
        c = call_of(s)
        if c is None or c.name not in SYNC_CALLS + WAIT_CALLS:
            continue
        if c.name == "T.tvm_storage_sync" and not (
                c.args and getattr(c.args[0], "value", None) in ("shared", "shared.dyn")):
            continue
        if s.span.line != s.span.end_line:
            continue
        out.append((s, c))
    return out


def _removal(tree, s):
    """Edit deleting statement `s` (T.evaluate(0) when it is its block's only statement)."""
    bi, _ = tree.where[id(s)]
    if len(tree.blocks[bi].stmts) == 1:
        return Edit(s.span.line, "replace", tree.indent_of(s) + "T.evaluate(0)", "", "remove the sync")
    return Edit(s.span.line, "delete", "", "", "remove the sync")


def _raise(tree, s, n):
    """The edit setting the count of wait statement `s` to n, or None."""
    e = Generator(tree, lambda x: x).replace_arg(s, 0, str(n), "raise the wait count")
    return e[0] if e else None


def lint_text(text: str, path: str = "<string>", limits=None, oracle=None) -> list[Finding]:
    """AG601/602/603 findings for a clean kernel (none for anything else). Its own oracle's
    checks end a run at the first race certain to be a problem (the lint asks only whether an
    edited kernel is clean: Oracle's stop_at_race)."""
    return lint_within(text, path, limits, oracle)[0]


def lint_within(text: str, path: str = "<string>", limits=None, oracle=None,
                seconds: float | None = None) -> tuple[list[Finding], int | None]:
    """lint_text within a time budget (`seconds`; None: none): (the findings, None), or, when
    the budget ran out, (the findings of the syncs examined, the line of the first one not
    examined). No check starts past the budget (Oracle.spend_at_most); the one running finishes."""
    oracle = oracle or Oracle(text, path, limits, stop_at_race=True)
    if oracle.base or oracle.notes:
        return [], None
    oracle.spend_at_most(seconds)
    out = _Found()
    with _rarer_collections():    # as the repair search: many short-lived objects per check
        try:
            _lint(text, path, oracle, out)
        except SearchBudget:
            return out, out.pending_line
    return out, None


class _Found(list):
    """The lint's findings so far, and the line of the sync it was examining."""
    pending_line: int | None = None


def _lint(text: str, path: str, oracle, out: list) -> list[Finding]:
    tree = Tree(text, path, module=oracle.module)
    syncs = _sync_stmts(tree)
    # the removals one run of the kernel can answer, forked where each starts to matter
    check_removals(oracle, [(s, _removal(tree, s)) for s, _ in syncs])
    for s, c in syncs:
        out.pending_line = s.span.line
        rm = _removal(tree, s)
        if oracle.clean([rm]):
            r = REDUNDANT_BARRIER if c.name in SYNC_CALLS else REDUNDANT_WAIT
            what = "barrier" if r is REDUNDANT_BARRIER else c.name.split(".")[-1]
            out.append(Finding(r, s.span.line, s.span.col,
                               f"{what} at line {s.span.line} is redundant: the kernel stays "
                               f"race-free without it", {"statement": tree.src(s),
                                                         "proof": "checker clean without it"}, path))
            continue
        if c.name in GROW_CALLS and c.args and isinstance(getattr(c.args[0], "value", None), int):
            n = c.args[0].value
            _, best = raise_while_safe(oracle, [], n, partial(_raise, tree, s))
            if best > n:
                out.append(Finding(WAIT_CAN_GROW, s.span.line, s.span.col,
                                   f"{c.name.split('.')[-1]}({n}) at line {s.span.line} can wait "
                                   f"for fewer groups: {best} keeps every read safe",
                                   {"statement": tree.src(s), "count": n, "largest_safe": best}, path))
    return out


def remove_redundant(text: str, path: str = "<string>", limits=None, oracle=None):
    """Remove redundant syncs one at a time (each removal re-checked with the previous ones),
    and raise wait counts as far as they stay safe. Returns (new text, edits). `oracle`: the one
    lint_text used on the same text (its checks are remembered)."""
    oracle = oracle or Oracle(text, path, limits, stop_at_race=True)
    if oracle.base or oracle.notes:
        return text, []
    tree = Tree(text, path, module=oracle.module)
    edits: list = []
    for s, c in _sync_stmts(tree):
        rm = _removal(tree, s)
        if oracle.clean(edits + [rm]):
            edits.append(rm)
            continue
        if c.name in GROW_CALLS and c.args and isinstance(getattr(c.args[0], "value", None), int):
            edits, _ = raise_while_safe(oracle, edits, c.args[0].value, partial(_raise, tree, s))
    return apply_edits(text, edits)[0], edits


def add_to_results(results, limits=None, seconds: float | None = None) -> None:
    """`check --redundant`: append the lint's findings to each clean file's report; `seconds`:
    each file's time budget (a scope line says where the lint stopped when it ran out)."""
    for res in results:
        rep = res.report
        if rep is None or rep.findings:
            continue
        text = res.text if getattr(res, "text", None) is not None else \
            Path(res.path).read_text(encoding="utf-8")
        found, stopped = lint_within(text, res.path, limits, seconds=seconds)
        for k in rep.kernels:
            k.findings.extend(found)
            k.findings.sort(key=lambda f: (f.line, f.col, f.rule.code))
            if stopped is not None:
                k.scope.append(f"redundant-sync lint: stopped after {seconds:g} s (--redundant-timeout); "
                               f"the syncs from line {stopped} on were not examined")
            break
