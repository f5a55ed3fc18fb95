"""Symbolic grid extents and several symbolic sizes (issue 13 item 5, issue 17 item 2): which
blocks and sizes are run, and that a verdict for every value follows from a bounded number of
runs (counted here; the seconds are a bench, not a test)."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse
from asyncguard.prover.sizes import plan_one, plan_sizes

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
DYN = CORPUS / "dynamic"
FIELD = CORPUS / "field"


def _program(text: str):
    return elaborate(parse(text).functions[0])


def _text(name: str) -> str:
    return (DYN / name).read_text()


def test_a_block_index_that_decides_nothing_is_one_block_for_every_grid():
    # mhc_post: blockIdx.x over num_tokens addresses global memory only
    text = _text("mhc_post_sm80.tir")
    program = _program(text)
    from asyncguard.prover.sizes import deciding_blocks
    assert program.launch.symbolic_blocks and deciding_blocks(program) == []
    plan = plan_sizes(program, [])
    assert plan.values == [{}]                         # one run, block 0
    rep = check_text(text)
    assert rep.verdict == "clean"
    assert "one block stands for every block of every grid size" in rep.kernels[0].scope[0]


def test_a_block_index_in_row_bounds_moves_with_its_size():
    # fp8 quantization: `bx * 32 + i * 16 + tx // 8 < M` decides which threads read the tile
    program = _program(_text("fp8_quant_sm90a.tir"))
    assert program.symbolic_block_vars == ["bx"]
    from asyncguard.prover.sizes import deciding_blocks
    assert deciding_blocks(program) == ["bx"]
    plan = plan_sizes(program, [])
    assert plan.proof == "proved" and not plan.notes
    # (M, bx) -> (M - 32, bx - 1) keeps M - 32 * bx: every block is block 0 of a smaller M, and
    # M stops mattering at 32 rows: one run per row count of the last block
    assert plan.values == [{"M": m, "bx": 0} for m in range(1, 33)]
    assert "(M, bx) -> (M - 32, bx - 1)" in plan.scope
    rep = check_text(_text("fp8_quant_sm90a.tir"))
    assert rep.verdict == "clean"
    assert any(s.startswith("proved for every M >= 1 and every block bx < (M + 31) // 32")
               for s in rep.kernels[0].scope)


@pytest.mark.parametrize("name, rules", [
    ("fp8_quant_sm90a__drop-wait.tir", {"AG101", "AG104"}),
    ("fp8_quant_sm90a__drop-barrier-after-wait.tir", {"AG102"}),
    ("mhc_post_sm80__drop-barrier-after-wait.tir", {"AG102"}),
])
def test_single_bug_variants_of_symbolic_grid_kernels_are_flagged(name, rules):
    rep = check_text(_text(name))
    assert rep.verdict == "buggy"
    assert rules <= {f.rule.code for f in rep.findings}
    # the witness names the size and block it ran
    assert all("sizes" in f.witness for f in rep.findings if f.rule.kind == "race") or "mhc" in name


def test_three_independent_sizes_cost_the_product_of_their_behaviours():
    # dynamic M, N, K GEMM: {k} (the pipelined loop), {m, by}, {n, bx} never meet in one site
    program = _program(_text("gemm_sm80_dynamic_mnk_s3_128x128x32.tir"))
    plan = plan_sizes(program, [])
    alone = plan_one(program, "k", [])
    assert plan.proof == "proved" and plan.induction is not None and plan.induction.status == "proved"
    assert len(plan.values) == len(alone.values) * 1 * 1      # m and n: one behaviour each
    assert {v["m"] for v in plan.values} == {1} and {v["n"] for v in plan.values} == {1}
    assert "the product of 3 independent groups" in plan.scope


def test_two_independent_size_loops_run_the_product_of_their_trip_count_classes():
    # two GEMM phases over K and K2: each has its own induction (8 trip-count classes each)
    program = _program(_text("gemm_sm80_two_phase_dynamic_k_s2.tir"))
    plan = plan_sizes(program, [])
    assert not plan.notes and plan.proof == "proved"
    ind = plan.induction
    assert ind.status == "proved" and len(ind.loop_lines) == 2 and len(ind.n0_at) == 2
    ks = sorted({v["K"] for v in plan.values})
    k2s = sorted({v["K2"] for v in plan.values})
    assert len(ks) == len(k2s) == 8 and len(plan.values) == 8 * 8
    assert "the product of 2 independent groups" in plan.scope


def test_the_hopper_dynamic_gemm_has_the_same_shape():
    plan = plan_sizes(_program(_text("gemm_sm90a_dynamic_mnk_s3_128x128x32.tir")), [])
    assert plan.proof == "proved" and plan.induction.status == "proved"
    assert len(plan.values) == plan.induction.n0 + plan.induction.step - 1   # k only


def test_a_symbolic_thread_extent_stays_unknown():
    text = _text("fp8_quant_sm90a.tir").replace('T.launch_thread("threadIdx.x", 128)',
                                                 'T.launch_thread("threadIdx.x", M)')
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert any("threadIdx.x with a symbolic extent" in f.message for f in rep.findings)


def test_a_block_index_that_does_not_move_with_its_size_is_unknown():
    # every third block reads the tile another way: the step that keeps the grid in step,
    # (M, bx) -> (M - 32, bx - 1), changes the branch, and no other step is tried
    text = _text("fp8_quant_sm90a.tir").replace(
        "            if bx * 32 + i * 16 + tx // 8 < M:\n                quant_1",
        "            if bx % 3 == 0 and bx * 32 + i * 16 + tx // 8 < M:\n                quant_1", 1)
    assert "bx % 3" in text
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert any("blockIdx of bx (grid extent (M + 31) // 32)" in f.message for f in rep.findings)


def _with_r(condition: str) -> str:
    """fp8 quantization with a second size R deciding which threads stage the quantized tile."""
    store = "            y_shared_1[i * 2048 + tx * 16:i * 2048 + tx * 16 + 16] = y_local_2[i * 16:i * 16 + 16]\n"
    text = _text("fp8_quant_sm90a.tir")
    assert store in text
    return text.replace(
        'x: T.handle("bfloat16", "global"), M: T.int32):',
        'x: T.handle("bfloat16", "global"), M: T.int32, R: T.int32):').replace(
        store, f"            if {condition}:\n    " + store, 1)


def test_independent_sizes_run_the_product_of_their_distinct_behaviours():
    program = _program(_with_r("tx < R * 64"))
    assert [s for s in program.symbols if s in program.control_names] == ["M", "R"]
    plan = plan_sizes(program, [])
    assert not plan.notes and plan.proof == "proved"
    # M: 32 behaviours (rows of the last block); R: 2 (R = 1: threads 0..63, R >= 2: all)
    assert len(plan.values) == 32 * 2
    assert {v["R"] for v in plan.values} == {1, 2}
    # (R = 1 stages half the tile; the other half's bytes still hold the x tile it aliases)
    rep = check_text(_with_r("tx < R * 64"))
    assert rep.verdict == "clean"
    assert "the product of 2 independent groups" in rep.kernels[0].scope[1]


def test_values_with_the_same_behaviour_run_once():
    # R decides `tx < R` on the 16 threads with tx % 8 == 0: 121 values, 16 behaviours
    plan = plan_sizes(_program(_with_r("tx % 8 == 0 and tx < R")), [])
    assert sorted({v["R"] for v in plan.values}) == list(range(1, 122, 8))
    assert len(plan.values) == 32 * 16


def test_two_sizes_in_one_branch_are_unknown_not_sampled():
    text = _with_r("tx < R + M")
    plan = plan_sizes(_program(text), [])
    assert plan.notes and plan.values == []
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert any("symbolic sizes" in f.message and "decide the same expressions" in f.message
               for f in rep.findings)


def test_the_block_index_of_an_input_only_grid_does_not_sample_blocks():
    # dsa indexer backward: blockIdx.x over seq_len only addresses TokenIndices (opaque data)
    text = (FIELD / "dsa_sparse_finetune__indexer_bwd__tl_indexer_bwd_impl__sm_80.tir").read_text()
    program = _program(text)
    from asyncguard.prover.sizes import deciding_blocks
    assert deciding_blocks(program) == [] and program.block_dependent is False
    plan = plan_sizes(program, [])
    assert not plan.notes and len(plan.values) == 1
