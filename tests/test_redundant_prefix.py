"""The lint's shared prefix (repair/prefix.py): a removal checked by a copy of the unedited
kernel's run, forked where a task first reaches the removed statement, gets the answer of the
edited kernel's own check, and the lint's findings (messages included) are those of the lint
without it. Work, not seconds: every candidate is forked here (MIN_SHARE 0)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.program import elaborate
from asyncguard.repair import apply_edits, prefix, redundant
from asyncguard.repair.redundant import _removal, _sync_stmts, lint_text
from asyncguard.repair.search import Oracle
from asyncguard.repair.tree import Tree

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [ROOT / "corpus" / "real" / "online_softmax_sm80_s2_t128.tir",
           ROOT / "corpus" / "real" / "fa_fwd_sm90a_ws_s2.tir",
           ROOT / "corpus" / "real" / "copy_pipelined_sm90a_s2.tir"]


def _found(fs) -> list:
    return [(f.rule.code, f.line, f.col, f.message) for f in fs]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_every_forked_answer_is_the_edited_kernels_own(path, monkeypatch):
    monkeypatch.setattr(prefix, "MIN_SHARE", 0.0)
    text = path.read_text()
    oracle = Oracle(text, "k.tir", stop_at_race=True)
    assert not oracle.base and not oracle.notes
    tree = Tree(text, "k.tir", module=oracle.module)
    removals = [(s, _removal(tree, s)) for s, _ in _sync_stmts(tree)]
    answered = prefix.check_removals(oracle, removals)
    assert answered == len(oracle.clean_memo) >= 1
    clean_ones = 0
    for s, e in removals:
        new = apply_edits(text, [e])[0]
        if new in oracle.clean_memo:
            full = check_text(new, "k.tir")            # the edited kernel's own full check
            assert oracle.clean_memo[new] == (not full.findings), s.span.line
            clean_ones += oracle.clean_memo[new]
    assert answered >= len(removals) // 2


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_the_lint_with_forks_equals_the_lint_without(path, monkeypatch):
    text = path.read_text()
    monkeypatch.setattr(prefix, "MIN_SHARE", 0.0)
    forked = Oracle(text, "k.tir", stop_at_race=True)
    with_forks = _found(lint_text(text, "k.tir", oracle=forked))
    monkeypatch.setattr(redundant, "check_removals", lambda oracle, removals: 0)
    plain = Oracle(text, "k.tir", stop_at_race=True)
    assert with_forks == _found(lint_text(text, "k.tir", oracle=plain))
    assert forked.calls == plain.calls          # one answer per check it replaced


def test_the_program_comparison_sees_a_difference():
    path = KERNELS[0]
    text = path.read_text()
    oracle = Oracle(text, "k.tir", stop_at_race=True)
    tree = Tree(text, "k.tir", module=oracle.module)
    (s, _), (t, _) = _sync_stmts(tree)[:2]
    e = _removal(tree, s)
    new, lmap = apply_edits(text, [e])
    ref = elaborate(oracle.module.functions[0])
    edited = elaborate(oracle.splicer.module_for([e], new, lmap).functions[0])
    lines = prefix._Lines(text, new, lmap)
    ops = {id(o) for o in prefix._ops_at(ref, s.span.line)} | {id(s)}
    assert prefix.same_program(ref, edited, ops, lines)
    assert not prefix.same_program(ref, edited, set(), lines)          # one statement more
    other = {id(o) for o in prefix._ops_at(ref, t.span.line)} | {id(t)}
    assert not prefix.same_program(ref, edited, other, lines)          # another one left out
    assert not prefix.same_program(ref, edited, ops, prefix._Lines(text, text, list(range(1, 1000))))


def test_where_a_span_ends_is_read_by_no_check():
    """_Lines.same compares where spans start only: nothing the check runs reads their ends."""
    pkg = ROOT / "asyncguard"
    reads = []
    for f in pkg.rglob("*.py"):
        rel = f.relative_to(pkg).as_posix()
        if rel in ("ir.py", "parse.py") or rel.startswith(("repair/", "emit/")):
            continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if re.search(r"\.end_line\b|\.end_col\b|span\.end\b", line):
                reads.append(f"{rel}:{n}")
    assert reads == []


def test_the_comparison_is_conservative_where_it_cannot_see_state():
    import functools

    from asyncguard.models.memory import Region
    lines = prefix._Lines("x\n", "x\n", [1])
    assert not prefix.same_program(functools.partial(max, 1), functools.partial(max, 1), set(), lines)
    assert prefix.same_program(Region("a", "shared", 8), Region("a", "shared", 8), set(), lines)
    assert not prefix.same_program(Region("a", "shared", 8), Region("a", "shared", 16), set(), lines)
    assert not prefix.same_program((1, [2]), (1, [3]), set(), lines)
    assert not prefix.same_program(lambda v=1: v, lambda v=1: v, set(), lines)   # two codes


def test_the_cli_timeout_keeps_the_forks_and_bounds_each_run(monkeypatch):
    # `check --redundant` runs with --timeout (60 s by default): the forks answer as without it
    # (they were refused whenever a timeout was set, so the CLI checked every removal from
    # scratch), and a run past its deadline answers nothing, leaving the removal to the oracle
    from asyncguard.analyze import Limits
    monkeypatch.setattr(prefix, "MIN_SHARE", 0.0)
    text = KERNELS[0].read_text()

    def forked(limits):
        oracle = Oracle(text, "k.tir", limits, stop_at_race=True)
        tree = Tree(text, "k.tir", module=oracle.module)
        removals = [(s, _removal(tree, s)) for s, _ in _sync_stmts(tree)]
        return oracle, prefix.check_removals(oracle, removals)

    untimed, n_untimed = forked(None)
    timed, n_timed = forked(Limits(max_seconds=60))
    assert n_timed == n_untimed >= 1 and timed.clean_memo == untimed.clean_memo
    monkeypatch.setattr(prefix, "_deadline", lambda limits: 0.0)   # already passed
    late, n_late = forked(Limits(max_seconds=60))
    assert n_late == 0 and not late.clean_memo
    assert _found(lint_text(text, "k.tir", oracle=late)) == \
        _found(lint_text(text, "k.tir", oracle=Oracle(text, "k.tir", stop_at_race=True)))
