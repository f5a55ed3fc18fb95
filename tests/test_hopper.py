"""Hopper models on a hand-written warp-specialized pipeline: one bug at a time, exact rule,
kind and line, and the witness a person needs."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
BASE = (CORPUS / "handwritten" / "ws_tma_pipeline.tir").read_text()


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def findings(text):
    return check_text(text).findings


def test_the_pipeline_is_clean():
    assert check_text(BASE).verdict == "clean"


def test_dropped_proxy_fence_before_tma_store():
    text = BASE.replace("        T.fence_proxy_async()\n", "")
    (f,) = [f for f in findings(text) if f.rule.code == "AG405"]
    assert f.rule.kind == "race" and f.line == line_of(text, "T.tma_store(")
    assert f.witness["first"]["op"] == "store" and f.witness["second"]["op"] == "tma_store"


def test_expect_tx_plus_1024_hangs_with_the_bytes_outstanding():
    text = BASE.replace("T.mbarrier_expect_tx(mbarrier[k % 2], 8192)", "T.mbarrier_expect_tx(mbarrier[k % 2], 9216)")
    fs = [f for f in findings(text) if f.rule.code == "AG407"]
    assert fs and all(f.rule.kind == "hang" for f in fs)
    assert any(f.witness.get("tx_bytes_outstanding") == 1024 for f in fs)


def test_dropped_release_arrive_is_a_deadlock_with_its_cycle():
    text = BASE.replace("            T.ptx_arrive_barrier(mbarrier[k % 2 + 2])\n", "")
    fs = [f for f in findings(text) if f.rule.code == "AG408"]
    assert fs and fs[0].rule.kind == "hang"
    f = fs[0]
    assert f.line == line_of(text, "T.mbarrier_wait_parity(mbarrier[k % 2 + 2]")
    assert f.witness["pending_arrivals"] == 128
    assert f.witness["cycle"], "the other blocked waits are listed"


def test_flipped_consumer_parity_is_flagged():
    text = BASE.replace("T.mbarrier_wait_parity(mbarrier[k % 2], k // 2 % 2)",
                        "T.mbarrier_wait_parity(mbarrier[k % 2], T.bitwise_xor(k // 2 % 2, 1))")
    kinds = {f.rule.kind for f in findings(text)}
    assert kinds & {"race", "hang"}
    assert any(f.rule.code in ("AG409", "AG408", "AG401") for f in findings(text))


def test_dropped_consumer_wait_reads_before_the_tma_lands():
    text = BASE.replace("            T.mbarrier_wait_parity(mbarrier[k % 2], k // 2 % 2)\n", "")
    fs = [f for f in findings(text) if f.rule.code == "AG401" and f.line == line_of(text, "T.ptx_ldmatrix(")]
    assert fs and fs[0].witness["first"]["op"] == "tma_load"


def test_init_count_plus_one_hangs():
    text = BASE.replace("T.ptx_init_barrier_thread_count(mbarrier[2], 128)",
                        "T.ptx_init_barrier_thread_count(mbarrier[2], 129)")
    assert any(f.rule.kind == "hang" for f in findings(text))


def test_dropped_fence_barrier_init_is_invalid():
    text = BASE.replace("    T.ptx_fence_barrier_init()\n", "")
    fs = [f for f in findings(text) if f.rule.code == "AG404"]
    assert fs and fs[0].rule.kind == "invalid"


def test_dropped_barrier_after_init_is_invalid():
    text = BASE.replace('    T.ptx_fence_barrier_init()\n    T.tvm_storage_sync("shared")\n',
                        "    T.ptx_fence_barrier_init()\n")
    assert any(f.rule.code == "AG403" for f in findings(text))


def test_elected_lane_arrive_does_not_publish_other_lanes_writes():
    fs = findings((CORPUS / "handwritten" / "ws_elected_arrive_publishes_others.tir").read_text())
    (f,) = fs
    assert f.rule.code == "AG201" and f.witness["first"]["thread"] != 32
    assert check_text((CORPUS / "handwritten" / "ws_all_lanes_arrive.tir").read_text()).verdict == "clean"


@pytest.mark.parametrize("name", ["gemm_sm90a_ws_s3_128x128x64", "copy_pipelined_sm90a_s2",
                                  "gemm_sm90a_nows_s3", "fa_fwd_sm90a_ws_s2"])
def test_real_hopper_kernels_are_clean(name):
    assert check_text((CORPUS / "real" / f"{name}.tir").read_text()).verdict == "clean"


def test_tilelang_ws_producer_waiters_are_reported_only_when_strict():
    """TileLang's producers: every thread waits on the empty barrier, one elected thread loads.
    Clean by default (docs/model.md, "Schedules"); --strict lapping names the idle threads."""
    from asyncguard.analyze import Limits
    text = (CORPUS / "real" / "gemm_sm90a_ws_s3_128x128x64.tir").read_text()
    assert check_text(text).verdict == "clean"
    (f,) = check_text(text, limits=Limits(strict=("lapping",))).findings
    assert f.rule.code == "AG413" and f.line == line_of(text, "T.mbarrier_wait_parity(mbarrier_1[k % 3 + 3]")
    assert f.witness["delay"] == {"threads": list(range(1, 128)), "warps": [0, 1, 2, 3], "before_line": f.line}


def test_wgmma_operand_overwritten_by_another_warpgroup_names_the_missing_barrier():
    # TileLang's warp-specialized copy-GEMM (docs/found-bugs.md): warpgroup 1 waits for its
    # wgmma, but nothing orders that wait before warpgroup 0 refills A_shared: the missing
    # piece is a barrier across the warpgroups, not a warpgroup_wait
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "corpus" / "found-bugs" / "ws_copy_gemm_0_1_K512_sm90a.tir"
    (f,) = check_text(path.read_text(), str(path)).findings
    assert f.rule.code == "AG402" and f.line == 37
    assert "warpgroup_wait at line 58 completes it" in f.message
    assert f.witness["missing"].startswith("a barrier")


# ---------------------------------------------------------------- sparse wgmma (TileLang's gemm_sp)
SPARSE_GEMM = Path(__file__).resolve().parent.parent / "corpus" / "field" / \
    "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_90a.tir"


def test_sparse_wgmma_footprints_span_the_compressed_a_and_the_doubled_k_of_b():
    from asyncguard.models.wgmma import operand_bytes
    assert operand_bytes("m64n128k32", sparse=True) == {"a": 64 * 32, "b": 128 * 64}
    assert operand_bytes("m64n128k16") == {"a": 64 * 32, "b": 128 * 32}


@pytest.mark.parametrize("kind, line, rules", [
    (None, None, set()),
    ("drop-warpgroup-wait", 76, {"AG402"}),   # the stage refilled while the sparse wgmma reads it
    ("drop-mbarrier-wait", 54, {"AG401"}),    # the wgmma reads the stage before its TMA lands
    ("drop-proxy-fence", 84, {"AG405"}),
])
def test_tilelangs_sparse_gemm_is_clean_and_its_variants_are_flagged(kind, line, rules):
    from asyncguard.analyze import check_text
    from asyncguard.mutants import mutations
    text = SPARSE_GEMM.read_text()
    if kind is None:
        assert check_text(text).verdict == "clean"
        return
    m = next(m for m in mutations(text) if m.kind == kind and m.line == line)
    rep = check_text(m.apply(text))
    assert rep.verdict == "buggy" and rules <= {f.rule.code for f in rep.findings}


def test_proxy_fence_after_init_orders_it_for_the_ctas_async_proxy():
    # the CUDA guide's TMA example and TransformerEngine#2695's kernel: init, then
    # fence.proxy.async.shared::cta by the initializing thread, then __syncthreads
    text = BASE.replace("    T.ptx_fence_barrier_init()\n", "    T.fence_proxy_async()\n")
    assert check_text(text).verdict == "clean"


def test_proxy_fence_by_another_thread_does_not_order_the_init():
    text = BASE.replace("    T.ptx_fence_barrier_init()\n", "    if tx == 5:\n        T.fence_proxy_async()\n")
    assert any(f.rule.code == "AG404" for f in findings(text))


def test_proxy_fence_does_not_order_an_init_for_another_cta():
    # a peer CTA arrives on the barrier: only fence.mbarrier_init orders the init for the cluster
    text = (CORPUS / "real" / "cluster_dsmem_simt_remote_arrive_sm90a.tir").read_text()
    assert check_text(text).verdict == "clean"
    changed = text.replace("        T.ptx_fence_barrier_init()\n", "        T.fence_proxy_async()\n")
    assert changed != text
    assert any(f.rule.code == "AG404" for f in findings(changed))
