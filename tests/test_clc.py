"""Cluster launch control (sm_100a): `clusterlaunchcontrol.try_cancel` writes a 16-byte response
into shared memory through the async proxy and completes it on an mbarrier with complete-tx of
16 bytes (the multicast form in every CTA of the cluster, each on its own barrier); the
`query_cancel` values read it (models/clc.py, docs/model.md "Cluster launch control")."""
from pathlib import Path

import pytest

from _edits import edit, line_of, outcome

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "clc"
FIELD_CLC = (ROOT / "corpus" / "field" /
             "gemm_tcgen05__gemm_tcgen5mma_ws_clc__gemm_clc_persistent_2cta__sm_100a.tir").read_text()
UNSEEN_QUERY = (ROOT / "corpus" / "unseen_wide" /
                "language__language_cluster__test_clc_query_codegen_includes_cluster_header__sm_90a.tir").read_text()
SINGLE = (DATA / "clc_single_cta_sm100a.tir").read_text()
MULTICAST = (DATA / "clc_multicast_cluster2_sm100a.tir").read_text()

QUERY = ('Out_1[bx * 512 + it * 128 + tx] = T.clc_is_canceled(T.tvm_access_ptr('
         'T.type_annotation("uint32"), result.data, 0, 4, 1))')
WAIT = "T.mbarrier_wait_parity(arrived[0], it % 2)"
EXPECT = "T.ptx_arrive_barrier_expect_tx(arrived[0], 16)"
WAIT_AT = "T.mbarrier_wait_parity(arrived[0]"   # the wait, whatever its parity








# ---------------------------------------------------------------- the corpus kernels
def test_field_clc_gemm_runs_its_tiles_and_finds_the_leader_arrive_races():
    # TileLang's persistent 2-CTA GEMM leaves its tile loops when a response says no cluster was
    # cancelled: the count of cancelled clusters is a size (loop_sizes.py `_clc_sizes`), run for
    # 0..4. Each consumer warp reads `schedule_valid` / `schedule_tile_id` with all 32 lanes, but
    # only lane 0 arrives on `schedule_finished`: lanes are not ordered without __syncwarp, so the
    # scheduler's next store races lanes 1..31's reads (AG201), which can be lapped (AG410)
    verdict, found, report = outcome(FIELD_CLC)
    assert verdict == "buggy"
    # (and AG001 at the kernel's line: counts past 4 are not checked, no induction follows the
    # responses, so the races stand but no claim is made beyond them)
    assert found == {("AG201", 135), ("AG201", 136), ("AG410", 78), ("AG410", 101), ("AG410", 147),
                     ("AG001", 6)}
    race = next(f for f in report.findings if (f.rule.code, f.line) == ("AG201", 135))
    assert "schedule_valid_1" in race.message and "thread 64 at line 135" in race.message
    assert "thread 1 at line 79" in race.message
    text = "\n".join(line for k in report.kernels for line in k.scope)
    assert "checked for cancelled(clc) in {0, 1, 2, 3, 4}" in text
    assert "cancelled(clc): how many clusters" in text


def test_field_clc_gemm_with_syncwarp_keeps_only_the_peer_cta_race():
    # a __syncwarp before each leader's arrive orders the lanes' reads: CTA 0's findings go. CTA
    # 1's scheduler thread waits only for its response's complete-tx (CTA 0's multicast), which
    # carries the bytes, not CTA 0's history (docs/model.md "Cluster launch control"), so its next
    # stores stay unordered with CTA 1's readers (threads 256.., scheduler 320)
    lines = FIELD_CLC.split("\n")
    fixed = []
    for i, line in enumerate(lines):
        if line.strip() in ("if tx == 0:", "if tx == 32:", "if tx % 32 == 0:") and \
                "schedule_finished" in lines[i + 1]:
            fixed.append(line[: len(line) - len(line.lstrip())] + "T.sync_warp()")
        fixed.append(line)
    verdict, found, report = outcome("\n".join(fixed))
    assert verdict == "buggy"
    assert found == {("AG201", 137), ("AG201", 138), ("AG410", 78), ("AG410", 149), ("AG001", 6)}
    assert all("CTA 1" in f.message or "thread 256" in f.message for f in report.findings
               if f.rule.kind != "unsupported")


