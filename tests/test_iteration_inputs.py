"""Loops whose iterations a loaded, block-uniform cell each switches on or off (engine/loaded_numbers.py
`_iteration_choice`): NSA's selected blocks and the sparse GQA decode's block indices decide,
iteration by iteration, whether the body runs; the outcome of each iteration is an unknown truth
value searched by pattern class. And a mask copied into registers by a plain vector copy, read
only as `!= 0` (SeerAttention), is a truth input like a truth-cast copy."""
from pathlib import Path

from _variants import assert_variants_flagged as flagged

from asyncguard.analyze import check_text
from asyncguard.mutants import mutations

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
NSA = "deepseek_nsa__benchmark_nsa_fwd__tilelang_sparse_attention__{}.tir"
GQA_INDICE_SM90 = "blocksparse_attention__example_tilelang_sparse_gqa_decode_varlen_indice__flashattn__sm_90a.tir"
SEER_SM90 = "seer_attention__block_sparse_attn_tilelang__blocksparse_flashattn__sm_90a.tir"


def scope_of(rep) -> str:
    return " ".join(s for k in rep.kernels for s in k.scope)


def test_nsa_selected_blocks_are_checked_for_every_pattern_by_its_classes():
    # `for i in range(16): i_s = BlockIndices[.. + i] * 32; __syncthreads(); if 0 <= i_s <= i_t:`
    # (sm_80: three branches on the one condition, with barriers between)
    for arch, loop, lines, bug in (("sm_90a", 42, [51], ("drop-barrier", 59)),
                                   ("sm_80", 44, [54, 60, 98], ("drop-barrier", 59))):
        text = (FIELD / NSA.format(arch)).read_text()
        rep = check_text(text)
        assert rep.verdict == "clean", [f.message for f in rep.findings]
        scope = scope_of(rep)
        assert f"loop(s) at line(s) [{loop}], the branches at lines {lines}" in scope
        assert "all first or all last" in scope
        assert "every outcome pattern checked (32 run(s))" in scope   # 2 x 16, one block for all
        flagged(text, {bug})   # a barrier dropped inside the data-dependent body: AG201


def test_a_barrier_only_between_the_branches_is_not_reduced():
    # NSA sm_80 without its first barrier: a false iteration's barrier sits between two true
    # iterations' branches, where it orders what they do: no pattern class stands for it
    text = (FIELD / NSA.format("sm_80")).read_text()
    (m,) = [m for m in mutations(text) if (m.kind, m.line) == ("drop-barrier", 53)]
    rep = check_text(m.apply(text))
    assert rep.verdict == "unknown"
    assert {f.rule.code for f in rep.findings} == {"AG001"}


def test_producer_and_consumer_loops_of_the_sparse_gqa_decode_share_their_counts():
    # the kernel as lowered ties its iterations (`0 <= i_s` taken by index 0 in every launch:
    # test_symbolic_launch) and is clean; with `1 <= i_s` some launch may not take them, so the
    # runs search the counts, one per run shared by the producer's and the consumer's loop, and
    # the sizes' plan is not a proof (the producer/consumer loop cannot skip): `unknown`, AG001
    # alone, the patterns covered
    text = (FIELD / GQA_INDICE_SM90).read_text()
    assert check_text(text).verdict == "clean"
    text = text.replace("if 0 <= i_s:", "if 1 <= i_s:")
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert {f.rule.code for f in rep.findings} == {"AG001"}
    assert "not proved for every value" in rep.findings[0].message
    scope = scope_of(rep)
    assert "loop(s) at line(s) [69, 90], the branches at lines [71, 97]" in scope
    assert "one run per count covers every pattern" in scope
    assert "registers max_split decide nothing checked" in scope
    # inside the data-dependent bodies: the consumer's wait for K, the producer's expect-tx
    flagged(text, {("drop-mbarrier-wait", 102), ("flip-parity", 77), ("expect-tx-halved", 74)})


def test_seer_attention_overwrites_q_while_it_may_land_for_an_empty_mask_row():
    # the plain int8 copy of the mask row into registers is read only as `!= 0`; with no block
    # of the row set, the consumer never waits for Q's TMA load (its wait sits under the mask)
    # and its stmatrix into O_shared, which shares Q_shared's bytes, may race the load: the same
    # finding as TileLang's hand-lowered block-sparse attention (test_data_dependent)
    text = (FIELD / SEER_SM90).read_text()
    rep = check_text(text)
    assert sorted({(f.rule.code, f.line) for f in rep.findings}) == [("AG401", 170), ("AG401", 174)]
    first = next(f for f in rep.findings if f.line == 170)
    assert set(first.witness["inputs"].values()) == {0}
    assert "every outcome pattern checked (16 run(s))" in scope_of(rep)
    # with the wait for Q hoisted out of the mask loop, it is clean for every mask
    lines = text.splitlines(keepends=True)
    assert "consumer_phase_cnt[0] == 0" in lines[92] and "mbarrier_1[4], 0" in lines[93]
    assert lines[81].strip() == "consumer_phase_cnt[0] = 0"
    hoisted = "".join(lines[:81] + ["            T.mbarrier_wait_parity(mbarrier_1[4], 0)\n"] +
                      lines[81:91] + lines[94:])
    fixed = check_text(hoisted)
    assert fixed.verdict == "clean", [f.message for f in fixed.findings]
    flagged(hoisted, {("drop-mbarrier-wait", 82), ("flip-parity", 94)})


def test_a_loop_whose_iterations_run_on_loaded_numbers_never_skips():
    # the pattern search varies the loaded cells the run meets; an iteration skipped by loop
    # acceleration would never be varied. The branches' condition is a search input, so the
    # periodicity proof has nothing to refute: the loop itself must refuse (it skipped 2..14 of
    # its 16 iterations, and 6 runs were made instead of 32, when tile loops first skipped)
    from asyncguard.engine import accelerate
    from asyncguard.engine.nodes import PLoop, statements
    from asyncguard.engine.program import elaborate
    from asyncguard.parse import parse
    program = elaborate(parse((FIELD / NSA.format("sm_90a")).read_text(), "nsa").functions[0])
    (loop,) = [s for s in statements(program.body) if isinstance(s, PLoop) and s.span.line == 42]
    assert loop.per_iteration_inputs
    for tile in (False, True):
        got = accelerate.plan(loop, 160, 0, program, tile=tile)
        assert got.jump_to is None and "loaded" in got.reason, got
