"""pytest helpers for a kernel repository's own test suite.

    from asyncguard.testing import assert_race_free

    def test_gemm_is_race_free():
        assert_race_free("kernels/gemm.py")                         # every kernel, every arch
        assert_race_free(matmul, args={"M": 1024, ...}, arch="sm_90a")

On failure the AssertionError carries what `asyncguard check` prints: each finding with its
TIR line and witness.
"""
from __future__ import annotations

from .api import Report, check

FAILING_KINDS = ("race", "hang", "invalid")


def assert_race_free(source, *, allow_unknown: bool = False, **check_args) -> Report:
    """Fails when the checker finds a race, hang or invalid synchronization (an error-severity
    finding), when some input could not be checked, or -- unless `allow_unknown` -- when the
    verdict is unknown (something was not understood, so nothing was proved). Warnings such
    as resource notes pass. Returns the Report. `check_args` go to `asyncguard.check`."""
    report = check(source, **check_args)
    bad = [f for f in report.findings if f.kind in FAILING_KINDS and f.severity == "error"]
    unknown = report.verdict == "unknown" and not allow_unknown
    if report.errors or bad or unknown:
        why = ("could not be checked" if report.errors else
               f"{len(bad)} synchronization bug(s)" if bad else
               "verdict unknown (something was not understood; allow_unknown=True to accept)")
        raise AssertionError(f"asyncguard: {why}\n{report.render()}")
    return report