MMA_LOADED_WAIT = ("T.mbarrier_wait_parity(loaded_1[(work_iter * 128 + k) % 6], "
                   "T.bitwise_and((work_iter * 64 + k // 2) // 3, 1))")
MMA_READ = "T.ptx_tcgen05_mma_ss("
TMEM_FULL_WAIT = ("T.mbarrier_wait_parity(tmem_full_1[T.bitwise_and(work_iter, 1)], "
                  "T.bitwise_and(work_iter // 2, 1))")


@pytest.mark.parametrize("name, old, new, rule, needle", [
    # the MMA warp reads the stage before the TMA load's phase completes
    ("drop the MMA's wait for the load", MMA_LOADED_WAIT, "T.evaluate(0)", "AG401", MMA_READ),
    # the epilogue's first wait returns at once on the fresh barrier: it reads the accumulator
    # the MMA is still writing
    ("flip the epilogue's parity", TMEM_FULL_WAIT,
     TMEM_FULL_WAIT.replace("T.bitwise_and(work_iter // 2, 1))", "T.bitwise_xor(T.bitwise_and(work_iter // 2, 1), 1))"),
     "AG103", MMA_READ),
])
def test_field_clc_gemm_variants_are_found(name, old, new, rule, needle):
    text = edit(FIELD_CLC, old, new)
    verdict, found, _ = outcome(text)
    assert verdict == "buggy", name
    assert (rule, line_of(text, needle)) in found


def test_a_response_no_model_numbers_stops_its_thread_and_keeps_the_prefix():
    # the non-multicast request in a 2-CTA cluster: CTA 0 asks for itself alone, a sequence of
    # its own that the size does not number, so each role stops at its response branch (a thread
    # delayed for ever) and the others run on; what ran is a prefix of a real execution, so its
    # races are the kernel's (RunResult.prefix), and nothing that rests on how runs end is said
    single = FIELD_CLC.replace("T.clc_try_cancel_multicast(", "T.clc_try_cancel(")
    verdict, found, _ = outcome(single)
    assert verdict == "unknown"
    assert found == {("AG001", 6), ("AG001", 79), ("AG001", 102), ("AG001", 139), ("AG001", 148)}
    text = edit(single, MMA_LOADED_WAIT, "T.evaluate(0)")
    verdict, found, _ = outcome(text)
    assert verdict == "buggy"
    assert ("AG401", line_of(text, MMA_READ)) in found
    assert not {code for code, _ in found} & {"AG408", "AG413", "AG411", "AG104", "AG301", "AG430", "AG431"}


def test_unseen_query_on_sm90a_says_the_build_fails_and_checks_it_as_written():
    # below sm_100 ptxas rejects clusterlaunchcontrol itself (nvcc 13.0: "requires .target sm_100
    # or higher"): AG510, as for wgmma on a target without it, and the same findings as the
    # sm_100a lowering of the test (below); it was unknown
    verdict, found, report = outcome(UNSEEN_QUERY)
    assert verdict == "buggy"
    assert found == {("AG510", 15), ("AG417", 15), ("AG417", 16)}
    ag510 = next(f for f in report.findings if f.rule.code == "AG510")
    assert "target sm_90a does not have" in ag510.message
    # the suggestion is a target TileLang's templates build it for, not plain sm_100
    assert "(lower for sm_100a, or check with --arch sm_100a" in ag510.message


def test_a_query_on_a_plain_sm100_target_stays_unknown():
    # ptxas assembles it there, but TileLang's tl::clc_* templates static_assert without
    # CUTLASS_ARCH_CLC_ENABLED (arch- or family-specific targets only): not modelled
    verdict, found, report = outcome(UNSEEN_QUERY.replace('"arch": "sm_90a"', '"arch": "sm_100"'))
    assert verdict == "unknown"
    assert found == {("AG001", 15), ("AG001", 16)}
    assert all("target sm_100" in f.message for f in report.findings)


def test_unseen_query_on_sm100a_reads_a_response_nothing_wrote():
    # the same codegen test retargeted to sm_100a: the query reads 16 shared bytes no
    # try_cancel ever wrote
    verdict, found, _ = outcome(UNSEEN_QUERY.replace('"arch": "sm_90a"', '"arch": "sm_100a"'))
    assert verdict == "buggy"
    assert found == {("AG417", 15), ("AG417", 16)}


