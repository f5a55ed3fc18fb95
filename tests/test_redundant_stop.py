"""The lint's stop-early checks end a run at its first race that is certain to be a problem
(Limits.stop_at_race, analyze._race_stop): the same verdicts as checks from scratch, with
findings among the full check's, in fewer statement instances. Work, not seconds."""
from __future__ import annotations

from pathlib import Path

from asyncguard.analyze import Limits, check_text
from asyncguard.repair import apply_edits
from asyncguard.repair.redundant import _removal, _sync_stmts, lint_text
from asyncguard.repair.search import Oracle
from asyncguard.repair.tree import Tree

REAL = Path(__file__).resolve().parent.parent / "corpus" / "real"


def _keys(findings) -> set:
    return {(f.rule.code, f.line, f.col) for f in findings}


def _removals(name: str):
    text = (REAL / name).read_text()
    tree = Tree(text, "k.tir")
    for s, _ in _sync_stmts(tree):
        yield s.span.line, apply_edits(text, [_removal(tree, s)])[0]


def test_a_run_stops_at_a_certain_race_with_the_full_checks_verdict():
    stop = Limits(stop_when=lambda fs: bool(fs), stop_at_race=True)
    shorter = 0
    for line, new in _removals("online_softmax_sm80_s2_t128.tir"):
        full = check_text(new, "k.tir").kernels[0]
        early = check_text(new, "k.tir", stop).kernels[0]
        assert bool(early.findings) == bool(full.findings), line
        assert _keys(early.findings) <= _keys(full.findings), line
        if full.findings:
            assert early.steps <= full.steps, line
            shorter += early.steps < full.steps
        else:
            assert early.steps == full.steps, line
    assert shorter >= 1


def test_without_stop_at_race_a_run_is_not_cut():
    stop = Limits(stop_when=lambda fs: bool(fs))
    for line, new in _removals("online_softmax_sm80_s2_t128.tir"):
        full = check_text(new, "k.tir").kernels[0]
        assert check_text(new, "k.tir", stop).kernels[0].steps == full.steps, line


def test_the_lint_with_runs_stopped_at_races_equals_the_lint_without():
    text = (REAL / "online_softmax_sm80_s2_t128.tir").read_text()
    cut, whole = Oracle(text, "k.tir", stop_at_race=True), Oracle(text, "k.tir")
    assert not cut.notes and not whole.stop_at_race          # whole: the oracle before the cut
    found = [(f.rule.code, f.line, f.col, f.message) for f in lint_text(text, "k.tir", oracle=cut)]
    assert found == [(f.rule.code, f.line, f.col, f.message)
                     for f in lint_text(text, "k.tir", oracle=whole)]
    assert found


def test_a_run_whose_tasks_waited_at_a_compared_boundary_still_stops_at_its_race():
    # TileLang's persistent GEMM without the producer's wait at line 46: its 128-trip k loop is
    # planned for skipping, so tasks wait at period boundaries (Machine._quiesce_first). That
    # changes the schedule, not happens-before: the race found stands, and the run ends there
    # (it ran ~25,900 statement instances to the end before)
    path = REAL.parent / "field" / "gemm__example_gemm_persistent__matmul_persistent__sm_90a.tir"
    lines = path.read_text().splitlines(keepends=True)
    assert lines[45].strip().startswith("T.mbarrier_wait_parity(mbarrier_1[producer_phase_cnt_1[0] % 3 + 3]")
    new = "".join(lines[:45] + lines[46:])
    early = check_text(new, "k.tir", Limits(stop_when=lambda fs: bool(fs), stop_at_race=True)).kernels
    # the full check (50,463 statement instances) reports AG103 and AG402 at line 48, and more
    assert {f.rule.code for k in early for f in k.findings} & {"AG103", "AG412"}
    assert sum(k.steps for k in early) < 5000


def test_the_lint_within_a_budget_stops_and_says_at_which_sync():
    from asyncguard.repair.redundant import lint_within
    text = (REAL / "online_softmax_sm80_s2_t128.tir").read_text()
    syncs = [s.span.line for s, _ in _sync_stmts(Tree(text, "k.tir"))]
    free, stopped = lint_within(text, "k.tir")
    assert stopped is None
    assert _keys(free) == _keys(lint_text(text, "k.tir"))
    found, stopped = lint_within(text, "k.tir", seconds=1e-9)   # spent before the first check
    assert stopped in syncs and _keys(found) <= _keys(free)


def test_check_redundant_timeout_adds_the_scope_line(capsys):
    import json

    from asyncguard.cli import main
    path = REAL / "online_softmax_sm80_s2_t128.tir"
    main(["check", "--no-cache", "--format", "json", "--redundant", "--redundant-timeout", "1e-9", str(path)])
    doc = json.loads(capsys.readouterr().out)
    scope = [line for f in doc["files"] for k in f["kernels"] for line in k["scope"]]
    assert any(line.startswith("redundant-sync lint: stopped after 1e-09 s (--redundant-timeout); the syncs "
                               "from line ") for line in scope), scope
