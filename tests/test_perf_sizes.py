"""Work, not seconds: how many concrete runs a symbolic size needs, and that repair and the
redundancy lint ask the cheap question ("is this edit clean?") with the same answers."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse
from asyncguard.prover import periodic
from asyncguard.prover.sizes import plan_sizes
from asyncguard.repair.search import Oracle

REAL = Path(__file__).resolve().parent.parent / "corpus" / "real"


def _plan(name: str, assumptions=()):
    text = (REAL / f"{name}.tir").read_text()
    return plan_sizes(elaborate(parse(text).functions[0]), list(assumptions))


@pytest.mark.parametrize("name, period, runs", [
    # one pipelined loop: the trip counts up to the warm-up plus two periods, not a fixed bound
    ("gemm_sm80_dynamic_k_s2_128x128x32", 2, 8),     # was 25 runs (24 trip counts + one long)
    ("gemm_sm80_dynamic_k_s3_128x128x32", 3, 13),    # was 37 (trip counts -1..35 and one long)
])
def test_one_size_loop_needs_a_few_periods_of_runs(name, period, runs):
    plan = _plan(name)
    ind = plan.induction
    assert ind.status == "proved" and plan.scope.startswith("proved for every K >= 1")
    assert plan.proved_for_every
    assert ind.step == period                       # the loop's own period, not twice it
    assert len(plan.values) == runs     # one per trip count below n0 + S (s3: -1 and 0 both run none)
    # every run below n0 is short; from n0 on the loop skips, so no long value is needed
    assert max(max(t) for t in plan.trips) == ind.n0 + ind.step - 1


def test_producer_and_consumer_loops_share_one_geometry():
    plan = _plan("gemm_sm90a_ws_dynamic_k_s3_128x128x64")
    ind = plan.induction
    assert ind.status == "proved"
    assert len(set(ind.loop_lines.values())) == 1 and len(ind.loop_lines) == 2
    shift, warm, tail = next(iter(ind.loop_lines.values()))
    assert shift == 6 and tail == shift + 1    # the first to jump stays inside its periods
    # trip counts 1 .. n0 + S - 1 (K >= 1 runs the loops at least once); 72 runs before
    assert len(plan.values) == ind.n0 + ind.step - 1 < 72


def test_every_run_from_n0_on_takes_its_jump():
    rep = check_text((REAL / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text())
    assert rep.verdict == "clean"
    assert rep.kernels[0].scope[0].startswith("proved for every K >= 1")


def test_a_kernel_whose_state_never_repeats_is_checked_not_proved():
    text = (REAL / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    buggy = text.replace("            T.ptx_wait_group(1)\n", "", 1)   # copies pile up: no period
    plan = plan_sizes(elaborate(parse(buggy).functions[0]), [])
    assert plan.induction.status == "unknown" and "did not repeat" in plan.induction.reason
    assert plan.scope.startswith("checked for K in") and not plan.proved_for_every
    assert max(max(t) for t in plan.trips) <= 12     # no long run that could never skip


def test_oracle_clean_agrees_with_the_full_check():
    text = (REAL / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    buggy = text.replace("            T.ptx_wait_group(1)\n", "            T.ptx_wait_group(2)\n", 1)
    oracle = Oracle(buggy, "k.tir")
    assert oracle.base                                  # the bug is found
    calls = oracle.calls
    assert oracle.clean([]) is False                    # answered from the memo: no new check
    assert oracle.calls == calls
    from asyncguard.repair.edits import Edit
    line = buggy.splitlines().index("            T.ptx_wait_group(2)") + 1
    fix = Edit(line, "replace", "            T.ptx_wait_group(1)", "", "lower the wait count")
    assert oracle.clean([fix]) is True
    assert oracle.problems([fix]) == []


def test_z3_answers_are_remembered_with_the_askers_line():
    def expr(text, pad=""):
        return parse(f"@T.prim_func\ndef f():\n{pad}    x = {text}\n").functions[0].body[0].value
    first, moved = expr("k % 3 * 64 + tx"), expr("k % 3 * 64 + tx", pad="\n\n")
    assert first == moved and first.span.line != moved.span.line
    periodic._MEMO.clear()
    a = periodic.prove_equal_under_shift([first], "k", 2, {"tx": (0, 32)}, (0, 100))
    size = len(periodic._MEMO)
    b = periodic.prove_equal_under_shift([moved], "k", 2, {"tx": (0, 32)}, (0, 100))
    assert len(periodic._MEMO) == size                  # the second question was not asked again
    assert a.status == b.status == "refuted"
    assert f"line {first.span.line}" in a.reason and f"line {moved.span.line}" in b.reason


def test_a_size_loop_that_fails_to_skip_is_run_again_without_skipping(monkeypatch):
    # with a one-iteration tail the producer loop jumps and finishes while the consumer, which
    # compares its state later, sees a different machine and does not jump: the two loops would
    # be out of step (a false hang). Such a size value is run again without skipping: no hang,
    # and the values past the runs are not proved, so `unknown` (AG001), not `clean`
    from asyncguard.prover import induction
    monkeypatch.setattr(induction, "tail_for", lambda shift, loops, short=False: 1)
    rep = check_text((REAL / "gemm_sm90a_ws_dynamic_k_s3_128x128x64.tir").read_text())
    assert rep.verdict == "unknown"
    assert [f.rule.code for f in rep.findings] == ["AG001"]
    assert rep.kernels[0].scope[0].startswith("checked for the values listed, not proved for every size")


def test_a_short_tail_that_fails_to_skip_is_planned_again_with_the_long_one(monkeypatch):
    # the sizes are planned with short tails first; a run that must jump and does not (here a
    # one-iteration tail, too short for the producer that leads its consumer) sends the kernel
    # back to a plan with the long tails, whose runs jump: proved, not "checked for the values"
    from asyncguard.prover import induction
    real, asked = induction.tail_for, []

    def tail_for(shift, loops, short=False):
        asked.append(short)
        return 1 if short and loops > 1 else real(shift, loops)
    monkeypatch.setattr(induction, "tail_for", tail_for)
    rep = check_text((REAL / "gemm_sm90a_ws_dynamic_k_s3_128x128x64.tir").read_text())
    assert rep.verdict == "clean"
    assert rep.kernels[0].scope[0].startswith("proved for every K")
    assert True in asked and False in asked


def test_size_loops_beside_each_other_keep_half_a_shift_after_their_jump():
    # the warp-specialized dynamic-K GEMM's producer and consumer loops: shift 6, so 4
    # iterations after the jump instead of 7, and every trip count from n0 + S on runs like one S smaller
    from asyncguard.prover import induction
    assert induction.tail_for(6, 2, short=True) == 4 and induction.tail_for(6, 2) == 7
    assert induction.tail_for(6, 1, short=True) == induction.tail_for(6, 1) == 1
    rep = check_text((REAL / "gemm_sm90a_ws_dynamic_k_s3_128x128x64.tir").read_text())
    assert rep.verdict == "clean"
    assert rep.kernels[0].scope[0].startswith("proved for every K")
