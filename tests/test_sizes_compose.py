"""Runs, not seconds, of symbolic sizes: a size read from memory probes its own geometry (the
paged MLA decode kernel), and independent groups read one after the other compose as a sum of
runs when the state between them is the same (prover/sizes_cut.py); otherwise the product."""
import re
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse
from asyncguard.prover import sizes
from asyncguard.prover.sizes import plan_sizes

ROOT = Path(__file__).resolve().parent.parent / "corpus"
MLA = ROOT / "field" / "deepseek_mla__example_mla_decode_paged__mla_decode_tilelang.main_no_split__sm_80.tir"
TWO_PHASE = ROOT / "dynamic" / "gemm_sm80_two_phase_dynamic_k_s2.tir"
DROP_WAIT = ROOT / "dynamic" / "gemm_sm80_two_phase_dynamic_k_s2__drop-wait.tir"


def _plan(text: str):
    return plan_sizes(elaborate(parse(text).functions[0]), [])


def _runs(scope: str) -> tuple:
    m = re.search(r"\((\d+) runs for the (\d+) combinations", scope)
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_a_length_read_from_memory_probes_its_own_geometry():
    # the probe run reads cache_seqlens[bx] as the size (it stopped at the load before, and the
    # default geometry, shift 4 and warm-up 8, made the induction start at trip count 13)
    plan = _plan(MLA.read_text())
    ind = plan.induction
    assert ind.status == "proved" and ind.loop_lines == {124: (2, 4, 1)}
    assert (ind.n0, ind.step) == (7, 2)
    # loop_range 0 and 1 (trip counts -2, -1), then one value per trip count up to n0 + S - 1
    assert [t for (t,) in plan.trips] == list(range(-2, 9))   # 11 runs, was 19


def test_the_paged_mla_decode_keeps_its_finding_with_fewer_runs():
    rep = check_text(MLA.read_text(), str(MLA))
    assert rep.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in rep.findings} == {("AG503", 8)}   # 231424 B > sm_80's 166912
    scope = rep.kernels[0].scope[0]
    assert scope.startswith("proved for every cache_seqlens_1[bx] >= 0")
    assert "in {0, 1, 65, 129, 193, 257, 321, 385, 449, 513, 577} " in scope
    assert "every trip count of at least 9 runs like one 2 smaller" in scope


def test_two_phases_read_one_after_the_other_compose():
    plan = _plan(TWO_PHASE.read_text())
    cut = plan.cut
    assert cut is not None and cut.line == 72 and cut.before == ["K"] and cut.after == ["K2"]
    assert len(plan.values) == 64 and len(cut.composed) == 49 and len(cut.rows) == 8
    # the runs each group needs come first: K's 8 values with K2 = 1, then K2's 7 others with K = 1
    assert all(v["K2"] == 1 for v in plan.values[:8]) and all(v["K"] == 1 for v in plan.values[8:15])
    rep = check_text(TWO_PHASE.read_text())
    assert rep.verdict == "clean"
    scope = rep.kernels[0].scope[0]
    assert scope.startswith("proved for every size (15 runs for the 64 combinations of 2 independent")
    assert "K is read only before line 72 and K2 only from it on" in scope


def test_a_bug_after_the_cut_is_found_by_the_sum_as_by_the_product(monkeypatch):
    text = DROP_WAIT.read_text()
    rep = check_text(text)
    assert _runs(rep.kernels[0].scope[0]) == (20, 104)   # 8 + 13 - 1 (K2 unproved: 13 values)
    monkeypatch.setattr(sizes, "_compose", lambda *a: None)   # the product, every combination
    product = check_text(text)
    assert "104 runs, the product of 2 independent groups" in product.kernels[0].scope[0]
    assert rep.verdict == product.verdict == "buggy"
    # the same findings; their witnesses may be other combinations (the first run to meet each)
    assert [(f.rule.code, f.line, f.col) for f in rep.findings] == \
        [(f.rule.code, f.line, f.col) for f in product.findings]
    # (and AG001: K2's plan is not proved, so the values past those run are not checked)
    assert {f.rule.code for f in rep.findings} == {"AG101", "AG103", "AG001"}


def test_a_size_read_on_both_sides_keeps_the_product():
    # the second phase's epilogue reads its stage by K's parity: K is read after the cut
    text = TWO_PHASE.read_text()
    second = text.index("if 1 <= K2:")
    epilogue = text[second:].replace("((K2 + 31) // 32 + 1) % 2", "((K + 31) // 32 + 1) % 2", 1)
    text = text[:second] + epilogue
    plan = _plan(text)
    assert plan.cut is None and len(plan.values) == 64
    assert "64 runs, the product of 2 independent groups" in plan.scope


def test_a_state_that_differs_at_the_cut_keeps_the_product():
    # the first phase's last wait dropped: its last copies are still in flight at the cut,
    # how many depends on K, so the second phase may meet them: every combination runs
    text = TWO_PHASE.read_text()
    last_wait = "        T.ptx_wait_group(0)\n        T.tvm_storage_sync(\"shared\")\n        if 1 <= K:\n"
    assert last_wait in text
    text = text.replace(last_wait, last_wait.replace("        T.ptx_wait_group(0)\n", "", 1), 1)
    rep = check_text(text)
    scope = rep.kernels[0].scope[0]
    assert "64 runs, the product of 2 independent groups" in scope
    assert "not composed at line" in scope and "still open at the cut" in scope
    assert rep.verdict == "buggy"


def test_a_let_the_first_size_decides_read_after_the_cut_keeps_the_product():
    # a let bound inside a branch on K (the machine's environment keeps it past the branch)
    # and read by the second phase: K decides something after the cut
    text = TWO_PHASE.read_text()
    head = "        if 1 <= K:\n            T.attr(0, \"lexical_alloc_scope\", 1)\n"
    assert head in text and "        if 1 <= K2:\n" in text
    text = text.replace(head, head.replace("K:\n", "K:\n            last: T.int32 = (K + 31) // 32 % 2\n"), 1)
    text = text.replace("        if 1 <= K2:\n", "        if 1 <= K2 and last < 2:\n", 1)
    plan = _plan(text)
    assert plan.cut is None and "64 runs, the product of 2 independent groups" in plan.scope


def test_the_cut_holds_only_for_the_same_state_and_fewer_bytes_written_first():
    import numpy as np

    from asyncguard.prover.sizes_cut import Cut
    cut = Cut(3, 72, ["K"], ["K2"], first_before={"K": 1}, first_after={"K2": 1},
              rows=[{"K": 1, "K2": 1}, {"K": 33, "K2": 1}])
    env = (("K2", "1"), ("bx", "0"))
    fewer, more = np.array([1, 0, 0], dtype=bool), np.array([1, 1, 0, 1], dtype=bool)

    def states(first, second, env2=env, alive2=b"\x01"):
        cut.states = {"{}": {str({"K": 1}): (first, b"\x01", env), str({"K": 33}): (second, alive2, env2)}}
        return cut.holds([])
    assert states(fewer, more) is None                      # the first run wrote a subset
    assert "wrote shared bytes" in states(more, fewer)       # it wrote a byte the other did not
    assert "other values of K2" in states(fewer, more, env2=(("K2", "2"), ("bx", "0")))
    assert "other threads alive" in states(fewer, more, alive2=b"\x00")
    cut.states = {"{}": {str({"K": 1}): (fewer, b"\x01", env)}}
    assert "not every run" in cut.holds([])                  # a run of K never reached the cut