# ---------------------------------------------------------------- a single CTA
def test_single_cta_protocol_is_clean():
    # thread 0 arrives with expect_tx(16) and issues try_cancel; every thread waits, reads the
    # response, and a block barrier orders the reads before the next request
    assert outcome(SINGLE)[0] == "clean"


@pytest.mark.parametrize("name, old, new, rule, needle", [
    ("read before the wait", f"{WAIT}\n            {QUERY}", f"{QUERY}\n            {WAIT}", "AG401", QUERY),
    ("drop the wait", WAIT, "T.evaluate(0)", "AG401", QUERY),
    ("drop the expect_tx", EXPECT, "T.ptx_arrive_barrier(arrived[0])", "AG401", QUERY),
    ("expect 8 bytes, not 16", EXPECT, "T.ptx_arrive_barrier_expect_tx(arrived[0], 8)", "AG407", WAIT_AT),
    ("wrong parity", WAIT, "T.mbarrier_wait_parity(arrived[0], (it + 1) % 2)", "AG409", WAIT_AT),
    ("reuse the response before every read", f'{QUERY}\n            T.tvm_storage_sync("shared")', QUERY,
     "AG103", "T.clc_try_cancel("),
    ("no fence after the barrier init", "T.ptx_fence_barrier_init()", "T.evaluate(0)", "AG404", WAIT_AT),
])
def test_single_cta_variants_are_flagged(name, old, new, rule, needle):
    text = edit(SINGLE, old, new)
    verdict, found, _ = outcome(text)
    assert verdict == "buggy", name
    assert (rule, line_of(text, needle)) in found, (name, found)


@pytest.mark.parametrize("old, new", [
    # a response not 16-byte aligned (PTX: naturally aligned)
    ('T.clc_try_cancel(T.tvm_access_ptr(T.type_annotation("uint32"), result.data, 0, 4, 2)',
     'T.clc_try_cancel(T.tvm_access_ptr(T.type_annotation("uint32"), result.data, 1, 4, 2)'),
    # a form TileLang does not print
    ('arrived.data, 0, 1, 3))\n', 'arrived.data, 0, 1, 3), 0)\n'),
    # a target ptxas takes but TileLang's templates do not (no `a` or `f`)
    ('"arch": "sm_100a"', '"arch": "sm_100"'),
])
def test_unmodelled_clc_forms_are_unknown(old, new):
    verdict, found, _ = outcome(edit(SINGLE, old, new))
    assert verdict == "unknown"
    assert {code for code, _ in found} == {"AG001"}


def test_a_target_below_sm100_is_the_build_failure_and_nothing_else():
    # ptxas rejects clusterlaunchcontrol below sm_100: AG510 at the first call, and the kernel,
    # clean on sm_100a, has no other finding (the run reads the instructions as PTX defines them)
    verdict, found, _ = outcome(edit(SINGLE, '"arch": "sm_100a"', '"arch": "sm_90a"'))
    assert verdict == "warnings"
    assert {code for code, _ in found} == {"AG510"}


def test_family_target_is_modelled():
    assert outcome(edit(SINGLE, '"arch": "sm_100a"', '"arch": "sm_100f"'))[0] == "clean"


# ---------------------------------------------------------------- the multicast form, a cluster of two
def test_multicast_protocol_is_clean():
    # each CTA's thread 0 arrives with expect_tx(16) on its own barrier, CTA 0 issues the
    # multicast request, every thread of both CTAs waits on its own CTA's barrier and reads its
    # own copy; a cluster barrier orders both CTAs' reads before CTA 0's next request
    verdict, _, report = outcome(MULTICAST)
    assert verdict == "clean", [(f.rule.code, f.line, f.message) for f in report.findings]


def test_multicast_writes_every_cta():
    # without .multicast::cluster::all CTA 1's barrier never receives its 16 bytes
    text = edit(MULTICAST, "T.clc_try_cancel_multicast(", "T.clc_try_cancel(")
    verdict, found, _ = outcome(text)
    assert verdict == "buggy"
    assert found == {("AG407", line_of(text, WAIT_AT))}


