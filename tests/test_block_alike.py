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
    assert scope.startswith("blocks checked: [{'blockIdx.x': 0}, {'blockIdx.x': 1}, "
                            "{'blockIdx.x': 128}, {'blockIdx.x': 255}]; blocks [{'blockIdx.x': 1}, "
                            "{'blockIdx.x': 128}, {'blockIdx.x': 255}] proved to run as block "
                            "{'blockIdx.x': 0}")
    assert "so they were not run again" in scope


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
