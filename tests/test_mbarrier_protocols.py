"""mbarrier protocols exactly (issue 14): lapped waiters, reads of bytes no write reached,
proxy order both ways, invalid TMA completions, release before the last read, and verdicts that
do not depend on what a rule must ignore."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text

ROOT = Path(__file__).resolve().parent.parent
HW = ROOT / "corpus" / "handwritten"
STRICT = Limits(strict=("lapping", "proxy"))


def text(name):
    return (HW / f"{name}.tir").read_text()


def line_of(src, needle):
    return next(i for i, ln in enumerate(src.splitlines(), 1) if needle in ln)


def codes(report):
    return {f.rule.code for f in report.findings}


# ---------------------------------------------------------------- 1, 5: lapped waiters
def test_leader_arrive_lets_the_other_consumer_warps_be_lapped():
    src = text("ws_leader_arrive_lapped")
    (f,) = [f for f in check_text(src).findings if f.rule.code == "AG410"]
    assert f.rule.kind == "race" and f.line == line_of(src, "T.mbarrier_wait_parity(mbarrier[k % 2], k // 2 % 2)")
    delay = f.witness["delay"]
    assert delay["before_line"] == f.line and set(delay["warps"]) == {4, 5, 6, 7}
    assert 128 not in delay["threads"] and set(delay["threads"]) <= set(range(129, 256))
    assert f.witness["phase_observed"] + 2 == f.witness["returns_on_phase"]


def test_tilelang_idle_producer_waiters_are_a_strict_hang():
    src = text("ws_tma_pipeline")
    assert check_text(src).verdict == "clean"
    fs = [f for f in check_text(src, limits=Limits(strict=("lapping",))).findings if f.rule.code == "AG413"]
    (f,) = fs
    assert f.rule.kind == "hang" and f.line == line_of(src, "T.mbarrier_wait_parity(mbarrier[k % 2 + 2]")
    assert f.witness["delay"]["threads"] == list(range(1, 128))   # all but the elected thread 0


def test_producer_acquire_in_the_elected_branch_is_clean_even_when_strict():
    assert check_text(text("ws_producer_acquire_elected"), limits=Limits(strict=("lapping",))).verdict == "clean"


def test_fix_moves_the_idle_wait_into_the_elected_branch(tmp_path):
    p = tmp_path / "k.tir"
    p.write_text(text("ws_tma_pipeline"))
    out = subprocess.run([sys.executable, "-m", "asyncguard", "fix", "--strict", "lapping", "--write", str(p)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode in (0, 1), out.stderr
    fixed = p.read_text()
    wait = fixed.splitlines()[line_of(fixed, "T.mbarrier_wait_parity(mbarrier[k % 2 + 2]") - 1]
    prev = fixed.splitlines()[line_of(fixed, "T.mbarrier_wait_parity(mbarrier[k % 2 + 2]") - 2]
    assert "T.tl_shuffle_elect(128)" in prev and wait.startswith(" " * 16)
    assert check_text(fixed, limits=Limits(strict=("lapping",))).verdict == "clean"


def test_single_phase_barriers_cannot_lap_a_fresh_barrier_waiter():
    src = text("dual_gemm_single_phase")
    assert "AG410" not in codes(check_text(src))
    strict = [f for f in check_text(src, limits=Limits(strict=("lapping",))).findings if f.rule.code == "AG413"]
    assert strict and all(f.witness["that_phase_completes"] is False for f in strict)


# ---------------------------------------------------------------- 2: bytes no write reached
def test_consumer_parity_from_the_raw_loop_variable_reads_unwritten_bytes():
    src = text("consumer_parity_from_one")
    r = check_text(src)
    (f,) = r.findings
    assert f.rule.code == "AG417" and f.line == line_of(src, "T.ptx_ldmatrix(")
    assert f.witness["read"]["loops"]["k"] == 1
    assert check_text(text("consumer_parity_from_one_fixed")).verdict == "clean"


def test_bytes_written_by_a_fill_are_not_unwritten():
    src = text("ws_store_producer")
    assert check_text(src).verdict == "clean"


# ---------------------------------------------------------------- 3: proxy order both ways
def test_generic_reads_before_a_tma_refill_need_a_fence_when_strict():
    src = text("ws_tma_pipeline")
    (f,) = [f for f in check_text(src, limits=Limits(strict=("proxy",))).findings if f.rule.code == "AG414"]
    assert f.line == line_of(src, "T.tma_load(") and f.witness["first"]["op"] == "ptx_ldmatrix"
    fenced = src.replace("            T.ptx_arrive_barrier(mbarrier[k % 2 + 2])\n",
                         "            T.fence_proxy_async()\n            T.ptx_arrive_barrier(mbarrier[k % 2 + 2])\n")
    assert "AG414" not in codes(check_text(fenced, limits=Limits(strict=("proxy",))))


CP_ASYNC_TMA_STORE = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C_desc: T.handle("uint8x128", "grid_constant")):
    T.func_attr({"dyn_shared_memory_buf": 2048, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 128)
    buf_dyn_shmem = T.alloc_buffer((2048,), "uint8", scope="shared.dyn")
    C_shared: T.handle("float16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), C_shared, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
    T.ptx_commit_group()
FENCE_EARLY    T.ptx_wait_group(0)
FENCE_LATE    T.tvm_storage_sync("shared")
    if T.tl_shuffle_elect(0):
        T.tma_store(C_desc, T.tvm_access_ptr(T.type_annotation("float16"), C_shared, 0, 1024, 1), 0, 0, 0, 0)
        T.tma_store_arrive()
        T.tma_store_wait(0, T.bool(True))
'''


def test_a_fence_before_the_cp_async_lands_counts_only_by_default():
    early = CP_ASYNC_TMA_STORE.replace("FENCE_EARLY", "    T.fence_proxy_async()\n").replace("FENCE_LATE", "")
    late = CP_ASYNC_TMA_STORE.replace("FENCE_EARLY", "").replace("FENCE_LATE", "    T.fence_proxy_async()\n")
    assert check_text(early).verdict == "clean"
    (f,) = [f for f in check_text(early, limits=Limits(strict=("proxy",))).findings]
    assert f.rule.code == "AG415" and f.line == line_of(early, "T.tma_store(")
    assert check_text(late, limits=Limits(strict=("proxy",))).verdict == "clean"


# ---------------------------------------------------------------- 4: invalid completions
@pytest.mark.parametrize("name", ["tma_completes_on_local_buffer", "tma_completes_on_undeclared_buffer"])
def test_tma_completion_on_a_non_barrier_is_invalid(name):
    src = text(name)
    r = check_text(src)
    (f,) = [f for f in r.findings if f.rule.code == "AG416"]
    assert f.rule.kind == "invalid" and f.line == line_of(src, "T.tma_load(")
    assert r.verdict == "buggy" and not any(f.rule.kind == "unsupported" for f in r.findings)


# ---------------------------------------------------------------- 6: release before the last read
@pytest.mark.parametrize("producer,rule", [("tma", "AG103"), ("cp_async", "AG103"), ("store", "AG201")])
def test_release_before_the_last_read_is_a_race(producer, rule):
    src = text(f"ws_release_before_read_{producer}")
    fs = [f for f in check_text(src).findings if f.rule.kind == "race"]
    assert [f.rule.code for f in fs] == [rule]
    assert fs[0].witness["second"]["op"] != "ptx_ldmatrix"   # the producer's write is the second access
    assert fs[0].witness["first"]["op"] == "ptx_ldmatrix"
    if producer != "tma":
        assert check_text(text(f"ws_{producer}_producer")).verdict == "clean"


# ---------------------------------------------------------------- 7: what a rule must ignore
def _prologue_store(src):
    """Every thread stores to a scratch buffer nothing else touches, before the barrier init."""
    decl = re.search(r"\n(\s+)mbarrier = T.alloc_buffer", src)
    ind = decl.group(1)
    return src.replace(decl.group(0), f"\n{ind}scratch = T.alloc_buffer((1024,), \"int32\", scope=\"shared\")"
                       f"\n{ind}scratch[tx] = 0" + decl.group(0), 1)


def _rename(src):
    return re.sub(r"\bA_shared\b", "A_tile", src)


def _idle_warp(src):
    """One more warp that only takes part in the block barriers."""
    if '"threadIdx.x": 256' not in src or "\n    else:\n" not in src or "[tx] = " in src:
        return None
    out = src.replace('"threadIdx.x": 256', '"threadIdx.x": 288').replace(
        'T.launch_thread("threadIdx.x", 256)', 'T.launch_thread("threadIdx.x", 288)')
    return out.replace("\n    else:\n", "\n    elif tx < 256:\n", 1)


KERNELS = ["ws_tma_pipeline", "ws_leader_arrive_lapped", "ws_release_before_read_tma",
           "ws_producer_acquire_elected", "consumer_parity_from_one", "dual_gemm_single_phase",
           "ws_store_producer", "ws_release_before_read_cp_async", "tma_completes_on_local_buffer"]


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("change", [_prologue_store, _rename, _idle_warp], ids=lambda c: c.__name__.strip("_"))
def test_a_change_every_rule_must_ignore_keeps_the_verdict(name, change):
    src = text(name)
    other = change(src)
    if other is None:
        pytest.skip("the kernel has no shape for this change")
    assert other != src
    a, b = check_text(src, limits=STRICT), check_text(other, limits=STRICT)
    assert (a.verdict, codes(a)) == (b.verdict, codes(b))


def test_fix_syncs_the_lapped_waiters_before_the_leader_releases(tmp_path):
    # one edit: a named barrier over the 128 consumers between their reads and the leader's
    # release arrive, so no consumer can still be at the wait when the next phase completes
    # (triton-lang/triton#10035's fix: a partition bar.sync before the leader's arrive). Before
    # the named-barrier candidates the repair made every waiter release the stage instead
    # (two edits: the init count and the elected branch).
    p = tmp_path / "k.tir"
    src = text("ws_leader_arrive_lapped")
    p.write_text(src)
    out = subprocess.run([sys.executable, "-m", "asyncguard", "fix", "--write", str(p)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode in (0, 1), out.stderr
    fixed = p.read_text()
    lines = fixed.splitlines()
    added = [x for x in lines if x not in src.splitlines()]
    assert added == ['            T.tvm_storage_sync("shared", 15, 128)']
    at = lines.index(added[0])
    assert "T.tl_shuffle_elect(128)" in lines[at + 1] and "ptx_arrive_barrier" in lines[at + 2]
    assert check_text(fixed).verdict == "clean"
    # the consumers' lapping is gone under the strict reading too (what stays there is the
    # producer side's, AG413 at its empty wait, and the proxy reading's AG414)
    assert 32 not in {f.line for f in check_text(fixed, limits=STRICT).findings}
