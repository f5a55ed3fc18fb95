"""False alarms found on real compiler output, fixed in the model (not in the test): each kernel
is TileLang's own output, and the verdict asserted is the one the TIR supports."""
from pathlib import Path

from asyncguard.analyze import Limits, check_text

ROOT = Path(__file__).resolve().parent.parent


def _check(rel: str, **limits):
    path = ROOT / rel
    return check_text(path.read_text(), str(path), Limits(**limits))


def test_a_fence_before_a_noinc_handover_covers_the_copy():
    # issue 96's kernel with every producer thread fencing after its cp.async and before
    # cp.async.mbarrier.arrive.noinc: the fence covers the copy in flight (the default reading, as
    # for copies completed by wait_group); the copy is owned by the mbarrier afterwards, and the
    # fence is still the issuing thread's
    r = _check("corpus/unseen/repro/issue96_fence_after_cp_async_noinc.tir")
    assert r.verdict == "clean", [f.message for f in r.findings]
    assert _check("corpus/unseen/repro/issue96_fence_in_consumer.tir").verdict == "clean"
    # as lowered, threads 1..127 never fence: still AG405, and the witness is not the fencing thread 0
    r = _check("corpus/unseen/issue__issue_96__test_pipeline_small_matrix__sm_90a.tir")
    (f,) = [f for f in r.findings if f.rule.code == "AG405"]
    assert "thread 0 wrote" not in f.message


def test_a_loop_that_cannot_skip_keeps_the_loop_beside_it_from_skipping():
    # attention-sink backward (sm_90a): the producer loop (line 67) proved periodic, the consumer
    # loop (line 92, a first-iteration branch `if k == by * 2`) not; skipping only the producer
    # left the consumer waiting for arrivals never made (a false AG408). The machine lets a loop
    # skip only with the loop beside it (engine/machine.py, _skips_apart; tests/test_loop_skip.py),
    # and the periodicity proof holds for the block being run (k == by * 2 is decided before the
    # skipped range), so both loops skip together now
    r = _check("corpus/field/attention_sink__example_mha_sink_bwd_bhsd__flashattn_bwd.flash_bwd__sm_90a.tir")
    assert r.verdict == "clean", [f.message for f in r.findings]
    lines = [line for k in r.kernels for line in k.scope]
    assert any(line.startswith("loop at line 67 (128 iterations): iterations 4..125 skipped") for line in lines)
    assert any(line.startswith("loop at line 92 (128 iterations): iterations 4..125 skipped") for line in lines)


SM120_NVFP4 = "corpus/field/gemm_sm120__sm120_nvfp4_blockscaled_gemm__sm120_nvfp4_blockscaled_gemm__sm_120.tir"


def test_sub_byte_tma_boxes_count_half_bytes():
    # TileLang's sm_120 nvfp4 GEMM: `tvm_access_ptr(float4_e2m1fn, A_shared, ko % 2 * 32768, 32768)`
    # names 32768 fp4 elements = 16384 bytes per stage (the expect_tx says 16384). The pointer's
    # element width was read after being rebound to 8 bits, doubling every box: false AG103 races
    # between stages, a false AG407 (expect_tx short by 16384 bytes) and a false AG408 hang.
    r = _check(SM120_NVFP4)
    assert r.verdict == "clean", [f.message for f in r.findings]


def test_sub_byte_tma_kernel_single_bug_variants_are_flagged():
    from asyncguard.mutants import EXPECTED_RULES, mutations

    text = (ROOT / SM120_NVFP4).read_text()
    seen = set()
    for m in mutations(text):
        if m.kind not in ("drop-arrive", "flip-parity", "drop-mbarrier-wait", "expect-tx-halved") or m.kind in seen:
            continue
        seen.add(m.kind)
        r = check_text(m.apply(text), f"{SM120_NVFP4}:{m.kind}@{m.line}")
        rules = {f.rule.code for f in r.findings}
        assert rules & EXPECTED_RULES[m.kind], (m.kind, m.line, rules)
    assert seen == {"drop-arrive", "flip-parity", "drop-mbarrier-wait", "expect-tx-halved"}


FP8_FP4 = "corpus/field/deepseek_v4__fp8_fp4_gemm_1d1d_sm100__fp8_fp4_gemm_1d1d_persistent__sm_100a.tir"
FP4_EXPECT = "T.mbarrier_expect_tx(loaded_1[phase % 6], 8192)"


