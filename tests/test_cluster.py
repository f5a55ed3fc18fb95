"""Thread-block clusters: the CTAs of one cluster checked together (models/cluster.py,
engine/state/cluster.py, checks/cluster.py). Small kernels state one construct each; the corpus
kernels are TileLang 0.1.15's own cluster output."""
import textwrap
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.machine import Machine
from asyncguard.engine.program import elaborate
from asyncguard.models.launch import Launch
from asyncguard.parse import parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({{"cluster_dims": [{ctas}, 1, 1], "thread_extent": {{"blockIdx.x": {blocks}, "threadIdx.x": {threads}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    bx = T.launch_thread("blockIdx.x", {blocks})
    tx = T.launch_thread("threadIdx.x", {threads})
    S = T.alloc_buffer((256,), "float32", scope="shared.dyn")
    bar = T.alloc_buffer((2,), "uint64", scope="shared.barrier")
    A_1 = T.decl_buffer((4096,), data=A)
    C_1 = T.decl_buffer((4096,), data=C)
'''
PTR = 'T.tvm_access_ptr(T.type_annotation("float32"), S.data, 0, 128, 2)'


def kernel(body: str, ctas: int = 2, threads: int = 128, blocks: int = 2) -> str:
    return HEAD.format(ctas=ctas, threads=threads, blocks=blocks) + \
        textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def report(text: str):
    return check_text(text)


def codes(text: str) -> set:
    return {f.rule.code for f in report(text).findings}


# ---------------------------------------------------------------- launch: ranks and block ids
def test_ranks_number_ctas_x_fastest_and_block_ids_follow_the_cluster():
    launch = Launch(threads=(64, 1, 1), blocks=(4, 6, 1), thread_vars={"tx": "threadIdx.x"},
                    block_vars={"bx": "blockIdx.x", "by": "blockIdx.y"}, cluster=(2, 3, 1))
    assert launch.machine_threads == 6 * 64
    assert [launch.cta_coords(r) for r in range(6)] == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0),
                                                        (0, 2, 0), (1, 2, 0)]
    # block (3, 4) lies in the cluster of blocks x 2..3, y 3..5; rank 3 is (1, 1): block (3, 4)
    env = launch.base_env({"blockIdx.x": 3, "blockIdx.y": 4}, rank=3)
    assert (env["bx"], env["by"]) == (3, 4)
    assert launch.base_env({"blockIdx.x": 3, "blockIdx.y": 4}, rank=0)["bx"] == 2
    assert env["tx"].shape == (6 * 64,) and env["tx"][64 + 5] == 5   # threadIdx is CTA-local
    # a sampled block stands for its whole cluster: no cluster is checked twice
    picks = Launch(blocks=(8, 1, 1), cluster=(2, 1, 1)).sample_blocks(limit=4)
    assert picks == [{"blockIdx.x": 0}, {"blockIdx.x": 4}, {"blockIdx.x": 6}]


def test_block_rank_in_cluster_decides_per_cta():
    # each CTA stores into its own shared memory: no race between CTAs at the same offsets
    text = kernel("S[tx] = T.float32(1)\nif T.block_rank_in_cluster() == 1:\n    C_1[bx * 128 + tx] = S[tx]")
    assert report(text).verdict == "clean"
    # the same bytes by two threads of one CTA still race
    assert "AG201" in codes(kernel("if T.block_rank_in_cluster() == 1:\n    S[tx // 2] = A_1[tx]"))


def test_a_launch_without_cluster_dims_is_rank_zero():
    text = kernel("if T.block_rank_in_cluster() != 0:\n    S[0] = T.float32(1)").replace(
        '"cluster_dims": [2, 1, 1], ', "")
    assert report(text).verdict == "clean"   # the branch is never taken: no write-write race


def test_block_barriers_are_per_cta():
    # rank 0 and rank 1 pass different __syncthreads: each CTA's barrier waits for its own threads
    text = kernel('''
        S[tx] = T.float32(1)
        if T.block_rank_in_cluster() == 0:
            T.tvm_storage_sync("shared")
            C_1[tx] = S[127 - tx]
        else:
            T.tvm_storage_sync("shared")
            C_1[128 + tx] = S[127 - tx]
    ''')
    assert report(text).verdict == "clean"


def test_elected_lanes_and_mbarriers_are_per_cta():
    # tl_shuffle_elect(0) is thread 0 of every CTA: each CTA initializes its own barrier
    text = kernel('''
        if T.tl_shuffle_elect(0):
            T.ptx_init_barrier_thread_count(bar[0], 128)
        T.ptx_fence_barrier_init()
        T.tvm_storage_sync("shared")
        S[tx] = T.float32(1)
        T.ptx_arrive_barrier(bar[0])
        T.mbarrier_wait_parity(bar[0], 0)
        C_1[bx * 128 + tx] = S[127 - tx]
    ''')
    assert report(text).verdict == "clean"


# ---------------------------------------------------------------- distributed shared memory
REMOTE_STORE = f'''
S[tx] = T.float32(0)
T.cluster_sync()
if T.block_rank_in_cluster() == 0:
    T.ptx_cluster_store({PTR}, A_1[tx], 1, tx)
{{sync}}
if T.block_rank_in_cluster() == 1:
    C_1[tx] = S[tx]
{{end}}'''


def test_remote_store_ordered_by_the_cluster_barrier_is_clean():
    assert report(kernel(REMOTE_STORE.format(sync="T.cluster_sync()", end=""))).verdict == "clean"


def test_remote_store_without_the_cluster_barrier_races_with_the_peer():
    found = report(kernel(REMOTE_STORE.format(sync="", end="")))
    race = next(f for f in found.findings if f.rule.code == "AG201")
    assert "CTA 1's S" in race.message
    # and CTA 1 may exit before the store lands: nothing of CTA 1 waits for it
    assert "AG430" in {f.rule.code for f in found.findings}


def test_the_first_cluster_barrier_orders_the_peer_fill_before_remote_stores():
    text = kernel(REMOTE_STORE.format(sync="T.cluster_sync()", end="")).replace("    T.cluster_sync()\n", "", 1)
    assert "AG201" in codes(text)   # CTA 1's fill S[tx] = 0 and CTA 0's remote store


def test_cluster_arrive_and_wait_split_and_relaxed():
    split = REMOTE_STORE.format(sync="T.cluster_arrive()\nS[128 + tx] = T.float32(2)\nT.cluster_wait()", end="")
    assert report(kernel(split)).verdict == "clean"
    relaxed = split.replace("T.cluster_arrive()", "T.cluster_arrive_relaxed()")
    assert "AG201" in codes(kernel(relaxed))   # a relaxed arrive releases nothing


def test_the_cluster_barrier_waits_for_non_exited_threads_only():
    # PTX ISA barrier.cluster: the wait is for every non-exited thread of the cluster. Rank 1
    # exits without arriving; rank 0's wait returns, and orders nothing of rank 1's.
    text = kernel(f"""
        if T.block_rank_in_cluster() == 1:
            T.ptx_cluster_store({PTR}, A_1[tx], 0, tx)
        else:
            T.cluster_sync()
            C_1[tx] = S[tx]
    """)
    found = report(text)
    # the read races with rank 1's remote stores, which may also land after CTA 0 exits, and
    # nothing shows rank 1 that CTA 0 has started when it stores
    assert {f.rule.code for f in found.findings} == {"AG201", "AG430", "AG431"}


# ---------------------------------------------------------------- a peer's start (AG431)
def test_a_remote_store_before_anything_shows_the_peer_started():
    text = kernel(f"""
        T.ptx_cluster_store({PTR}, A_1[tx], 1 - T.block_rank_in_cluster(), tx)
        T.cluster_sync()
        C_1[tx] = S[tx]
    """)
    found = report(text).findings
    start = [f for f in found if f.rule.code == "AG431"]
    # each CTA stores into the other; one finding per statement
    assert len(start) == 1 and start[0].line == 11 and start[0].witness["target_cta"] in (0, 1)
    assert "before anything shows CTA" in start[0].message
    # a cluster barrier first: every CTA has started, and the trailing one orders the reads
    first = text.replace("    T.ptx_cluster_store", "    T.cluster_sync()\n    T.ptx_cluster_store", 1)
    assert report(first).verdict == "clean"


def test_knowing_a_peer_thread_through_an_mbarrier_phase_shows_it_started():
    # rank 1 learns of rank 0 only through the phase rank 0's remote arrival completes (no cluster
    # barrier before it: that arrival is AG403, the peer's init not ordered before it), so its own
    # store into rank 0 afterwards shows no AG431
    text = kernel(f"""
        if T.tl_shuffle_elect(0):
            T.ptx_init_barrier_thread_count(bar[0], 1)
        T.ptx_fence_barrier_init()
        if T.block_rank_in_cluster() == 1:
            T.mbarrier_wait_parity(bar[0], 0)
            T.ptx_cluster_store({PTR}, A_1[tx], 0, tx)
        else:
            if tx == 0:
                T.ptx_arrive_cluster_barrier(bar[0], 1)
        T.cluster_sync()
    """)
    found = codes(text)
    assert "AG403" in found and "AG431" not in found
    # the same store without the wait: nothing shows rank 1 that rank 0 started
    early = text.replace("T.mbarrier_wait_parity(bar[0], 0)", "T.evaluate(0)", 1)
    assert early != text and "AG431" in codes(early)


# ---------------------------------------------------------------- remote mbarrier arrivals
REMOTE_ARRIVE = f'''
if T.tl_shuffle_elect(0):
    T.ptx_init_barrier_thread_count(bar[0], 1)
T.ptx_fence_barrier_init()
T.cluster_sync()
if T.block_rank_in_cluster() == 0:
    T.ptx_cluster_store({PTR}, A_1[tx], 1, tx)
    T.tvm_storage_sync("shared")
    if tx == 0:
        T.ptx_arrive_cluster_barrier(bar[0], {{target}})
if T.block_rank_in_cluster() == 1:
    T.mbarrier_wait_parity(bar[0], 0)
    C_1[tx] = S[tx]
'''


def test_remote_arrive_releases_the_remote_stores():
    assert report(kernel(REMOTE_ARRIVE.format(target=1))).verdict == "clean"


def test_an_arrive_on_the_wrong_cta_leaves_the_peer_waiting():
    # arriving on its own barrier (rank 0) instead of rank 1's: rank 1 waits forever
    assert "AG408" in codes(kernel(REMOTE_ARRIVE.format(target=0)))


def test_a_remote_arrive_on_a_barrier_the_peer_has_not_initialized():
    text = kernel(REMOTE_ARRIVE.format(target=1)).replace("T.ptx_fence_barrier_init()\n    T.cluster_sync()\n",
                                                          "T.ptx_fence_barrier_init()\n")
    found = report(text)
    init = next(f for f in found.findings if f.rule.code == "AG403")
    assert "before CTA 1 initializes it" in init.message


# ---------------------------------------------------------------- TileLang's cluster kernels
def _check(name: str):
    path = CORPUS / name
    return check_text(path.read_text(), str(path))


def test_the_cluster_multicast_gemm_gets_a_definite_verdict():
    """corpus/real/gemm_sm90a_cluster_multicast.tir (T.copy_cluster with cluster_mask=0b11): rank 0
    multicasts the A tile into both CTAs, but (1) no cluster barrier orders rank 1's mbarrier init
    before rank 0's first multicast completes on it, and (2) rank 0's producer refills a stage of
    rank 1 after waiting only on rank 0's own empty barrier (its consumers), so the refill is not
    ordered after rank 1's fill of that stage completed (nor after rank 1's reads of it)."""
    rep = _check("real/gemm_sm90a_cluster_multicast.tir")
    assert rep.verdict == "buggy"
    by = {(f.rule.code, f.line): f for f in rep.findings}
    assert set(by) == {("AG403", 42), ("AG103", 42)}
    assert "use mbarrier[0] (CTA 1) at line 42 before CTA 1 initializes it" in by["AG403", 42].message
    assert "CTA 1's A_shared" in by["AG103", 42].message
    assert any("2 CTAs of a cluster" in s for s in rep.kernels[0].scope)


def test_the_repaired_multicast_gemm_is_clean_and_its_mutants_are_flagged():
    path = CORPUS / "handwritten" / "gemm_sm90a_cluster_multicast_fixed.tir"
    text = path.read_text()
    assert check_text(text).verdict == "clean"
    lines = text.splitlines(keepends=True)

    def without(pattern: str, nth: int = 0) -> str:   # the statement becomes a no-op
        hits = [i for i, ln in enumerate(lines) if pattern in ln]
        ln = lines[hits[nth]]
        return "".join(lines[:hits[nth]]) + ln[: len(ln) - len(ln.lstrip())] + "T.evaluate(0)\n" + \
            "".join(lines[hits[nth] + 1:])
    assert "AG403" in codes(without("T.cluster_sync()", 0))        # init not published to the peer
    assert "AG430" in codes(without("T.cluster_sync()", 1))        # rank 0 may exit before rank 1's arrivals
    assert "AG408" in codes(without("T.ptx_arrive_cluster_barrier"))  # rank 0's producer waits forever
    flipped = text.replace("T.mbarrier_wait_parity(mbarrier_1[k % 3], k % 6 // 3)",
                           "T.mbarrier_wait_parity(mbarrier_1[k % 3], T.bitwise_xor(k % 6 // 3, 1))")
    assert {"AG409", "AG408"} <= codes(flipped)


@pytest.mark.parametrize("name,expected", [
    ("cluster_dsmem_simt_cluster_sync_sm90a", set()),
    ("cluster_dsmem_simt_remote_arrive_sm90a", set()),
    ("cluster_tma_multicast_demo_sm90a", {("AG403", 27)}),
    ("cluster_dsmem_tma_store_cluster_sm90a", {("AG430", 35)}),
])
def test_tilelang_cluster_test_kernels(name, expected):
    rep = _check(f"real/{name}.tir")
    assert {(f.rule.code, f.line) for f in rep.findings} == expected
    assert rep.verdict == ("buggy" if expected else "clean")


def test_tma_store_cluster_is_clean_with_a_trailing_cluster_barrier():
    """T.copy_cluster(dst_block=1, remote_barrier=...) lowers to tma_store_cluster: rank 0's bulk
    copy reads rank 0's s_src until rank 1's barrier phase completes; rank 0 learns of that only
    through a cluster barrier, which TileLang's test kernel does not have at its end."""
    text = (CORPUS / "real" / "cluster_dsmem_tma_store_cluster_sm90a.tir").read_text()
    fixed = text.rstrip("\n") + "\n        T.cluster_sync()\n"
    assert check_text(fixed).verdict == "clean"
    # rank 1 reading before its wait: the bulk copy's bytes have not been acquired
    assert "AG401" in codes(text.replace("T.mbarrier_wait_parity(s_barrier_1[0], 0)", "T.evaluate(0)"))


def test_two_cta_tma_completes_on_the_leader_barrier():
    text = kernel('''
        if T.tl_shuffle_elect(0):
            T.ptx_init_barrier_thread_count(bar[0], 1)
        T.ptx_fence_barrier_init()
        T.cluster_sync()
        if tx == 0:
            if T.block_rank_in_cluster() == 0:
                T.mbarrier_expect_tx(bar[0], 1024)
            T.tma_load(A, bar[0], T.tvm_access_ptr(T.type_annotation("float32"), S.data, 0, 128, 2), 0, 0, use_2cta=1)
            if T.block_rank_in_cluster() == 0:
                T.ptx_arrive_barrier(bar[0])
        if T.block_rank_in_cluster() == 0:
            T.mbarrier_wait_parity(bar[0], 0)
            C_1[tx] = S[tx]
        T.cluster_sync()
    ''')
    assert report(text).verdict == "clean"   # 2 x 512 bytes land on rank 0's barrier
    assert "AG407" in codes(text.replace("T.mbarrier_expect_tx(bar[0], 1024)", "T.mbarrier_expect_tx(bar[0], 512)")) \
        or "AG406" in codes(text.replace("T.mbarrier_expect_tx(bar[0], 1024)", "T.mbarrier_expect_tx(bar[0], 512)"))


def test_clusters_beyond_the_machine_are_an_engine_limit():
    text = kernel("S[tx] = T.float32(1)", ctas=4, threads=1024, blocks=4)
    program = elaborate(parse(text).functions[0])
    result = Machine(program).run()
    assert result.limit_hit and "cluster of 4 CTAs" in result.limit_hit
