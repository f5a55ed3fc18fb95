"""TileLang 0.1.8's sparse GEMM template call `T.tl_gemm_sp("tl::gemm_sp_ss<...>", A, B, C, E)`
(models/gemm_sp.py; docs/model.md "TileLang 0.1.8 printing"): its four examples in
corpus/unseen_versions were `unknown` ("unknown operation T.tl_gemm_sp"); read from the template's
source they are clean on both archs, and their broken variants are flagged."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

VERSIONS = Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions"
SM80 = VERSIONS / "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_80.tir"
SM90 = VERSIONS / "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_90a.tir"
SM90_TEMPLATE = "tl::gemm_sp_ss<128, 64, 64, 4, 1, 0, 0, 0, true>"


def _codes(report) -> set:
    return {(f.rule.code, f.line) for f in report.findings}


@pytest.mark.parametrize("name", [
    "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_80.tir",
    "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_90a.tir",
    "sparse_tensorcore__tilelang_example_sparse_tensorcore__matmul_sp__sm_80.tir",
    "sparse_tensorcore__tilelang_example_sparse_tensorcore__matmul_sp__sm_90a.tir"])
def test_the_018_sparse_gemms_are_clean(name):
    path = VERSIONS / name
    report = check_text(path.read_text(), str(path))
    assert report.verdict == "clean", [f.message for f in report.findings]


def _without_line(path: Path, line: int, expect: str) -> str:
    lines = path.read_text().split("\n")
    assert expect in lines[line - 1], lines[line - 1]
    del lines[line - 1]
    return "\n".join(lines)


def test_sm80_the_refill_without_the_barrier_after_the_gemm_races_with_its_reads():
    # line 48 is the barrier between the template's reads (line 47) and the next cp.async (line 49)
    report = check_text(_without_line(SM80, 48, 'T.tvm_storage_sync("shared.dyn")'), "sm80.tir")
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG103" and f.line == 49 and "line 47" in f.message for f in report.findings), \
        [f.message for f in report.findings]


def test_sm80_the_gemm_without_the_barrier_after_the_wait_reads_cp_async_data_early():
    report = check_text(_without_line(SM80, 46, 'T.tvm_storage_sync("shared")'), "sm80.tir")
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG102" and f.line == 46 for f in report.findings), [f.message for f in report.findings]


def test_sm90_a_template_without_its_wait_releases_the_stage_under_the_wgmma():
    text = SM90.read_text()
    assert SM90_TEMPLATE in text
    report = check_text(text.replace(SM90_TEMPLATE, SM90_TEMPLATE[:-1] + ", -1>"), "sm90.tir")
    assert report.verdict == "buggy"
    assert {"AG402", "AG411"} <= {code for code, _ in _codes(report)}, [f.message for f in report.findings]


def test_sm90_without_wgmma_the_template_does_not_compile_so_it_stays_unsupported():
    text = SM90.read_text().replace(SM90_TEMPLATE, SM90_TEMPLATE.replace("true>", "false>"))
    report = check_text(text, "sm90.tir")
    assert report.verdict == "unknown"
    assert any("the template refuses it" in f.message for f in report.findings)
