"""Loop skipping (engine/accelerate.py, engine/machine.py) in a cluster of two CTAs.

TileLang 0.1.15's persistent 2-CTA GEMM (corpus/field, gemm_tcgen5mma_ws_persistent.py,
gemm_persistent_2cta): both CTAs' producer warps fill a ring of 6 stages and arrive on the
leader's `loaded` barrier (64 arrivals, 65536 transaction bytes from both CTAs' TMA loads); the
leader's MMA warp consumes them. The K loops (128 stages per tile, `phase % 6`) are proved
periodic with period 12, and the machine compares the state at two period boundaries of a loop
before it skips. Where the scheduler happened to leave the peer CTA's producer at those two
moments used to differ (mid-iteration at one, its TMA bytes still owed to the leader's barrier;
between iterations at the other), so from the third tile on the state never repeated, the run
was thrown away and run again with nothing skipped (AG002 at the field corpus's time limit). A
task at a compared boundary now first lets every other task run until it blocks
(`Machine._quiesce_first`). The variants are single-bug edits; the late ones break the protocol
in one iteration of the range the loops would skip."""
from pathlib import Path

import pytest

from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.engine import accelerate
from asyncguard.engine.machine import Machine
from asyncguard.engine.program import elaborate
from asyncguard.mutants import EXPECTED_RULES, mutations
from asyncguard.parse import parse
from test_clc import without_exits

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
PERSISTENT_2CTA = (FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__sm_100a.tir").read_text()
CLC_2CTA = (FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws_clc__gemm_clc_persistent_2cta__sm_100a.tir").read_text()

# the full K loop (128 stages: long enough to skip), the tile loop cut from 1024 tiles to 160:
# cluster 0 runs tiles 0, 74 and 148 (the state used to stop repeating in the third)
THREE_TILES = PERSISTENT_2CTA.replace("< 1024:", "< 160:")
PRODUCER_LOOP = 90   # `for k in range(128)` of both CTAs' producer warps
MMA_LOOP = 117       # the leader's MMA warp

CONSUMED_WAIT = ("                        T.mbarrier_wait_parity(consumed_1[phase % 6], "
                 "T.bitwise_xor(T.bitwise_and(phase // 6, 1), 1))\n")
LOADED_WAIT = "                            T.mbarrier_wait_parity(loaded_1[phase % 6], T.bitwise_and(phase // 6, 1))\n"
B_STAGE = "B_shared, phase % 6 * 8192 + i * 4096"


def loop_outcomes(report) -> list[str]:
    return [line for k in report.kernels for line in k.scope if line.startswith("loop at line")]


def test_three_tiles_skip_every_k_loop_and_stay_clean():
    report = check_text(THREE_TILES)
    assert report.verdict == "clean", [(f.rule.code, f.line, f.message) for f in report.findings]
    outcomes = loop_outcomes(report)
    # the first tile's pipeline fills in its first period: it compares again a period later
    assert sorted(outcomes) == [
        f"loop at line {MMA_LOOP} (128 iterations): iterations 13..120 skipped, proved periodic with period 12",
        f"loop at line {MMA_LOOP} (128 iterations): iterations 25..120 skipped, proved periodic with period 12",
        f"loop at line {PRODUCER_LOOP} (128 iterations): iterations 13..120 skipped, proved periodic with period 12",
        f"loop at line {PRODUCER_LOOP} (128 iterations): iterations 25..120 skipped, proved periodic with period 12",
    ], outcomes


def test_each_tiles_k_loops_skip_in_both_ctas():
    # block 0 alone: every tile's three K loops (two producers, one MMA) skip the same
    # iterations (96 in the first tile, 108 in the others: the first settles a period later), in
    # one run (no loop is thrown back to running every iteration)
    program = elaborate(parse(THREE_TILES).functions[0])
    result = Machine(program, block={"blockIdx.x": 0}).run()
    assert result.limit_hit is None and not result.skips_mixed
    assert not (result.races or result.stuck or result.mbar_problems)
    skips = [(span.line, a, b) for span, n, a, b, how in result.accelerated]
    assert sorted(skips) == sorted([(PRODUCER_LOOP, 25, 121)] * 2 + [(MMA_LOOP, 25, 121)] +
                                   [(PRODUCER_LOOP, 13, 121)] * 4 + [(MMA_LOOP, 13, 121)] * 2), skips


@pytest.mark.slow
def test_the_field_kernel_is_clean():
    # the whole kernel (14 tiles for cluster 0): was AG002 (the engine's time limit) before
    report = check_text(PERSISTENT_2CTA)
    assert report.verdict == "clean", [(f.rule.code, f.line, f.message) for f in report.findings]
    assert all("skipped, proved periodic" in line for line in loop_outcomes(report)), loop_outcomes(report)


def _variant(kind: str, needle: str) -> str:
    line = THREE_TILES[: THREE_TILES.index(needle)].count("\n") + 1
    found = [m for m in mutations(THREE_TILES) if m.kind == kind and m.line == line]
    assert found, (kind, needle)
    return found[0].apply(THREE_TILES)


@pytest.mark.parametrize("kind, needle", [
    ("flip-parity", CONSUMED_WAIT.strip()),
    ("drop-mbarrier-wait", CONSUMED_WAIT.strip()),
    ("flip-parity", LOADED_WAIT.strip()),
    ("drop-mbarrier-wait", LOADED_WAIT.strip()),
    ("drop-remote-arrive", "T.ptx_arrive_cluster_barrier(loaded_1[phase % 6], 0)"),
    ("drop-arrive", "T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation(\"uint64\"), consumed.data"),
    ("flip-parity", "T.mbarrier_wait_parity(tmem_full_1["),
])
def test_variants_of_the_k_loops_are_flagged(kind, needle):
    report = check_text(_variant(kind, needle))
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & EXPECTED_RULES[kind]


def test_a_wait_dropped_in_one_late_iteration_is_flagged():
    # the MMA warp reads stage 0 of k = 60 (inside the range 13..108 the loops skip) without
    # waiting for its TMA bytes: the body is no longer periodic, nothing skips, and the read races
    assert LOADED_WAIT in THREE_TILES
    text = THREE_TILES.replace(LOADED_WAIT, "                            if k != 60:\n    " + LOADED_WAIT, 1)
    report = check_text(text)
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & EXPECTED_RULES["drop-mbarrier-wait"]
    assert not any("skipped, proved" in line for line in loop_outcomes(report))


def test_the_peer_ctas_producer_refilling_early_in_one_late_iteration_is_flagged():
    # only CTA 1's producer, only at k = 60, refills its stage without waiting for `consumed`:
    # its TMA load lands in bytes the leader's MMA may still read
    assert CONSUMED_WAIT in THREE_TILES
    text = THREE_TILES.replace(
        CONSUMED_WAIT, "                        if T.block_rank_in_cluster() == 0 or k != 60:\n    " + CONSUMED_WAIT, 1)
    report = check_text(text)
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & EXPECTED_RULES["drop-mbarrier-wait"]


def test_the_peer_cta_loading_into_the_wrong_stage_is_flagged_while_the_loops_skip():
    # CTA 1's producer writes B into the next stage (still read by the MMA) in every iteration:
    # periodic, so the K loops still skip, and the race is found in the iterations that run
    assert B_STAGE in THREE_TILES
    report = check_text(THREE_TILES.replace(B_STAGE, "B_shared, (phase + T.block_rank_in_cluster()) % 6 * 8192 + i * 4096", 1))
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & {"AG401", "AG402"}
    assert all("skipped, proved periodic" in line for line in loop_outcomes(report)), loop_outcomes(report)


# ---------------------------------------------------------------- cluster launch control (gemm_clc_persistent_2cta)
def test_an_or_with_zero_is_the_value_in_the_periodicity_proof():
    # the accumulator half's tensor-memory column, `T.bitwise_or(0, T.bitwise_and(w, 1) * 256 + i * 64)`:
    # 0 | x == x for every integer x, so the proof reads the arithmetic inside
    def call(name, *args):
        return ir.Call(ir.Attr(ir.Var("T"), name), args, ())
    w, i = ir.Var("w"), ir.Var("i")
    inside = ir.BinOp("+", ir.BinOp("*", call("bitwise_and", w, ir.Const(1)), ir.Const(256)),
                      ir.BinOp("*", i, ir.Const(64)))
    assert accelerate._without_zero_or(call("bitwise_or", ir.Const(0), inside)) == inside
    assert accelerate._without_zero_or(call("bitwise_or", inside, ir.Const(0))) == inside
    kept = call("bitwise_or", ir.Const(1), inside)
    assert accelerate._without_zero_or(kept) == kept


def test_the_clc_gemm_skips_its_k_loops():
    # the epilogue's work loop (`for work_iter in T.unroll(...)`, reading the column above) is
    # proved periodic (period 4), so no loop's plan fails beside the skipping K loops and the
    # block is not run again without skipping. The field kernel itself runs its tiles for each
    # count of cancelled clusters (tests/test_clc.py), and its K loops skip there too
    report = check_text(without_exits(CLC_2CTA, tiles=3, k=128))
    outcomes = loop_outcomes(report)
    assert outcomes and all("skipped, proved periodic with period 12" in line for line in outcomes), outcomes
    field = check_text(CLC_2CTA)
    outcomes = loop_outcomes(field)
    assert outcomes and all("periods skipped in the sizes' runs, proved periodic with period 12" in line
                            for line in outcomes), outcomes


def test_a_mixed_run_with_settling_plans_runs_again_with_the_usual_geometry(monkeypatch):
    # a run whose loops compared from their first iteration (Machine.settle) and ended mixed is
    # run again with every loop comparing from its second period, before giving up skipping
    from asyncguard.engine import machine as machine_module
    run = machine_module.Machine.run
    settings = []

    def mixed_when_settled(self):
        result = run(self)
        settings.append((self.settle, self.settled))
        if self.settled:
            result.skips_mixed = True
        return result
    monkeypatch.setattr(machine_module.Machine, "run", mixed_when_settled)
    report = check_text(THREE_TILES)
    assert report.verdict == "clean"
    assert settings[:2] == [(True, True), (False, False)]
    assert sorted(set(loop_outcomes(report))) == [
        f"loop at line {MMA_LOOP} (128 iterations): iterations 24..119 skipped, proved periodic with period 12",
        f"loop at line {PRODUCER_LOOP} (128 iterations): iterations 24..119 skipped, proved periodic with period 12",
    ]