def test_multicast_reuse_before_the_peer_read_is_a_race():
    # a block barrier instead of the cluster barrier: CTA 0's next request may overwrite CTA 1's
    # response before CTA 1's threads read it
    text = edit(MULTICAST, "            T.cluster_sync()", '            T.tvm_storage_sync("shared")')
    verdict, found, _ = outcome(text)
    assert verdict == "buggy"
    assert ("AG401", line_of(text, QUERY)) in found
    assert ("AG103", line_of(text, "T.clc_try_cancel_multicast(")) in found


@pytest.mark.parametrize("old, new, rule, needle", [
    (f"{WAIT}\n            {QUERY}", f"{QUERY}\n            {WAIT}", "AG401", QUERY),
    (EXPECT, "T.ptx_arrive_barrier(arrived[0])", "AG401", QUERY),
    (WAIT, "T.mbarrier_wait_parity(arrived[0], (it + 1) % 2)", "AG409", WAIT_AT),
])
def test_multicast_variants_are_flagged(old, new, rule, needle):
    text = edit(MULTICAST, old, new)
    verdict, found, _ = outcome(text)
    assert verdict == "buggy"
    assert (rule, line_of(text, needle)) in found, found


# ---------------------------------------------------------------- the field kernel without its data-dependent exits
def without_exits(text: str, tiles: int = 3, k: int = 12) -> str:
    """The field CLC GEMM with its four `if schedule_valid_1[0] == 0: T.break_loop()` exits
    removed (every request taken as successful), `tiles` rounds and K loops of `k` stages (the
    stage counter `work_iter * 128 + k` rescaled with them)."""
    lines, out, skip = text.split("\n"), [], False
    for ln in lines:
        if "if schedule_valid_1[0] == 0:" in ln:
            skip = True
            continue
        if skip:
            assert "T.break_loop()" in ln
            skip = False
            continue
        out.append(ln)
    return ("\n".join(out).replace("in range(128):", f"in range({k}):")
            .replace("T.unroll(1024)", f"T.unroll({tiles})")
            .replace("work_iter * 128", f"work_iter * {k}")
            .replace("work_iter * 64 + k // 2", f"work_iter * {k // 2} + k // 2"))


def test_field_clc_gemm_without_its_exits_shows_the_leader_only_release():
    # with the response's outcome fixed, the protocol around it runs: lanes 1..31 of the producer
    # warp (and of each epilogue warp) read schedule_tile_id after the schedule_published wait,
    # but only lane 0 (tx % 32 == 0) arrives on schedule_finished, so the scheduler thread's next
    # store of schedule_tile_id is not ordered after their reads (AG201), and they can be lapped
    # at the schedule_published wait (AG410), the engine's default leader-arrive rule
    text = without_exits(FIELD_CLC)
    verdict, found, _ = outcome(text)
    assert verdict == "buggy"
    store = line_of(text, "schedule_tile_id_1[0] = T.Cast")
    producer_wait = line_of(text, "T.mbarrier_wait_parity(schedule_published_1[0]")
    assert ("AG201", store) in found and ("AG410", producer_wait) in found


def test_field_clc_gemm_every_lane_releasing_still_races_in_cta_1():
    # every reader lane arrives on schedule_finished (count 13 -> 323): CTA 0's scheduler waits
    # for them before its next request, but CTA 1's scheduler thread waits only for its own
    # barrier's response bytes, and a complete-tx carries the response, not the requester's
    # history (PTX ISA 8.9.1.1 for bulk copies): CTA 1's next store of schedule_tile_id races
    # with CTA 1's readers of the previous one
    text = without_exits(FIELD_CLC)
    text = edit(text, "                        if tx == 0:\n                            T.ptx_arrive_cluster_barrier(schedule_finished_1[0], 0)",
                "                        T.ptx_arrive_cluster_barrier(schedule_finished_1[0], 0)")
    text = edit(text, "                                    if tx % 32 == 0:\n                                        T.ptx_arrive_cluster_barrier(schedule_finished_1[0], 0)",
                "                                    T.ptx_arrive_cluster_barrier(schedule_finished_1[0], 0)")
    text = edit(text, "T.ptx_init_barrier_thread_count(schedule_finished_1[0], 13)",
                "T.ptx_init_barrier_thread_count(schedule_finished_1[0], 323)")
    verdict, found, report = outcome(text)
    assert verdict == "buggy"
    store = line_of(text, "schedule_tile_id_1[0] = T.Cast")
    assert ("AG201", store) in found
    race = next(f for f in report.findings if (f.rule.code, f.line) == ("AG201", store))
    assert "smem bytes 999424" in race.message   # CTA 1's copy (byte 212992 + the CTA stride 786432)


