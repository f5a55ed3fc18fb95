"""corpus/trackers: synchronization bugs reported on public issue trackers (corpus/trackers/MANIFEST.md
cites each issue or pull request), each as the buggy kernel and its fixed counterpart. Every kernel keeps
the verdict and (rule, line) findings recorded in NAME.expect.json; a buggy kernel is flagged with the rule
its bug calls for (`bug_rules`), and a race finding's witness names the two accesses; the fixed kernel is
clean. Where asyncguard is wrong (a rule other than the bug's, a false alarm on a fixed kernel) the expect
file says so (`open_defect`, explained in the MANIFEST) and the test pins that, so a fix shows up; a fixed
kernel flagged for another, true problem than the one its fix addressed says so (`other_finding`)."""
import json
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.repair import repair_text

TRACKERS = Path(__file__).resolve().parent.parent / "corpus" / "trackers"
FILES = sorted(TRACKERS.glob("*.tir"))
BUGGY = [p for p in FILES if not p.stem.endswith("_fixed")]


def _expect(tir: Path) -> dict:
    return json.loads(tir.with_suffix(".expect.json").read_text())


def test_every_buggy_kernel_has_a_fixed_counterpart_and_an_issue():
    assert len(BUGGY) >= 6
    manifest = (TRACKERS / "MANIFEST.md").read_text()
    for tir in BUGGY:
        expect = _expect(tir)
        fixed = TRACKERS / expect["fixed_counterpart"]
        # a fixed kernel is clean, or its expect file records the false alarm as an open defect
        assert fixed.exists() and (_expect(fixed)["verdict"] == "clean" or "open_defect" in _expect(fixed)
                                   or "other_finding" in _expect(fixed)), tir.name
        assert expect["issue"].startswith("https://github.com/"), tir.name
        assert expect["issue"] in manifest and tir.name in manifest and fixed.name in manifest, tir.name
    assert sorted(p.name for p in FILES) == sorted(p.name.replace(".expect.json", ".tir")
                                                   for p in TRACKERS.glob("*.expect.json"))


@pytest.mark.parametrize("tir", FILES, ids=lambda p: p.stem)
def test_tracker_kernel_keeps_its_verdict(tir: Path):
    expect = _expect(tir)
    report = check_text(tir.read_text(), str(tir))
    found = sorted({(f.rule.code, f.line) for f in report.findings if f.rule.kind != "unsupported"})
    assert (report.verdict, found) == (expect["verdict"], sorted((f["rule"], f["line"]) for f in expect["findings"]))
    if expect["verdict"] == "clean":
        return
    rules = {r for r, _ in found}
    if "fixed_counterpart_of" in expect:   # a false alarm on a fixed kernel, or another problem, recorded
        assert "open_defect" in expect or "other_finding" in expect
        return
    if "open_defect" in expect:   # the rule asyncguard should give is not the one it gives (MANIFEST.md)
        assert not rules & set(expect["bug_rules"]), "the open defect is fixed: update the expect file"
    else:
        assert rules & set(expect["bug_rules"]), (rules, expect["bug_rules"])
    for f in report.findings:
        if f.rule.kind == "race" and "first" in f.witness:
            first, second = f.witness["first"], f.witness["second"]   # two accesses of the same bytes
            assert (first["line"], first["thread"], first["loops"]) != \
                (second["line"], second["thread"], second["loops"])
            assert first["bytes"][0] < second["bytes"][1] and second["bytes"][0] < first["bytes"][1]


STUCK = """# from tvm.script import tirx as T
@T.prim_func
def stuck(A: T.handle("float32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 256, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 64)
    buf_dyn_shmem = T.alloc_buffer((256,), "uint8", scope="shared.dyn")
    S: T.handle("float32", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    mbarrier = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    if T.tl_shuffle_elect(0):
        T.ptx_init_barrier_thread_count(mbarrier[0], 1)
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float32"), S, tx, 1, 2), T.tvm_access_ptr(T.type_annotation("float32"), A, tx, 1, 1), 1)
    T.ptx_commit_group()
    if tx < WAITERS:
        T.mbarrier_wait_parity(mbarrier[0], 0)
"""


