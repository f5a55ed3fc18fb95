"""TileLang's block-sparse matmul tests with `T.all_of` / `T.any_of` over the block mask
(corpus/unseen_wide/language__language_{all_of,any_of}__test_block_sparse_matmul_*):

- the mask copied into a register array and tested by all_of/any_of over a register range whose
  every read guards an access-only arm: the copied cells are taken as true, as for a bare
  register read (engine/program.py `Elaborator._register_range`, `_register_reads_taken`);
- the mask copied into shared memory and tested likewise: checked taken when every read of the
  shared buffer is such a guard and every write a truth copy of the read-only mask
  (`_shared_masks_taken`); the guards' own reads of the shared bytes stay modelled;
- the warp-specialized sm_90a version whose loops skip whole iterations on all_of over a global
  range: searched by count (`_count_loops`), the ranges of distinct iterations disjoint (z3).

Each construct: the clean kernel clean, single-bug mutants flagged with the rule the corpus uses,
and near-misses left unknown."""
import re
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide"


def kernel(kind: str, where: str, arch: str) -> Path:
    return ROOT / f"language__language_{kind}__test_block_sparse_matmul_{where}__{arch}.tir"


def scope(rep) -> str:
    return " ".join(rep.kernels[0].scope)


def codes(rep) -> set:
    return {f.rule.code for f in rep.findings}


def without_line(path: Path, number: int, expect: str) -> str:
    lines = path.read_text().splitlines(keepends=True)
    assert lines[number - 1].strip() == expect
    return "".join(lines[:number - 1] + lines[number:])


def after_line(path: Path, number: int, expect: str, extra: str) -> str:
    lines = path.read_text().splitlines(keepends=True)
    assert lines[number - 1].strip() == expect
    return "".join(lines[:number] + [extra] + lines[number:])


# ---------------------------------------------------------------- the mask in registers (sm_80)
@pytest.mark.parametrize("kind", ["all_of", "any_of"])
def test_a_register_mask_tested_by_ranges_is_clean_in_one_run(kind):
    path = kernel(kind, "local", "sm_80")
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "every outcome pattern checked (1 run(s)); 64 of them only guard shared accesses" in scope(rep)


@pytest.mark.parametrize("line, code", [(46, "AG201"), (53, "AG201"), (78, "AG201")])
def test_the_register_mask_kernel_without_one_barrier_is_a_race(line, code):
    rep = check_text(without_line(kernel("all_of", "local", "sm_80"), line, 'T.tvm_storage_sync("shared.dyn")'))
    assert rep.verdict == "buggy"
    assert code in codes(rep)


def test_a_register_range_guarding_a_barrier_keeps_both_outcomes():
    text = after_line(kernel("all_of", "local", "sm_80"), 53, 'T.tvm_storage_sync("shared.dyn")',
                      '            if T.all_of(T.tvm_access_ptr(T.type_annotation("bool"), '
                      'block_mask_local.data, k % 2 * 2, 2, 1), 2):\n'
                      '                T.tvm_storage_sync("shared.dyn")\n')
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert re.search(r"only the first \d+ outcome patterns checked", scope(rep))
    assert "only guard shared accesses" not in scope(rep)


# ---------------------------------------------------------------- the mask in shared memory (sm_80)
@pytest.mark.parametrize("kind", ["all_of", "any_of"])
def test_a_shared_mask_tested_by_ranges_is_clean(kind):
    path = kernel(kind, "shared", "sm_80")
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "shared block_mask_shared only holds truth-cast copies of BlockMask" in scope(rep)
    assert "lines [40, 43, 53, 56, 60, 74]" in scope(rep)


@pytest.mark.parametrize("line, raced", [
    (39, "block_mask_shared"),    # the mask's first copy, then its all_of reads: the mask races
    (52, "block_mask_shared"),    # each iteration's refill, then its reads
    (47, "block_mask_shared"),    # the refill overwrites bytes the previous iteration read
    (86, "C_shared"),             # the epilogue's shared tile
])
def test_the_shared_mask_kernel_without_one_barrier_is_a_race(line, raced):
    path = kernel("all_of", "shared", "sm_80")
    expect = 'T.tvm_storage_sync("shared.dyn")' if line == 86 else 'T.tvm_storage_sync("shared")'
    rep = check_text(without_line(path, line, expect))
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" and raced in f.message for f in rep.findings), \
        [f.message for f in rep.findings]


def test_a_shared_range_guarding_a_barrier_stays_unknown():
    text = after_line(kernel("all_of", "shared", "sm_80"), 59, 'T.tvm_storage_sync("shared.dyn")',
                      '            if T.all_of(T.tvm_access_ptr(T.type_annotation("bool"), '
                      'block_mask_shared.data, k % 2 * 2, 2, 1), 2):\n'
                      '                T.tvm_storage_sync("shared.dyn")\n')
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert "AG001" in codes(rep)


