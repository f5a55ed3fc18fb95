"""tcgen05.ld / tcgen05.st beyond .32x32b (models/tcgen05.py `_tmem_rows`): the 16-lane shapes
.16x64b / .16x128b / .16x256b (TileLang's 16dp forms, PTX Layout F, and its 32dp forms of them,
two issues at lanes +0 and +16), `.pack::16b` / `.unpack::16b`, and `T.get_warp_idx_sync()` as a
per-thread value (models/launch.py `thread_index`). Kernels: TileLang 0.1.15's own test kernels
(corpus/unseen_wide) and one-line edits of them."""
from pathlib import Path

import numpy as np
import pytest

from asyncguard.analyze import check_text
from asyncguard.models.tcgen05 import _TMEM_FORMS, _shape_cells, datapath_lanes

WIDE = Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide"
CUTE = "language__language_tcgen05_cutedsl__"


def kernel(prefix: str) -> str:
    (path,) = sorted(WIDE.glob(prefix + "*.tir"))
    return path.read_text()


RT_16DP = kernel(CUTE + "test_tmem_copy_roundtrip_cutedsl__p1_namelayout_f_m64")        # 16dp64b, 128 threads
RT_16DP_2WG = kernel(CUTE + "test_tmem_copy_roundtrip_cutedsl__p2_namelayout_f_m64_2wg")  # 16dp64b, 256 threads
RT_PACK = kernel("language__language_tmem_copy__test_tmem_copy_roundtrip_16bit__p0_namepack16b")
TS_M64 = kernel(CUTE + "test_tcgen05_ts_gemm_tmem_a_correctness_cutedsl__p0_M64")
TS_M128 = kernel(CUTE + "test_tcgen05_ts_gemm_tmem_a_correctness_cutedsl__p1_M128")

SYNC = ("        T.tcgen05_before_thread_sync()\n        T.tvm_storage_sync(\"shared\")\n"
        "        T.tcgen05_after_thread_sync()\n")


def line_of(text: str, needle: str, start: int = 0) -> int:
    return text[: text.index(needle, start)].count("\n") + 1


def findings(text: str):
    report = check_text(text)
    return report.verdict, {(f.rule.code, f.line) for f in report.findings if f.rule.kind != "unsupported"}, report


def insert_after_line(text: str, needle: str, block: str) -> str:
    i = text.index(needle)
    end = text.index("\n", i) + 1
    return text[:end] + block + text[end:]


# ---------------------------------------------------------------- the cells each form moves

@pytest.mark.parametrize("form", sorted(_TMEM_FORMS))
@pytest.mark.parametrize("scale", [1, 2])
def test_a_warp_moves_each_cell_of_its_lanes_once(form, scale):
    """Per repetition a 16-lane shape covers 16 lanes x width columns, each cell by one thread
    (.16x64b one register per thread, .16x128b two, .16x256b four: PTX's fragment sizes); the
    32dp forms cover 32 lanes; a packed cell stands for two columns."""
    shape, issues, width, _ = _TMEM_FORMS[form]
    if shape == "32x32b":
        return
    lanes, cols = _shape_cells(shape)
    assert lanes.shape == (32, width // 2)
    chunks = 4
    cells = [(int(lanes[t, k]) + i, int(cols[t, k]) * scale + r * width * scale + j)
             for i in issues for t in range(32) for k in range(lanes.shape[1])
             for r in range(chunks) for j in range(scale)]
    assert len(cells) == len(set(cells))
    assert set(cells) == {(l, c) for l in range(16 * len(issues)) for c in range(chunks * width * scale)}


def test_16x64b_cells_are_those_of_the_ptx_figure():
    # lane id t: datapath 8 * (t % 2) + t // 4, column (t // 2) % 2
    lanes, cols = _shape_cells("16x64b")
    assert [(int(lanes[t, 0]), int(cols[t, 0])) for t in range(6)] == [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0), (9, 0)]
    lanes, cols = _shape_cells("16x256b")
    assert np.array_equal(lanes[5], [1, 1, 9, 9]) and np.array_equal(cols[5], [2, 3, 2, 3])


