"""The symbolic engine: exact encodings, periodicity proofs, loop acceleration, symbolic sizes."""
import re
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text
from asyncguard.parse import parse
from asyncguard.prover import periodic

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def expr(text):
    return parse(f"@T.prim_func\ndef f():\n    x = {text}\n").functions[0].body[0].value


def test_floor_semantics_and_parity_periods():
    e = expr("T.bitwise_xor(k % 6 // 3, 1) + (k + 2) % 3 * 4096 + tx // 4 * 32")
    assert periodic.prove_equal_under_shift([e], "k", 6, {"tx": (0, 128)}, (0, 10**6)).status == "proved"
    v = periodic.prove_equal_under_shift([e], "k", 3, {"tx": (0, 128)}, (0, 10**6))
    assert v.status == "refuted" and "k" in v.model
    # floor, not truncation: (-1) // 2 == -1 and (-1) % 2 == 1
    neg = expr("(k - 7) // 2 % 2")
    assert periodic.prove_equal_under_shift([neg], "k", 4, {}, (-100, 100)).status == "proved"


@pytest.mark.parametrize("text, python", [
    ("T.bitwise_and(x, 15)", lambda x: x & 15),
    ("T.bitwise_and(x, 1)", lambda x: x & 1),
    ("T.bitwise_xor(x, 7)", lambda x: x ^ 7),
    ("T.truncmod(x, 3)", lambda x: x - 3 * int(x / 3)),
    ("T.truncdiv(x, 4)", lambda x: int(x / 4)),
])
def test_low_bit_masks_and_truncated_division_are_encoded_exactly(text, python):
    # z3 agrees with two's-complement / C semantics at every value, negative ones included
    import z3
    from asyncguard.prover.encode import encode
    x = z3.Int("x")
    term, side = encode(expr(text), {"x": x})
    for v in range(-40, 41):
        solver = z3.Solver()
        solver.add(*side, x == v)
        assert solver.check() == z3.sat
        assert solver.model().eval(term).as_long() == python(v), (text, v)


def test_a_mask_and_a_truncated_modulus_give_the_period():
    # `T.truncmod(k + 2, 3)` repeats every 3 iterations; `T.bitwise_and(k, 3)` every 4
    assert periodic.prove_equal_under_shift([expr("T.truncmod(k + 2, 3) * 2048")], "k", 3, {}, (0, 100)).status == "proved"
    assert periodic.prove_equal_under_shift([expr("T.bitwise_and(k, 3)")], "k", 4, {}, (0, 100)).status == "proved"
    assert periodic.prove_equal_under_shift([expr("T.bitwise_and(k, 3)")], "k", 2, {}, (0, 100)).status == "refuted"


def test_unencodable_term_is_unknown_not_proved():
    e = expr("k * k % 3")
    assert periodic.prove_equal_under_shift([expr("k % tx")], "k", 2, {"tx": (1, 8)}, (0, 9)).status == "unknown"
    assert periodic.prove_equal_under_shift([e], "k", 3, {}, (0, 100)).status in ("proved", "unknown")


def _gemm(trips: int) -> str:
    text = (CORPUS / "real" / "gemm_sm80_s3_128x128x32.tir").read_text()
    return text.replace("T.serial(14, ", f"T.serial({trips}, ")


def test_long_pipeline_is_accelerated_and_clean():
    rep = check_text(_gemm(29999))            # 29999 = 14 (mod 3): the peeled epilogue stays right
    assert rep.verdict == "clean"
    (kernel,) = rep.kernels
    assert any(re.search(r"iterations 6\.\.\d+ skipped, proved periodic with period 3", s) for s in kernel.scope)
    assert kernel.steps < 5 * check_text(_gemm(29)).kernels[0].steps


def test_bug_in_a_long_pipeline_is_still_found():
    text = _gemm(29999).replace("            T.ptx_wait_group(2)\n", "            T.ptx_wait_group(3)\n")
    rep = check_text(text)
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG101" and f.witness["second"]["loops"].get("k") is not None for f in rep.findings)


