"""A symbolic size that decides no trip count, only a branch (flashinfer#3439: `if prev_k + 8 > 16`
around the cross-warp replay), is run on every side of that branch: the values below the
threshold past which it changes nothing (prover/behaviours.py `threshold`), one run per distinct
behaviour. And a size plan that proves nothing for the values it did not run never gives
`clean`: the verdict is `unknown`, naming the sizes."""
from pathlib import Path

from asyncguard.analyze import Limits, check_text

ROOT = Path(__file__).resolve().parent.parent / "corpus"
R10 = ROOT / "trackers_r10"

KERNEL = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), n: T.int32):
    T.func_attr({{"thread_extent": {{"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    A_1 = T.decl_buffer((64,), "float16", data=A)
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((64,), "float16", scope="shared")
    S[tx] = A_1[tx]
    if {cond}:
        {sync}
        A_1[tx] = S[63 - tx]
    else:
        T.tvm_storage_sync("shared")
        A_1[tx] = S[63 - tx]
'''


def findings(rep):
    return {(f.rule.code, f.line) for f in rep.findings if f.rule.kind != "unsupported"}


def test_a_race_on_the_far_side_of_a_size_branch_is_found():
    # before: only n = 1 was run (the else arm), and the verdict was clean
    rep = check_text(KERNEL.format(cond="n + 8 > 16", sync="T.evaluate(0)"))
    assert rep.verdict == "buggy"
    assert findings(rep) == {("AG201", 11)}
    assert "proved for every n >= 1" in rep.kernels[0].scope[0]


def test_the_same_kernel_with_its_barrier_is_clean_for_every_size():
    rep = check_text(KERNEL.format(cond="n + 8 > 16", sync='T.tvm_storage_sync("shared")'))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "proved for every n >= 1" in rep.kernels[0].scope[0]


def test_a_size_branch_without_a_threshold_is_unknown_not_clean():
    # n % 3 == 1 keeps changing with n: no value past which n changes nothing
    rep = check_text(KERNEL.format(cond="n % 3 == 1 and n * n > 100000000", sync='T.tvm_storage_sync("shared")'))
    assert rep.verdict == "unknown"
    assert any(f.rule.kind == "unsupported" and "n" in f.message for f in rep.findings)


def test_flashinfer3439_is_caught_by_default():
    buggy = check_text((R10 / "flashinfer3439_ssu_per_warp_cpasync_cross_warp_read_sm80.tir").read_text())
    fixed = check_text((R10 / "flashinfer3439_ssu_per_warp_cpasync_cross_warp_read_sm80_fixed.tir").read_text())
    assert findings(buggy) == {("AG102", 63), ("AG102", 67)}
    assert fixed.verdict == "clean"


def test_fence_proxy_async_is_not_asked_between_tensor_memory_accesses():
    # `--strict proxy` judges shared memory: a tcgen05.ld and a later tcgen05.mma on the same
    # tensor-memory cells are ordered by tcgen05 fences, which the fixed DeepGEMM kernel has
    text = (R10 / "deepgemm285_paged_mqa_umma_reads_q_without_full_wait_sm100a_fixed.tir").read_text()
    rep = check_text(text, limits=Limits(strict=("proxy",)))
    ag414 = [f for f in rep.findings if f.rule.code == "AG414"]
    assert ag414 and all("tensor memory" not in f.message for f in ag414)
    assert {f.line for f in ag414} == {95}   # the TMA refill of the KV scales (shared memory)
