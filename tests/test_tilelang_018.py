"""TileLang 0.1.8's printing (corpus/unseen_versions: its own examples, lowered by 0.1.8) is
read as its codegen reads it: cp.async / ldmatrix with the call's dtype first (cp.async then
counts bytes), mbarriers as `T.get_mbarrier(i)`, the prefetch and AllReduce externs in their
older spelling, and TVM's async-queue attrs that codegen prints as commit_group / wait_group.
Each real kernel is clean, and a one-line break of the construct is flagged (or `unknown`
where the form is outside the model), never silently passed."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

VERSIONS = Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions"
SM80_GEMM = "gemm__example_gemm__matmul.gemm__sm_80.tir"      # cp.async pipeline, 3 stages
SM90_GEMM = "gemm__example_gemm__matmul.gemm__sm_90a.tir"     # warp-specialized TMA + wgmma
RMS_NORM = "norm__rms_norm__rms_norm__sm_80.tir"              # 128-thread AllReduce, 4 template args
# varlen, TMA: coordinates from loaded sequence starts, which the same-box key cannot evaluate
MHA_VARLEN = "flash_attention__example_mha_fwd_varlen__flashattn__sm_90a.tir"


def _text(name: str) -> str:
    return (VERSIONS / name).read_text()


def _mutant(name: str, old: str, new: str) -> str:
    text = _text(name)
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _rules(rep) -> set:
    return {f.rule.code for f in rep.findings if f.rule.kind != "unsupported"}


@pytest.mark.parametrize("name", [SM80_GEMM, SM90_GEMM, RMS_NORM, MHA_VARLEN])
def test_real_018_kernels_are_clean(name):
    rep = check_text(_text(name), name)
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_wait_that_lets_one_more_group_fly_is_a_race():
    """`async_wait_inflight_count` 2 -> 3 in the main loop: the stage about to be read may
    still be in flight (the attr is the loop's wait_group, not a no-op)."""
    old = 'T.attr(0, "async_wait_inflight_count", 2)'
    rep = check_text(_mutant(SM80_GEMM, old, old.replace("2)", "3)")), SM80_GEMM)
    assert rep.verdict == "buggy"
    assert "AG101" in _rules(rep)


def test_the_commit_scope_is_a_commit_group():
    """Drop the main loop's commit scope (its body stays): the copies join the next group,
    so the wait no longer covers them."""
    text = _text(SM80_GEMM)
    lines = text.splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if "async_commit_queue_scope" in ln and ln.startswith(" " * 12 + "with"))
    body = []
    for ln in lines[at + 1:]:
        if not ln.startswith(" " * 16):
            break
        body.append(ln[4:])
    mutant = "".join(lines[:at] + body + lines[at + 1 + len(body):])
    rep = check_text(mutant, SM80_GEMM)
    assert rep.verdict == "buggy"
    assert "AG101" in _rules(rep)


def test_cp_async_with_a_dtype_counts_bytes():
    """A 16-byte copy written as 32: PTX has no 32-byte cp.async; read as elements (fp16) it
    would have been 64 bytes. Either way the kernel is not passed as clean."""
    text = _text(SM80_GEMM)
    first = next(ln for ln in text.splitlines() if "T.ptx_cp_async(" in ln)
    rep = check_text(text.replace(first, first[:-len(", 16)")] + ", 32)", 1), SM80_GEMM)
    assert rep.verdict == "unknown"
    assert any("cp.async of 32 bytes" in f.message for f in rep.findings)


def test_ldmatrix_shared_offset_moves_every_lanes_row():
    """TVM's builtin reads `smem_ptr + smem_off` elements (codegen_cuda.cc): an offset of one
    stage (4096 halves) reads the stage whose cp.async is still in flight."""
    text = _text(SM80_GEMM)
    first = next(ln for ln in text.splitlines() if "T.ptx_ldmatrix(" in ln)
    assert first.endswith(", 0)")
    rep = check_text(text.replace(first, first[:-len(", 0)")] + ", 4096)", 1), SM80_GEMM)
    assert rep.verdict == "buggy", [f.message for f in rep.findings]
    assert {f.rule.code for f in rep.findings} == {"AG101"}
    assert any(f.line == 54 for f in rep.findings)


