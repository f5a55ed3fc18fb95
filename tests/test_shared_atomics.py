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
