"""Block-sparse GEMM without warp specialization (TileLang 0.1.15, `tl.disable_warp_specialized`,
sm_90a): each iteration's wgmma sits in `if BlockMask[..k]:` with its own proxy fence, commit and
`warpgroup_wait(0)` (engine/program.py `_closed_wgmma_arm`). Such a branch is checked taken, as an
access-only one is, where the whole kernel allows it (`_closed_arms_hold`): before, 2^32 outcome
patterns made the kernel `unknown`. Every single-bug mutant below is still found."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

KERNEL = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_passcfg" /
          "blocksparse_gemm__example_blocksparse_gemm__blocksparse_matmul__sm_90a__nows.tir").read_text()
LINES = KERNEL.split("\n")


def _without(pred, which: int) -> str:
    """The kernel with the `which`-th line satisfying `pred` removed."""
    hits = [i for i, line in enumerate(LINES) if pred(line.strip())]
    return "\n".join(LINES[:hits[which]] + LINES[hits[which] + 1:])


def _codes(report):
    return {f.rule.code for f in report.findings if f.rule.kind != "unsupported"}


def test_the_block_sparse_gemm_is_decided_in_one_run():
    report = check_text(KERNEL, "bs.tir")
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = " ".join(s for k in report.kernels for s in k.scope)
    assert "every outcome pattern checked (1 run(s))" in scope
    assert "commit and wait for themselves" in scope


@pytest.mark.parametrize("name, pred, which, rule", [
    # the barrier between the loads of stage k + 1 and the wgmma of stage k
    ("drop-inner-barrier", lambda s: s == 'T.tvm_storage_sync("shared.dyn")', 1, "AG201"),
    # the arm's own fence: no longer a closed arm, its patterns are searched
    ("drop-arm-fence", lambda s: s == "T.fence_proxy_async()", 0, "AG405"),
    # the arm's wait(0): the next loads overwrite what the wgmma may still read
    ("drop-arm-wait", lambda s: s == "T.warpgroup_wait(0)", 0, "AG402"),
    # the epilogue's fence before the TMA store: an arm's fence must not stand in for it
    ("drop-store-fence", lambda s: s == "T.fence_proxy_async()", -1, "AG405"),
])
def test_each_single_bug_mutant_is_found(name, pred, which, rule):
    report = check_text(_without(pred, which), f"{name}.tir")
    assert report.verdict == "buggy", name
    assert rule in _codes(report), (name, _codes(report))


LOCAL = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide" /
         "language__language_all_of__test_block_sparse_matmul_local__sm_90a.tir").read_text()


def test_the_mask_copied_into_registers_and_tested_by_all_of_is_taken_too():
    """TileLang's `test_block_sparse_matmul_local` (sm_90a): `T.all_of` over a register copy of
    the mask guards the closed wgmma arms; without the arm's barrier the race is still found."""
    report = check_text(LOCAL, "local.tir")
    assert report.verdict == "clean", [f.message for f in report.findings]
    lines = LOCAL.split("\n")
    barriers = [i for i, line in enumerate(lines) if line.strip() == 'T.tvm_storage_sync("shared.dyn")']
    dropped = check_text("\n".join(lines[:barriers[1]] + lines[barriers[1] + 1:]), "local_drop.tir")
    assert dropped.verdict == "buggy" and "AG201" in _codes(dropped)
