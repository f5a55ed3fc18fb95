"""`cp.async.mbarrier.arrive` without .noinc (`T.ptx_cp_async_barrier`): the increment it makes at
issue must come before the phase completes, or its copies land in the next phase (AG422;
kekzl/imp#1958, corpus/trackers_r5)."""
from pathlib import Path

from asyncguard.analyze import check_text

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
BUGGY = (CORPUS / "trackers_r5" / "imp1958_track_only_cpasync_arrive_sm90a.tir").read_text()
FIXED = (CORPUS / "trackers_r5" / "imp1958_track_only_cpasync_arrive_sm90a_fixed.tir").read_text()

# every thread copies its own 16 bytes, hands them to the barrier with the counting arrive, then
# arrives itself (the init counts the 128 threads): libcu++'s memcpy_async-with-barrier shape
OWN_ARRIVAL = '''# from tvm.script import tirx as T
@T.prim_func
def own_arrival(A: T.handle("float16", "global"), out: T.handle("float16", "global")):
    T.func_attr({"target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    out_1 = T.decl_buffer((128,), "float16", data=out)
    tx = T.launch_thread("threadIdx.x", 128)
    A_s = T.alloc_buffer((1024,), "float16", scope="shared")
    bar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    if tx == 0:
        T.ptx_init_barrier_thread_count(bar[0], 128)
        T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), A_s.data, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
    T.ptx_cp_async_barrier(bar[0])
    T.ptx_arrive_barrier(bar[0])
    T.mbarrier_wait_parity(bar[0], 0)
    out_1[tx] = A_s[(127 - tx) * 8]
'''


def codes(text):
    return {(f.rule.code, f.line) for f in check_text(text).findings}


def test_an_increment_other_arrivals_may_overtake_is_flagged():
    found = codes(BUGGY)
    assert ("AG422", 47) in found            # the counting arrive (the upstream bug's line)
    assert ("AG401", 50) in found            # the consumers' read of the copy it tracks
    assert check_text(FIXED).verdict == "clean"


def test_the_increment_is_flagged_whichever_branch_runs_first():
    # the same kernel with warp 0's branch first: the schedule the engine runs changes, the verdict not
    lines = BUGGY.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "if 32 <= tx and tx < 64:")
    orelse = next(i for i, ln in enumerate(lines) if ln.strip() == "else:" and i > start)
    inner = next(i for i, ln in enumerate(lines) if ln.strip() == "if tx < 32:" and i > orelse)
    waits = next(i for i, ln in enumerate(lines) if ln.strip() == "for s in range(2):" and i > inner)
    producer = [ln[4:] for ln in lines[start + 1:orelse]]
    warp0 = lines[inner + 1:waits]
    swapped = (lines[:start] + ["    if tx < 32:"] + [ln[4:] for ln in warp0] + ["    if 32 <= tx and tx < 64:"]
               + ["    " + ln for ln in producer] + ["    if tx < 32 or 64 <= tx:"] + lines[waits:])
    text = "\n".join(swapped) + "\n"
    assert any(code == "AG422" for code, _ in codes(text))


def test_an_increment_its_own_thread_then_arrives_after_is_clean():
    result = check_text(OWN_ARRIVAL)
    assert result.verdict == "clean", [f.message for f in result.findings]
