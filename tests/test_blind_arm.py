"""A branch on a value the engine does not compute, guarding only shared-memory reads and
tensor-memory accesses, is run by every thread that reaches it (engine/program.py `_blind_arm`,
engine/machine.py `_branch`): every outcome pattern runs a subset of its accesses with the same
synchronization. Blackwell flash attention's conditional rescale,
`if T.any_sync(mask, scale[i] < 1.0): tcgen05_ld; O *= scale[i]; tcgen05_st`, is the case."""
from pathlib import Path

from asyncguard.analyze import check_text

from _kernels import kernel64

FA = Path(__file__).resolve().parent.parent / "corpus" / "field_sizes" / \
    "aws__flash_attention__ws_b1_h4_s2048__flash_attention_ws__sm_100a.tir"

def kernel(body: str) -> str:
    return kernel64("S[tx] = A[tx]\n" + body.strip())


def test_the_conditional_rescale_is_checked_taken():
    rep = check_text(FA.read_text(), FA.name)
    scope = [s for k in rep.kernels for s in k.scope]
    assert any(s.startswith("line 196: a branch on a value the engine does not compute") and
               "should_rescale" in s for s in scope), scope
    # Taken at k = 0, the arm's tcgen05_ld reads the accumulator before any MMA wrote it. Whether
    # the real rescale factor takes the arm there is not decided (it does when the running max
    # starts at -inf; the first PV MMA then overwrites what was read): not a definite AG417, the
    # kernel is unknown, saying why (analyze.py `_taken_arm_reads`). No definite finding.
    assert rep.verdict == "unknown", [f.message for f in rep.findings]
    assert [f.rule.code for f in rep.findings] == ["AG001"]
    assert "inside the branch at line 196, a branch on a value the engine does not compute" in \
        rep.findings[0].message and rep.findings[0].line == 198


def test_the_rescale_without_its_accumulator_wait_races_inside_the_arm():
    lines = FA.read_text().split("\n")
    assert "T.mbarrier_wait_parity(acc_empty_1[0]" in lines[192]
    rep = check_text("\n".join(lines[:192] + lines[193:]), FA.name)
    assert rep.verdict == "buggy"
    # the arm's tensor-memory load and store (lines 197 and 200 once the wait is gone) race with
    # the MMA that writes the accumulator
    assert {(f.rule.code, f.line) for f in rep.findings} >= {("AG401", 197), ("AG401", 200)}


def test_a_read_after_the_barrier_in_a_vote_arm_is_clean_and_before_it_races():
    vote = "T.any_sync(T.uint32(4294967295), S[63 - tx] < T.float32(1.0))"
    clean = kernel(f"""
T.tvm_storage_sync("shared")
if {vote} != 0:
    acc[0] = S[tx] * T.float32(2.0)
    B[tx] = S[63 - tx]
""")
    rep = check_text(clean)
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    racy = clean.replace('    T.tvm_storage_sync("shared")\n', "", 1)
    rep = check_text(racy)
    assert rep.verdict == "buggy" and any(f.rule.code == "AG201" for f in rep.findings)


def test_a_vote_arm_that_writes_shared_memory_or_synchronizes_stays_unknown():
    vote = "T.any_sync(T.uint32(4294967295), S[63 - tx] < T.float32(1.0))"
    for arm in ("S[tx] = T.float32(0.0)", 'T.tvm_storage_sync("shared")'):
        rep = check_text(kernel(f"""
T.tvm_storage_sync("shared")
if {vote} != 0:
    {arm}
"""))
        assert rep.verdict == "unknown", (arm, [f.message for f in rep.findings])


def test_if_then_else_reads_only_the_selected_arm():
    """CUDA's `c ? a : b` evaluates one arm per thread: warp 1 stores S[tx - 32] with no barrier,
    and warp 0's `T.if_then_else(32 <= tx, S[tx - 32], 0)` reads nothing (its condition is
    false there), so they do not race; at `tx == 0` the `S[tx - 1]` arm is not read either
    (it would be out of the buffer). Reading the arm warp 0 selects races."""
    base = """
T.tvm_storage_sync("shared")
if 32 <= tx:
    S[tx - 32] = A[tx]
B[tx] = T.if_then_else(32 <= tx, S[tx - 32], T.float32(0.0)) + T.if_then_else(0 < tx, B[tx - 1], T.float32(0.0))
T.tvm_storage_sync("shared")
acc[0] = T.if_then_else(0 < tx, S[tx - 1], T.float32(0.0))
B[tx] = acc[0]
"""
    rep = check_text(kernel(base))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    racy = base.replace("T.if_then_else(32 <= tx, S[tx - 32]", "T.if_then_else(tx < 32, S[tx]")
    rep = check_text(kernel(racy))
    assert rep.verdict == "buggy" and any(f.rule.code == "AG201" for f in rep.findings)


def test_the_gate_skeleton_reads_the_selected_arm_too():
    """The emitter guards an operand's read with the conditions the engine ran it under, so the
    skeleton's reads per thread are the reference's (emit/cuda.py, POp.guard)."""
    from asyncguard.emit.cuda import emit
    from asyncguard.engine.program import elaborate
    from asyncguard.engine.scopes import scoped_lets
    from asyncguard.parse import parse
    text = kernel("""
T.tvm_storage_sync("shared")
B[tx] = T.if_then_else(32 <= tx, S[tx - 32], T.float32(0.0))
acc[0] = T.if_then_else(tx < 8 and 0 < tx, S[tx - 1], T.float32(0.0))
B[tx] = acc[0]
""")
    func = scoped_lets(parse(text, "ite.tir").functions[0])
    lines = emit(func, elaborate(func), sizes={"A": 1, "B": 1}).source.split("\n")
    guarded = [k for k, ln in enumerate(lines) if "the operand its threads select" in ln]
    assert len(guarded) == 2
    assert "(32LL <= v_tx)" in lines[guarded[0]] and "ag_read" in lines[guarded[0] + 1]
    assert "(v_tx < 8LL)" in lines[guarded[1]] and "(0LL < v_tx)" in lines[guarded[1]]
