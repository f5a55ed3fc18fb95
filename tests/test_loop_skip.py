"""Loop skipping (engine/accelerate.py, the jump in engine/machine.py) on warp-specialized
pipelines: a producer's loop and its consumer's loop run in different tasks and must skip together.

Found on TileLang 0.1.15's sm_120 lowering of examples/attention_sink/example_gqa_sink_bwd_varlen.py
(flashattn_bwd.flash_bwd): the consumer's loop ends in a bounds guard on a global-memory atomic,
`k * 32 + ... < 16297`, not periodic in k. The guard decides nothing the machine models (the branch
is irrelevant: it never runs), yet it refuted the consumer loop's periodicity; the producer's loop
skipped 4072 iterations alone and the consumer waited forever for their arrivals (a false AG408 at
the size 131478, on mbarrier[1] in phase 18)."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine.machine import Machine
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

DATA = Path(__file__).resolve().parent / "data"
REDUCED = DATA / "ws_pipeline_global_guard_sm120.tir"
REAL = DATA / "attention_sink__example_gqa_sink_bwd_varlen__flashattn_bwd.flash_bwd__sm_120.tir"

# the consumer's loop in the reduced kernel: a guard that is relevant (a named barrier of the
# consumer warps inside) and not periodic, so that loop truly cannot skip
RELEVANT_GUARD = ("                for i in T.unroll(4):\n",
                  "                if k < 100:\n"
                  "                    T.tvm_storage_sync(\"shared.dyn\", 3, 128)\n"
                  "                for i in T.unroll(4):\n")


def _run(text: str, size: int):
    program = elaborate(parse(text, "<test>").functions[0])
    (sym,) = program.symbols
    return Machine(program, sizes={sym: size}).run()


def test_a_bounds_guard_on_global_memory_does_not_stop_the_consumer_loop_skipping():
    # 600 trips of both loops, the guard turning false at k = 509: each loop proved periodic
    # and skipped all the same (the guard's branch is irrelevant)
    result = _run(REDUCED.read_text(), 600 * 32)
    assert not result.stuck
    skipped = {span.line for span, n, a, b, how in result.accelerated if a is not None}
    assert skipped == {34, 42}, result.accelerated


def test_the_reduced_kernel_is_clean_for_every_length():
    r = check_text(REDUCED.read_text(), str(REDUCED))
    assert r.verdict == "clean", [f.message for f in r.findings]
    assert any(line.startswith("proved for every") for k in r.kernels for line in k.scope)


def test_a_loop_does_not_skip_beside_a_loop_that_cannot():
    # the consumer's loop cannot skip (a relevant guard, k < 100): the producer's loop, proved
    # periodic on its own, must not skip either, or the consumer waits for arrivals never made
    text = REDUCED.read_text()
    assert RELEVANT_GUARD[0] in text
    result = _run(text.replace(RELEVANT_GUARD[0], RELEVANT_GUARD[1], 1), 200 * 32)
    assert not result.stuck, [(s.barrier, s.span.line, s.phase) for s in result.stuck]
    assert result.limit_hit is None
    outcomes = {span.line: (a, how) for span, n, a, b, how in result.accelerated}
    assert outcomes[42][0] is None and outcomes[34][0] is None, outcomes
    assert "the loop at line 42 beside it (other threads) does not skip" in outcomes[34][1]


def test_the_real_kernel_has_no_hang_and_its_empty_sequence_race_stays():
    # the TileLang kernel itself: no AG408 (the false hang); what stays is real. AG401 at lines
    # 203/211 for an empty query sequence (trip count 0: the consumer never waits for K's TMA
    # load on mbarrier[16], then writes dv_shared / dk_shared over K_shared while it may land)
    # and AG503 (108032 shared bytes per block > sm_120's 101376)
    r = check_text(REAL.read_text(), str(REAL))
    codes = {f.rule.code for f in r.findings}
    assert "AG408" not in codes, [f.message for f in r.findings]
    assert codes == {"AG401", "AG503"}, [f.message for f in r.findings]
    races = [f for f in r.findings if f.rule.code == "AG401"]
    assert {f.line for f in races} == {203, 211}
    assert all(list(f.witness["sizes"].values()) == [0] for f in races)


def test_the_periodicity_proof_holds_for_the_block_being_run():
    # TileLang's sm_120 attention-sink backward (bhsd): both loops run k from by * 4 and the
    # consumer's first iteration waits on K's mbarrier (`if k == by * 4`). With `by` free the
    # branch may fall anywhere and the loop never skipped; the machine runs one block, whose `by`
    # puts the branch before the skipped range
    path = DATA / "attention_sink__example_mha_sink_bwd_bhsd__flashattn_bwd.flash_bwd__sm_120.tir"
    program = elaborate(parse(path.read_text(), str(path)).functions[0])
    result = Machine(program, block={"blockIdx.y": 1}).run()
    assert not result.stuck and result.limit_hit is None
    skipped = {span.line: (a, b) for span, n, a, b, how in result.accelerated if a is not None}
    assert skipped == {75: (20, 108), 100: (20, 108)}, result.accelerated
