"""A buffer TVMScript prints outside the block that allocated it, `red_buf0 = T.Buffer((64,),
scope="shared")` with no `data=`, is that allocation (engine/program.py), not a new one: TileLang's
`splitk_gemv_vectorized_tvm` reads its reduction's result after the `reduce_scope` block through it.
Read as fresh bytes it was a false AG417 (a read of bytes no write reached)."""
from pathlib import Path

from asyncguard.analyze import check_text

KERNEL = (Path(__file__).resolve().parent.parent / "corpus" / "field_sizes" /
          "gemv__example_gemv__vec_tvm_n2_r32__splitk_gemv_vectorized_tvm__sm_80.tir")
LAST_SYNC = ("                red_buf0[tn * 32 + tk] = red_buf0[tn * 32 + tk] + red_buf0[tn * 32 + tk + 1]\n"
             "            T.tvm_storage_sync(\"shared\")\n")


def test_the_reduction_read_after_its_scope_is_clean():
    r = check_text(KERNEL.read_text(), str(KERNEL))
    assert r.verdict == "clean", [(f.rule.code, f.line, f.message) for f in r.findings]


def test_without_the_last_barrier_the_read_races_with_the_last_reduction_step():
    text = KERNEL.read_text()
    assert text.count(LAST_SYNC) == 1
    r = check_text(text.replace(LAST_SYNC, LAST_SYNC.splitlines(keepends=True)[0]), str(KERNEL))
    codes = {(f.rule.code, f.line) for f in r.findings}
    # the read after the scope (line 50 once the barrier line is gone) meets the reduction's
    # last write to the same allocation: a race, not a read of unwritten bytes
    assert ("AG201", 50) in codes, codes
    assert not any(code == "AG417" for code, _ in codes), codes
