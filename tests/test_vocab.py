"""The vocabulary TileLang prints beyond the corpus: dtypes, lambdas, templates and builtins.
Each construct is either modelled (clean when synchronized, flagged when not) or an AG001
naming it."""
import textwrap
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.models.memory import dtype_bits, dtype_bytes

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": {threads}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    tx = T.launch_thread("threadIdx.x", {threads})
    S = T.alloc_buffer(({elems},), "{dtype}", scope="shared.dyn")
'''


def kernel(body: str, threads: int = 64, dtype: str = "float16", elems: int = 4096) -> str:
    return HEAD.format(threads=threads, dtype=dtype, elems=elems) + \
        textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def codes(text: str) -> set:
    return {f.rule.code for f in check_text(text).findings}


def verdict(text: str) -> str:
    return check_text(text).verdict


# ---------------------------------------------------------------- dtypes (tvm_ffi DLDataTypeToString)
@pytest.mark.parametrize("dtype,bits", [
    ("int4", 4), ("uint4", 4), ("int2", 2), ("uint2", 2), ("int1", 1), ("uint1", 1),
    ("float4_e2m1fn", 4), ("float4_e2m1fnx2", 8), ("float6_e2m3fn", 6), ("float6_e3m2fn", 6),
    ("float8_e4m3fn", 8), ("float8_e4m3fnuz", 8), ("float8_e4m3", 8), ("float8_e4m3b11fnuz", 8),
    ("float8_e5m2", 8), ("float8_e5m2fnuz", 8), ("float8_e8m0fnu", 8), ("float8_e3m4", 8),
    ("e4m3_float8", 8), ("float8_e4m3fnx4", 32), ("custom[tfloat32]32", 32), ("custom[tfloat32]", 32),
    ("custom[float4_e2m1_unpacked]", 8), ("bool", 8),
    ("boolx4", 32), ("int8x4", 32), ("uint4x8", 32), ("float16x2", 32), ("bfloat16", 16),
    ("float64", 64), ("handle", 64), ("uint8x128", 1024),
])
def test_element_bits_of_every_printed_dtype(dtype, bits):
    assert dtype_bits(dtype) == bits
    assert dtype_bytes(dtype) == (bits // 8 if bits % 8 == 0 else None)


@pytest.mark.parametrize("dtype", ["float8_foo", "int32xvscalex4", "void", "tensor", "custom[posit16]"])
def test_unknown_dtypes_have_no_size(dtype):
    assert dtype_bits(dtype) is None


def test_sub_byte_elements_cover_their_bytes():
    # int4: thread t writes element 2t (byte t); neighbours write distinct bytes: no race
    apart = kernel("S[tx * 2] = T.int8(0)\nT.tvm_storage_sync(\"shared\")\nC[tx] = T.Cast(\"float16\", S[tx * 2 + 1])",
                   dtype="int4")
    assert verdict(apart) == "clean"
    # elements 2t and 2t+1 share byte t: two threads writing them race on that byte
    shared = kernel("S[tx] = T.int8(0)", dtype="int4")
    assert "AG201" in codes(shared)


def test_custom_tfloat32_is_four_bytes_for_tma_accounting():
    # 64 x 64 tf32 = 16384 bytes: expect_tx(16384) matches the box; at 1 byte per element it hung (AG407)
    text = kernel('''
        mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
        if tx == 0:
            T.ptx_init_barrier_thread_count(mbar[0], 1)
        T.ptx_fence_barrier_init()
        T.tvm_storage_sync("shared")
        if tx == 0:
            T.mbarrier_expect_tx(mbar[0], 16384)
            T.tma_load(A, mbar[0], T.tvm_access_ptr(T.type_annotation("custom[tfloat32]32"), S, 0, 4096, 2), 0, 0)
            T.ptx_arrive_barrier(mbar[0])
        T.mbarrier_wait_parity(mbar[0], 0)
        C[tx] = T.Cast("float16", S[tx])
    ''', dtype="custom[tfloat32]32")
    assert verdict(text) == "clean", [(f.rule.code, f.message) for f in check_text(text).findings]


# ---------------------------------------------------------------- syntax
def test_comm_reducer_lambda_parses_and_checks():
    text = kernel('''
        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
            S[tx] = T.float16(0)
        T.tvm_storage_sync("shared")
        C[tx] = S[63 - tx]
    ''')
    assert verdict(text) == "clean"


# ---------------------------------------------------------------- device templates
CUMSUM = 'T.call_extern("float32", "tl::CumSum2D<64, {axis}, false>::run", ' \
         'T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 256, 1), ' \
         'T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 256, 2), 8, 32, 32, 32)'


@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_2d_template(axis):
    fill = "for i in range(4):\n    S[tx * 4 + i] = T.float32(1)\n"
    synced = kernel(fill + 'T.tvm_storage_sync("shared")\n' + CUMSUM.format(axis=axis) +
                    '\nT.tvm_storage_sync("shared")\nC[tx] = T.Cast("float16", S[255 - tx])', dtype="float32")
    assert verdict(synced) == "clean", [(f.rule.code, f.message) for f in check_text(synced).findings]
    unsynced = kernel(fill + CUMSUM.format(axis=axis), dtype="float32")
    assert "AG201" in codes(unsynced)


def test_cumsum_1d_only_the_first_warp_takes_part():
    call = ('T.call_extern("float32", "tl::CumSum1D<64, false>::run", '
            'T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 64, 1), '
            'T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 64, 2), 64)')
    fill = 'S[tx] = T.float32(1)\nT.tvm_storage_sync("shared")\n'   # the scanned bytes hold data
    # warp 1 writes S[64..127], which the scan of S[0..63] never touches: no race
    text = kernel(fill + "if tx >= 32:\n    S[tx + 32] = T.float32(0)\n" + call, dtype="float32")
    assert verdict(text) == "clean", [(f.rule.code, f.message) for f in check_text(text).findings]
    # warp 1 writes S[32..63] while warp 0 scans them: a race
    text = kernel(fill + "if tx >= 32:\n    S[tx] = T.float32(0)\n" + call, dtype="float32")
    assert "AG201" in codes(text)


def test_all_reduce_batch_uses_the_workspace_stride():
    call = ('T.call_extern("handle", "tl::AllReduce<tl::SumOp, 64, 1, 0, tl::SyncThreadsBarrier, 2, 64>::run_batch", '
            'T.address_of(x[0]), T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 128, 3))')
    text = kernel("x = T.alloc_buffer((2,), \"float32\", scope=\"local\")\n" + call +
                  "\nS[tx + 128] = T.float32(0)", dtype="float32")
    assert verdict(text) == "clean"
    # the second channel's slice S[64..127] is read after the last barrier: writing it races
    text = kernel("x = T.alloc_buffer((2,), \"float32\", scope=\"local\")\n" + call +
                  "\nS[127 - tx] = T.float32(0)", dtype="float32")
    assert "AG201" in codes(text)


# ---------------------------------------------------------------- cp.async completing on an mbarrier
NOINC = '''
    mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    if tx == 0:
        T.ptx_init_barrier_thread_count(mbar[0], 32)
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    if tx < 32:
        T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
        T.ptx_cp_async_barrier_noinc(mbar[0])
    else:
        {wait}
        C[tx] = S[tx * 4]