# ---------------------------------------------------------------- a persistent loop of one CTA
PERSISTENT = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(Out: T.handle("int32", "global")):
        T.func_attr({"calling_conv": 2, "dyn_shared_memory_buf": 16, "target": T.target({"arch": "sm_100a", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "thread_extent": {"blockIdx.x": 4, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}, "tirx.is_global_func": T.bool(True), "tirx.noalias": True})
        Out_1 = T.decl_buffer((8192,), "int32", data=Out)
        bx = T.launch_thread("blockIdx.x", 4)
        result = T.alloc_buffer((4,), "uint32", scope="shared.dyn")
        valid = T.alloc_buffer((1,), "int32", scope="shared")
        arrived = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
        tx = T.launch_thread("threadIdx.x", 128)
        ty = T.launch_thread("threadIdx.y", 1)
        tz = T.launch_thread("threadIdx.z", 1)
        if tx == 0:
            T.ptx_init_barrier_thread_count(arrived[0], 1)
        T.ptx_fence_barrier_init()
        T.tvm_storage_sync("shared")
        for it in T.unroll(16):
            if tx == 0:
                T.ptx_arrive_barrier_expect_tx(arrived[0], 16)
                T.clc_try_cancel(T.tvm_access_ptr(T.type_annotation("uint32"), result.data, 0, 4, 2), T.tvm_access_ptr(T.type_annotation("uint64"), arrived.data, 0, 1, 3))
            T.mbarrier_wait_parity(arrived[0], it % 2)
            if tx == 0:
                valid[0] = T.clc_is_canceled(T.tvm_access_ptr(T.type_annotation("uint32"), result.data, 0, 4, 1))
            T.tvm_storage_sync("shared")
            if valid[0] == 0:
                T.break_loop()
            Out_1[bx * 2048 + it * 128 + tx] = it
            T.tvm_storage_sync("shared")
'''
LEAVE = "            if valid[0] == 0:\n"


def test_a_persistent_loop_is_checked_for_each_count_of_cancelled_clusters():
    verdict, found, report = outcome(PERSISTENT)
    assert verdict == "clean", found
    text = "\n".join(line for k in report.kernels for line in k.scope)
    # 16 requests at most: every count from 0 to 16 is run, one per trip count (0..8: the tile
    # loop is cut at count + 8, so counts from 8 on run its 16 iterations alike)
    assert "proved for every cancelled(clc) from 0 to 16" in text
    assert "checked cancelled(clc) in {0, 1, 2, 3, 4, 5, 6, 7, 8}" in text
    assert f"tile loops at lines [{line_of(PERSISTENT, 'for it in T.unroll(16):')}]" in text


def test_a_persistent_loop_missing_its_second_barrier_races_at_the_next_response():
    # without the barrier after the test, thread 0 stores the next response's value while other
    # threads may still read the last one (found with one cancelled cluster: two responses)
    text = PERSISTENT.replace("            Out_1[bx * 2048 + it * 128 + tx] = it\n            T.tvm_storage_sync(\"shared\")\n",
                              "            Out_1[bx * 2048 + it * 128 + tx] = it\n")
    verdict, found, report = outcome(text)
    assert verdict == "buggy"
    assert ("AG201", line_of(text, "valid[0] = T.clc_is_canceled")) in found
    assert all(f.witness.get("sizes", {}).get("cancelled(clc)", 0) >= 1 for f in report.findings if f.rule.code == "AG201")


def test_a_loop_that_runs_out_of_its_cut_stops_and_says_so():
    # the response is tested but the test never leaves (no thread has tx >= 1000): the loop runs
    # to the cut, where the kernel's own loop would go on, so the run stops there (AG001)
    text = edit(PERSISTENT, LEAVE, "            if valid[0] == 0 and tx >= 1000:\n")
    verdict, found, report = outcome(text)
    assert verdict == "unknown"
    line = line_of(text, "for it in T.unroll(16):")
    assert ("AG001", line) in found
    assert any("cut to" in f.message for f in report.findings if f.line == line)