def test_unpacked_fp4_tma_fills_a_byte_per_element_and_counts_packed_bytes():
    # DeepSeek-V4's fp8 x fp4 sm_100a GEMM loads A as custom[float4_e2m1_unpacked]: 16384 fp4
    # values into 16384 shared bytes (one per 8-bit slot) while expect_tx promises 8192, the
    # packed payload TMA counts (docs/model.md "Unpacked fp4"). Sizing the element at 32 bits gave
    # a box past the allocation (AG501) and false races and hangs; then it was AG001
    text = (ROOT / FP8_FP4).read_text()
    assert FP4_EXPECT in text and "custom[float4_e2m1_unpacked]" in text
    r = check_text(text, FP8_FP4)
    assert r.verdict == "clean", [f.message for f in r.findings]
    # promising the shared footprint instead: the barrier waits for 8192 bytes that never come
    r = check_text(text.replace(FP4_EXPECT, FP4_EXPECT.replace("8192", "16384")), FP8_FP4)
    assert "AG407" in {f.rule.code for f in r.findings}, [f.message for f in r.findings]
    (f,) = [f for f in r.findings if f.rule.code == "AG407"]
    assert "waits for 8192 more transaction bytes that no TMA delivers" in f.message


def test_unpacked_fp4_kernel_single_bug_variants_are_flagged():
    from asyncguard.mutants import EXPECTED_RULES, mutations

    text = (ROOT / FP8_FP4).read_text()
    kinds = ("drop-mbarrier-wait", "flip-parity", "expect-tx-halved", "drop-arrive")
    chosen = {}
    for m in mutations(text):   # the first of each kind: the A/B loads' barrier (lines 113-125)
        if m.kind in kinds and m.kind not in chosen:
            chosen[m.kind] = m
    assert set(chosen) == set(kinds)
    for m in chosen.values():
        r = check_text(m.apply(text), f"{FP8_FP4}:{m.kind}@{m.line}")
        assert {f.rule.code for f in r.findings} & EXPECTED_RULES[m.kind], (m.kind, m.line)


def test_sub_byte_cp_async_counts_elements_of_their_own_width():
    # TileLang's int4 GEMM (sm_80): `ptx_cp_async(access_ptr(int4, ...), ..., 32)` copies 32 int4
    # elements = 16 bytes (`tl::cp_async_gs<16>` in its CUDA); read as 32 bytes it was refused
    # (not a legal cp.async size) and the kernel came back unknown
    path = "corpus/field/gemm_int4__example_tilelang_gemm_int4__main__sm_80.tir"
    assert _check(path).verdict == "clean"
    text = (ROOT / path).read_text().replace("T.ptx_wait_group(2)", "T.ptx_wait_group(3)", 1)
    assert {f.rule.code for f in check_text(text, path).findings} & {"AG101", "AG103"}


def test_a_proxy_fence_on_the_path_by_a_third_warpgroup_is_the_strict_reading():
    # MLA decode, warp-specialized (sm_90a): the producer's cp.async fills KV_shared and completes
    # on bar_k_ready; consumer 0 waits for it, runs fence.proxy.async (line 171) and arrives on
    # bar_sScale_and_sS_ready (177); consumer 1 waits on that barrier (208) and its wgmma reads
    # KV_shared (222) with no fence of its own after acquiring. The one fence is on the
    # happens-before path (cumulativity; PTX counts alias proxy fences "along the base causality
    # path"), so the default reading no longer reports it: AG418 under --strict proxy. The
    # kernel's real race (sum_exp_shared, AG201 at 230, confirmed on an H200) stays.
    rel = "corpus/field/deepseek_mla__example_mla_decode_ws__flashattn.main_no_split__sm_90a.tir"
    assert {(f.rule.code, f.line) for f in _check(rel).findings} == {("AG201", 230)}
    strict = _check(rel, strict=("proxy",))
    (f,) = [f for f in strict.findings if f.rule.code == "AG418"]
    assert f.line == 222 and f.witness["fencer"] == 0 and f.witness["fence_line"] == 171
    assert "the only fence.proxy.async between is thread 0's at line 171" in f.message


def test_a_third_threads_fence_before_a_tma_refill_over_generic_writes_is_the_strict_reading():
    # TileLang 0.1.15's gdn chunk-delta backward lowered for sm_100a (a generic example at an arch
    # the field corpus does not use for it: mma.sync, TMA and mbarriers, no tcgen05): thread 129
    # stores dv_shared (line 165), thread 128 fences (168) for its TMA store, and the next
    # stage's TMA load (84) overwrites dv_shared after synchronizing with thread 128. Reported as
    # AG405 until the path-fence reading; the kernel's real finding (AG401 at 104: the dht tile read
    # before its TMA wait, found-bugs' gdn candidate) stays
    rel = "tests/data/gdn_chunk_delta_bwd_sm100a_generic.tir"
    assert {(f.rule.code, f.line) for f in _check(rel).findings} == {("AG401", 104)}
    strict = [f for f in _check(rel, strict=("proxy",)).findings if f.rule.code == "AG418"]
    assert [(f.line, f.witness["fencer"], f.witness["fence_line"]) for f in strict] == [(84, 128, 168)]
    assert "tma_load at line 84 (i_s=1) overwrites dv_shared" in strict[0].message
