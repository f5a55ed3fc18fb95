"""Atomic read-modify-writes on shared memory (models/atomics.py): TileLang's split-K GEMV adds
each thread's partial sum into `C_shared` with `T.atomic_add_elem_op(T.tvm_access_ptr(...,
C_shared.data, tn, 1, 3), acc)`. Two atomics on one element never race; a plain access beside
them does, and the element must be written before it is added to."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

KERNEL = (Path(__file__).resolve().parent.parent / "corpus" / "field_sizes" /
          "gemv__example_gemv__naive_splitk_n32_k32__naive_splitk_gemv__sm_80.tir")


def _check(drop: tuple = ()):
    lines = KERNEL.read_text().split("\n")
    text = "\n".join(line for k, line in enumerate(lines, 1) if k not in drop)
    r = check_text(text, str(KERNEL))
    return r.verdict, {(f.rule.code, f.line) for f in r.findings}


def test_the_split_k_gemv_is_clean():
    # 32 threads (tk) add into each C_shared[tn] at line 32: no race among them, and no
    # "pointer to shared memory passed to an unmodelled call" (it was unknown before)
    assert _check() == ("clean", set())


@pytest.mark.parametrize("drop,expect", [
    ((31,), {("AG201", 31)}),        # the barrier before: thread tk = 0's zeroing store meets the adds
    ((33,), {("AG201", 33)}),        # the barrier after: the read of the sum meets the adds
    ((22, 23), {("AG417", 30)}),     # no zeroing: the adds read bytes no write reached
])
def test_a_missing_barrier_or_initialization_is_flagged(drop, expect):
    lines = KERNEL.read_text().split("\n")
    assert all("tvm_storage_sync" in lines[k - 1] for k in drop if k in (31, 33))
    verdict, found = _check(drop)
    assert verdict == "buggy" and expect <= found, found


def test_an_atomic_store_reads_nothing_so_needs_no_earlier_write():
    # no zeroing and the add made an atomic store: every thread tk stores C_shared[tn] atomically
    # (no race among them), and nothing reads unwritten bytes; the same kernel with the add is AG417
    lines = KERNEL.read_text().split("\n")
    assert "T.atomic_add_elem_op(" in lines[31]
    lines[31] = lines[31].replace("T.atomic_add_elem_op(", "T.atomic_store_elem_op(")
    text = "\n".join(line for k, line in enumerate(lines, 1) if k not in (22, 23))
    r = check_text(text, str(KERNEL))
    assert r.verdict == "clean", [(f.rule.code, f.line, f.message) for f in r.findings]


GQA_BWD = (Path(__file__).resolve().parent.parent / "corpus" / "field" /
           "flash_attention__example_gqa_bwd__flashattn_bwd_atomic_add.flash_bwd__sm_90a.tir")


def test_a_global_atomic_reads_its_addends_through_a_shared_pointer():
    """Newer TileLang passes a global atomic's addends as a pointer (`atomic_addx4_elem_op(&dKV[..],
    T.tvm_access_ptr(.., acc_dkv_shared, ..))`, Megatron's sparse MLA backward) where 0.1.15 prints a
    slice: the same read of 4 floats. Clean as the slice is; without the barrier before the atomics
    their reads race with the stores of dv_shared (and the pointer is no longer "passed to an
    unmodelled call")."""
    text = GQA_BWD.read_text()
    offset = "i * 1024 + thread_binding * 4 - 512"
    slice_ = f"dv_shared_1[{offset}:{offset} + 4], 0)"
    assert text.count(slice_) == 1
    text = text.replace(slice_, f'T.tvm_access_ptr(T.type_annotation("float32"), dv_shared, {offset}, 4, 1), 0)')
    assert check_text(text, str(GQA_BWD)).verdict == "clean"
    lines = text.split("\n")
    assert lines[212].strip() == 'T.tvm_storage_sync("shared.dyn", 3, 256)'
    r = check_text("\n".join(lines[:212] + lines[213:]), str(GQA_BWD))
    assert r.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in r.findings} == {("AG201", 214)}