def test_get_mbarrier_names_the_mbarrier_buffer():
    """The consumer's wait without its parity flip: it passes before the producer's first
    arrival, and the read of the stage races with the TMA load (a definite finding, not a
    silent pass)."""
    old = "T.mbarrier_wait_parity(T.get_mbarrier(k % 3), k % 6 // 3)"
    rep = check_text(_mutant(SM90_GEMM, old, old.replace("k % 6 // 3)", "T.bitwise_xor(k % 6 // 3, 1))")),
                     SM90_GEMM)
    assert rep.verdict == "buggy", [f.message for f in rep.findings]


def test_get_mbarrier_without_an_mbarrier_buffer_is_unknown():
    old = 'mbarrier = T.decl_buffer((6,), "uint64", scope="shared.barrier")'
    rep = check_text(_mutant(SM90_GEMM, old, old.replace("mbarrier =", "mbar =")), SM90_GEMM)
    assert rep.verdict == "unknown"


def test_a_four_argument_allreduce_reads_and_writes_its_workspace():
    """After the 128-thread AllReduce (SyncThreadsBarrier by default) a thread's store into the
    workspace races with its partner's last read of it: the template has no barrier after
    that read."""
    old = "A_powsum_2[0] = T.rsqrt("
    rep = check_text(_mutant(RMS_NORM, old, "A_shared_1[tx] = A_powsum_2[0]\n        " + old), RMS_NORM)
    assert rep.verdict == "buggy"
    race = [f for f in rep.findings if f.rule.code == "AG201"]
    assert race and race[0].line == 43 and "line 42" in race[0].message


MAMBA_STATE = "linear_attention__example_mamba_chunk_state__chunk_state_fwd__sm_90a.tir"


def test_the_same_box_loaded_twice_into_one_stage_is_no_race():
    """0.1.8 issues `tma_load(x_desc, ..)` four times per stage with the same coordinates: the
    copies write the same values into the same bytes (models/tma.py `_value_key`). Moving one
    of them by one row makes them write different values there: a race (AG103)."""
    assert check_text(_text(MAMBA_STATE), MAMBA_STATE).verdict == "clean"
    text = _text(MAMBA_STATE)
    line = next(ln for ln in text.splitlines() if "T.tma_load(x_desc" in ln)
    assert text.count(line) == 4
    moved = line.replace("k * 64, bz % 8", "k * 64 + 1, bz % 8")
    assert moved != line
    rep = check_text(text.replace(line, moved, 1), MAMBA_STATE)
    assert rep.verdict == "buggy"
    assert "AG103" in _rules(rep)


def test_a_descriptor_the_kernel_stores_through_gives_no_same_value_pass():
    """The same four loads, with the kernel also storing through x_desc: the source may change
    between them, so their overlap is judged as any other (AG103)."""
    text = _text(MAMBA_STATE)
    store = next(ln for ln in text.splitlines() if "T.tma_store(" in ln)
    indent = store[:len(store) - len(store.lstrip())]
    args = store.lstrip()[len("T.tma_store("):].split(", ", 1)[1]
    rep = check_text(text.replace(store, store + "\n" + indent + "T.tma_store(x_desc, " + args, 1), MAMBA_STATE)
    assert "AG103" in _rules(rep)


TCGEN05_WS = "gemm_sm100__gemm_tcgen5mma_ws__gemm__sm_100a.tir"   # 14-argument tcgen05 MMA, tmem-load extern


def test_018_tcgen05_gemm_is_clean_and_its_tmem_load_waits_for_the_mma():
    """0.1.8 prints `T.ptx_tcgen05_mma_ss` without the cta_group operand and loads the accumulator
    with `tl::tcgen05_ld_32dp32bNx<256, false>`: clean as lowered; without the wait on `tmem_full`
    the load reads tensor memory the MMA may still be writing. Under `--strict tcgen05` the one
    finding is that 0.1.8 (before tile-ai/tilelang#1980) puts no `tcgen05.fence::after_thread_sync`
    between the wait and the load (AG432 at line 93)."""
    from asyncguard.analyze import Limits
    assert check_text(_text(TCGEN05_WS), TCGEN05_WS).verdict == "clean"
    strict = check_text(_text(TCGEN05_WS), TCGEN05_WS, limits=Limits(strict=("tcgen05",)))
    assert strict.verdict == "buggy" and _rules(strict) == {"AG432"}
    rep = check_text(_mutant(TCGEN05_WS, "T.mbarrier_wait_parity(tmem_full_2[0], 0)", "T.evaluate(0)"), TCGEN05_WS)
    assert rep.verdict == "buggy"
    assert any(f.line == 93 for f in rep.findings if f.rule.kind != "unsupported")


