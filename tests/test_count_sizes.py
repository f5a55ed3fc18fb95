"""A count loop (engine/loop_sizes.py `_count_loops`: a truth-valued input that only decides whole
iterations) of a constant trip count past the input search's pattern limit: its count of true
cells is run as a symbolic size (`_count_sizes`), which the size plan proves for every value from
a few runs, instead of searching one pattern per count (TileLang's block-sparse GEMM at K = 8192:
129 counts, `AG002` before)."""
from pathlib import Path

import pytest

from _edits import edit, outcome
from asyncguard.engine.inputs import MAX_INPUT_PATTERNS
from asyncguard.prover.induction import const_bound
from asyncguard import ir

ROOT = Path(__file__).resolve().parent.parent
GEMM = (ROOT / "corpus" / "unseen_large" /
        "blocksparse_gemm__example_blocksparse_gemm__m8192k8192_b128x128x64_s3_t256__blocksparse_matmul__sm_90a.tir"
        ).read_text()
SYMBOL = "count(BlockMask at line 42)"
CONSUMER_WAIT = "T.mbarrier_wait_parity(mbarrier_1[consumer_phase_cnt[0] % 3], consumer_phase_cnt[0] % 6 // 3)"
PRODUCER_WAIT = ("T.mbarrier_wait_parity(mbarrier_1[producer_phase_cnt[0] % 3 + 3], "
                 "T.bitwise_xor(producer_phase_cnt[0] % 6 // 3, 1))")






def scope(report) -> str:
    return "\n".join(line for k in report.kernels for line in k.scope)


def test_the_count_past_the_limit_is_proved_for_every_value():
    assert GEMM.count("for k in range(128):") == 2 and 128 + 1 > MAX_INPUT_PATTERNS
    verdict, found, report = outcome(GEMM)
    assert verdict == "clean", found
    text = scope(report)
    assert f"proved for every {SYMBOL} >= 0" in text
    assert f"{SYMBOL}: how many of the 128 cells of BlockMask the loops at lines [42, 60] read are true" in text


def test_a_count_within_the_limit_is_still_searched_count_by_count():
    # the same kernel with 32 key blocks: 33 counts, each run (the count search), the same verdict
    short = GEMM.replace("for k in range(128):", "for k in range(32):")
    verdict, found, report = outcome(short)
    assert verdict == "clean", found
    text = scope(report)
    assert "count(" not in text
    assert "one run per count covers every pattern" in text


@pytest.mark.parametrize("name, old, new, expected", [
    # the consumer's first wait returns at once on the fresh barrier: it reads a stage in flight,
    # and the phases then run out of step (a hang)
    ("flip the consumer's parity", CONSUMER_WAIT,
     CONSUMER_WAIT.replace("consumer_phase_cnt[0] % 6 // 3)", "T.bitwise_xor(consumer_phase_cnt[0] % 6 // 3, 1))"),
     {("AG409", 62), ("AG408", 62)}),
    # the producer refills a stage the consumer's wgmma may still read
    ("drop the producer's wait for a free stage", PRODUCER_WAIT, "T.evaluate(0)", {("AG103", 48), ("AG412", 47)}),
])
def test_single_bug_variants_are_found_with_their_count(name, old, new, expected):
    verdict, found, report = outcome(edit(GEMM, old, new))
    assert verdict == "buggy", name
    assert expected <= found, found
    counts = [f.witness.get("sizes", {}).get(SYMBOL) for f in report.findings if f.rule.code in {c for c, _ in expected}]
    assert counts and all(c is not None and 0 < c <= 128 for c in counts)   # a count of true cells


def test_an_upper_bound_is_what_the_induction_step_may_break():
    k = ir.Var("K")
    assert const_bound(ir.BinOp("<=", k, ir.Const(128)), "K") == ("upper", 128)
    assert const_bound(ir.BinOp(">=", ir.Const(128), k), "K") == ("upper", 128)
    assert const_bound(ir.BinOp(">=", k, ir.Const(0)), "K") == ("lower", 0)
    assert const_bound(ir.BinOp("<=", ir.Const(4), k), "K") == ("lower", 4)
    assert const_bound(ir.BinOp("<=", k, ir.Var("N")), "K") is None


def test_the_gate_skeleton_runs_the_count_as_its_loops_trip_count():
    # the sanitizer gate's skeleton (emit/cuda.py) loops the size's value with every cell true,
    # as the reference run does, not the kernel's 128 iterations of mask reads
    from asyncguard.emit.cuda import emit
    from asyncguard.engine.program import elaborate
    from asyncguard.parse import parse
    func = parse(GEMM, "gemm.tir").functions[0]
    program = elaborate(func)
    source = emit(func, program, sizes={SYMBOL: 3}).source
    assert source.count("v_k < v_count_BlockMask_at_line_42_;") == 2
    assert "const i64 v_count_BlockMask_at_line_42_ = 3LL;" in source
