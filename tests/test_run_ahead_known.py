"""A thread knows an mbarrier phase complete when thread arrivals alone completed it and every one of
them happened before the thread's next arrival (engine/state/mbarrier.py `_check_run_ahead`), as
QwenLM/FlashQLA's `prepare_h` (corpus/unseen_users3) arrives on a count-128 barrier from one
warpgroup each iteration, synchronizes that warpgroup in between, and never waits on the barrier
itself: no AG412 there. A thread that did not synchronize with its partners keeps it."""
from pathlib import Path

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent
PREPARE_H = ROOT / "corpus" / "unseen_users3" / "flashqla__drv_flashqla_hopper__tilelang_prepare_h.tilelang_prepare_h_kernel__sm_90a.tir"

AHEAD = '''@T.prim_func
def ahead(A: T.handle("float32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 1024, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 256, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 256)
    bar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    if tx == 0:
        T.ptx_init_barrier_thread_count(bar[0], 128)
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    if tx < 128:
        for i in range(2):
            T.ptx_arrive_barrier(bar[0])
'''


def test_prepare_h_arrives_knowing_each_phase_complete():
    r = check_text(PREPARE_H.read_text(), str(PREPARE_H))
    assert not [f for f in r.findings if f.rule.code == "AG412"]
    assert not [f for f in r.findings if f.rule.kind != "unsupported"]


def test_arrivals_with_nothing_between_them_run_ahead():
    r = check_text(AHEAD)
    assert [f.line for f in r.findings if f.rule.code == "AG412"] == [12]