def test_the_gate_emits_018_kernels_as_the_engine_reads_them():
    """The sanitizer gate's skeleton follows the same reading (emit/cuda.py): the sm_80 GEMM's
    main loop commits and waits `wait_group 2` where the attrs stand, each cp.async moves 16
    bytes (the count is bytes), and the Hopper GEMM's `T.get_mbarrier(k % 3)` is an mbarrier.
    On the H200 both pass the gate (bench/sanitizer_h200/2026-12-04-session28/v018)."""
    from asyncguard.emit.cuda import emit
    from asyncguard.engine.program import elaborate
    from asyncguard.parse import parse

    def skeleton(name):
        func = parse(_text(name)).functions[0]
        return emit(func, elaborate(func)).source

    loop = skeleton(SM80_GEMM).split("for (i64 v_k = 0LL; v_k < 30LL; ++v_k) {")[1]
    body = loop.split("ag_ldmatrix(")[0]
    assert body.count("ag_cp_async(") == 2 and "ag_cp_commit();" in body and "ag_cp_wait(2LL);" in body
    assert all(ln.rstrip().split("  // ")[0].endswith(", (16LL), true);")
               for ln in body.splitlines() if "ag_cp_async(" in ln)
    assert "ag_mbar_wait(ag, (&ag_mbar[" in skeleton(SM90_GEMM)


def test_fix_repairs_018_waits_where_they_are_written():
    """`fix` on the inflight count raised to 3: it lowers the attr's count back to 2 (the wait
    the attr is), rather than inserting commits because the commit scopes looked absent."""
    from asyncguard.repair import repair_text
    old = 'T.attr(0, "async_wait_inflight_count", 2)'
    broken = _mutant(SM80_GEMM, old, old.replace("2)", "3)"))
    rep = repair_text(broken, SM80_GEMM)
    assert rep.status == "fixed"
    assert rep.new_text == _text(SM80_GEMM)


CUMSUM = "gdn__example_cumsum__tilelang_chunk_local_cumsum_scalar__sm_80.tir"


def test_a_cumsum2d_without_strides_scans_rows_of_w():
    """TileLang 0.1.8 and 0.1.11 print `tl::CumSum2D<256, 1, true>::run(src, dst, H, W)`, without
    0.1.15's strides (both W in their template): clean as lowered; without the barrier after the
    64 threads' stores into G_shared, the scan's reads race with them."""
    text = _text(CUMSUM)
    assert check_text(text, CUMSUM).verdict == "clean"
    store = "G_shared_2[tx] = G_2[bx * 2048 + tx * 32 + by]\n"
    sync = '        T.tvm_storage_sync("shared")\n'
    at = text.index(store) + len(store)
    assert text[at:at + len(sync)] == sync
    rep = check_text(text[:at] + text[at + len(sync):], CUMSUM)
    assert rep.verdict == "buggy"
    assert "AG201" in _rules(rep)


NSA_DECODE = "deepseek_nsa__example_tilelang_nsa_decode__native_sparse_attention__sm_80.tir"
NSA_LET = "with T.LetStmt(BlockIndices_2[i_b] * 32) as i_s:"


def test_a_letstmt_with_is_a_let_over_its_body():
    """0.1.8 prints a let as `with T.LetStmt(value) as name:` (0.1.15: `name: T.int32 = value`).
    Its name is bound in its body: the NSA decode's selected block `i_s`, loaded from
    BlockIndices, is a data-dependent number like any let of a load (it was `unknown`: 'i_s' had
    no value). Clean as lowered, and the same verdict with the let written the 0.1.15 way."""
    rep = check_text(_text(NSA_DECODE), NSA_DECODE)
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("BlockIndices" in line for k in rep.kernels for line in k.scope)
    text = _text(NSA_DECODE)
    assert text.count(NSA_LET) == 1
    head, tail = text.split(NSA_LET)
    # the same let as an annotated assignment before a block of the same body
    as_015 = head + "i_s: T.int32 = BlockIndices_2[i_b] * 32\n" + " " * 8 + \
        'with T.attr(0, "pragma_scope", 0):' + tail
    rep015 = check_text(as_015, NSA_DECODE)
    assert rep015.verdict == "clean", [f.message for f in rep015.findings]


def test_a_barrier_dropped_inside_a_letstmt_body_is_a_race():
    lines = _text(NSA_DECODE).splitlines(True)
    assert lines[107].strip() == 'T.tvm_storage_sync("shared.dyn")'   # between the QK^T and V loads
    rep = check_text("".join(lines[:107] + lines[108:]), NSA_DECODE)
    assert rep.verdict == "buggy" and "AG201" in _rules(rep)