# ---------------------------------------------------------------- the real kernels

@pytest.mark.parametrize("text", [RT_16DP, RT_16DP_2WG, RT_PACK], ids=["16dp64b", "16dp64b_2wg", "pack16b"])
def test_tilelang_round_trips_are_clean(text):
    assert check_text(text).verdict == "clean"


def test_ts_gemm_m128_stores_a_in_other_warps_and_issues_the_mma_without_a_barrier():
    # every warp stores its 32 lanes of A (tcgen05.st, 32x32b); warp 0 (T.get_warp_idx_sync() == 0)
    # then issues the MMA that reads all 128 lanes of A, with no barrier after the other warps'
    # stores (PTX ISA 9.7.16.6.4.4: wait::st, fence::before_thread_sync, a barrier,
    # fence::after_thread_sync before another thread's tcgen05.mma)
    verdict, found, report = findings(TS_M128)
    st = line_of(TS_M128, "T.tcgen05_st(")
    mma = line_of(TS_M128, "T.ptx_tcgen05_mma_ts(")
    assert verdict == "buggy" and found == {("AG201", mma)}
    msg = next(f.message for f in report.findings if f.line == mma)
    assert f"line {st}" in msg and "tensor memory" in msg


def test_ts_gemm_m128_with_a_barrier_after_the_stores_is_clean():
    fixed = insert_after_line(TS_M128, "T.tcgen05_st(", SYNC)
    assert check_text(fixed).verdict == "clean"


TS_FIXED = insert_after_line(TS_M128, "T.tcgen05_st(", SYNC)


def test_ts_gemm_single_bug_variants_are_flagged():
    # the epilogue reads the accumulator before the commit's phase completes
    wait = "        T.mbarrier_wait_parity(done_1[0], 0)\n"
    text = TS_FIXED.replace(wait, "", 1)
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and found == {("AG401", line_of(text, "T.tcgen05_ld("))}
    # the generic stores of B reach the MMA's async-proxy read without fence.proxy.async
    fence = "                T.fence_proxy_async()\n"
    text = TS_FIXED.replace(fence, "", 1)
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and {r for r, _ in found} == {"AG405"}
    # the commit dropped: the waiters hang
    commit = TS_FIXED[TS_FIXED.index("                T.tcgen05_mma_arrive("):]
    commit = commit[: commit.index("\n") + 1]
    text = TS_FIXED.replace(commit, "", 1)
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and ("AG408", line_of(text, "T.mbarrier_wait_parity(done_1")) in found


def test_layout_f_rows_are_the_low_16_lanes_of_each_sub_partition():
    # PTX layout F (M = 64, cta_group::1, not ws): "64 rows scattered 16-per-warp, half datapath"
    lanes = datapath_lanes(64)
    assert len(lanes) == 64 and set(lanes) == {w * 32 + i for w in range(4) for i in range(16)}
    assert np.array_equal(datapath_lanes(128), np.arange(128))
    assert np.array_equal(datapath_lanes(64, ws=True), np.arange(128))   # layout E folds columns


def test_ts_gemm_m64_is_the_m128_race_on_its_layout_f_lanes():
    # the M = 64 MMA reads A from the 64 lanes of layout F, which every warp stored (16dp64b):
    # the same missing barrier as the M = 128 twin; with it, clean; without the commit's wait,
    # the epilogue's load races with the MMA's accumulator write
    verdict, found, _ = findings(TS_M64)
    st = line_of(TS_M64, "T.tcgen05_st(")
    mma = line_of(TS_M64, "T.ptx_tcgen05_mma_ts(")
    assert verdict == "buggy" and found == {("AG201", mma)}
    fixed = insert_after_line(TS_M64, "T.tcgen05_st(", SYNC)
    assert check_text(fixed).verdict == "clean" and st < mma
    wait = "        T.mbarrier_wait_parity(done_1[0], 0)\n"
    assert fixed.count(wait) == 1
    text = fixed.replace(wait, "", 1)
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and found == {("AG401", line_of(text, "T.tcgen05_ld("))}


