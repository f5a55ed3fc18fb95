"""The induction over a symbolic size (prover/induction.py) reads an unrolled loop's counter in a
bounds guard with the values of its constant range. TileLang 0.1.8's varlen forward attention
guards its prologue and in-loop copies with `(i * 32 + tx // 8) // 3 < k_len` and
`k * 64 + (i * 32 + tx // 8) // 3 + 64 < k_len` (i in range(6)): with `i` read as any integer,
z3 found a counterexample with a huge `i`, the induction was refuted, and the kernel was run for
twelve trip counts and once more for 4,113 (26 s). With i in [0, 6) the step k_len + 64 moves
every trip count by 1 and the runs stop at four trip counts."""
from pathlib import Path

from asyncguard.analyze import check_text

FWD = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions" /
       "flash_attention__example_gqa_bwd_tma_reduce_varlen__flashattn_fwd.flash_fwd__sm_90a.tir")


def _size_line(report) -> str:
    (line,) = [s for k in report.kernels for s in k.scope if "k_end_idx - k_start_idx in" in s]
    return line


def test_an_unrolled_counter_in_a_bounds_guard_keeps_its_range_in_the_induction():
    r = check_text(FWD.read_text(), str(FWD))
    # the guards read the length apart from the trip count (below), so the plan is not a proof:
    # `unknown`, the values run named (it was `clean` with that scope until the forty-fifth session)
    assert r.verdict == "unknown"
    assert [f.rule.code for f in r.findings] == ["AG001"]
    line = _size_line(r)
    assert "larger trip counts: proved (step k_end_idx - k_start_idx + 64 moves every trip count by 1)" in line
    assert "trip counts (-1,), (0,), (1,), (2,), (3,), (4,))" in line   # no run of 4,113 trips
    # the guards do read the length apart from the trip count: the scope says so, as before
    assert "z3 refuted that the kernel depends on k_end_idx - k_start_idx only through its trip counts" in line


def test_the_varlen_forward_without_its_loop_barrier_is_still_a_race():
    text = FWD.read_text()
    lines = text.splitlines(keepends=True)
    at = next(i for i, s in enumerate(lines) if s.strip() == 'T.tvm_storage_sync("shared.dyn")'
              and i > 110)
    r = check_text("".join(lines[:at] + lines[at + 1:]), "no_barrier.tir")
    assert r.verdict == "buggy"
    assert any(f.rule.kind == "race" for f in r.findings), [f.message for f in r.findings]
