"""Sampled blocks that z3 proves to run as a block already run are not run again
(prover/block_alike.py, analyze.py's block loop): on TileLang's own output, which blocks are
merged, that a block deciding differently still runs and its bug is still found, and that the
findings are those of running every block."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse
from asyncguard.prover import block_alike
from asyncguard.prover.block_alike import BlockAlike

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
PERSISTENT = FIELD / "gemm__example_gemm_persistent__matmul_persistent__sm_90a.tir"
GEMV = FIELD / "dequantize_gemm__example_dequant_gemv_fp16xint4__dequantize_gemv__sm_80.tir"
KDA = FIELD / "kda__chunk_intra_token_parallel__tilelang_chunk_kda_fwd_intra_token_parallel__sm_80.tir"
SIMT = FIELD.parent / "unseen_tvm" / "simt_gemm_f32_ragged_s3_async.tir"
SPARSE = FIELD / "blocksparse_attention__example_tilelang_block_sparse_attn__blocksparse_flashattn__sm_90a.tir"

# the barrier after KDA's `for d in range(bx % 16 + 1)` loop: without it, thread 0's last stores
# of Sum_Aqk_shared race with the other threads' loads after the loop, in every block whose loop
# runs more than once (bx % 16 >= 1); block 0's loop runs once and its stores are its own loads
KDA_BARRIER = '\n        T.tvm_storage_sync("shared.dyn")\n        if tx < 64:\n            Aqk_1['


def _program(path: Path):
    return elaborate(parse(path.read_text(), str(path)).functions[0])


def _kda_without_the_last_barrier() -> str:
    text = KDA.read_text()
    assert text.count(KDA_BARRIER) == 1
    return text.replace(KDA_BARRIER, '\n        if tx < 64:\n            Aqk_1[')


def _outcome(report):
    return report.verdict, [(f.rule.code, f.line, f.col, f.message) for f in report.findings]


def test_the_persistent_gemm_tail_block_is_the_only_one_that_decides_differently():
    # `if w * 27 + bx // 4 < 512` inside `for w in range(19)`: true for every w when bx // 4 is
    # 0 or 13, false at w = 18 for bx = 107
    ba = BlockAlike(_program(PERSISTENT))
    assert not ba.deciding.reason
    assert [s.expr.span.line for s in ba.deciding.sites] == [41]
    assert ba.deciding.sites[0].ranges == {"w": (0, 19)}
    assert ba.runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})
    assert ba.runs_as({"blockIdx.x": 54}, {"blockIdx.x": 0})
    assert not ba.runs_as({"blockIdx.x": 107}, {"blockIdx.x": 0})
    assert ba.why_not[((("blockIdx.x", 107),), (("blockIdx.x", 0),))] == "refuted at line 41"


def test_blocks_whose_index_only_reaches_global_addresses_and_dead_branches_are_not_run():
    rep = check_text(GEMV.read_text(), str(GEMV))
    assert rep.verdict == "clean"
    scope = rep.kernels[0].scope[0]
    # the sampled blocks and the 16 more spread over the grid (models/launch.py `more_blocks`),
    # every one after block 0 proved to run as it
    assert scope.startswith("blocks checked: blockIdx.x in [0, 1, 8, 23, ")
    assert len(rep.kernels[0].blocks) == 20
    assert "; blocks [{'blockIdx.x': 1}, {'blockIdx.x': 128}, {'blockIdx.x': 255}, {'blockIdx.x': 158}, " in scope
    assert "proved to run as block {'blockIdx.x': 0}" in scope and "so they were not run again" in scope


def test_a_block_that_decides_differently_still_runs_and_its_bug_is_found():
    clean = check_text(KDA.read_text(), str(KDA))
    assert clean.verdict == "clean"
    rep = check_text(_kda_without_the_last_barrier(), str(KDA))
    scope = rep.kernels[0].scope[0]
    # block 4096 (bx % 16 == 0) runs as block 0; blocks 1 and 8191 loop more often and run
    assert "blocks [{'blockIdx.x': 4096}] proved to run as block {'blockIdx.x': 0}" in scope
    assert "{'blockIdx.x': 1}] proved" not in scope and "8191}] proved" not in scope
    assert rep.verdict == "buggy"
    [race] = rep.findings
    assert race.rule.code == "AG201" and race.line == 95
    assert race.witness["block"] == {"blockIdx.x": 1}
    assert "Sum_Aqk_shared_1[1:2]" in race.message


@pytest.mark.parametrize("text", [pytest.param(lambda: GEMV.read_text(), id="gemv"),
                                  pytest.param(_kda_without_the_last_barrier, id="kda-no-barrier")])
def test_merging_blocks_keeps_the_findings_of_running_every_block(text, monkeypatch):
    merged = check_text(text(), "k.tir")
    monkeypatch.setattr(block_alike.BlockAlike, "runs_as", lambda self, block, ref: False)
    every = check_text(text(), "k.tir")
    assert _outcome(merged) == _outcome(every)
    assert "proved to run as" in merged.kernels[0].scope[0]
    assert "proved to run as" not in every.kernels[0].scope[0]
    assert merged.kernels[0].steps < every.kernels[0].steps


def test_a_register_store_without_syntax_leaves_every_block_to_run():
    # the block-sparse kernel's `block_mask` register store keeps no expression for the prover:
    # the deciding list may be incomplete, so no block is merged
    ba = BlockAlike(_program(SPARSE))
    assert ba.deciding.reason.startswith("the register store at line")
    assert not ba.runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})


MASKED = """\
# from tvm.script import tirx as T

