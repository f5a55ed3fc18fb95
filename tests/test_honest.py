"""An unmodelled construct placed into a clean real kernel gives `unknown` (its AG001), never a
race or a hang that rests on its missing effect; findings it cannot affect stay definite."""
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text

REAL = Path(__file__).resolve().parent.parent / "corpus" / "real"

WS = "gemm_sm90a_ws_s3_128x128x64"      # warp-specialized TMA + wgmma GEMM (clean)
SM80 = "gemm_sm80_s2_128x128x32"        # cp.async pipeline (clean)

# (kernel, statement replaced, unmodelled replacement): each, modelled as a no-op, made the
# machine report a definite hang or race before the taint (noted per case).
CASES = [
    # the consumer's release of a stage arrives through an unmodelled op: the producer's wait
    # on it hung (AG408)
    (WS, "T.ptx_arrive_barrier(mbarrier_1[k % 3 + 3])", "T.some_new_arrive(mbarrier_1[k % 3 + 3])"),
    # the consumer's wait on the full barrier is unmodelled: AG401/AG402/AG103/AG408/AG409/AG412
    (WS, "T.mbarrier_wait_parity(mbarrier_1[k % 3], k % 6 // 3)",
     "T.some_new_wait(mbarrier_1[k % 3], k % 6 // 3)"),
    # a wait parity the engine cannot evaluate (a persistent kernel's phase counter): the wait is
    # skipped, which gave AG103/AG401/AG408/AG412
    (WS, "T.mbarrier_wait_parity(mbarrier_1[k % 3], k % 6 // 3)",
     "T.mbarrier_wait_parity(mbarrier_1[k % 3], T.some_new_value(k))"),
    # cp.async groups completed by an unmodelled op: AG101/AG103, and AG104 at exit
    (SM80, "T.ptx_wait_group(1)", "T.some_new_cp_async_wait(1)"),
    (SM80, "T.ptx_wait_group(0)", "T.some_new_cp_async_wait(0)"),
    # a block barrier replaced by an unmodelled synchronization with no arguments: AG102 / AG201
    (SM80, 'T.ptx_wait_group(1)\n            T.tvm_storage_sync("shared")',
     "T.ptx_wait_group(1)\n            T.sync_grid_like_op()"),
    ("transpose_shared_sm80_32x32_t128", 'T.tvm_storage_sync("shared.dyn")', "T.cluster_sync_like_op()"),
]


@pytest.mark.parametrize("name,old,new", CASES, ids=[f"{c[0]}:{c[2][:30]}" for c in CASES])
def test_unmodelled_construct_gives_unknown_never_a_definite_finding(name, old, new):
    text = (REAL / f"{name}.tir").read_text()
    assert check_text(text).verdict == "clean"
    assert old in text
    mutated = text.replace(old, new, 1)
    report = check_text(mutated)
    assert report.verdict == "unknown"
    assert {f.rule.code for f in report.findings} == {"AG001"}
    op = next(w for w in new.replace("(", " ").split() if "T." in w and w not in old)
    line = mutated[: mutated.index(op)].count("\n") + 1
    assert any(f.line == line and op.removeprefix("T.") in f.message for f in report.findings), \
        [(f.line, f.message) for f in report.findings]

def test_findings_before_an_unmodelled_op_stay_definite():
    # the race of the no-sync GEMM happens long before the unmodelled op at the kernel's end
    text = (REAL / "gemm_sm80_s2_128x128x32_nosync.tir").read_text()
    before = {(f.rule.code, f.line) for f in check_text(text).findings}
    assert before and all(code != "AG001" for code, _ in before)
    report = check_text(text.rstrip("\n") + "\n            T.some_new_op()\n")
    after = {(f.rule.code, f.line) for f in report.findings}
    assert report.verdict == "buggy"
    assert after - before == {("AG001", text.rstrip("\n").count("\n") + 2)}
    assert before <= after


def test_unmodelled_statement_in_a_varlen_loop_is_unknown_not_a_crash():
    # an unmodelled operation (a note) inside a loop whose trip count reads cu_seqlens: the
    # below-zero walk of the trip-count symbol took the note for a statement with sources and
    # crashed (AG003). Found on TileLang 0.1.8's ldmatrix, since modelled; an unknown op stands in
    path = REAL.parent / "unseen_versions" / \
        "flash_attention__example_gqa_bwd_tma_reduce_varlen__flashattn_bwd_atomic_add.flash_bwd__sm_90a.tir"
    text = path.read_text()   # clean (pinned: tests/test_version_probes.py)
    at = text.index("T.ptx_ldmatrix(", text.index("for k_base in range("))
    # the crash was in elaboration: the runs stop at the first note (all of them take 90 s)
    report = check_text(text[:at] + "T.some_new_ldmatrix(" + text[at + len("T.ptx_ldmatrix("):],
                        limits=Limits(stop_when=lambda found: any(f.rule.code == "AG001" for f in found)))
    assert report.verdict == "unknown"
    codes = {f.rule.code for f in report.findings}
    assert "AG003" not in codes and "AG001" in codes
