"""Cluster launch control (sm_100a): `clusterlaunchcontrol.try_cancel` writes a 16-byte response
into shared memory through the async proxy and completes it on an mbarrier with complete-tx of
16 bytes (the multicast form in every CTA of the cluster, each on its own barrier); the
`query_cancel` values read it (models/clc.py, docs/model.md "Cluster launch control")."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

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


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def outcome(text: str):
    report = check_text(text)
    return report.verdict, {(f.rule.code, f.line) for f in report.findings}, report


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# ---------------------------------------------------------------- the corpus kernels
def test_field_clc_gemm_is_unknown_at_the_cancel_response_branch():
    # TileLang's persistent 2-CTA GEMM leaves its tile loop when the response says no cluster
    # was cancelled: a loop whose trip count the hardware decides, which no run enumerates. Each
    # role (producer, MMA, scheduler, epilogue) stops at its own test of the response
    verdict, found, report = outcome(FIELD_CLC)
    assert verdict == "unknown"
    assert found == {("AG001", 79), ("AG001", 102), ("AG001", 139), ("AG001", 148)}
    assert all("cluster launch control response" in f.message and "line 135: T.clc_is_canceled"
               in f.message for f in report.findings)


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
def test_field_clc_gemm_variants_are_found_before_the_first_response(name, old, new, rule, needle):
    # the runs stop at the response branches, but what ran before them (every role's first
    # tile) is a prefix of a real execution: its races are the kernel's (RunResult.prefix)
    text = edit(FIELD_CLC, old, new)
    verdict, found, _ = outcome(text)
    assert verdict == "buggy", name
    assert (rule, line_of(text, needle)) in found
    # nothing that rests on how a run ends: it did not end there
    assert not {code for code, _ in found} & {"AG408", "AG413", "AG411", "AG104", "AG301", "AG430", "AG431"}


def test_unseen_query_on_sm90a_is_unknown_naming_the_target():
    # TileLang's tl::clc_* static_assert without CUTLASS_ARCH_CLC_ENABLED (sm_100a/f and later
    # arch- or family-specific targets only): on sm_90a the kernel does not compile
    verdict, found, report = outcome(UNSEEN_QUERY)
    assert verdict == "unknown"
    assert found == {("AG001", 15), ("AG001", 16)}
    assert all("target sm_90a" in f.message for f in report.findings)


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
    # targets on which TileLang's templates do not compile
    ('"arch": "sm_100a"', '"arch": "sm_90a"'),
    ('"arch": "sm_100a"', '"arch": "sm_100"'),
])
def test_unmodelled_clc_forms_are_unknown(old, new):
    verdict, found, _ = outcome(edit(SINGLE, old, new))
    assert verdict == "unknown"
    assert {code for code, _ in found} == {"AG001"}


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