@pytest.mark.parametrize("waiters, exiting", [(64, 0), (32, 32)])
def test_threads_blocked_forever_do_not_exit_with_copies_in_flight(waiters, exiting):
    """The threads of a deadlocked wait never exit, so only the others can exit with a cp.async in
    flight (AG104): tile-ai/tilelang#3087's reconstruction hangs with every thread blocked, and used to
    get an AG104 for copies no exiting thread left behind."""
    report = check_text(STUCK.replace("WAITERS", str(waiters)), "stuck.tir")
    assert {f.rule.code for f in report.findings} == ({"AG408", "AG104"} if exiting else {"AG408"})
    for f in report.findings:
        if f.rule.code == "AG104":
            assert f.witness["count"] == exiting and min(f.witness["threads"]) == waiters


def test_a_wait_placed_before_its_commit_is_described_as_such():
    """csarofeen/pytorch#2463: the witness of a copy still in flight after the issuer's last
    wait_group, which ran before the commits that followed it, says that wait left the copy's group
    pending (it used to say the wait left only groups >= 2 pending, for a copy in group 1)."""
    tir = TRACKERS / "nvfuser2463_cp_async_wait_before_commit_sm80.tir"
    (f,) = [f for f in check_text(tir.read_text(), str(tir)).findings if f.rule.code == "AG101"]
    assert f.witness["group"] == 1 and f.witness["committed"] == 8 and f.witness["last_wait_n"] == 6
    assert "ran before its latest commits (with at most 7 group(s) committed), so it left group 1 pending" \
        in f.witness["missing"]


# One producer warp copies a stage and publishes it with an mbarrier arrive after a wait_group(1)
# that leaves the copy's group pending (the count one too large of NVIDIA/cutlass#2502); the copy
# lands at the wait_group(0) after the arrive. TAIL: the producer's last lines and the consumer's.
WAIT_TOO_LARGE = """# from tvm.script import tirx as T
@T.prim_func
def publish(A: T.handle("float16", "global"), Out: T.handle("float16", "global")):
    T.func_attr({"dyn_shared_memory_buf": 512, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    Out_1 = T.decl_buffer((256,), "float16", data=Out)
    tx = T.launch_thread("threadIdx.x", 64)
    buf_dyn_shmem = T.alloc_buffer((512,), "uint8", scope="shared.dyn")
    S: T.handle("float16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    S_1 = T.decl_buffer((256,), "float16", data=S, scope="shared.dyn")
    mbarrier = T.alloc_buffer((2,), "uint64", scope="shared.barrier")
    if T.tl_shuffle_elect(0):
        T.ptx_init_barrier_thread_count(mbarrier[0], 32)
        T.ptx_init_barrier_thread_count(mbarrier[1], 32)
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    if tx < 32:
        T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
        T.ptx_commit_group()
        T.ptx_wait_group(1)
        T.ptx_arrive_barrier(mbarrier[0])
TAIL"""
# the copy lands (wait_group(0) at line 21) before the consumer reads, in the executed schedule
LANDED = """        T.ptx_wait_group(0)
    else:
        T.mbarrier_wait_parity(mbarrier[0], 0)
        for j in range(8):
            Out_1[(tx - 32) * 8 + j] = S_1[(tx - 32) * 8 + j]
"""
# the producer waits for the consumer to have read before its wait_group(0): in flight at the read
IN_FLIGHT = """        T.mbarrier_wait_parity(mbarrier[1], 0)
        T.ptx_wait_group(0)
    else:
        T.mbarrier_wait_parity(mbarrier[0], 0)
        for j in range(8):
            Out_1[(tx - 32) * 8 + j] = S_1[(tx - 32) * 8 + j]
        T.ptx_arrive_barrier(mbarrier[1])
"""


@pytest.mark.parametrize("tail, read_line", [(LANDED, 25), (IN_FLIGHT, 26)], ids=["landed", "in-flight"])
def test_a_copy_published_before_its_wait_is_ag101_in_every_schedule(tail, read_line):
    """Defect A (NVIDIA/cutlass#2502): the arrive orders the copy's issue before the read, not its
    completion. The rule must not depend on whether, in the executed schedule, the producer's later
    wait_group landed the copy before the consumer read: both are AG101 (a wait missing before the
    release), with the wait_group(1) at line 19 as the issuer's last wait ordered before the read.
    The landed one used to be AG102 (a barrier missing after the wait)."""
    (f,) = check_text(WAIT_TOO_LARGE.replace("TAIL", tail), "publish.tir").findings
    assert (f.rule.code, f.line) == ("AG101", read_line)
    assert (f.witness["first"]["line"], f.witness["second"]["line"]) == (17, read_line)
    assert (f.witness["group"], f.witness["committed"], f.witness["last_wait_line"],
            f.witness["last_wait_n"]) == (0, 1, 19, 1)
    if tail is LANDED:
        assert f.witness["landed_wait_line"] == 21
        assert f.witness["missing"].startswith("a ptx_wait_group by thread 0 that completes group 0 "
                                               "(its copy at line 17) before the release")
        assert "only the copy's issue is" in f.message and "barrier after" not in f.message
        # the repair lowers the count of the wait before the arrive
        rep = repair_text(WAIT_TOO_LARGE.replace("TAIL", tail), "publish.tir")
        (e,) = rep.fix.edits
        assert rep.status == "fixed" and e.op == "replace" and e.line == 19 and "ptx_wait_group(0)" in e.text