def test_solver_giving_up_means_no_skipping_and_an_honest_verdict(monkeypatch):
    monkeypatch.setattr(periodic, "RLIMIT", 1)
    rep = check_text(_gemm(29999), limits=Limits(max_steps=20_000))
    assert rep.verdict == "unknown"
    assert any(f.rule.code == "AG002" for f in rep.findings)
    assert any("not skipped: unknown" in s for s in rep.kernels[0].scope)


@pytest.mark.parametrize("name", ["gemm_sm80_dynamic_k_s2_128x128x32", "gemm_sm90a_ws_dynamic_k_s3_128x128x64"])
def test_symbolic_k_kernels_are_proved_clean(name):
    rep = check_text((CORPUS / "real" / f"{name}.tir").read_text())
    assert rep.verdict == "clean"
    scope = " ".join(rep.kernels[0].scope)
    assert scope.startswith("proved for every K >= 1")
    assert "z3 proved that the kernel depends on K only through its trip counts" in scope


def test_assumptions_that_a_step_cannot_keep_need_a_longer_step():
    text = (CORPUS / "real" / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    rep = check_text(text, assumptions=["K % 256 == 0"])
    assert rep.verdict == "clean"
    assert "step K + 256 moves every trip count by 8" in rep.kernels[0].scope[0]


def test_symbolic_k_variant_is_refuted_with_a_concrete_k():
    text = (CORPUS / "real" / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    buggy = text.replace("            T.ptx_wait_group(1)\n", "            T.ptx_wait_group(2)\n", 1)
    assert buggy != text
    rep = check_text(buggy)
    races = [f for f in rep.findings if f.rule.kind == "race"]
    assert races and all("K" in f.witness["sizes"] for f in races)


def test_assumptions_restrict_the_values_checked():
    text = (CORPUS / "real" / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    rep = check_text(text, assumptions=["K % 64 == 0", "K >= 128"])
    # (proved: the induction carries the lower bound, each value it reduces to keeps K >= 128)
    assert rep.kernels[0].scope[0].startswith("proved for every K")
    values = re.search(r"checked K in \{([^}]*)\}", rep.kernels[0].scope[0]).group(1)
    assert all(int(v) % 64 == 0 and int(v) >= 128 for v in values.split(", "))


def test_checks_in_threads_of_one_process_take_turns_at_z3(monkeypatch):
    """z3 builds terms in one process-wide context that is not thread-safe: two checks started
    at once in two threads (a Dask worker's threads, a caller's pool) never query z3 at once, and
    both get the verdict a check alone gets."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from asyncguard.prover import solve
    inside, most, count = [0], [0], [0]
    counting = threading.Lock()
    check = solve.Query.check

    def watched(self):
        with counting:
            inside[0] += 1
            count[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.01)     # long enough for the other thread to come in, if it may
        try:
            return check(self)
        finally:
            with counting:
                inside[0] -= 1

    monkeypatch.setattr(solve.Query, "check", watched)
    monkeypatch.setattr(periodic, "_MEMO", {})     # answers remembered from earlier tests
    text = (CORPUS / "real" / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    with ThreadPoolExecutor(2) as pool:
        reports = list(pool.map(lambda _: check_text(text), range(2)))
    assert [r.verdict for r in reports] == ["clean", "clean"]
    assert count[0] >= 2 and most[0] == 1


def test_the_heap_top_is_kept_for_z3_contexts_on_glibc():
    # asyncguard/heap.py sets glibc's M_TOP_PAD so that each query's fresh z3 context does not grow,
    # fault in and trim the heap again (its cost is a benchmark's: bench/README.md): the setting
    # is accepted where the C library is glibc, and importing the package sets it before the
    # checker's modules (numpy first among them) allocate anything: set later, it did not help
    import platform
    import subprocess
    import sys

    from asyncguard.heap import keep_heap_top
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("M_TOP_PAD is glibc's")
    assert keep_heap_top()
    out = subprocess.run([sys.executable, "-c", "import sys, asyncguard; "
                          "print(sorted(m for m in ('numpy', 'z3', 'lark', 'asyncguard.heap') if m in sys.modules))"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['asyncguard.heap']"], out
