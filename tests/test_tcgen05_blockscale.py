"""Blackwell block-scaled MMA and its scale-factor path (sm_100a): the scale-factor transpose in
shared memory, tcgen05.cp into tensor memory and tcgen05.mma.block_scale, completed by
tcgen05.commit (models/tcgen05_blockscale.py; docs/model.md "Block-scaled MMA and its scale
factors"). The excerpt (tests/data) is the single-CTA core of TileLang 0.1.15's mxfp8 GEMM
(examples/blockscaled_gemm_sm100): one warp transposes the scale factors, fences and releases
them; one warp copies them into tensor memory, issues the block-scaled MMAs and commits; every
thread waits the commit before reusing the tiles. The field kernel is the 2-CTA persistent GEMM
itself, its K and tile loops shortened; the variants are single-bug edits (asyncguard/mutants.py)."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.mutants import EXPECTED_RULES, mutations

HERE = Path(__file__).resolve().parent
EXCERPT = (HERE / "data" / "blockscaled_tcgen05_excerpt_sm100a.tir").read_text()
FIELD_GEMM = (HERE.parent / "corpus" / "field" / "blockscaled_gemm_sm100__gemm_mxfp8_blockscaled_1d1d__"
              "mxfp8_blockscaled_gemm_2cta_persistent__sm_100a.tir").read_text()

COMMIT = ('            T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation("uint64"), mma_done.data, '
          '0, 1, 3))\n')
WAIT = "        T.mbarrier_wait_parity(mma_done_1[0], 0)\n        T.tcgen05_after_thread_sync()\n"
REUSE = "        buf_dyn_shmem[32768 + tx] = T.uint8(2)\n"   # the first bytes of SFA_shared
COPIES = ('            T.ptx_tcgen05_cp_warpx4(T.tvm_access_ptr(T.type_annotation("uint32"), SFA_shared, 0, '
          '128, 1), sf_tmem.data, 0)\n'
          '            T.ptx_tcgen05_cp_warpx4(T.tvm_access_ptr(T.type_annotation("uint32"), SFB_shared, 0, '
          '128, 1), sf_tmem.data, 4)\n')
MMAS = ('            for ki in T.unroll(4):\n'
        '                T.ptx_tcgen05_mma_blockscaled_ss("e4m3", desc_a.data, ki * 32, desc_b.data, '
        'ki * 4096, C_tmem.data, 0, 144769024, T.Select(0 < ki, 1, 0), sf_tmem.data, 0, sf_tmem.data, '
        '4, 0, 0, T.bool(False))\n')


def line_of(text: str, needle: str, start: int = 0) -> int:
    return text[: text.index(needle, start)].count("\n") + 1


def edited(old: str, new: str, text: str = EXCERPT) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def found(text: str):
    report = check_text(text)
    return report.verdict, {(f.rule.code, f.line) for f in report.findings}, report


def test_excerpt_is_clean():
    # the transposes are fenced and released before the copies; the copies, the MMAs and the
    # commit are one thread's; the tile is reused only after the commit's phase is acquired
    verdict, codes, _ = found(EXCERPT)
    assert verdict == "clean", codes


def test_scale_tile_overwritten_before_the_commit_wait_races_with_the_copy():
    # tcgen05.cp reads the shared scale factors asynchronously until the commit's phase completes
    text = edited(WAIT + REUSE, REUSE + WAIT)
    verdict, codes, report = found(text)
    reuse, copy = line_of(text, REUSE), line_of(text, "T.ptx_tcgen05_cp_warpx4(")
    assert verdict == "buggy" and codes == {("AG402", reuse)}
    msg = report.findings[0].message
    assert "tcgen05.cp" in msg and f"line {copy}" in msg and "tcgen05.commit" in msg


def test_without_the_commit_every_thread_waits_forever():
    text = edited(COMMIT, "")
    verdict, codes, _ = found(text)
    assert verdict == "buggy" and codes == {("AG408", line_of(text, WAIT))}


def test_copy_never_committed_is_still_reading_at_exit():
    # no commit and no wait: the copies (and MMAs) may still read the shared chunks at exit
    text = edited(WAIT, "", edited(COMMIT, ""))
    verdict, codes, _ = found(text)
    copies = {line_of(text, "SFA_shared, 0, 128, 1)"), line_of(text, "SFB_shared, 0, 128, 1)")}
    assert verdict == "buggy" and {("AG411", n) for n in copies} <= codes


def test_copy_reads_through_the_async_proxy():
    # the transposes write through the generic proxy: without the fence the copy reads stale bytes
    text = edited("            T.fence_proxy_async()\n        T.tvm_storage_sync(\"shared\")\n        if tx // 32 == 0:\n"
                  "            T.ptx_tcgen05_cp",
                  "        T.tvm_storage_sync(\"shared\")\n        if tx // 32 == 0:\n            T.ptx_tcgen05_cp")
    verdict, codes, _ = found(text)
    copies = {line_of(text, "SFA_shared, 0, 128, 1)"), line_of(text, "SFB_shared, 0, 128, 1)")}
    assert verdict == "buggy" and codes == {("AG405", n) for n in copies}


def test_transpose_is_one_warps_and_two_warps_on_one_chunk_race():
    # lane l reads words l, 32+l, 64+l, 96+l, __syncwarp()s, and writes words 4l..4l+3: a second
    # warp on the same chunk is unordered with the first
    text = edited("        if tx // 32 == 1:\n            chunk", "        if tx // 32 == 1 or tx // 32 == 3:\n            chunk")
    verdict, codes, _ = found(text)
    transposes = {line_of(text, "T.ptx_tcgen05_sf_warp_transpose(chunk)"),
                  line_of(text, "T.ptx_tcgen05_sf_warp_transpose(T.tvm_access_ptr")}
    assert verdict == "buggy" and codes == {("AG201", n) for n in transposes}


def test_copy_by_another_thread_is_not_ordered_before_the_mma():
    # cp -> mma is a pipeline only for one issuing thread (PTX ISA 9.7.16.6.2): the MMA reads
    # the scale factors another warp's copy may not have written yet
    text = edited("        if tx // 32 == 0:\n            T.ptx_tcgen05_cp_warpx4(",
                  "        if tx // 32 == 2:\n            T.ptx_tcgen05_cp_warpx4(")
    verdict, codes, report = found(text)
    mma = line_of(text, "T.ptx_tcgen05_mma_blockscaled_ss(")
    assert verdict == "buggy" and ("AG401", mma) in codes
    assert any("tensor memory" in f.message and "tcgen05.cp" in f.message
               for f in report.findings if (f.rule.code, f.line) == ("AG401", mma))


def test_refilling_the_scale_factors_after_the_mmas_of_the_same_thread_is_ordered():
    # TileLang's and CUTLASS's mainloops copy the next scale factors over those the previous
    # MMAs read, with no wait: one thread's tcgen05 operations run in issue order
    verdict, codes, _ = found(edited(MMAS + COMMIT, MMAS + COPIES + MMAS + COMMIT))
    assert verdict == "clean", codes


def test_refilling_the_scale_factors_from_another_warp_races_with_the_mmas():
    text = edited(MMAS + COMMIT + '        T.tvm_storage_sync("shared")\n',
                  MMAS + COMMIT + '        T.tvm_storage_sync("shared")\n        if tx // 32 == 2:\n' + COPIES)
    verdict, codes, _ = found(text)
    refill = line_of(text, "T.ptx_tcgen05_cp_warpx4(", text.index("if tx // 32 == 2:"))
    assert verdict == "buggy" and ("AG402", refill) in codes


def test_scale_factor_columns_beyond_the_allocation_stay_unknown():
    # SFB of N = 128 takes 4 columns: from column 30 of a 32-column allocation it would run past
    text = edited("sf_tmem.data, 0, sf_tmem.data, 4, 0, 0", "sf_tmem.data, 0, sf_tmem.data, 30, 0, 0")
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "SFB columns" in f.message for f in report.findings)


def test_a_pointer_let_that_loads_stays_unknown():
    # `chunk` is put back where it is used only when its expression loads nothing: an offset
    # read from memory may change between the let and the use
    text = edited("SFA_shared, 0, 128, 3)", "SFA_shared, C_tmem_1[0] * 0, 128, 3)")
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "pointer to shared memory" in f.message for f in report.findings)


# ---------------------------------------------------------------- the field kernel: 2-CTA persistent mxfp8 GEMM
def shortened(text: str, k: int, tiles: int) -> str:
    """The K loops of 64 stages cut to `k` (the stage counter `tile * 64 + k` with them) and the
    `while idx < 1024` tile loops to `tiles`: the same protocol, fewer rounds."""
    out = text.replace("in range(64):", f"in range({k}):").replace("* 64 + k", f"* {k} + k")
    out = out.replace("< 1024:", f"< {tiles}:")
    assert out.count(f"in range({k}):") == 3 and out.count(f"< {tiles}:") == 4
    return out


SMALL_GEMM = shortened(FIELD_GEMM, 8, 148)   # cluster 0 runs tiles 0 and 74, 2 x 8 stages


def variant(text: str, kind: str, needle: str):
    line = line_of(text, needle)
    hits = [m for m in mutations(text) if m.kind == kind and m.line == line]
    assert hits, (kind, needle)
    return hits[0].apply(text)


def test_field_blockscaled_gemm_is_clean():
    # warp 0 of each CTA TMA-loads A, B and the scale factors after waiting `consumed`; warp 2 of
    # each CTA waits `loaded`, transposes the scale factors, fences and arrives on the leader's
    # `with_sf_full` (64 = both warps); the leader's warp 1 waits it, copies both CTAs' scale
    # factors into both CTAs' tensor memory (cta_group::2), issues the MMAs and commits to both
    # CTAs' `consumed`; the epilogues wait `tmem_full`
    verdict, codes, _ = found(SMALL_GEMM)
    assert verdict == "clean", codes


@pytest.mark.parametrize("kind, needle, rules", [
    # the transposing warp reads the scale factors before the TMA load lands
    ("drop-mbarrier-wait", "T.mbarrier_wait_parity(loaded_1[phase % 6]", {"AG401"}),
    # the MMA warp copies them before the transposes of both CTAs are done
    ("drop-mbarrier-wait", "T.mbarrier_wait_parity(with_sf_full_1[phase % 6]", {"AG401", "AG201"}),
    # the producer refills a stage the copies and MMAs may still read
    ("drop-mbarrier-wait", "T.mbarrier_wait_parity(consumed_1[phase % 6]", {"AG103", "AG412"}),
    ("flip-parity", "T.mbarrier_wait_parity(with_sf_full_1[phase % 6]", EXPECTED_RULES["flip-parity"]),
    ("drop-arrive", "consumed.data, phase % 6, 6 - phase % 6, 3), use_2cta=1)", {"AG408"}),
    ("drop-proxy-fence", "T.fence_proxy_async()\n                                T.ptx_arrive_cluster_barrier",
     {"AG405"}),
])
def test_field_blockscaled_gemm_variants_are_flagged(kind, needle, rules):
    report = check_text(variant(SMALL_GEMM, kind, needle))
    codes = {f.rule.code for f in report.findings}
    assert report.verdict == "buggy" and codes & rules & EXPECTED_RULES[kind], (kind, codes)


def test_peer_ctas_scale_factors_are_read_by_the_leaders_copy():
    # without the with_sf_full wait the leader's copy reads CTA 1's scale factors before CTA 1's
    # transposing warp wrote them: the cta_group::2 copy reads both CTAs' shared memory
    text = variant(SMALL_GEMM, "drop-mbarrier-wait", "T.mbarrier_wait_parity(with_sf_full_1[phase % 6]")
    copy = line_of(text, "T.ptx_tcgen05_cp_warpx4(chunk_ptr,")
    assert any(f.rule.code == "AG201" and f.line == copy and "CTA 1" in f.message
               for f in check_text(text).findings)



# the full K loops (64 stages), two tiles per cluster
FULL_K_GEMM = shortened(FIELD_GEMM, 64, 148)


def test_field_blockscaled_gemm_k_loops_skip_inside_the_while_tile_loops():
    # The three K loops (producer, MMA warp, transposing warp) have 64 trips, not more than the
    # skip threshold, but run once per trip of their `while` tile loop: planned (Machine._in_while)
    # they skip 24 of their 64 iterations in the first tile (compared after iterations 1 and 13,
    # then 13 and 25: the pipeline fills) and 36 in the second. Their state repeats because each
    # transpose's reads and writes, and each copy's and MMA's address-word reads, supersede the
    # same statement's previous instance on the same bytes (Memory._supersede_plain); before,
    # those stayed live a whole tile, one more per iteration.
    report = check_text(FULL_K_GEMM)
    assert report.verdict == "clean", [(f.rule.code, f.line) for f in report.findings]
    scope = report.kernels[0].scope
    loops = {line_of(FULL_K_GEMM, "for k in range(64):", FULL_K_GEMM.index(marker))
             for marker in ("buffer_19[0] = 0", "T.mbarrier_wait_parity(tmem_empty_1[0]",
                            "buffer_27[0] = 0")}
    assert len(loops) == 3
    for line in loops:
        for skipped in ("25..48", "13..48"):
            assert any(s.startswith(f"loop at line {line} (64 iterations): iterations {skipped} skipped")
                       for s in scope), (line, scope)
    assert not any("not skipped" in s for s in scope)


@pytest.mark.parametrize("kind, needle, rules", [
    ("drop-mbarrier-wait", "T.mbarrier_wait_parity(loaded_1[phase % 6]", {"AG401"}),
    ("drop-proxy-fence", "T.fence_proxy_async()\n                                T.ptx_arrive_cluster_barrier",
     {"AG405"}),
])
def test_field_blockscaled_gemm_variants_are_flagged_with_the_full_k_loops(kind, needle, rules):
    report = check_text(variant(FULL_K_GEMM, kind, needle))
    codes = {f.rule.code for f in report.findings}
    assert report.verdict == "buggy" and codes & rules, (kind, codes)
