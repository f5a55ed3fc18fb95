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


def test_accumulator_narrower_than_the_allocation_covers_its_columns_of_each_lane():
    # a 128-column accumulator (N = 128 in the instruction descriptor) in a 256-column allocation:
    # the MMA writes columns 0..127 of each of the 128 lanes; the epilogue's read of them is
    # ordered by the last commit's wait, and without that wait it races
    wider = GEMM_FIXED.replace("T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation(\"uint32\"), C_tmem.data, 0, 1, 1), 128)",
                               "T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation(\"uint32\"), C_tmem.data, 0, 1, 1), 256)")
    assert wider != GEMM_FIXED
    assert check_text(wider).verdict == "clean"
    last_wait = "        T.mbarrier_wait_parity(mbar_1[0], 1)\n"
    assert last_wait in wider
    unwaited = wider.replace(last_wait, "", 1)
    report = check_text(unwaited)
    ld = line_of(unwaited, "T.tcgen05_ld")
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG401" and f.line == ld and "tensor memory" in f.message for f in report.findings)


# ---------------------------------------------------------------- tensor memory: tcgen05.st, MMA with A in TMEM
# One warpgroup: each thread stores its lane's 32 columns of P (tcgen05.st), then warp 0's elected
# lane multiplies P (A, in tensor memory) by B (shared) into O and commits onto `mbar`; everyone
# waits and reads O back (tcgen05.ld). {between} sits between the stores and the MMA, {after}
# between the MMA and the waiters' next store into P.
TS = '''# from tvm.script import tirx as T
@T.prim_func
def ts(B: T.handle("bfloat16", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    tx = T.launch_thread("threadIdx.x", 128)
    B_shared = T.alloc_buffer((8192,), "bfloat16", scope="shared.dyn")
    mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    P_tmem = T.alloc_buffer((1,), "uint32", scope="shared")
    O_tmem = T.alloc_buffer((1,), "uint32", scope="shared")
    P_reg = T.alloc_buffer((32,), scope="local")
    O_reg = T.alloc_buffer((128,), scope="local")
    if tx == 0:
        T.ptx_init_barrier_thread_count(mbar[0], 1)
    T.ptx_fence_barrier_init()
    if tx // 32 == 0:
        T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation("uint32"), P_tmem.data, 0, 1, 1), 32)
        T.ptx_init_tensor_memory(T.tvm_access_ptr(T.type_annotation("uint32"), O_tmem.data, 0, 1, 1), 128)
    for i in range(8):
        B_shared[tx * 64 + i * 8:tx * 64 + i * 8 + 8] = T.Broadcast(T.bfloat16(0), 8)
    T.tcgen05_before_thread_sync()
    T.tvm_storage_sync("shared")
    T.tcgen05_after_thread_sync()
    T.tcgen05_st(32, 32, T.bool(False), P_tmem[0], 0, 32, T.tvm_access_ptr(T.type_annotation("float32"), P_reg.data, 0, 32, 1))
{between}
    desc_b = T.alloc_buffer((1,), "uint64", scope="local.descriptor.tcgen05_smem")
    if tx // 32 == 0:
        T.initialize_tcgen05_descriptor(desc_b[0], T.tvm_access_ptr(T.type_annotation("bfloat16"), B_shared, 0, 8192, 1), 1, 64, 0, 0, 2)
        T.fence_proxy_async()
        T.ptx_tcgen05_mma_ts("bf16", P_tmem.data, {col}, desc_b.data, 0, O_tmem.data, 0, 136381584, 0, 0, 0, 0, 0, T.bool(False))
        T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation("uint64"), mbar.data, 0, 1, 3))
{after}
    T.tcgen05_st(32, 32, T.bool(False), P_tmem[0], 0, 32, T.tvm_access_ptr(T.type_annotation("float32"), P_reg.data, 0, 32, 1))
    T.mbarrier_wait_parity(mbar[0], 0)
    T.tcgen05_after_thread_sync()
    T.tcgen05_ld(32, 128, T.bool(False), O_tmem[0], 0, 32, T.tvm_access_ptr(T.type_annotation("float32"), O_reg.data, 0, 128, 2))
    T.tcgen05_before_thread_sync()
    T.tvm_storage_sync("shared")
    if tx // 32 == 0:
        T.ptx_deallocate_tensor_memory(T.tvm_access_ptr(T.type_annotation("uint32"), P_tmem.data, 0, 1, 1), 32)
        T.ptx_deallocate_tensor_memory(T.tvm_access_ptr(T.type_annotation("uint32"), O_tmem.data, 0, 1, 1), 128)
'''
SYNC = '''    T.tcgen05_before_thread_sync()
    T.tvm_storage_sync("shared")
    T.tcgen05_after_thread_sync()'''
