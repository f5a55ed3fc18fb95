"""Loops whose start the loaded lengths decide (TileLang's varlen backward with TMA reduce: `for k in
range(min(by * 4, len // 32), ceil(len / 32))`, engine/loaded_numbers.py `_start_residue`): the start is a
name of its own, z3 proves the kernel depends on it only mod M, and the runs of each trip count load
values for every remainder the block reaches. Before, these kernels came back `unknown`.

The kernel as TileLang 0.1.15 lowers it (corpus/found-bugs, docs/found-bugs.md entry 19) races when a
block's loops run no iteration; its repair waits for the K and V loads after the loop."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

FOUND = Path(__file__).resolve().parent.parent / "corpus" / "found-bugs"
FIXED = (FOUND / "gqa_bwd_varlen_atomic_sm90a.fixed.tir").read_text()
START = "T.min(by * 4, (q_end_idx - q_start_idx) // 32)"
ODD_START = "T.min(by * 4 + 1, (q_end_idx - q_start_idx) // 32)"
# the producer's Q slot counted from the loop's start, the consumer's from 0: they disagree exactly
# when the start is odd
PRODUCER_SLOT = "k_base % 2 * 6144 + i * 2048"
RELATIVE_SLOT = f"(k_base - {START}) % 2 * 6144 + i * 2048"


def _report(text):
    return check_text(text, "varlen_start.tir")


def _codes(report):
    return {(f.rule.code, f.line) for f in report.findings if f.rule.kind != "unsupported"}


def test_the_repaired_kernel_is_proved_for_every_length_through_the_start_remainder():
    report = _report(FIXED)
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = " ".join(s for k in report.kernels for s in k.scope)
    assert "start at T.min(by * 4, (q_end_idx - q_start_idx) // 32)" in scope
    assert "only through its value mod 2" in scope
    assert "proved for every trips(line 88) >= 0" in scope


@pytest.mark.slow
def test_a_slot_that_differs_only_for_odd_starts_is_found_in_the_blocks_that_start_odd():
    """With start min(by * 4, len // 32) an odd start comes only in blocks by >= 1 and only with
    trip counts 0 and 1: there the consumer reads the slot the producer did not fill (AG417).
    Block 0 alone (whose start is always 0) would call it clean: the blocks are run apart."""
    text = FIXED.replace(PRODUCER_SLOT, RELATIVE_SLOT, 1)
    assert text != FIXED
    report = _report(text)
    assert report.verdict == "buggy"
    assert ("AG417", 140) in _codes(report)
    assert "cu_seqlens_q_1[1] = 127" in " ".join(f.message for f in report.findings)


@pytest.mark.slow
def test_a_slot_that_differs_for_odd_starts_races_once_odd_starts_run_several_iterations():
    odd = FIXED.replace(START, ODD_START)
    assert odd != FIXED
    assert _report(odd).verdict == "clean"
    report = _report(odd.replace(PRODUCER_SLOT, RELATIVE_SLOT.replace(START, ODD_START), 1))
    assert report.verdict == "buggy"
    assert ("AG401", 140) in _codes(report)     # the consumer's wgmma reads the slot being loaded
