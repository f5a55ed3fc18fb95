"""The Python API: asyncguard.check(...) -> Report, and asyncguard.testing.assert_race_free."""
import dataclasses
import importlib.util

import pytest
from _toolbelt import CLEAN, CORPUS, READ_LINE, racy

import asyncguard
from asyncguard.testing import assert_race_free

needs_tilelang = pytest.mark.skipif(importlib.util.find_spec("tilelang") is None,
                                    reason="TileLang is not importable (pip install 'asyncguard[tilelang]')")


def test_check_text_reports_findings_as_dataclasses():
    report = asyncguard.check(racy())
    assert report.verdict == "buggy"
    f = next(f for f in report.findings if f.rule == "AG201")
    assert dataclasses.is_dataclass(f)
    assert (f.kind, f.severity, f.line) == ("race", "error", READ_LINE)
    assert f.name and "race" in f.message and f.witness["first"]["line"] == 11


def test_check_clean_text_and_path(tmp_path):
    assert asyncguard.check(CLEAN).verdict == "clean"
    p = tmp_path / "k.tir"
    p.write_text(racy())
    by_path = asyncguard.check(p)
    assert by_path.verdict == "buggy" and by_path.units[0].path == str(p)
    assert [(f.rule, f.line) for f in by_path.findings] == \
        [(f.rule, f.line) for f in asyncguard.check(racy()).findings]
    assert asyncguard.check(str(p), ignore=["AG2", "AG3"]).verdict == "clean"


def test_check_directory_matches_the_cli(tmp_path):
    (tmp_path / "a.tir").write_text(racy())
    (tmp_path / "b.tir").write_text(CLEAN)
    report = asyncguard.check(tmp_path)
    assert [(u.path.rsplit("/", 1)[-1], u.verdict) for u in report.units] == \
        [("a.tir", "buggy"), ("b.tir", "clean")]


def test_input_errors_are_data_not_exceptions(tmp_path):
    bad = tmp_path / "bad.tir"
    bad.write_text("@T.prim_func\ndef f(:\n")
    report = asyncguard.check(bad)
    assert report.verdict == "error" and report.errors[0].path == str(bad)
    with pytest.raises(FileNotFoundError):
        asyncguard.check("no/such/file.tir")


def test_assumptions_reach_the_prover():
    text = (CORPUS / "real" / "gemm_sm80_dynamic_k_s2_128x128x32.tir").read_text()
    report = asyncguard.check(text, assumptions=["K >= 64", "K % 32 == 0"])
    assert report.verdict == "clean"
    assert any("K in {64, 96," in s for u in report.units for s in u.scope)   # no K below 64


def test_assert_race_free_passes_and_fails_with_the_rendered_finding():
    assert assert_race_free(CLEAN).verdict == "clean"
    with pytest.raises(AssertionError) as e:
        assert_race_free(racy())
    assert "AG201" in str(e.value) and f"{READ_LINE:>5} |" in str(e.value)


def test_lazy_package_attributes():
    assert asyncguard.Report is asyncguard.api.Report
    with pytest.raises(AttributeError):
        asyncguard.no_such_thing  # noqa: B018


@needs_tilelang
def test_check_a_prim_func_and_a_jit_factory(monkeypatch):
    import sys
    from pathlib import Path
    repo = Path(__file__).parent / "fixtures" / "tilelang_repo"
    monkeypatch.syspath_prepend(str(repo))
    from kernels.reduce import row_sum
    from kernels.transpose import transpose
    assert asyncguard.check(row_sum, arch="sm_80").verdict == "clean"
    report = asyncguard.check(transpose, args={"M": 256, "N": 256, "block": 32, "threads": 128},
                              arch="sm_80")
    assert [f.rule for f in report.findings] == ["AG201"]
    assert report.units[0].path == "<transpose[M=256,N=256,block=32,threads=128]@sm_80>"
    with pytest.raises(TypeError, match="args="):
        asyncguard.check(transpose)
    sys.modules.pop("kernels", None)