WAIT = '''    T.mbarrier_wait_parity(mbar[0], 0)
    T.tcgen05_before_thread_sync()
    T.tvm_storage_sync("shared")
    T.tcgen05_after_thread_sync()'''


def ts(between=SYNC, after=WAIT, col="0"):
    return TS.format(between=between, after=after, col=col)


def test_mma_reading_tensor_memory_after_the_stores_and_before_their_rewrite_is_clean():
    assert check_text(ts()).verdict == "clean"


def test_mma_reading_tensor_memory_other_warps_store_without_a_barrier_races():
    text = ts(between="")
    mma = line_of(text, "T.ptx_tcgen05_mma_ts")
    verdict, found, _ = findings(text)
    assert verdict == "buggy" and ("AG201", mma) in found


def test_tensor_memory_operand_rewritten_before_the_commit_completes_races():
    # the waiters rewrite P (the MMA's A operand) before the wait on its commit
    text = ts(after=SYNC)
    store = line_of(text, "T.tcgen05_st", text.index("T.tcgen05_mma_arrive"))
    verdict, found, report = findings(text)
    assert verdict == "buggy" and ("AG402", store) in found
    assert any("tcgen05.mma" in f.message for f in report.findings if f.line == store)


def test_tensor_memory_operand_beyond_its_allocation_is_not_guessed():
    report = check_text(ts(col="30"))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "32-column allocation" in f.message for f in report.findings)


def test_two_cta_allocation_and_commit_stay_unknown_naming_the_form():
    # TileLang prints the cta_group::2 forms with `use_2cta=1` (the 2-CTA field kernels)
    alloc = 'C_tmem.data, 0, 1, 1), 128)'
    commit = 'mbar.data, 0, 1, 3))'
    assert alloc in GEMM_FIXED and commit in GEMM_FIXED
    for old, new in ((alloc, 'C_tmem.data, 0, 1, 1), 128, use_2cta=1)'), (commit, 'mbar.data, 0, 1, 3), use_2cta=1)')):
        text = GEMM_FIXED.replace(old, new, 1)
        report = check_text(text)
        assert report.verdict == "unknown"
        assert any(f.rule.code == "AG001" and "2-CTA" in f.message for f in report.findings)


INT8 = (Path(__file__).resolve().parent.parent / "corpus" / "unseen" /
        "kernel__kernel_int8_gemm_tcgen5__test_assert_matmul__sm_100a.tir").read_text()


def test_weight_stationary_mma_int8_test_kernel():
    """TileLang's int8 tcgen05 test kernel issues `tcgen05.mma.ws` (M = 128: 128 lanes x N columns,
    data-path layout D). Lowered with 2 stages, each iteration refills the stage its MMA reads
    before the wait on that MMA's commit barrier (AG402 at the A and B copies); with the wait moved
    before the refill the kernel is clean, so the weight-stationary MMA's reads and writes are
    modelled, not left unsupported."""
    verdict, found, _ = findings(INT8)
    assert verdict == "buggy"
    assert found == {("AG402", line_of(INT8, "A_shared, k % 2")), ("AG402", line_of(INT8, "B_shared, k % 2"))}
    wait = "            T.mbarrier_wait_parity(mbar_1[0], k % 2)\n"
    moved = INT8.replace(wait, "")
    refill = moved.index("            for i in T.unroll(4):\n", moved.index("T.tcgen05_mma_arrive("))
    moved = moved[:refill] + wait + moved[refill:]
    assert findings(moved)[:2] == ("clean", set())