# ---------------------------------------------------------------- single-bug variants of the 16dp kernels

def test_warpgroups_reading_each_others_columns_race_without_a_barrier():
    # 256 threads, two warpgroups, each stores (16dp64b) and reloads its own 128 columns of the
    # low 16 lanes of each warp's chunk; loading the other warpgroup's columns instead reads what
    # another warp stored, with no barrier in between
    ld = "T.tcgen05_ld(64, 64, T.bool(False), tmem_1[0], tx // 128 * 128,"
    assert ld in RT_16DP_2WG
    crossed = RT_16DP_2WG.replace(ld, "T.tcgen05_ld(64, 64, T.bool(False), tmem_1[0], (1 - tx // 128) * 128,")
    verdict, found, _ = findings(crossed)
    assert verdict == "buggy" and found == {("AG201", line_of(crossed, "T.tcgen05_ld("))}
    # the barrier (and tcgen05 fences) between the stores and the loads orders them
    assert check_text(insert_after_line(crossed, "T.tcgen05_st(", SYNC)).verdict == "clean"


def test_a_crossed_32dp_load_reads_the_other_warpgroups_lanes_too():
    # the 16dp64b stores write lanes 0..15 of each warp's chunk; a crossed 32dp64b load (two issues,
    # lanes 0..15 and 16..31) reads those cells of the other warpgroup's columns: a race
    ld = "T.tcgen05_ld(64, 64, T.bool(False), tmem_1[0], tx // 128 * 128, 16,"
    crossed = RT_16DP_2WG.replace(ld, "T.tcgen05_ld(64, 64, T.bool(False), tmem_1[0], (1 - tx // 128) * 128, 32,")
    verdict, found, _ = findings(crossed)
    assert verdict == "buggy" and ("AG201", line_of(crossed, "T.tcgen05_ld(")) in found


def test_packed_store_covers_two_columns_per_register():
    # 32x32b.unpack::16b.x32 writes 64 columns of the thread's lane: in a 32-column allocation it
    # is beyond the allocation (not guessed); unpacked, 32 columns fit
    small = RT_PACK.replace("tmem.data, 0, 1, 1), 64)", "tmem.data, 0, 1, 1), 32)")
    assert small != RT_PACK
    report = check_text(small)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "beyond the 32-column allocation" in f.message for f in report.findings)


def test_forms_the_backends_compile_differently_stay_unknown():
    # 16dp64b with n = 48: several instructions, whose columns the CUDA and CuTeDSL templates
    # place differently
    st = "T.tcgen05_st(64, 64, T.bool(False), tmem_1[0], 0, 16,"
    assert st in RT_16DP
    report = check_text(RT_16DP.replace(st, "T.tcgen05_st(64, 48, T.bool(False), tmem_1[0], 0, 16,"))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "n=48" in f.message for f in report.findings)
    # a shape TileLang has no template for
    report = check_text(RT_16DP.replace(st, "T.tcgen05_st(32, 64, T.bool(False), tmem_1[0], 0, 16,"))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "16dp32b form" in f.message for f in report.findings)


def test_warp_index_of_a_multi_dimensional_block_is_not_guessed():
    # tl::get_warp_idx_sync divides the linear thread id, the CuTeDSL backend threadIdx.x: with
    # threadIdx.y > 1 they differ
    text = TS_FIXED.replace('"threadIdx.y": 1,', '"threadIdx.y": 2,').replace(
        'ty = T.launch_thread("threadIdx.y", 1)', 'ty = T.launch_thread("threadIdx.y", 2)')
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "get_warp_idx_sync" in f.message for f in report.findings)
