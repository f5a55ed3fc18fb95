"""Per-thread registers: integer `local` buffers a thread writes and reads (phase counters, tile
counters, loop-carried indices) are evaluated exactly, per thread; per-warp mbarrier arrays."""
import textwrap
from pathlib import Path

from asyncguard.analyze import check_text

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "handwritten"

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("int32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    A_1 = T.decl_buffer((128,), "int32", data=A)
    C_1 = T.decl_buffer((4096,), data=C)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((256,), scope="shared.dyn")
    cnt = T.alloc_buffer((1,), "int32", scope="local")
    cnt_1 = T.decl_buffer((1,), "int32", data=cnt.data, scope="local")
'''


def kernel(body: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def result(text: str):
    rep = check_text(text)
    return rep.verdict, sorted({(f.rule.code, f.line) for f in rep.findings})


# A two-slot ring whose slot is a loop-carried register: slot k % 2 through the counter.
RING = """
    cnt_1[0] = 0
    for k in range(6):
        S[cnt[0] % 2 * 128 + tx] = T.float32(1)
        T.tvm_storage_sync("shared")
        C_1[k * 128 + tx] = S[cnt[0] % 2 * 128 + 127 - tx]
        cnt_1[0] = cnt_1[0] + {step}
"""


def test_loop_carried_register_selects_the_ring_slot_exactly():
    # the barrier of iteration k+1 separates iteration k's reads from iteration k+2's writes
    assert result(kernel(RING.format(step=1))) == ("clean", [])


def test_a_counter_that_never_changes_slot_is_a_race():
    # step 2: every iteration uses slot 0; iteration k+1 overwrites what k's neighbour still reads
    assert result(kernel(RING.format(step=2))) == ("buggy", [("AG201", 13)])


def test_register_values_differ_per_thread_and_merge_after_a_branch():
    text = kernel("""
        if tx < 64:
            cnt_1[0] = 0
        else:
            cnt_1[0] = 1
        S[cnt[0] * 128 + tx % 64] = T.Cast("float32", tx)
        S[cnt[0] * 128 + 64 + tx % 64] = T.Cast("float32", tx + 1)
    """)   # (values that differ per thread: one value in every thread would not be a race)
    # threads tx and tx+64 would clash if the register were one value for all threads
    assert result(text) == ("clean", [])
    racy = text.replace("cnt_1[0] = 1", "cnt_1[0] = 0")
    assert result(racy) == ("buggy", [("AG201", 15), ("AG201", 16)])


def test_a_register_loaded_from_data_is_unknown_where_it_decides_shared_bytes():
    text = kernel("""
        cnt_1[0] = A_1[tx]
        S[cnt[0] % 256] = T.float32(1)
    """)
    verdict, found = result(text)
    assert verdict == "unknown" and found == [("AG001", 12)]


def test_a_register_loaded_from_data_that_only_feeds_global_memory_is_harmless():
    text = kernel("""
        cnt_1[0] = A_1[tx]
        C_1[cnt[0] % 4096] = T.float32(1)
        S[tx] = T.float32(1)
    """)
    assert result(text) == ("clean", [])


def test_a_register_read_before_any_write_is_unknown():
    text = kernel("""
        S[cnt[0] % 256] = T.float32(1)
    """)
    assert result(text)[0] == "unknown"


def test_persistent_warp_specialized_gemm_is_clean_and_its_bugs_are_flagged():
    # lowered by TileLang 0.1.15 (T.Persistent on sm_90a): producer_phase_cnt[0] and
    # consumer_phase_cnt[0] pick the ring slot and the parity of every mbarrier wait
    clean = CORPUS / "persistent_ws_gemm_sm90a.tir"
    assert check_text(clean.read_text(), str(clean)).verdict == "clean"
    for bug, rule in (("persistent_ws_gemm_sm90a_drop_consumer_arrive.tir", "AG408"),
                      ("persistent_ws_gemm_sm90a_flip_producer_parity.tir", "AG408")):
        rep = check_text((CORPUS / bug).read_text(), bug)
        assert rep.verdict == "buggy" and rule in {f.rule.code for f in rep.findings}, bug


def test_per_warp_mbarriers_are_modelled_per_thread():
    base = CORPUS / "per_warp_mbarrier.tir"
    assert check_text(base.read_text(), str(base)).verdict == "clean"
    rep = check_text((CORPUS / "per_warp_mbarrier_reads_neighbour.tir").read_text())
    assert [(f.rule.code, f.line) for f in rep.findings] == [("AG401", 27)]
    rep = check_text((CORPUS / "per_warp_mbarrier_flipped_parity.tir").read_text())
    assert rep.verdict == "buggy" and "AG408" in {f.rule.code for f in rep.findings}


def test_each_warp_initializes_its_own_mbarrier():
    text = (CORPUS / "per_warp_mbarrier.tir").read_text().replace(
        "    if tx == 0:\n        for w in range(4):\n            T.ptx_init_barrier_thread_count(mbarrier[w], 1)\n",
        "    if tx % 32 == 0:\n        T.ptx_init_barrier_thread_count(mbarrier[tx // 32], 1)\n")
    assert "mbarrier[tx // 32], 1)" in text
    assert check_text(text).verdict == "clean"
    unpublished = text.replace('    T.ptx_fence_barrier_init()\n    T.tvm_storage_sync("shared")\n',
                               "    T.ptx_fence_barrier_init()\n")
    rep = check_text(unpublished)
    assert [(f.rule.code, f.line) for f in rep.findings] == [("AG403", 23)]
