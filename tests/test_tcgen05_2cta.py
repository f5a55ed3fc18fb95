"""Blackwell 2-CTA tcgen05 (`cta_group::2`) in a cluster of two, and `while` loops run iteration
by iteration. The kernels are TileLang 0.1.15's own sm_100a GEMMs from the field corpus
(corpus/field), some with their K loop and tile loop shortened (the protocol is the same at
every size; the full-size runs are what the field corpus times); the variants are single-bug
edits (asyncguard/mutants.py). docs/model.md ("2-CTA forms", "Threads and paths") states the
rules these pin down."""
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text
from asyncguard.engine.nodes import PNote, PWhile, statements
from asyncguard.engine.program import elaborate
from asyncguard.mutants import EXPECTED_RULES, mutations
from asyncguard.parse import parse

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
GEMM_2CTA = (FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws__gemm_2cta__sm_100a.tir").read_text()
PERSISTENT_2CTA = (FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__sm_100a.tir").read_text()
STREAMK_2CTA = (FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws_persistent_streamk__gemm_streamk_2cta__sm_100a.tir").read_text()
AWS_GEMM = (FIELD / "aws__gemm__gemm__sm_100a.tir").read_text()


def shortened(text: str, k: int, tiles: int | None = None) -> str:
    """The kernel with its K loops of 128 stages cut to `k` and its `while idx < 1024/2048` tile
    loops to `tiles` (the same schedule, fewer rounds)."""
    out = text.replace("in range(128):", f"in range({k}):")
    if tiles is not None:
        out = out.replace("< 1024:", f"< {tiles}:").replace("< 2048:", f"< {tiles}:")
    assert out != text
    return out


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def variant(text: str, kind: str, needle: str):
    """The single-bug mutation of `kind` on the line holding `needle`."""
    line = line_of(text, needle)
    found = [m for m in mutations(text) if m.kind == kind and m.line == line]
    assert found, (kind, needle)
    return found[0].apply(text)


# ---------------------------------------------------------------- 2-CTA GEMM (gemm_tcgen5mma_ws.py, gemm_2cta)
def test_field_two_cta_gemm_is_clean():
    # both CTAs' producer warps wait `consumed` (the MMA warp's multicast commit) before each
    # refill and arrive on the leader's `loaded` (64 = both warps); the leader's MMA warp waits
    # `loaded`; both CTAs' epilogues wait `tmem_full` before reading their own tensor memory
    report = check_text(GEMM_2CTA)
    assert report.verdict == "clean", [(f.rule.code, f.line, f.message) for f in report.findings]


SMALL_2CTA = shortened(GEMM_2CTA, 12)
CONSUMED_WAIT = "T.mbarrier_wait_parity(consumed_1[k % 6]"
LOADED_WAIT = "T.mbarrier_wait_parity(loaded_1[k % 6]"
TMEM_FULL_WAIT = "T.mbarrier_wait_parity(tmem_full_1[0], 0)"
CONSUMED_COMMIT = "T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation(\"uint64\"), consumed.data"
TMEM_FULL_COMMIT = "T.tcgen05_mma_arrive(T.tvm_access_ptr(T.type_annotation(\"uint64\"), tmem_full.data"


def test_shortened_two_cta_gemm_is_clean():
    assert check_text(SMALL_2CTA).verdict == "clean"


@pytest.mark.parametrize("kind, needle", [
    ("flip-parity", CONSUMED_WAIT),
    ("flip-parity", LOADED_WAIT),
    ("flip-parity", TMEM_FULL_WAIT),
    ("drop-mbarrier-wait", LOADED_WAIT),
    ("drop-mbarrier-wait", TMEM_FULL_WAIT),
    ("drop-arrive", CONSUMED_COMMIT),
    ("drop-arrive", TMEM_FULL_COMMIT),
    ("drop-remote-arrive", "T.ptx_arrive_cluster_barrier(loaded_1[k % 6], 0)"),
    ("drop-cluster-sync", "T.tvm_storage_sync(\"cluster\")"),
])
def test_two_cta_gemm_variants_are_flagged(kind, needle):
    report = check_text(variant(SMALL_2CTA, kind, needle))
    codes = {f.rule.code for f in report.findings}
    assert report.verdict == "buggy"
    assert codes & EXPECTED_RULES[kind], (kind, codes)


def test_the_peer_ctas_accumulator_completes_on_its_own_commit_arrival():
    # without the tmem_full wait, every thread of both CTAs reads the tensor memory the leader's
    # MMA writes in its own CTA: the peer's read races with the write into the peer's copy
    text = variant(SMALL_2CTA, "drop-mbarrier-wait", TMEM_FULL_WAIT)
    ld = line_of(text, "T.tcgen05_ld(")
    reads = [f for f in check_text(text).findings if f.rule.code == "AG401" and f.line == ld]
    assert reads and "tensor memory" in reads[0].message


def test_two_cta_forms_outside_a_cluster_of_two_stay_unknown():
    # the commit's CTA mask is the template's default 3: it names the pair only in a cluster of two
    text = SMALL_2CTA.replace('"cluster_dims": [2, 1, 1]', '"cluster_dims": [4, 1, 1]')
    assert text != SMALL_2CTA
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "cluster of 4" in f.message for f in report.findings)


# ---------------------------------------------------------------- persistent 2-CTA GEMM: while tile loops
SMALL_PERSISTENT = shortened(PERSISTENT_2CTA, 8, 160)   # cluster 0 runs tiles 0, 74 and 148


def test_persistent_two_cta_gemm_with_while_tile_loops_is_clean():
    assert check_text(SMALL_PERSISTENT).verdict == "clean"


@pytest.mark.parametrize("kind, needle", [
    ("flip-parity", "T.mbarrier_wait_parity(consumed_1[phase % 6]"),
    ("flip-parity", "T.mbarrier_wait_parity(tmem_empty_1["),
    ("drop-arrive", TMEM_FULL_COMMIT),
    ("drop-remote-arrive", "T.ptx_arrive_cluster_barrier(loaded_1[phase % 6], 0)"),
])
def test_persistent_two_cta_gemm_variants_are_flagged(kind, needle):
    report = check_text(variant(SMALL_PERSISTENT, kind, needle))
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & EXPECTED_RULES[kind]


# ---------------------------------------------------------------- while loops
def prelude(name: str) -> str:
    """A 4-block, 128-thread sm_80 kernel `name` over global X, Y and F, with a 128-float shared S."""
    return f'''# from tvm.script import tirx as T

@T.prim_func
def {name}(X: T.handle("float32", "global"), Y: T.handle("float32", "global"), F: T.handle("int32", "global")):
    T.func_attr({{"target": T.target({{"arch": "sm_80", "kind": "cuda"}}), "thread_extent": {{"blockIdx.x": 4, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    X_1 = T.decl_buffer((4096,), data=X)
    Y_1 = T.decl_buffer((4096,), data=Y)
    F_1 = T.decl_buffer((4,), "int32", data=F)
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 128)
    S = T.alloc_buffer((128,), scope="shared")
'''


WHILE = prelude("rounds") + '''    it = T.alloc_buffer((1,), "int32", scope="local")
    it_1 = T.decl_buffer((1,), "int32", data=it.data, scope="local")
    it_1[0] = bx
    while it_1[0] < {limit}:
        S[tx] = X_1[it_1[0] * 128 + tx]
        T.tvm_storage_sync("shared")
        Y_1[it_1[0] * 128 + tx] = S[(tx + 1) % 128]
        T.tvm_storage_sync("shared")
        it_1[0] = it_1[0] + {step}
'''


def rounds(limit: str = "32", step: str = "4") -> str:
    return WHILE.replace("{limit}", limit).replace("{step}", step)


def test_while_loop_over_a_register_runs_each_iteration():
    assert check_text(rounds()).verdict == "clean"


@pytest.mark.parametrize("barrier", ["        T.tvm_storage_sync(\"shared\")\n        Y_1",
                                     "        T.tvm_storage_sync(\"shared\")\n        it_1"])
def test_while_loop_body_without_its_barrier_races(barrier):
    text = rounds()
    assert barrier in text
    report = check_text(text.replace(barrier, barrier.split("\n")[1], 1))
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG201" for f in report.findings)


def test_while_condition_that_differs_between_threads_splits_them():
    # block 3 runs rounds 3, 7, ..., 31: threads 64..127 stop before round 31 (31 < 31 fails),
    # threads 0..63 run it and wait at its barrier for threads that have left: a real hang
    report = check_text(rounds(limit="32 - tx // 64"))
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG301" and "64 of 128" in f.message for f in report.findings)


def test_while_polling_global_memory_stays_unknown_naming_it():
    report = check_text(rounds(limit="F_1[bx]"))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "polling global memory (F_1)" in f.message for f in report.findings)


def test_while_that_never_ends_is_stopped_by_the_statement_limit():
    report = check_text(rounds(step="0"), limits=Limits(max_steps=4_000))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG002" for f in report.findings)


def test_stream_k_spin_on_a_global_counter_is_not_run():
    # `while fixup_value[0] < ...: fixup_value[0] = atomic_load(Fixup[tile])` waits for the other
    # blocks' partial tiles: its trip count is theirs, not the engine's. It only reloads a
    # register, so it is an assumption (assumed to end), not a gap; the tile loops over registers
    # are run, and the fixup flag's global atomic store is no unmodelled operation
    program = elaborate(parse(STREAMK_2CTA).functions[0])
    spin = line_of(STREAMK_2CTA, "while fixup_value_1[0] <")
    notes = {s.span.line: s for s in statements(program.body) if isinstance(s, PNote)}
    assert "polling global memory (Fixup)" in notes[spin].reason and notes[spin].assumed
    assert notes[spin].clears == (("fixup_value", 1),)
    assert line_of(STREAMK_2CTA, "T.atomic_store_elem_op(") not in notes
    loops = {s.span.line for s in statements(program.body) if isinstance(s, PWhile)}
    assert line_of(STREAMK_2CTA, "while bx // 2 * 107") in loops and spin not in loops


def test_stream_k_two_cta_gemm_is_clean_with_its_spin_assumed():
    # the full kernel (its tiles are not shortened: the spin's bound and the split K ranges are
    # tied to the sizes); its mbarrier variants around the spin stay flagged (below, by SPIN)
    report = check_text(STREAMK_2CTA)
    assert report.verdict == "clean", [f.message for f in report.findings]
    spin = line_of(STREAMK_2CTA, "while fixup_value_1[0] <")
    assert any(line.startswith(f"line {spin}: while loop polling global memory (Fixup)")
               for line in report.kernels[0].scope)


SPIN = prelude("spin") + '''    flag = T.alloc_buffer((1,), "int32", scope="local")
    flag_1 = T.decl_buffer((1,), "int32", data=flag.data, scope="local")
    S[tx] = X_1[bx * 128 + tx]
    if tx == 0:
        flag_1[0] = T.atomic_load_elem_op(T.tvm_access_ptr(T.type_annotation("int32"), F, bx, 1, 1), 2)
        while flag_1[0] < 1:
            flag_1[0] = T.atomic_load_elem_op(T.tvm_access_ptr(T.type_annotation("int32"), F, bx, 1, 1), 2)
        T.atomic_store_elem_op(T.tvm_access_ptr(T.type_annotation("int32"), F, bx, 1, 2), 0, 3)
    T.tvm_storage_sync("shared")
    Y_1[bx * 128 + tx] = S[(tx + 1) % 128]
'''
SPIN_LINE = line_of(SPIN, "while flag_1[0] < 1:")
SPIN_SYNC = '    T.tvm_storage_sync("shared")\n'


def test_spin_on_a_global_flag_is_assumed_to_end_in_the_scope():
    report = check_text(SPIN)
    assert report.verdict == "clean", report.findings
    assert any(line.startswith(f"line {SPIN_LINE}: while loop polling global memory (F)")
               and "assumed to end" in line and "no finding rests on it" in line for line in report.kernels[0].scope)


def test_a_race_between_threads_the_spin_never_reached_stays_definite():
    # thread 0 spun, so its read is uncertain (engine/taint.py); threads 1..127 race without it
    report = check_text(SPIN.replace(SPIN_SYNC, ""))
    assert report.verdict == "buggy"
    race = next(f for f in report.findings if f.rule.code == "AG201")
    assert 0 not in (race.witness["first"]["thread"], race.witness["second"]["thread"])


def test_a_race_only_the_spinning_thread_has_is_unknown_naming_the_spin():
    # thread 0's read of S[5] after its spin is the only unordered access: it rests on the spin
    # (another block's release through F could order it), so the spin becomes a note
    racy = SPIN.replace("0, 3)\n", "0, 3)\n        Y_1[bx] = S[5]\n", 1)
    report = check_text(racy)
    assert report.verdict == "unknown"
    assert [f.line for f in report.findings if f.rule.code == "AG001"] == [SPIN_LINE]
    assert "a finding rested on it" in report.findings[0].message
    assert not any(SPIN_LINE == int(line.split(":")[0][5:]) for line in report.kernels[0].scope if line.startswith("line "))


def test_a_hang_after_the_spin_stays_definite():
    # the spin leaves thread 0's order uncertain, not its progress: the barrier only thread 0
    # reaches after it hangs whatever another block did (engine/taint.py, Taint.progress)
    hang = SPIN.replace("0, 3)\n", "0, 3)\n        T.tvm_storage_sync(\"shared\")\n", 1)
    report = check_text(hang)
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG301" for f in report.findings)


def test_an_atomic_store_into_shared_memory_is_a_write_after_the_spin():
    # an atomic on shared memory is modelled (models/atomics.py): thread 0's atomic store into
    # S[3] meets thread 3's plain store at line 14 with no barrier between, a race that rests on
    # thread 0 having left the spin: the spin's note, not a note on the atomic
    shared = SPIN.replace('T.atomic_store_elem_op(T.tvm_access_ptr(T.type_annotation("int32"), F, bx, 1, 2)',
                          'T.atomic_store_elem_op(T.tvm_access_ptr(T.type_annotation("float32"), S.data, 3, 1, 2)')
    report = check_text(shared)
    assert report.verdict == "unknown"
    assert not any("atomic_store_elem_op" in f.message for f in report.findings)
    assert [f.line for f in report.findings if f.rule.code == "AG001"] == [SPIN_LINE]
    assert "a finding rested on it" in report.findings[0].message


# ---------------------------------------------------------------- single-CTA persistent GEMM over while loops
SMALL_AWS = shortened(AWS_GEMM, 8, 600)   # block 0 runs tiles 0, 148, 296, 444 and 592


def test_persistent_tcgen05_gemm_with_while_tile_loops_is_clean():
    # a double-buffered accumulator (two 256-column halves of a 512-column allocation) read with
    # tcgen05_ld at `C_tmem[0] + column`
    assert check_text(SMALL_AWS).verdict == "clean"


@pytest.mark.parametrize("kind, needle", [
    ("flip-parity", "T.mbarrier_wait_parity(smem_empty_1["),
    ("flip-parity", "T.mbarrier_wait_parity(tmem_full_1["),
    ("drop-arrive", "T.ptx_arrive_barrier(tmem_empty_1["),
])
def test_persistent_tcgen05_gemm_variants_are_flagged(kind, needle):
    report = check_text(variant(SMALL_AWS, kind, needle))
    assert report.verdict == "buggy"
    assert {f.rule.code for f in report.findings} & EXPECTED_RULES[kind]