def test_a_shared_mask_holding_anything_but_mask_copies_stays_unknown():
    path = kernel("all_of", "shared", "sm_80")
    old = 'block_mask_shared_1[i] = T.Cast("int8", T.Cast("bool", BlockMask_1[by * 512 + bx * 64 + i]))'
    text = path.read_text()
    assert old in text
    rep = check_text(text.replace(old, "block_mask_shared_1[i] = T.int8(1)"))
    assert rep.verdict == "unknown"
    assert "AG001" in codes(rep)


# ---------------------------------------------------------------- whole iterations on global ranges (sm_90a)
@pytest.mark.parametrize("kind", ["all_of", "any_of"])
def test_warp_specialized_loops_on_global_ranges_are_searched_by_count(kind):
    path = kernel(kind, "global", "sm_90a")
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "BlockMask only decide whole loop iterations" in scope(rep)
    # the block indices only place the ranges (F(block) + k * 2): one block stands for all 64,
    # its 33 counts (engine/program.py `inputs_alike_across_blocks`, range_sites)
    assert "stands for every block" in scope(rep)
    assert "every outcome pattern checked (33 run(s))" in scope(rep)


def test_ranges_placed_differently_by_the_block_do_not_let_one_block_stand_for_all():
    from asyncguard.engine.program import elaborate
    from asyncguard.parse import parse
    text = kernel("all_of", "global", "sm_90a").read_text()
    assert elaborate(parse(text, "k").functions[0]).blocks_alike
    lines = text.splitlines(keepends=True)
    assert lines[39].strip().startswith("if T.all_of(")   # the producer's first range: bx and by swapped
    lines[39] = lines[39].replace("by * 512 + bx * 64 + k * 2", "bx * 512 + by * 64 + k * 2")
    assert not elaborate(parse("".join(lines), "k").functions[0]).blocks_alike


def test_ranges_over_a_mask_the_kernel_writes_are_not_inputs():
    lines = kernel("all_of", "global", "sm_90a").read_text().splitlines(keepends=True)
    assert lines[37].strip() == "producer_phase_cnt[0] = 0"
    lines.insert(38, '            BlockMask_w = T.decl_buffer((4096,), "int8", data=BlockMask)\n'
                     '            BlockMask_w[0] = T.int8(0)\n')
    rep = check_text("".join(lines))
    assert rep.verdict == "unknown"
    assert any("all_of over BlockMask, which the kernel also writes" in f.message for f in rep.findings)


GLOBAL_90 = kernel("all_of", "global", "sm_90a")
CONSUMER_WAIT = "T.mbarrier_wait_parity(mbarrier_1[consumer_phase_cnt[0] % 2], consumer_phase_cnt[0] % 4 // 2)"


def test_the_consumer_without_its_full_barrier_wait_reads_before_the_tma_lands():
    lines = GLOBAL_90.read_text().splitlines(keepends=True)
    assert lines[58].strip() == CONSUMER_WAIT and lines[57].strip().startswith("if T.all_of(")
    rep = check_text("".join(lines[:57] + lines[59:]))
    assert rep.verdict == "buggy"
    assert "AG401" in codes(rep)


def test_the_consumer_wait_with_its_parity_flipped_is_flagged():
    text = GLOBAL_90.read_text()
    assert CONSUMER_WAIT in text
    rep = check_text(text.replace(CONSUMER_WAIT, CONSUMER_WAIT.replace(
        "consumer_phase_cnt[0] % 4 // 2)", "T.bitwise_xor(consumer_phase_cnt[0] % 4 // 2, 1))")))
    assert rep.verdict == "buggy"
    assert {"AG408", "AG409"} <= codes(rep)


def test_loops_meeting_the_ranges_in_different_orders_stay_unknown():
    lines = GLOBAL_90.read_text().splitlines(keepends=True)
    for i in range(56, 81):   # the consumer loop reads the ranges backwards
        lines[i] = lines[i].replace("bx * 64 + k * 2,", "bx * 64 + 62 - k * 2,")
    rep = check_text("".join(lines))
    assert rep.verdict == "unknown"
    assert "only decide whole loop iterations" not in scope(rep)


def test_overlapping_ranges_stay_unknown():
    text = GLOBAL_90.read_text()
    rep = check_text(text.replace("bx * 64 + k * 2,", "bx * 64 + k,"))
    assert rep.verdict == "unknown"
    assert "only decide whole loop iterations" not in scope(rep)


