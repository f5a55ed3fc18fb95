"""Block-sparse GEMM without warp specialization (TileLang 0.1.15, `tl.disable_warp_specialized`,
sm_90a): each iteration's wgmma sits in `if BlockMask[..k]:` with its own proxy fence, commit and
`warpgroup_wait(0)` (engine/program.py `_closed_wgmma_arm`). Such a branch is checked taken, as an
access-only one is, where the whole kernel allows it (`_closed_arms_hold`): before, 2^32 outcome
patterns made the kernel `unknown`. Every single-bug mutant below is still found."""
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text

KERNEL = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_passcfg" /
          "blocksparse_gemm__example_blocksparse_gemm__blocksparse_matmul__sm_90a__nows.tir").read_text()
LINES = KERNEL.split("\n")


def _without(pred, which: int) -> str:
    """The kernel with the `which`-th line satisfying `pred` removed."""
    hits = [i for i, line in enumerate(LINES) if pred(line.strip())]
    return "\n".join(LINES[:hits[which]] + LINES[hits[which] + 1:])


def _codes(report):
    return {f.rule.code for f in report.findings if f.rule.kind != "unsupported"}


def _clean_scope(text: str, name: str) -> str:
    """The scope lines of `text`'s report, joined, once its verdict is checked `clean`."""
    report = check_text(text, name)
    assert report.verdict == "clean", [f.message for f in report.findings]
    return " ".join(s for k in report.kernels for s in k.scope)


def test_the_block_sparse_gemm_is_decided_in_one_run():
    scope = _clean_scope(KERNEL, "bs.tir")
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


DECODE = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_passcfg" /
          "blocksparse_attention__example_tilelang_sparse_gqa_decode_varlen_mask__flashattn__sm_90a__nows.tir"
          ).read_text()


def _drop_line(text: str, line: int) -> str:
    """`text` with source line `line` (1-based) removed."""
    lines = text.split("\n")
    return "\n".join(lines[:line - 1] + lines[line:])


def test_epilogue_arms_fenced_by_the_fence_after_the_main_loop_are_closed_too():
    """The sparse GQA decode without warp specialization: the pipeline epilogue's wgmma arms
    (lines 212, 262) have no fence of their own; the `fence_proxy_async` at line 203, after the
    main loop and outside every arm, orders them. Before, their cells were searched both ways
    (2^d patterns per block and size): `unknown` after 190 s."""
    scope = _clean_scope(DECODE, "decode.tir")
    assert "every outcome pattern checked (9 run(s))" in scope
    assert "proved for every d >= 0" in scope


@pytest.mark.parametrize("line, rule", [
    (126, "AG201"),   # the barrier before the QK wgmma of stage k (the loads of stage k + 2 race)
    (204, "AG201"),   # the barrier after the fence that the epilogue's wgmma rely on
])
def test_decode_barrier_mutants_are_found_in_the_taken_runs(line, rule):
    assert "tvm_storage_sync" in DECODE.split("\n")[line - 1]
    report = check_text(_drop_line(DECODE, line), f"drop{line}.tir")
    assert report.verdict == "buggy" and rule in _codes(report), _codes(report)


def test_the_fence_outside_the_arms_is_not_taken_for_granted():
    """Without the fence at line 203 the epilogue's arms are ordered by no fence outside an arm
    (`_fenced_outside`): they are no closed arms, their cells are searched, and the first run
    (every cell 1) reads the stage with no fence since the loads: AG405."""
    assert DECODE.split("\n")[202].strip() == "T.fence_proxy_async()"
    found = lambda fs: any(f.rule.code == "AG405" for f in fs)   # noqa: E731
    report = check_text(_drop_line(DECODE, 203), "nofence.tir",
                        limits=Limits(stop_when=found, max_seconds=120))
    assert "AG405" in _codes(report)


def test_a_fence_holds_across_a_branch_or_loop_only_without_shared_writes():
    """`_fenced_outside`: a fence is in effect after a branch or loop that writes no shared
    memory; a loop body is checked as its second iteration sees it (after its own writes)."""
    from asyncguard import ir
    from asyncguard.engine.nodes import PIf, PLoop, POp
    from asyncguard.engine.program import _fenced_outside

    span = ir.Span(1, 1, 1, 1, 0, 0)

    def op(name):
        return POp(name, span, lambda env, tids: [])

    def branch(*arm):
        return PIf(lambda env: True, tuple(arm), (), span)

    def loop(*body):
        return PLoop("i", lambda env: 0, lambda env: 2, tuple(body), span)

    fence, read, write, tma = op("fence_proxy_async"), op("load"), op("store"), op("tma_store")
    assert _fenced_outside([fence, branch(read), tma], False)
    assert not _fenced_outside([fence, branch(write), tma], False)
    assert not _fenced_outside([branch(fence), tma], False)     # the branch may not be taken
    assert _fenced_outside([fence, loop(read, tma)], False)
    assert not _fenced_outside([fence, loop(tma, write)], False)   # the second iteration's tma
