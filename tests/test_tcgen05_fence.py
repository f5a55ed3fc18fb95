"""AG432 (opt-in, `--strict tcgen05`): tcgen05 operations of two threads on the same tensor-memory cells
are ordered by a barrier or an mbarrier only together with tcgen05.fence::before_thread_sync /
after_thread_sync around it (engine/state/tcgen05.py; PTX ISA 9.7.16.6.3-4). Kernels: tracker round 7's tile-ai/tilelang#1980
pair, TileLang 0.1.15's own 2-CTA persistent GEMM with one fence dropped, and a TileLang test kernel
that loads the accumulator right after its mbarrier wait."""
from pathlib import Path

from asyncguard.analyze import Limits
from asyncguard.analyze import check_text as check_default

STRICT = Limits(strict=("tcgen05",))


def check_text(text: str):
    """Under the tcgen05 reading (every test here but the first's default-mode check)."""
    return check_default(text, limits=STRICT)

ROOT = Path(__file__).resolve().parent.parent / "corpus"
R7 = ROOT / "trackers_r7"
PERSISTENT_2CTA = (ROOT / "field" / "gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__"
                   "sm_100a.tir").read_text()
SLICES = (ROOT / "unseen_wide" / "language__language_tcgen05_sliced_operands__test_tcgen05_ss_atom_aligned_"
          "k_slices__p0_k_extent64-k_tile16__sm_100a.tir").read_text()
AFTER = "T.tcgen05_after_thread_sync()"


def fence_findings(text: str):
    report = check_text(text)
    return report.verdict, {(f.line, f.message.split("missing ")[-1].split("(")[0].strip())
                            for f in report.findings if f.rule.code == "AG432"}, report


def drop_line(text: str, number: int, expect: str) -> str:
    lines = text.splitlines(True)
    assert lines[number - 1].strip() == expect, lines[number - 1]
    return "".join(lines[:number - 1] + lines[number:])


def test_tilelang1980_without_its_fences_is_ag432_and_with_them_clean():
    buggy = (R7 / "tilelang1980_tcgen05_fence_around_mbarrier_handoff_sm100a.tir").read_text()
    assert check_default(buggy).verdict == "clean"   # the reading is opt-in
    verdict, found, report = fence_findings(buggy)
    assert verdict == "buggy" and {line for line, _ in found} == {122, 124}
    assert all("T.tcgen05_after_thread_sync() by thread 128" in f.message
               for f in report.findings if f.rule.code == "AG432")
    fixed = (R7 / "tilelang1980_tcgen05_fence_around_mbarrier_handoff_sm100a_fixed.tir").read_text()
    assert check_text(fixed).verdict == "clean"


def test_the_2cta_persistent_gemm_is_clean_and_each_dropped_after_fence_is_ag432():
    assert check_text(PERSISTENT_2CTA).verdict == "clean"
    # the epilogue's fence after its tmem_full wait: its tcgen05.ld at line 155 is not ordered after
    # the MMAs (committed, so the commit carried their before fence)
    verdict, found, report = fence_findings(drop_line(PERSISTENT_2CTA, 151, AFTER))
    assert verdict == "buggy" and {line for line, _ in found} == {154}
    assert all(f.rule.code == "AG432" for f in report.findings if f.rule.kind != "unsupported")
    # the MMA warp's fences after its tmem_empty wait (line 116) and after each stage's loaded wait
    # (line 120, which alone still orders it): its MMA (line 132) overwrites cells the epilogue loaded
    assert check_text(drop_line(PERSISTENT_2CTA, 116, AFTER)).verdict == "clean"
    text = drop_line(drop_line(PERSISTENT_2CTA, 120, AFTER), 116, AFTER)
    verdict, found, report = fence_findings(text)
    assert verdict == "buggy" and found and all(line == 130 for line, _ in found)
    assert all("T.tcgen05_after_thread_sync() by thread" in f.message
               for f in report.findings if f.rule.code == "AG432")


def test_the_epilogue_releasing_the_accumulator_without_its_before_fence_is_ag432():
    # every tcgen05_before_thread_sync between the epilogue's last tcgen05.ld of a tile and its
    # tmem_empty arrive (lines 156, 165 inside the store loop, 173 before the arrive) dropped
    text = PERSISTENT_2CTA
    for number in (173, 165, 156):
        text = drop_line(text, number, "T.tcgen05_before_thread_sync()")
    verdict, found, report = fence_findings(text)
    assert verdict == "buggy" and found
    assert all("T.tcgen05_before_thread_sync() by thread" in f.message
               for f in report.findings if f.rule.code == "AG432")


def test_an_accumulator_load_right_after_the_commit_wait_is_ag432_until_fenced():
    # TileLang's test: `T.mbarrier_wait_parity(done, ...)` then `T.copy(C_tmem, C_local)`, lowered
    # to a tcgen05.ld with no after_thread_sync between (PTX ISA 9.7.16.6.4)
    verdict, found, _ = fence_findings(SLICES)
    assert verdict == "buggy" and {line for line, _ in found} == {61}
    lines = SLICES.splitlines(True)
    assert lines[60].lstrip().startswith("T.tcgen05_ld(")
    indent = lines[60][: len(lines[60]) - len(lines[60].lstrip())]
    fenced = "".join(lines[:60] + [indent + AFTER + "\n"] + lines[60:])
    assert check_text(fenced).verdict == "clean"


def test_lanes_of_one_warp_are_not_judged_by_their_convergence():
    # the flash attention with P in tensor memory: each softmax warp stores its P rows and the
    # warp's elected lane issues the TS MMA that reads them; lanes of one warp ordered only by the
    # convergence the machine reads leniently are not an AG432 (the other warps' stores race: AG201)
    text = (ROOT / "field_sizes" / "flash_attention_sm100__mha_fwd_bshd__ts_d64_b128x64_noncausal__"
            "flashattn__sm_100a.tir").read_text()
    report = check_text(text)
    assert not [f for f in report.findings if f.rule.code == "AG432"]
    assert "AG201" in {f.rule.code for f in report.findings}


def test_fix_puts_back_the_fence_each_finding_names():
    """`fix` inserts the missing fence itself: one after_thread_sync after the epilogue's wait
    covers both loads of tracker round 7's kernel; the 2-CTA GEMM whose epilogue releases its
    accumulator unfenced gets a before_thread_sync back."""
    from asyncguard.repair import repair_text
    buggy = (R7 / "tilelang1980_tcgen05_fence_around_mbarrier_handoff_sm100a.tir").read_text()
    rep = repair_text(buggy, "tilelang1980.tir", limits=STRICT)
    assert rep.status == "fixed"
    def fences(text, fence=AFTER):   # statements, not the header's words
        return [ln.strip() for ln in text.splitlines()].count(fence)
    assert fences(rep.new_text) == fences(buggy) + 1
    assert check_text(rep.new_text).verdict == "clean"
    text = PERSISTENT_2CTA
    for number in (173, 165, 156):
        text = drop_line(text, number, "T.tcgen05_before_thread_sync()")
    rep = repair_text(text, "persistent_2cta.tir", limits=STRICT)
    assert rep.status == "fixed"
    before = "T.tcgen05_before_thread_sync()"
    assert fences(rep.new_text, before) == fences(text, before) + 1