# ---------------------------------------------------------------- wgmma arms (sm_90a)
@pytest.mark.parametrize("where", ["local", "shared"])
def test_a_mask_guarding_closed_wgmma_arms_is_taken(where):
    # the compute arm fences, issues its wgmma, commits and waits for it (wait(0)) itself: skipping
    # it removes its accesses and the waits of its own wgmma only (engine/program.py
    # `_closed_wgmma_arm`; tests/test_closed_wgmma_arms.py checks the mutants). Before: unknown
    rep = check_text(kernel("all_of", where, "sm_90a").read_text())
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_mask_guarding_an_arm_with_its_wait_dropped_is_not_taken():
    # without the arm's wait(0) the arm is not closed: the cells are searched both ways again
    text = kernel("all_of", "shared", "sm_90a").read_text()
    lines = text.split("\n")
    waits = [i for i, line in enumerate(lines) if "T.warpgroup_wait(0)" in line]
    rep = check_text("\n".join(lines[:waits[0]] + lines[waits[0] + 1:]))
    assert rep.verdict != "clean"


# ---------------------------------------------------------------- a mask copied into registers, read as numbers (sm_90a)
COPY_TMA = ROOT / "language__language_let_layout__test_blocksparse_copy_tma__sm_90a.tir"
MASK_COPY = "block_mask_f_1[i * 4:i * 4 + 4] = BlockMask_1[by * 8 + i * 4:by * 8 + i * 4 + 4]"


def test_a_register_copy_of_the_mask_read_per_iteration_is_a_choice_per_iteration():
    # each element of block_mask_f_1 is written once, before any read, from one BlockMask cell
    # at a block-uniform address (_register_copies): `a = block_mask_f_1[i]; sync; if 0 <= a:`
    # is NSA's per-iteration choice, a barrier inside the arm included
    from _variants import assert_variants_flagged as flagged
    text = COPY_TMA.read_text()
    rep = check_text(text, str(COPY_TMA))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "register block_mask_f holds copies of BlockMask_1 cells" in scope(rep)
    assert "all first or all last" in scope(rep)
    assert "every outcome pattern checked (16 run(s))" in scope(rep)   # one block for all
    flagged(text, {("drop-barrier", 35), ("drop-barrier", 39), ("drop-proxy-fence", 41)})


def test_the_copy_kernel_without_its_in_arm_barrier_races_the_tma_store():
    rep = check_text(without_line(COPY_TMA, 39, 'T.tvm_storage_sync("shared.dyn")'))
    assert rep.verdict == "buggy"
    assert "AG201" in codes(rep)


def test_the_copy_kernel_without_its_tma_store_wait_is_flagged():
    rep = check_text(without_line(COPY_TMA, 45, "T.tma_store_wait(0, T.bool(True))"))
    assert rep.verdict == "buggy"
    assert {"AG402", "AG411"} <= codes(rep)


@pytest.mark.parametrize("change", ["twice", "per-thread", "half"])
def test_register_copies_written_twice_per_thread_or_in_part_stay_unknown(change):
    text = COPY_TMA.read_text()
    assert MASK_COPY in text
    if change == "twice":
        text = text.replace("        for i in range(8):\n", "        block_mask_f_1[0:4] = "
                            "BlockMask_1[by * 8:by * 8 + 4]\n        for i in range(8):\n", 1)
    elif change == "per-thread":
        text = text.replace(MASK_COPY, MASK_COPY.replace("by * 8 + i * 4", "by * 8 + i * 4 + tx % 2"))
    else:
        text = text.replace("for i in T.unroll(2):\n            block_mask_f_1",
                            "for i in T.unroll(1):\n            block_mask_f_1")
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert "holds copies of" not in scope(rep)


# the same test lowered for sm_100a: one copy of all 8 cells, printed with a constant slice
# (`block_mask_f_1[0:8] = BlockMask_1[by * 8:by * 8 + 8]`: TVMScript folds `0 + 8` to 8); the rule
# must not tell the two printings apart (it was unknown)
COPY_TMA_SM100 = ROOT.parent / "unseen_tests_sm100" / \
    "language__language_let_layout__test_blocksparse_copy_tma__sm_100a.tir"


def test_a_register_copy_written_with_a_constant_slice_is_read_as_its_cells_too():
    text = COPY_TMA_SM100.read_text()
    assert "block_mask_f_1[0:8] = BlockMask_1[by * 8:by * 8 + 8]" in text
    rep = check_text(text, str(COPY_TMA_SM100))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "register block_mask_f holds copies of BlockMask_1 cells" in scope(rep)
    assert "every outcome pattern checked (16 run(s))" in scope(rep)
    assert {"AG201"} <= codes(check_text(without_line(COPY_TMA_SM100, 33, 'T.tvm_storage_sync("shared.dyn")')))
    assert {"AG402", "AG411"} <= codes(check_text(without_line(COPY_TMA_SM100, 39,
                                                              "T.tma_store_wait(0, T.bool(True))")))
