"""A block mask copied into a register (`block_mask[0] = T.Cast("int8", T.Cast("bool",
M[i]))`, or a vector copy of eight cells) whose every read is the whole condition of a branch
that only reads and writes shared memory: its cells are taken as true (skipping such a branch
removes accesses, never synchronization), so a pipelined block-sparse kernel is one run, not
2^n outcome patterns (engine/program.py `_register_reads_taken`)."""
import re
from pathlib import Path

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent / "corpus"
MATMUL = ROOT / "unseen" / "language__language_pipeline__test_blocksparse_matmul__sm_80.tir"
ATTN = ROOT / "field_sizes" / ("blocksparse_attention__example_tilelang_block_sparse_attn__"
                               "b64x64_s3_d128_noncausal__blocksparse_flashattn__sm_80.tir")


def scope(rep) -> str:
    return " ".join(rep.kernels[0].scope)


def test_a_pipelined_block_sparse_matmul_is_clean_in_one_run():
    rep = check_text(MATMUL.read_text(), str(MATMUL))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "every outcome pattern checked (1 run(s)); 8 of them only guard shared accesses" in scope(rep)


def test_the_block_sparse_matmul_without_its_barrier_before_the_refill_is_a_race():
    lines = MATMUL.read_text().splitlines(keepends=True)
    assert lines[55].strip() == 'T.tvm_storage_sync("shared.dyn")'
    rep = check_text("".join(lines[:55] + lines[56:]))
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" for f in rep.findings)


def test_a_register_mask_read_as_a_number_too_keeps_both_outcomes():
    # one more read of the register outside a branch condition: its cells are searched both ways
    lines = MATMUL.read_text().splitlines(keepends=True)
    assert lines[33].strip().startswith("block_mask_1[0] = ")
    extra = "        C_local_2[0] = T.Cast(\"float32\", block_mask_1[0])\n"
    rep = check_text("".join(lines[:34] + [extra] + lines[34:]))
    # past 64 patterns more run while cheap (analyze.INPUT_PATTERN_STEPS), not all of them
    assert re.search(r"only the first \d+ outcome patterns checked", scope(rep))
    assert "only guard shared accesses" not in scope(rep)


def test_eight_mask_cells_copied_as_one_vector_are_taken_in_a_three_stage_attention():
    rep = check_text(ATTN.read_text(), str(ATTN))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "8 of them only guard shared accesses" in scope(rep)