@T.prim_func
def masked(X: T.handle("float32", "global"), M: T.handle("bool", "global")):
    T.func_attr({"dyn_shared_memory_buf": 512, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 4, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    X_1 = T.decl_buffer((512,), data=X)
    M_1 = T.decl_buffer((4,), "bool", data=M)
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    for k in range(T.min(bx, 0) + 2):
        if M_1[k]:
            S[tx] = X_1[bx * 128 + tx]
            T.tvm_storage_sync("shared")
            X_1[bx * 128 + tx] = S[(tx + 1) % 128]
        T.tvm_storage_sync("shared")
"""


def test_a_run_that_met_data_dependent_values_leaves_every_block_to_run():
    # the loop bound reads bx but is 2 in every block: z3 proves the blocks alike, yet block 0's
    # runs met the mask's cells, and which cells two loads share may differ between blocks
    program = elaborate(parse(MASKED).functions[0])
    assert BlockAlike(program).runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})
    rep = check_text(MASKED)
    assert rep.verdict == "clean"
    scope = rep.kernels[0].scope
    assert scope[0] == ("blocks checked: [{'blockIdx.x': 0}, {'blockIdx.x': 1}, "
                        "{'blockIdx.x': 2}, {'blockIdx.x': 3}]")
    assert "every outcome pattern checked (16 run(s))" in scope[1]


PERSISTENT_2CTA = FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__sm_100a.tir"

# a persistent loop over tiles: `tile` starts at 7 - bx and steps by 8 while below 12, so blocks
# 0-3 run one tile and blocks 4-7 two; without a barrier at the end of the body, the second
# tile's store races with the first tile's load of a neighbour's element
TILES = """\
# from tvm.script import tirx as T

@T.prim_func
def tiles(X: T.handle("float32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 512, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 8, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    X_1 = T.decl_buffer((4096,), data=X)
    bx = T.launch_thread("blockIdx.x", 8)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    tile = T.alloc_buffer((1,), "int32", scope="local.var")
    tile[0] = 7 - bx
    while tile[0] < 12:
        S[tx] = X_1[tile[0] * 128 + tx]
        T.tvm_storage_sync("shared")
        X_1[tile[0] * 128 + tx] = S[(tx + 1) % 128]
        tile[0] = tile[0] + 8
"""


def test_blocks_whose_while_counter_gives_the_same_trip_count_run_alike():
    # the first tile index differs in every block; only the while condition reads it (the tile
    # coordinates reach global addresses alone), so the trip count is what must agree
    ba = BlockAlike(elaborate(parse(TILES).functions[0]))
    assert not ba.deciding.reason
    assert ba.runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})
    assert ba.runs_as({"blockIdx.x": 7}, {"blockIdx.x": 4})
    assert not ba.runs_as({"blockIdx.x": 4}, {"blockIdx.x": 0})
    assert ba.why_not[((("blockIdx.x", 4),), (("blockIdx.x", 0),))] == "refuted at line 11"


def test_a_block_running_more_tiles_still_runs_and_its_race_is_found():
    rep = check_text(TILES)
    assert rep.verdict == "buggy"
    [race] = rep.findings
    assert race.rule.code == "AG201" and race.line == 13
    assert race.witness["block"] == {"blockIdx.x": 4}
    scope = rep.kernels[0].scope[0]
    assert "blocks [{'blockIdx.x': 1}, {'blockIdx.x': 2}, {'blockIdx.x': 3}] proved to run as block " \
           "{'blockIdx.x': 0}" in scope
    assert "blocks [{'blockIdx.x': 5}, {'blockIdx.x': 6}, {'blockIdx.x': 7}] proved to run as block " \
           "{'blockIdx.x': 4}" in scope
    assert "the same trip count" in scope
    fixed = check_text(TILES + '        T.tvm_storage_sync("shared")\n')
    assert fixed.verdict == "clean"


@pytest.mark.parametrize("edit", [
    # the counter picks a shared element: its values, not only its trip count, decide
    pytest.param(("S[tx] = X_1", "S[(tx + tile[0]) % 128] = X_1"), id="counter-decides-an-address"),
    # a second store to the counter: its trips are no longer ceil((12 - first) / 8)
    pytest.param(("        tile[0] = tile[0] + 8\n", "        tile[0] = tile[0] + 8\n"
                  "        if tx < 64:\n            tile[0] = tile[0] + 1\n"), id="counter-stored-twice"),
    # a step that is not a positive constant
    pytest.param(("tile[0] = tile[0] + 8", "tile[0] = tile[0] * 2 + 1"), id="counter-not-stepped"),
])
def test_a_counter_read_or_stored_otherwise_needs_equal_values(edit):
    old, new = edit
    assert TILES.count(old) == 1
    ba = BlockAlike(elaborate(parse(TILES.replace(old, new)).functions[0]))
    assert not ba.runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})


def test_the_2cta_persistent_gemm_runs_its_blocks_of_fourteen_tiles_once():
    # `buffer[0] = bx // 2; while buffer[0] < 1024: ...; buffer[0] = buffer[0] + 74`: blocks 0 and
    # 74 run 14 tiles, block 146 runs 13
    ba = BlockAlike(_program(PERSISTENT_2CTA))
    assert not ba.deciding.reason
    assert sorted(s.expr.span.line for s in ba.deciding.sites) == [83, 110, 143]
    assert ba.runs_as({"blockIdx.x": 74}, {"blockIdx.x": 0})
    assert not ba.runs_as({"blockIdx.x": 146}, {"blockIdx.x": 0})


def test_the_roles_loops_on_one_counter_register_each_give_a_trip_count():
    # aws's GEMM: the producer, MMA and epilogue roles each run `sched_linear_idx[0] = bx;
    # while sched_linear_idx[0] < 2048: ...; += 148` on the same register: 14 tiles in blocks
    # 0-123, 13 in blocks 124-147
    ba = BlockAlike(_program(FIELD / "aws__gemm__gemm__sm_100a.tir"))
    assert not ba.deciding.reason
    assert sorted(s.expr.span.line for s in ba.deciding.sites) == [71, 97, 135]
    assert ba.runs_as({"blockIdx.x": 123}, {"blockIdx.x": 0})
    assert not ba.runs_as({"blockIdx.x": 124}, {"blockIdx.x": 0})
    assert ba.runs_as({"blockIdx.x": 147}, {"blockIdx.x": 124})


def test_one_first_store_for_two_loops_is_not_a_trip_count():
    # the second loop starts where the first ended, not at 7 - bx
    text = TILES + "    while tile[0] < 20:\n        S[tx] = X_1[tx]\n        tile[0] = tile[0] + 8\n"
    ba = BlockAlike(elaborate(parse(text).functions[0]))
    assert not ba.runs_as({"blockIdx.x": 1}, {"blockIdx.x": 0})


def test_thread_masks_do_not_stop_the_proof():
    # TVM's SIMT GEMM guards its loads with `blockIdx_x * 16 + T.bitwise_and(threadIdx_x, 15) < 125`:
    # blocks 0..6 of x run alike, block 7 (rows 112..127, 125 of them real) does not; likewise
    # blockIdx_y 15 against `blockIdx_y * 8 + T.shift_right(..., 1) < 125`
    ba = BlockAlike(_program(SIMT))
    assert not ba.deciding.reason
    assert ba.runs_as({"blockIdx.x": 1, "blockIdx.y": 0}, {"blockIdx.x": 0, "blockIdx.y": 0})
    assert ba.runs_as({"blockIdx.x": 4, "blockIdx.y": 8}, {"blockIdx.x": 0, "blockIdx.y": 0})
    assert not ba.runs_as({"blockIdx.x": 7, "blockIdx.y": 0}, {"blockIdx.x": 0, "blockIdx.y": 0})
    assert not ba.runs_as({"blockIdx.x": 0, "blockIdx.y": 15}, {"blockIdx.x": 0, "blockIdx.y": 0})
