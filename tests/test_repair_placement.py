"""Where the repair search puts a missing mbarrier wait: before the release of the buffer the
first access still uses, not only before the racing access."""
from __future__ import annotations

from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.repair import repair_text
from asyncguard.repair.candidates import Generator
from asyncguard.repair.edits import Edit
from asyncguard.repair.search import Oracle
from asyncguard.repair.tree import Tree

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "corpus" / "variants"
FA_GQA = "fa_gqa_fwd_sm100a_release_after_commit__drop-mbarrier-wait_L{}.tir"


# (dropped line, the wait the original had there, the release arrive now at that line)
DROPPED = [(171, "T.mbarrier_wait_parity(mbar_d_1[0], k)", "T.ptx_arrive_barrier(mbarrier_1[3])"),
           (124, "T.mbarrier_wait_parity(mbar_s_1[0], k)", "T.ptx_arrive_barrier(mbarrier_1[2])")]


@pytest.mark.parametrize("line,wait,release", DROPPED)
def test_a_dropped_wait_before_the_release_is_put_back_there(line, wait, release):
    """The consumer waits for its tcgen05.mma's commit before it hands K (V) back to the
    producer; with that wait dropped, a wait before its next read of tensor memory would leave
    the producer's TMA refilling the buffer the MMA still reads (AG402). The search tries the
    point before the release arrive and finds the original kernel: one inserted wait, proved
    minimal, and the repaired kernel checks clean."""
    text = (VARIANTS / FA_GQA.format(line)).read_text()
    assert text.splitlines()[line - 1].strip() == release
    r = repair_text(text, "k.tir")
    assert r.status == "fixed" and r.fix.safety == "proved"
    assert list(r.fix.edits) == [Edit(line, "insert-before", wait, " " * 20)]
    assert check_text(r.new_text, "k.tir").verdict == "clean"
    # it removes both findings, and the proof: without the inserted wait, both come back
    assert [code for code, _ in r.fix.fixed] == ["AG401", "AG402"]
    assert [p[2] for p in r.fix.proof] == [("AG401", "AG402")]


def test_release_points_are_those_of_the_racing_buffer_only():
    """For the AG402 (the producer's TMA refill of V at line 92 against the PV MMA at line 168),
    the release point is the arrive on mbarrier_1[3], the barrier the producer waits on before
    the refill; the arrive on mbarrier_1[2] (K's stage) precedes the MMA and is no release of V.
    The AG401 (the read of tensor memory) has none: its side waits on no barrier this thread
    arrives on after the MMA."""
    text = (VARIANTS / FA_GQA.format(171)).read_text()
    oracle = Oracle(text, "k.tir")
    tree = Tree(text, "k.tir", module=oracle.module)
    gen = Generator(tree, lambda n: n)
    by_rule = {f.rule.code: f for f in oracle.base}
    race = by_rule["AG402"]
    a, b = race.witness["first"]["line"], race.witness["second"]["line"]
    assert (a, b) == (168, 92)
    gaps = gen.release_gaps(a, b)
    assert [tree.gap_edit(g, "").line for g in gaps] == [171]
    read = by_rule["AG401"]
    assert gen.release_gaps(read.witness["first"]["line"], read.witness["second"]["line"]) == []