'''


def test_cp_async_noinc_completes_copies_on_the_phase():
    assert verdict(kernel(NOINC.format(wait="T.mbarrier_wait_parity(mbar[0], 0)"))) == "clean"
    # without the wait the consumer reads bytes still in flight
    assert codes(kernel(NOINC.format(wait="T.evaluate(0)"))) & {"AG101", "AG401", "AG201"}
    # the wrong parity returns at once: the copies have not landed
    assert codes(kernel(NOINC.format(wait="T.mbarrier_wait_parity(mbar[0], 1)"))) - {"AG001"}


# ---------------------------------------------------------------- builtins
def test_sync_grid_and_cluster_sync_order_the_block():
    for sync in ("T.sync_grid()", "T.cluster_sync()"):
        text = kernel(f"S[tx] = T.float16(0)\n{sync}\nC[tx] = S[63 - tx]")
        assert verdict(text) == "clean", sync
    # only some threads reach the grid sync: the others never arrive at its block barrier
    text = kernel("if tx < 32:\n    T.sync_grid()")
    assert "AG301" in codes(text)


def test_a_block_barrier_the_absent_threads_exited_before_is_named_as_such():
    # PTX waits only for threads that have not exited, so this need not hang; CUDA's rules still
    # forbid it
    exited = [f for f in check_text(kernel('if 32 <= tx:\n    T.tvm_storage_sync("shared")')).findings
              if f.rule.code == "AG301"]
    assert exited and "threads 0..31 exited without reaching it" in exited[0].message
    assert "need not hang" in exited[0].message and exited[0].witness["exited"] == "0..31"
    assert "grid_sync_without_master" not in exited[0].witness
    blocked = kernel('mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")\n'
                     'if tx == 0:\n    T.ptx_init_barrier_thread_count(mbar[0], 1)\n'
                     'T.tvm_storage_sync("shared")\n'
                     'if tx < 32:\n    T.tvm_storage_sync("shared")\nelse:\n    T.mbarrier_wait_parity(mbar[0], 0)')
    stuck = [f for f in check_text(blocked).findings if f.rule.code == "AG301"]
    assert stuck and "never arrive (hang)" in stuck[0].message and "exited" not in stuck[0].witness


def test_a_grid_sync_that_thread_0_of_the_block_never_reaches_says_the_handshake_is_skipped():
    # cooperative groups' sync_grids: thread (0, 0, 0) of each block performs the grid-wide
    # arrive and spin between two block barriers. TileLang's persistent MLA decode lowered for
    # sm_120 calls sync_grid in its consumer branch only, after the producers (0..127) exited
    for absent, how in (("if 32 <= tx:\n    T.sync_grid()", "exited before it"),
                        ('mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")\n'
                         'if tx == 0:\n    T.ptx_init_barrier_thread_count(mbar[0], 1)\n'
                         'T.tvm_storage_sync("shared")\n'
                         'if 32 <= tx:\n    T.sync_grid()\nelse:\n    T.mbarrier_wait_parity(mbar[0], 0)',
                         "never reaches it")):
        (f,) = [f for f in check_text(kernel(absent)).findings if f.rule.code == "AG301"]
        assert f.witness["grid_sync_without_master"] is True
        assert f"thread 0 of the block {how}" in f.message and "orders nothing across blocks" in f.message
    # thread 0 reaches it, others do not: the plain hang, not the skipped handshake
    waits = ('mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")\n'
             'if tx == 0:\n    T.ptx_init_barrier_thread_count(mbar[0], 1)\n'
             'T.tvm_storage_sync("shared")\n'
             'if tx < 32:\n    T.sync_grid()\nelse:\n    T.mbarrier_wait_parity(mbar[0], 0)')
    (f,) = [f for f in check_text(kernel(waits)).findings if f.rule.code == "AG301"]
    assert "never arrive (hang)" in f.message and "grid_sync_without_master" not in f.witness


def test_sync_warp_orders_lanes_of_one_warp():
    text = kernel("S[tx] = T.float16(0)\nT.sync_warp()\nC[tx] = S[tx // 32 * 32 + (tx + 1) % 32]")
    assert verdict(text) == "clean"


# TVM's all-reduce over 4 of a warp's lanes (TileLang issue 2628's test, lowered for sm_80):
# `mask = ballot_sync(activemask(), tk < 4)`, then `T.sync_warp(mask)` inside `if tk < 4:`
ALLREDUCE_4_LANES = (Path(__file__).parent.parent / "corpus" / "unseen_wide" /
                     "issue__issue_2628__test_thread_allreduce_syncwarp_sum__p3_dtbfloat16-vals3.0x8.0x5.0x2.0x7.0x6.0x4.0x6.0__sm_80.tir")


def test_sync_warp_with_the_ballot_of_its_branch_is_a_warp_sync():
    text = ALLREDUCE_4_LANES.read_text()
    assert verdict(text) == "clean"
    lines = text.split("\n")
    syncs = [i for i, line in enumerate(lines) if "T.sync_warp(" in line]
    assert len(syncs) == 6
    # the first sync (reads of [t], [t+4] before writes of [t]) and the last (a block barrier
    # follows) order nothing; each of the other four removed leaves a race between lanes
    dropped = {i + 1: codes("\n".join(lines[:i] + lines[i + 1:])) for i in syncs}
    assert [("AG201" in c) for c in dropped.values()] == [False, True, True, True, True, False]
    # a constant mask of exactly the executing lanes is the same warp sync
    assert verdict(text.replace("T.sync_warp(allreduce_participant_mask)", "T.sync_warp(T.uint32(15))")) == "clean"


@pytest.mark.parametrize("old,new", [
    ("T.ballot_sync(allreduce_active_mask, tk < 4)", "T.ballot_sync(allreduce_active_mask, tk < 2)"),
    ("T.sync_warp(allreduce_participant_mask)", "T.sync_warp(allreduce_active_mask)"),
    ("T.sync_warp(allreduce_participant_mask)", "T.sync_warp(T.uint32(255))"),
])
def test_sync_warp_whose_mask_names_other_lanes_is_unknown(old, new):
    # the lanes of the mask would wait for lanes that never arrive (or behave undefined)
    report = check_text(ALLREDUCE_4_LANES.read_text().replace(old, new))
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "sync_warp" in f.message for f in report.findings)


@pytest.mark.parametrize("call", ["T.pdl_trigger()", "T.pdl_sync()", "T.rng_init(1, tx, 0, \"curandStatePhilox4_32_10_t\")"])
def test_calls_without_shared_effect_are_clean(call):
    assert verdict(kernel(f"{call}\nS[tx] = T.float16(0)")) == "clean"


def test_any_of_reads_its_buffer():
    read = 'if T.any_of(T.tvm_access_ptr(T.type_annotation("float16"), S, 0, 64, 1), 64):\n    C[tx] = T.float16(1)'
    assert verdict(kernel("S[tx] = T.float16(0)\nT.tvm_storage_sync(\"shared\")\n" + read)) != "buggy"
    assert "AG201" in codes(kernel("S[tx] = T.float16(0)\n" + read))


def test_st_bulk_is_a_store():
    text = kernel('if tx == 0:\n    T.ptx_st_bulk_shared(T.tvm_access_ptr(T.type_annotation("float16"), S, 0, 64, 2), 128, 0)\n'
                  'C[tx] = S[tx]')
    assert "AG201" in codes(text)


# ---------------------------------------------------------------- lds / sts / ldg / stg (copy.h)
def _ptr(buf: str, off: str, ext: int, rw: int, dtype: str = "float16") -> str:
    return f'T.tvm_access_ptr(T.type_annotation("{dtype}"), {buf}, {off}, {ext}, {rw})'


@pytest.mark.parametrize("width,elems", [("32", 2), ("64", 4), ("128", 8)])
def test_sts_lds_are_shared_stores_and_loads_of_their_width(width, elems):
    # thread t stores width/8 bytes at element elems*t; its neighbour reads them after a barrier
    store = f'T.sts{width}({_ptr("S", f"tx * {elems}", elems, 2)}, T.uint32(tx))'
    load = f'v: T.uint32 = T.lds{width}({_ptr("S", f"(tx + 1) % 64 * {elems}", elems, 1)})\n' \
           f'T.stg32({_ptr("C", "tx * 2", 2, 2)}, v)'
    assert verdict(kernel(f'{store}\nT.tvm_storage_sync("shared")\n{load}')) == "clean"
    # without the barrier the neighbour's read races with the store
    assert "AG201" in codes(kernel(f"{store}\n{load}"))
    # the bytes are the instruction's width: a store at elems*t + elems/2 overlaps the next
    # thread's range only when the width reaches past it
    half = f'T.sts{width}({_ptr("S", f"tx * {elems} + {elems // 2}", elems, 2)}, T.uint32(tx))'
    assert "AG201" in codes(kernel(f"{store}\n{half}"))


@pytest.mark.parametrize("value,clean", [
    ('T.ldg64(' + _ptr("A", "0", 4, 1) + ')', True),     # a read-only parameter, one address
    ('T.ldg64(' + _ptr("A", "tx * 4", 4, 1) + ')', False),  # an address that depends on the thread
])
def test_sts_of_one_loaded_value_in_every_thread(value, clean):
    # every thread stores the same 8 bytes into S[0:4] (TileLang's lds/sts codegen test does)
    text = kernel(f'v: T.uint32x2 = {value}\nT.sts64({_ptr("S", "0", 4, 2)}, v)\n'
                  f'T.tvm_storage_sync("shared")\nC[tx] = S[tx % 4]')
    assert (verdict(text) == "clean") == clean
    if not clean:
        assert "AG201" in codes(text)


def test_stg_into_shared_memory_is_named():
    report = check_text(kernel(f'T.stg32({_ptr("S", "tx * 2", 2, 2)}, T.uint32(0))'))
    assert report.verdict == "unknown"
    assert any("T.stg32" in f.message for f in report.findings if f.rule.code == "AG001")


def test_debug_print_reads_only_the_element_it_prints():
    printed = ('T.call_extern("handle", "debug_print_buffer_value", "buffer<S, float16>", "S", tx, '
               'S[(tx + 1) % 64])')
    assert verdict(kernel(f'S[tx] = T.float16(0)\nT.tvm_storage_sync("shared")\n{printed}')) == "clean"
    assert "AG201" in codes(kernel(f"S[tx] = T.float16(0)\n{printed}"))
    # a pointer argument is printed as an address (%p): nothing is read
    pointer = f'T.call_extern("handle", "debug_print_var", "p", {_ptr("S", "0", 64, 1)})'
    assert verdict(kernel(f"S[tx] = T.float16(0)\n{pointer}")) == "clean"


@pytest.mark.parametrize("call,named", [
    ("T.ptx_tcgen05_cp_warpx4()", "shared-to-tensor-memory copy"),
    ("T.ptx_tcgen05_sf_warp_transpose()", "scale-factor transpose"),
    ("T.clc_try_cancel_multicast()", "cluster launch control"),
])
def test_unmodelled_builtins_are_named(call, named):
    text = kernel(f'mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")\n{call}')
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and named in f.message for f in report.findings)


# ---------------------------------------------------------------- T.loop_break (C's `break`)
# TileLang 0.1.14 ends its persistent GEMM's tile loop with `if w * 27 + bx // 4 == 512:
# T.loop_break()` (examples/gemm/example_gemm_persistent.py, lowered for sm_90a on the CPU)
PERSISTENT_BREAK = (Path(__file__).parent / "data" / "gemm_persistent_loop_break_sm90a_tl0114.tir").read_text()


def test_a_persistent_gemm_that_breaks_out_of_its_tile_loop_is_clean():
    assert "T.loop_break()" in PERSISTENT_BREAK
    assert verdict(PERSISTENT_BREAK) == "clean"


def test_where_the_tile_loop_breaks_does_not_change_the_verdict():
    # a block leaving after fewer tiles computes less, and is synchronized all the same
    earlier = PERSISTENT_BREAK.replace("if w * 27 + bx // 4 == 512:", "if w * 27 + bx // 4 == 500:")
    assert earlier != PERSISTENT_BREAK and verdict(earlier) == "clean"


def test_a_producer_that_breaks_out_early_leaves_the_consumers_waiting():
    step = "                        producer_phase_cnt_1[0] = producer_phase_cnt_1[0] + 1\n"
    assert PERSISTENT_BREAK.count(step) == 1
    short = PERSISTENT_BREAK.replace(step, step + "                        if k == 63:\n"
                                                  "                            T.loop_break()\n")
    report = check_text(short)
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG408" and "wait forever" in f.message for f in report.findings)


COPY_LOOP = """
for k in range(4):
    T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, k % 2 * 512 + tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, k * 512 + tx * 8, 8, 1), 8)
    T.ptx_commit_group()
    if k == {stop}:
        T.loop_break()
    T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
C[tx] = S[(tx + 1) % 64 * 8]
"""


def test_a_break_that_skips_the_wait_leaves_the_copy_unwaited():
    assert verdict(kernel(COPY_LOOP.format(stop=5))) == "clean"       # never taken
    report = check_text(kernel(COPY_LOOP.format(stop=2)))             # leaves before waiting
    (race,) = [f for f in report.findings if f.rule.code == "AG101"]
    # three commit_group calls and two wait_all: the count names where the other groups come from
    assert "committed 5 group(s) (each ptx_wait_group(0), printed as cp.async.wait_all, commits one too)" \
        in race.message


def test_threads_that_break_out_skip_the_barriers_the_others_wait_at():
    loop = """
    for k in range(4):
        if tx < 32 and k == 2:
            T.loop_break()
        T.tvm_storage_sync("shared")
    """
    assert "AG301" in codes(kernel(loop))
    assert verdict(kernel(loop.replace("tx < 32 and k == 2", "k == 2"))) == "clean"


def test_a_break_leaves_a_while_loop():
    loop = """
    n = T.alloc_buffer((1,), "int32", scope="local")
    n[0] = 0
    while n[0] < 8:
        T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, n[0] * 512 + tx * 8, 8, 1), 8)
        T.ptx_commit_group()
        if n[0] == {stop}:
            T.loop_break()
        T.ptx_wait_group(0)
        n[0] = n[0] + 1
    T.tvm_storage_sync("shared")
    C[tx] = S[(tx + 1) % 64 * 8]
    """
    assert verdict(kernel(loop.format(stop=9))) == "clean"
    assert "AG101" in codes(kernel(loop.format(stop=3)))


# ---------------------------------------------------------------- TMA gather4 / scatter4 (sm_100a)
# Lowered by the installed tilelang 0.1.15 on the CPU from TileLang's own round-trip test
# (testing/python/language/test_tilelang_language_tma_gather_scatter.py, N = K = K_box = 64).
GATHER4 = (Path(__file__).parent / "data" / "tma_gather4_scatter4_sm100a.tir").read_text()


def test_tma_gather4_scatter4_round_trip_is_clean():
    assert verdict(GATHER4) == "clean"


@pytest.mark.parametrize("old,new,rule", [
    ("        T.mbarrier_wait_parity(mbar_1[0], 0)\n", "", "AG401"),         # read before the phase
    ("T.mbarrier_expect_tx(mbar_1[0], 512)", "T.mbarrier_expect_tx(mbar_1[0], 256)", "AG407"),
    ("        T.tma_store_wait(0, T.bool(False))\n", "", "AG411"),           # scatter still reading at exit
])
def test_tma_gather4_scatter4_mutants_are_flagged(old, new, rule):
    assert old in GATHER4
    assert rule in codes(GATHER4.replace(old, new))


def test_dp4a_touches_shared_operands_only():
    local = ('acc = T.alloc_buffer((1,), "int32", scope="local")\n'
             'a = T.alloc_buffer((4,), "int8", scope="local")\n'
             'T.call_extern("handle", "DP4A", T.tvm_access_ptr(T.type_annotation("int8"), a.data, 0, 4, 1), '
             'T.tvm_access_ptr(T.type_annotation("int8"), a.data, 0, 4, 1), T.tvm_access_ptr(T.type_annotation("int32"), acc.data, 0, 1, 3))')
    assert verdict(kernel(local, dtype="int8")) == "clean"
    fill = 'for i in range(4):\n    S[tx * 4 + i] = T.int8(1)\nT.tvm_storage_sync("shared")\n'
    shared = fill + local.replace("a.data, 0, 4, 1), T.tvm", "S, tx * 4, 4, 1), T.tvm", 1)
    assert verdict(kernel(shared, dtype="int8")) == "clean"
    # every thread reads S[0:4] while thread 0 writes it: a race
    racy = fill + local.replace("a.data, 0, 4, 1), T.tvm", "S, 0, 4, 1), T.tvm", 1) + \
        "\nif tx == 0:\n    S[1] = T.int8(0)"
    assert "AG201" in codes(kernel(racy, dtype="int8"))


def test_register_decode_functions_of_the_dequantization_examples():
    """decode_* (TileLang's dequantization examples ship them as CUDA source: register bit
    manipulation through their pointer arguments) touch shared memory only through those."""
    call = ('T.call_extern("float16", "decode_i4u_to_f16", '
            'T.tvm_access_ptr(T.type_annotation("int8"), {src}, 4, 1), '
            'T.tvm_access_ptr(T.type_annotation("float16"), {dst}, 8, 2))')
    local = ('q = T.alloc_buffer((4,), "int8", scope="local")\n'
             'd = T.alloc_buffer((8,), "float16", scope="local")\n')
    regs = local + call.format(src="q.data, 0", dst="d.data, 0")
    assert verdict(kernel(regs)) == "clean"
    # decoded straight into shared memory, then read by a neighbour with no barrier: a race
    racy = local + call.format(src="q.data, 0", dst="S, tx * 8") + "\nC[tx] = S[(tx + 1) % 64 * 8]"
    assert "AG201" in codes(kernel(racy))
    synced = local + call.format(src="q.data, 0", dst="S, tx * 8") + \
        '\nT.tvm_storage_sync("shared")\nC[tx] = S[(tx + 1) % 64 * 8]'
    assert verdict(kernel(synced)) == "clean"
    unknown_name = regs.replace("decode_i4u_to_f16", "my_decode")   # no source read: AG001
    assert verdict(kernel(unknown_name)) == "unknown"


@pytest.mark.parametrize("body, expected", [
    ("S[tx] = T.float16(0)\nT.tvm_storage_sync(\"shared\")\nC[tx] = S[(tx + 1) % 64]", "clean"),
    ("S[tx] = T.float16(0)\nC[tx] = S[(tx + 1) % 64]", "buggy"),
])
def test_iket_event_markers_change_no_verdict(body, expected):
    # TileLang's IKET markers store a timestamp into the reserved shared window (models/extern.py):
    # a kernel with them gets the verdict it gets without them; a payload read from shared
    # memory is still a read
    marked = "\n".join(f'T.call_extern("handle", "TL_IKET_EVENT", {i + 1}, "__tl_iket_v1_x")\n{line}'
                       for i, line in enumerate(body.splitlines()))
    assert verdict(kernel(body)) == verdict(kernel(marked)) == expected
    payload = 'S[tx] = T.float16(0)\nT.call_extern("handle", "TL_IKET_EVENT_PAYLOAD_U32", 2, S[(tx + 1) % 64], "t")'
    assert "AG201" in codes(kernel(payload))
