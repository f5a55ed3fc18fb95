"""Two lets of one name (TVMScript prints non-overlapping LetStmts with the same name hint):
each use means the binding in scope, never the later one (engine/scopes.py `scoped_lets`)."""
from pathlib import Path

import pytest

from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.emit.cuda import c_name
from asyncguard.engine.nodes import expr_text
from asyncguard.engine.program import elaborate
from asyncguard.engine.scopes import scoped_lets, source_names
from asyncguard.parse import parse

SIZES = Path(__file__).resolve().parent.parent / "corpus" / "field_sizes"
NSA = "deepseek_nsa__example_tilelang_nsa_fwd__{}__native_sparse_attention__{}.tir"

# the loop's branch reads cell bx * 2 + i (its own `x`); the `x` after the loop reads cell
# bx * 2 + 1. Read by name, the loop's branch was a block-uniform branch on cell bx * 2 + 1,
# enumerated, and the kernel came back `clean`; read by binding, it is a branch on a loaded number
# that differs between iterations and decides a barrier, with the number loaded outside the loop:
# not enumerated, `unknown`
SHADOWED = '''# from tvm.script import tirx as T
@T.prim_func
def k(Idx: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 2, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 2)
    tx = T.launch_thread("threadIdx.x", 64)
    Idx_1 = T.decl_buffer((4,), "int32", data=Idx)
    G_1 = T.decl_buffer((4096,), data=G)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    j: T.int32 = Idx_1[bx * 2]
    if 0 <= j:
        S[tx] = T.float32(1)
    j_1: T.int32 = Idx_1[bx * 2 + 1]
    if 0 <= j_1:
        S[tx + 64] = T.float32(1)
    for i in range(2):
        x: T.int32 = Idx_1[bx * 2 + i]
        if 0 <= x:
            T.tvm_storage_sync("shared")
    x: T.int32 = Idx_1[bx * 2 + 1]
    if 0 <= x:
        C_1[tx] = S[127 - tx]
'''


def test_each_use_of_a_shadowed_let_reads_the_binding_in_scope():
    func = scoped_lets(parse(SHADOWED).functions[0])
    lets = {s.span.line: (s.target.name, expr_text(s.value)) for s in ir.nodes(func.body)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Var) and s.target.name.startswith("x")}
    assert lets == {18: ("x", "Idx_1[bx * 2 + i]"), 21: ("x%2", "Idx_1[bx * 2 + 1]")}
    conds = {s.span.line: expr_text(s.cond) for s in ir.nodes(func.body) if isinstance(s, ir.If)}
    assert conds[19] == "0 <= x" and conds[22] == "0 <= x%2"
    # no let bound twice: the function itself, unchanged
    once = parse(SHADOWED.replace("    x: T.int32 = Idx_1[bx * 2 + 1]\n    if 0 <= x:",
                                  "    y: T.int32 = Idx_1[bx * 2 + 1]\n    if 0 <= y:")).functions[0]
    assert scoped_lets(once) is once


def test_a_branch_in_a_loop_on_a_shadowed_let_is_not_read_as_the_later_binding():
    program = elaborate(parse(SHADOWED).functions[0])
    texts = [expr_text(c) for c, _ in program.numeric.conditions]
    assert all("bx * 2 + i" not in t for t in texts)   # never enumerated as block-uniform
    rep = check_text(SHADOWED)
    assert rep.verdict == "unknown", [f.message for f in rep.findings]
    assert any("line 17: Idx is loaded outside the loops whose iterations it decides" in s
               for s in rep.kernels[0].scope), rep.kernels[0].scope
    # messages name the let as the source does
    assert all("%" not in f.message for f in rep.findings)
    # the branch at line 22 only reads shared memory: checked taken (engine/program.py
    # `_blind_arm`), the scope naming the let as the source does
    assert any(s.startswith("line 22: a branch on a value the engine does not compute ('x' has no")
               for s in rep.kernels[0].scope), rep.kernels[0].scope


def test_renamed_lets_print_as_their_own_c_names_and_source_names():
    assert c_name("i_s_5") == "v_i_s_5" and c_name("i_s_5%2") == "w2_i_s_5"
    assert source_names("0 <= i_s_5%2 and i_s_5%2 <= i_t, 7 % 2") == "0 <= i_s_5 and i_s_5 <= i_t, 7 % 2"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("config", ["s256_d128_bs32_sel8_noncausal"])
def test_nsa_forward_loop_branches_read_their_own_block_index(config, arch):
    # i_s_5 = BlockIndices[i_t * K + i] * bs in the pipelined loop, i_s_5 = BlockIndices[i_t * K + 6]
    # (sel8) after it: the loop's branches (lines 135, 148, 191, 202) are branches per iteration,
    # reduced as taken every time (8 cells are too many to write out per iteration:
    # tests/test_unrolled_conditions.py), except where the run chose the cell's number for the
    # prologue's branch on it (engine/loaded_numbers.py `_decide_like_enumerated`): the first
    # iterations' reads of K_shared / V_shared then follow the prologue's writes, and no verdict
    # rests on the later binding (before the forty-seventh session: `unknown`, AG001 at 142, 196)
    path = SIZES / NSA.format(config, arch)
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("lines [135, 148, 191, 202]" in s for s in rep.kernels[0].scope)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_nsa_forward_with_four_blocks_decides_its_loop_branches_by_their_own_cells(arch):
    # sel4: the loop's branches, written out per iteration (engine/loaded_numbers.py
    # `_unrolled_conditions`), read BlockIndices[i_t * 4 + i] for i = 0, 1 and the prefetch's
    # i + 2, the cells the prologue's branches read too: clean, every pattern run
    path = SIZES / NSA.format("s256_d64_bs64_sel4_causal", arch)
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "every outcome pattern checked" in scope and "checked taken by every thread" not in scope
