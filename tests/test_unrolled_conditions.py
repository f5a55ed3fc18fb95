"""Branches on loaded cells inside loops of few constant trips (engine/loaded_numbers.py
`_unrolled_conditions`): TileLang's pipelined NSA forward with 4 selected blocks (corpus/field_sizes)
loads the first two selected blocks in a prologue under `M[i_t * 4 + j] * 64 <= i_t` and computes
block i inside `for i in T.serial(2)` under the same test of cell `i_t * 4 + i`. That branch was
taken every time, so a run computed a stage whose load the prologue's outcome had skipped (an
unknown); written out once per iteration, it is decided by the same enumerated cell values."""
from pathlib import Path

from asyncguard.analyze import check_text

FIELD_SIZES = Path(__file__).resolve().parent.parent / "corpus" / "field_sizes"
SEL4 = FIELD_SIZES / "deepseek_nsa__example_tilelang_nsa_fwd__s256_d64_bs64_sel4_causal__native_sparse_attention__sm_90a.tir"
SEL8 = FIELD_SIZES / "deepseek_nsa__example_tilelang_nsa_fwd__s256_d128_bs32_sel8_noncausal__native_sparse_attention__sm_80.tir"
PREFETCH_BARRIER = '            T.tvm_storage_sync("shared.dyn")\n            if i_s_6 <= i_t and 0 <= i_s_6:\n'


def _scope(report) -> str:
    return " ".join(line for k in report.kernels for line in k.scope)


def test_the_four_block_nsa_forward_is_clean_for_every_outcome_pattern():
    report = check_text(SEL4.read_text(), str(SEL4))
    assert report.verdict == "clean", [(f.rule.code, f.line, f.message) for f in report.findings]
    scope = _scope(report)
    assert "every outcome pattern checked" in scope
    assert "checked taken by every thread" not in scope


def test_its_prefetch_without_the_barrier_is_a_race_with_the_cells_that_show_it():
    text = SEL4.read_text()
    assert PREFETCH_BARRIER in text
    report = check_text(text.replace(PREFETCH_BARRIER, PREFETCH_BARRIER.split("\n", 1)[1], 1), str(SEL4))
    assert report.verdict == "buggy"
    races = [f for f in report.findings if f.rule.code == "AG201"]
    assert races and "BlockIndices_1[" in races[0].message, [f.message for f in report.findings]


def test_eight_blocks_stay_taken_every_time_past_the_pattern_limit():
    # 8 cells would make 256 outcome combinations, past the 64 patterns a block runs: the
    # branches are left as before (taken every time), with their real outcome where a run chose
    # the cell's number for the prologue's branch (engine/loaded_numbers.py
    # `_decide_like_enumerated`), so the first iterations' reads follow the prologue's writes: clean
    report = check_text(SEL8.read_text(), str(SEL8))
    assert report.verdict == "clean", [(f.rule.code, f.line, f.message[:120]) for f in report.findings]
    assert "checked taken by every thread" in _scope(report)
