"""Blackwell tcgen05 (sm_100a, single CTA): tcgen05.mma reads its shared operands until the
mbarrier phase its tcgen05.commit arrives on completes; tensor memory is written by the MMA and
read by tcgen05.ld. Kernels are TileLang 0.1.15's own sm_100a GEMM and flash attention
(corpus/handwritten) and one-line edits of their corrected copies."""
from pathlib import Path

from asyncguard.analyze import check_text

HANDWRITTEN = Path(__file__).resolve().parent.parent / "corpus" / "handwritten"
GEMM = (HANDWRITTEN / "gemm_tcgen05_sm100a.tir").read_text()
GEMM_FIXED = (HANDWRITTEN / "gemm_tcgen05_sm100a_wait_before_refill.tir").read_text()
FA = (HANDWRITTEN / "fa_gqa_fwd_sm100a.tir").read_text()
FA_FIXED = (HANDWRITTEN / "fa_gqa_fwd_sm100a_release_after_commit.tir").read_text()

LOOP_WAIT = "            T.mbarrier_wait_parity(mbar_1[0], k % 2)\n"
LAST_WAIT = "        T.mbarrier_wait_parity(mbar_1[0], 1)\n"


def line_of(text: str, needle: str, start: int = 0) -> int:
    return text[: text.index(needle, start)].count("\n") + 1


def findings(text: str):
    report = check_text(text)
    return report.verdict, {(f.rule.code, f.line) for f in report.findings}, report


def test_tilelang_gemm_refills_a_stage_its_mma_still_reads():
    verdict, found, report = findings(GEMM)
    assert verdict == "buggy"
    refill = line_of(GEMM, "T.ptx_cp_async", GEMM.index("T.tcgen05_mma_arrive"))
    assert ("AG402", refill) in found and {c for c, _ in found} == {"AG402"}
    msg = next(f.message for f in report.findings if f.line == refill)
    assert "tcgen05.mma" in msg and "tcgen05.commit" in msg


def test_gemm_waiting_for_the_commit_before_the_refill_is_clean():
    assert check_text(GEMM_FIXED).verdict == "clean"


def test_tilelang_flash_attention_releases_k_and_v_before_the_mma_commit():
    verdict, found, _ = findings(FA)
    k_load = line_of(FA, "T.tma_load(K_desc")
    v_load = line_of(FA, "T.tma_load(V_desc")
    assert verdict == "buggy" and found == {("AG402", k_load), ("AG402", v_load)}


def test_flash_attention_releasing_after_the_commit_wait_is_clean():
    assert check_text(FA_FIXED).verdict == "clean"


def test_tensor_memory_read_before_the_commit_completes_is_a_race():
    assert LAST_WAIT in GEMM_FIXED
    text = GEMM_FIXED.replace(LAST_WAIT, "")
    verdict, found, report = findings(text)
    ld = line_of(text, "T.tcgen05_ld")
    assert verdict == "buggy" and found == {("AG401", ld)}
    msg = report.findings[0].message
    assert "tensor memory" in msg and "tcgen05.commit" in msg


def test_dropped_commit_hangs_the_waiters():
    commit = "                    T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation(\"uint64\"), mbar.data, 0, 1, 3))\n"
    assert commit in GEMM_FIXED
    text = GEMM_FIXED.replace(commit, "", 1)
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and ("AG408", line_of(text, LOOP_WAIT.strip())) in found


def test_a_commit_by_another_warp_does_not_track_the_mma():
    # tcgen05.commit tracks the tcgen05 operations of the thread that executes it: issued by
    # warp 1, it arrives at once and the waiters refill the stage warp 0's MMA still reads
    commit = "                    T.tcgen05_mma_arrive("
    i = GEMM_FIXED.index(commit)
    end = GEMM_FIXED.index("\n", i) + 1
    moved = ("                if tx // 32 == 1:\n" + "    " + GEMM_FIXED[i:end])
    text = GEMM_FIXED[:i] + GEMM_FIXED[end:]
    at = text.index(LOOP_WAIT)
    text = text[:at] + moved + text[at:]
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and "AG402" in {c for c, _ in found}


def test_two_cta_mma_stays_unknown_naming_the_form():
    text = GEMM_FIXED.replace("0, 0, 0, 0, T.bool(False), T.bool(False))", "0, 0, 0, 0, T.bool(False), T.bool(True))")
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "2-CTA" in f.message for f in report.findings)


def test_accumulator_narrower_than_the_allocation_is_not_guessed():
    text = GEMM_FIXED.replace("T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation(\"uint32\"), C_tmem.data, 0, 1, 1), 128)",
                              "T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation(\"uint32\"), C_tmem.data, 0, 1, 1), 256)")
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "256-column allocation" in f.message for f in report.findings)