def test_cutlass2502_is_flagged_ag101_with_the_wait_before_the_arrive():
    """The tracker kernel of defect A: the wait_group(2) at line 37 (k = 1), the issuer's last wait
    ordered before the consumer's read of stage 0, leaves the 2 newest of 5 groups pending, the
    copy's group 3 among them; the next iteration's wait at the same line landed it. `fix` lowers
    that count: to 0, since the drain loop's wait_group(2) at line 41 has the same count one too
    large for the last stage and one edit at line 37 covers both (wait_group(1) there alone leaves
    the drain's AG101)."""
    tir = TRACKERS / "cutlass2502_mla_cpasync_commit_too_early_sm100a.tir"
    (f,) = check_text(tir.read_text(), str(tir)).findings
    assert (f.rule.code, f.line) == ("AG101", 48)
    assert (f.witness["group"], f.witness["committed"], f.witness["last_wait_line"], f.witness["last_wait_n"],
            f.witness["landed_wait_line"]) == (3, 5, 37, 2, 37)
    rep = repair_text(tir.read_text(), str(tir))
    (e,) = rep.fix.edits
    assert rep.status == "fixed" and e.op == "replace" and e.line == 37 and "ptx_wait_group(0)" in e.text


# Every thread copies its 16 bytes (one cp.async instance); warp 1 reads warp 0's bytes with no
# barrier. WARP0: warp 0's branch, READER: warp 1's.
OWN_PART = """# from tvm.script import tirx as T
@T.prim_func
def own_part(A: T.handle("float16", "global"), Out: T.handle("float16", "global")):
    T.func_attr({"dyn_shared_memory_buf": 1024, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    Out_1 = T.decl_buffer((512,), "float16", data=Out)
    tx = T.launch_thread("threadIdx.x", 64)
    buf_dyn_shmem = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    S: T.handle("float16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    S_1 = T.decl_buffer((512,), "float16", data=S, scope="shared.dyn")
    mbarrier = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    if T.tl_shuffle_elect(0):
        T.ptx_init_barrier_thread_count(mbarrier[0], 32)
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
    T.ptx_commit_group()
    if tx < 32:
WARP0    else:
READER"""
FIRST = "        T.ptx_wait_group(0)\n"                                        # warp 0 waits at once
LAG = "        T.mbarrier_wait_parity(mbarrier[0], 0)\n        T.ptx_wait_group(0)\n"   # ... after warp 1's read
READ = "        for j in range(8):\n            Out_1[tx * 8 + j] = S_1[(tx - 32) * 8 + j]\n"
ARRIVE = "        T.ptx_arrive_barrier(mbarrier[0])\n"


@pytest.mark.parametrize("own_wait", [True, False], ids=["own-part-waited", "own-part-in-flight"])
def test_a_reader_that_issued_part_of_the_copy_gets_one_rule_in_every_schedule(own_wait):
    """A reading thread that issued part of the same cp.async: AG102 when its own wait_group had
    completed its part (the waits are there, the barrier after them is not), AG101 when not,
    whether warp 0's wait ran before the read (its part landed) or after it (still in flight).
    Both pairs used to get AG102 in the first schedule and AG101 in the second."""
    reader = (FIRST + READ) if own_wait else (READ + FIRST)
    codes = []
    for warp0, tail in ((FIRST, ""), (LAG, ARRIVE)):
        text = OWN_PART.replace("WARP0", warp0).replace("READER", reader + tail)
        (f,) = check_text(text, "own_part.tir").findings
        assert (f.witness["first"]["line"], f.witness["first"]["thread"], f.witness["second"]["thread"]) == (15, 0, 32)
        codes.append(f.rule.code)
    assert codes == (["AG102", "AG102"] if own_wait else ["AG101", "AG101"])
