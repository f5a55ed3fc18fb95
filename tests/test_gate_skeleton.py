"""The skeleton faults only where the kernel would (issue 15, item 3), uneven roles, witness
replay emission, and the racecheck bar.arrive rule; CPU only (nvcc compiles where present)."""
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from asyncguard.emit import reference
from asyncguard.emit.cuda import ELECTED_ARRIVE
from asyncguard.emit.gate import _judge, agree
from asyncguard.emit.launcher import pool_for
from asyncguard.emit.patterns import pool_bytes
from asyncguard.emit.prepare import Case, compare, expected_run, prepare, prepare_file, skeleton_key
from asyncguard.emit.replay import witness_delays
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "gate_kernels"
FIELD = ROOT / "corpus" / "field"


def _cases(name, **kw):
    return [c for c in prepare_file(0, str(KERNELS / name), **kw)]


def test_same_file_name_in_two_directories_gets_two_kernel_names(tmp_path):
    # two arch directories holding a file of the same name were one kernel name: the second
    # compile overwrote the first's cubin and the first kernel was launched with the other's
    # code and buffers (wrong thread count: IndexError; wrong buffers: ILLEGAL_ADDRESS)
    src = (ROOT / "corpus" / "real" / "gemm_sm90a_ws_s1_128x128x64.tir").read_text()
    other = (KERNELS / "ws_uneven_128c_32p.tir").read_text()
    for d, text in (("sm90a", src), ("field", other)):
        (tmp_path / d).mkdir()
        (tmp_path / d / "gemm_ws.tir").write_text(text)
    a, b = prepare([str(tmp_path / "sm90a"), str(tmp_path / "field")], jobs=1)
    assert a.emitted.kernel != b.emitted.kernel
    assert a.plan["threads_total"] == 256 and b.plan["threads_total"] == 160
    assert compare(a, expected_run(b)).get("shape_error")      # never an IndexError
    assert skeleton_key(a) != skeleton_key(b)


def test_two_kernels_of_a_file_with_a_long_name_get_two_kernel_names(tmp_path):
    # flash_decoding's mha_inference file (sm_80) holds two prim_funcs and a 79-character stem:
    # the name was cut to 80 characters after the stem, before the function, so both kernels
    # were one .cu and one cubin, and the 32-block combine kernel was launched with the other's
    # code (CUDA_ERROR_ILLEGAL_ADDRESS on the H200 for a statically clean kernel)
    src = (KERNELS / "xyz_cp_async_ring.tir").read_text()
    second = src.split("@T.prim_func", 1)[1].replace("def xyz_ring", "def xyz_ring_1")
    second = second.replace('"blockIdx.x": 3', '"blockIdx.x": 5').replace(
        'T.launch_thread("blockIdx.x", 3)', 'T.launch_thread("blockIdx.x", 5)')
    path = tmp_path / ("flash_decoding__example_mha_inference__flashattn.flashattn_mha_inference__sm_80"
                       ".tir")
    funcs = ["@T.prim_func" + f for f in (src.split("@T.prim_func", 1)[1], second)]
    body = "\n".join("    " + ln for f in funcs for ln in f.splitlines())
    path.write_text("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n\n"
                    "@I.ir_module\nclass Module:\n" + body + "\n")
    a, b = prepare([str(path)], jobs=1)
    assert a.skip is None and b.skip is None
    assert a.emitted.kernel != b.emitted.kernel
    assert a.emitted.kernel in a.emitted.source and b.emitted.kernel not in a.emitted.source
    assert (a.plan["grid"], b.plan["grid"]) == ([3, 1, 1], [5, 1, 1])


def test_uneven_roles_128_consumers_and_a_32_thread_producer():
    (c,) = _cases("ws_uneven_128c_32p.tir")
    assert c.skip is None and c.static == "clean" and c.plan["threads_total"] == 160
    counts = [len(r) for r in c.refs[0].reads]
    assert all(n > 0 for n in counts[:128]) and len(set(counts[:128])) == 1   # the consumer warpgroup
    assert counts[128:] == [0] * 32                                          # the producer warp reads nothing
    assert compare(c, expected_run(c))["mismatches"] == 0


def test_uneven_roles_two_warpgroups_and_a_producer_warp():
    (c,) = _cases("ws_uneven_2wg_1warp.tir")
    assert c.skip is None and c.static == "clean" and c.plan["threads_total"] == 288
    counts = [len(r) for r in c.refs[0].reads]
    assert all(n > 0 for n in counts[:256]) and counts[256:] == [0] * 32


def test_thread_layout_with_y_and_z_and_sampled_blocks():
    (c,) = _cases("xyz_cp_async_ring.tir")
    assert c.skip is None and c.plan["block"] == [32, 2, 2] and c.plan["nslots"] == 3
    assert "threadIdx.x + threadIdx.y * 32u + threadIdx.z * 64u" in c.emitted.source
    # blocks 0 and 2 run two trips, block 1 three: one read per trip per thread
    assert [len(r.reads[77]) for r in c.refs] == [2, 3, 2]


def test_an_untraced_block_copying_more_stays_inside_the_pool(tmp_path):
    # blocks 0, 1, 32 and 63 are traced, and the blocks the checker ran beyond its sample (those
    # not proved to run as one of these); block 6 copies more than any of them. The pool was
    # sized from the traced blocks only, so block 6's copies read past it (ILLEGAL_ADDRESS on a
    # valid kernel). Now a copy that would pass its slice restarts at the slice's start and the
    # pool has the shared size as padding behind it.
    src = (KERNELS / "xyz_cp_async_ring.tir").read_text()
    src = src.replace('"blockIdx.x": 3', '"blockIdx.x": 64').replace('T.launch_thread("blockIdx.x", 3)',
                                                                   'T.launch_thread("blockIdx.x", 64)')
    src = src.replace("T.serial(2 + bx % 2)", "T.serial(T.if_then_else(bx == 6, 7, 2 + bx % 2))")
    path = tmp_path / "grid64.tir"
    path.write_text(src)
    (c,) = prepare_file(0, str(path))
    assert c.skip is None and c.plan["nslots"] == 4   # (the blocks the checker ran besides 0 and 1 ran as them)
    assert {"blockIdx.x": 6} not in c.checked_blocks
    func = parse(path.read_text(), str(path)).functions[0]
    program = elaborate(func)
    from asyncguard.emit.cuda import emit
    e = emit(func, program)
    block6 = reference.compute(program, e, {"blockIdx.x": 6})
    slices = c.plan["slices"]
    assert int(block6.src_bytes.max()) > max(slices)          # the case the old skeleton faulted on
    assert "if ((u64)off + slot > s.per) { off = 0;" in c.emitted.source
    assert "ag_src(s, 16u)" in c.emitted.source and "return s.pool + off;" in c.emitted.source
    pool, at = pool_for(c.plan)
    # the furthest byte any copy can touch: the last slice's end plus one copy (<= shared size)
    assert len(pool) >= int(at[-1]) + c.plan["smem"]


def test_the_pool_holds_a_slice_for_each_copying_thread_only(tmp_path):
    # one TMA producer thread of 384 copies every stage: the pool was 384 slices of the producer's
    # size (4 GB for the sparse GEMM, 46 GB for the persistent one: the host spent the launch limit
    # building it and the gate called a clean kernel a hang). Now it is the producer's slice alone.
    (c,) = prepare_file(0, str(FIELD / "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_90a.tir"))
    slices = c.plan["slices"]
    assert len(slices) == c.plan["threads_total"] == 384
    assert [t for t, n in enumerate(slices) if n] == [0]
    assert slices[0] == 128 * (16384 + 2048 + 65536)           # 128 stages of A, E and B
    pool, at = pool_for(c.plan)
    assert list(at[:3]) == [0, slices[0], slices[0]] and int(at[-1]) == slices[0]
    assert len(pool) == slices[0] + c.plan["smem"] + 16
    # thread 0's bytes are the reference's: pool_bytes(0, offset)
    offs = np.array([0, 1, 12345, slices[0] - 1])
    assert (pool[offs] == pool_bytes(0, offs)).all()
    assert "ag.pool = ag_pool + ag_pool_at[ag_tid];" in c.emitted.source


def test_only_the_traced_blocks_are_launched_with_their_real_indices(tmp_path):
    # the warp-specialized field GEMMs launch M = N = K = 16384 (128 x 128 blocks of 256 TMA
    # stages): the whole grid outlasted the launch limit. The gate launches one block per traced
    # block and maps each to its real index; a grid of 2^26 blocks is no longer refused.
    src = (KERNELS / "xyz_cp_async_ring.tir").read_text()
    big = 1 << 26
    src = src.replace('"blockIdx.x": 3', f'"blockIdx.x": {big}').replace(
        'T.launch_thread("blockIdx.x", 3)', f'T.launch_thread("blockIdx.x", {big})')
    path = tmp_path / "grid_huge.tir"
    path.write_text(src)
    (c,) = prepare_file(0, str(path))
    assert c.skip is None and c.plan["grid"] == [big, 1, 1]
    assert c.plan["blocks"] == [[0, 0, 0], [1, 0, 0], [big // 2, 0, 0], [big - 1, 0, 0]]
    assert c.plan["launch_grid"] == [4, 1, 1] and c.plan["nslots"] == 4
    assert "const i64 v_bx = (i64)ag_bmap[3u * blockIdx.x + 0u];" in c.emitted.source
    assert "gridDim" not in c.emitted.source
    # block 1 runs three trips, the others two: the reference of each slot is its real block's
    assert [len(r.reads[77]) for r in c.refs] == [2, 3, 2, 3]
    assert [r.block for r in c.refs] == [{"blockIdx.x": b} for b in (0, 1, big // 2, big - 1)]


def test_registers_and_data_dependent_truth_values_are_emitted():
    # the field corpus's block-sparse and dequantize kernels were SKIP "not emitted: program node
    # PStore": per-thread integer registers (a block mask copied from global memory, a counter
    # used as a trip count). The skeleton keeps the registers; a global truth value is 1, the
    # pattern the reference runs (reference.AllTaken)
    (c,) = _cases("register_mask_ring.tir")
    # blocks differ only in the mask cells they read: block 0 stands for all, as in the checker
    assert c.skip is None and c.static == "clean" and c.plan["blocks"] == [[0, 0, 0]]
    src = c.emitted.source
    assert "i64 ag_reg_mask[4] = {0};" in src and "i64 ag_reg_n[1] = {0};" in src
    assert src.count("// line 16: register store") == 4            # the mask slice, element by element
    assert "v_k < ag_floordiv(ag_reg_n[(0LL + 0LL)], 2LL)" in src     # the register as a trip count
    # mask all set: n = 8, four trips of one read, then the taken branch's read
    assert all(len(r.reads[t]) == 5 for r in c.refs for t in (0, 77, 127))
    assert compare(c, expected_run(c))["mismatches"] == 0


def test_a_register_written_with_an_unprintable_value_is_only_an_error_where_read():
    from asyncguard.emit.cuda import EmitError, emit
    src = (KERNELS / "register_mask_ring.tir").read_text()
    text = src.replace("n[0] = n[0] + 2", "n[0] = n[0] + T.Cast(\"int32\", A_1[tx])").replace(
        'M_1 = T.decl_buffer((8,), "int8", data=M)',
        'M_1 = T.decl_buffer((8,), "int8", data=M)\n    A_1 = T.decl_buffer((128,), "float32", data=A)')
    func = parse(text, "x.tir").functions[0]
    with pytest.raises(EmitError, match="register n"):
        emit(func, elaborate(func))
    # read nowhere: the program does not run the register (nothing checked reads it), so the
    # skeleton has neither the register nor its stores, and no error
    unused = text.replace("for k in T.serial(n[0] // 2):", "for k in T.serial(2):")
    func = parse(unused, "x.tir").functions[0]
    assert "ag_reg_n" not in emit(func, elaborate(func)).source


def test_a_symbolic_kernel_with_no_listed_size_says_why():
    # symbolic sizes the checker lists no value for (here: a launch extent it cannot read) gave
    # "elaboration failed: IndexError" from an empty size list
    path = ROOT / "corpus" / "field" / "dsa_sparse_finetune__indexer_bwd__tl_indexer_bwd_impl__sm_80.tir"
    cases = prepare_file(0, str(path), seconds=30)
    assert cases and all(c.skip is None or "IndexError" not in c.skip for c in cases)
    if len(cases) == 1 and cases[0].skip:   # while the engine cannot read the extent: the note itself
        assert "launch_thread with non-constant extent" in cases[0].skip, cases[0].skip


def test_copies_completing_on_an_mbarrier_land_at_the_noinc_arrive():
    # deepseek_mla decode_ws (sm_90a) was SKIP: "ptx_cp_async_barrier_noinc is not emitted". The
    # skeleton issues cp.async.mbarrier.arrive.noinc; the reference lands the thread's earlier
    # copies there (no wait_group follows them), so the reads after the phase see pool bytes
    (c,) = _cases("cp_async_mbarrier_noinc.tir")
    assert c.skip is None and c.static == "clean"
    assert "cp.async.mbarrier.arrive.noinc.shared::cta.b64" in c.emitted.source
    assert "ag_mbar_cp_async_arrive((&ag_mbar[0LL + (ag_floormod(v_k, 2LL))]));" in c.emitted.source
    assert c.refs[0].unwritten_reads == {}            # every read sees a landed copy
    assert all(len(r) == 4 for r in c.refs[0].reads)


def test_copies_handed_over_by_the_counting_arrive_land_there_too():
    # T.ptx_cp_async_barrier (no .noinc, AG422's instruction) was SKIP: not emitted. The skeleton
    # issues cp.async.mbarrier.arrive; the copies land on the phase it joins, as with .noinc
    (c,) = _cases("cp_async_mbarrier_counting.tir")
    assert c.skip is None and c.static == "clean"
    assert "cp.async.mbarrier.arrive.shared::cta.b64" in c.emitted.source
    assert "ag_mbar_cp_async_arrive_inc((&ag_mbar[0LL + (ag_floormod(v_k, 2LL))]));" in c.emitted.source
    assert c.refs[0].unwritten_reads == {}
    assert all(len(r) == 4 for r in c.refs[0].reads)


def test_wgmma_operand_reads_never_pass_the_shared_buffer():
    (c,) = _cases("ws_uneven_128c_32p.tir")
    src = c.emitted.source
    assert f"#define AG_SMEM_BYTES {c.plan['smem']}LL" in src and "hi = hi < AG_SMEM_BYTES ? hi : AG_SMEM_BYTES;" in src
    # the reference reads the same clamped bytes: numpy slices stop at the array's end
    smem = np.arange(64, dtype=np.uint8)
    lo, hi = reference.wgmma_slice(127, 0, 128 * 8)      # the last slice lies past a 64-byte buffer
    assert reference.fnv(smem[lo:hi]) == reference.fnv(np.zeros(0, np.uint8))


def test_replay_delays_the_warp_of_the_first_access_at_its_iteration():
    (c,) = _cases("named_barrier_pingpong_race.tir", replay=True)
    assert c.static == "buggy" and "AG201" in c.static_rules and c.replays
    delayed = [e for e in c.replays if e.get("source")]
    assert delayed
    f = c.findings[delayed[0]["finding"]]
    d = delayed[0]["delays"][0]
    assert d["warp"] == f["witness"]["first"]["thread"] // 32 and d["line"] == f["witness"]["first"]["line"]
    k = f["witness"]["first"]["loops"]["k"]
    assert f"if (ag_tid / 32u == {d['warp']}u && v_k == {k}LL) ag_delay(200u);" in delayed[0]["source"]
    assert "ag_delay(" not in c.emitted.source.split('extern "C"')[1]     # the plain skeleton is untouched


def test_replay_of_an_mbarrier_deadlock_holds_the_waiters_back():
    path = ROOT / "corpus" / "variants" / "gemm_sm90a_ws_s1_128x128x64__drop-arrive_L62.tir"
    (c,) = prepare_file(0, str(path), replay=True)
    assert all(e.get("source") or e.get("same_as") is not None for e in c.replays)
    assert witness_delays({"rule": "AG408", "line": 34, "witness": {"threads": "128..255"}})[0][0]["warp"] == 4


def test_a_race_inside_one_warp_is_not_replayed_and_says_why():
    delays, why = witness_delays({"witness": {"first": {"thread": 4, "line": 24, "loops": {}},
                                              "second": {"thread": 1, "line": 40, "loops": {}}}})
    assert delays == [] and "warp 0" in why


def _ran(c, racecheck, trace_bad=0):
    c.result = {"status": "ran", "trace": {"mismatches": trace_bad, "count_mismatches": 0, "sink_mismatches": 0},
                "timeouts": 0, "not_taken": [], "racecheck": {"hazards": racecheck, "finished": True},
                "synccheck": {"hazards": 0, "finished": True}}
    _judge(c, False)
    return c.result


def test_racecheck_reports_on_a_clean_arrive_sync_kernel_are_not_a_disagreement():
    (c,) = _cases("named_barrier_pingpong.tir")
    assert c.static == "clean" and "ag_bar_arrive(" in c.emitted.source
    r = _ran(c, racecheck=1)
    assert r["verdict"] == "pass" and "racecheck: 1 report(s) not counted" in r["why"][0] and agree(c) == "yes"
    assert _ran(c, racecheck=1, trace_bad=3)["verdict"] == "fail"     # the trace differing still fails
    (plain,) = _cases("xyz_cp_async_ring.tir")                        # no bar.arrive: racecheck counts
    assert _ran(plain, racecheck=1)["verdict"] == "fail"


def test_skips_say_why():
    c = Case("x.tir", "f", static="clean", skip="not emitted: line 3: something")
    c.result = {"status": "not emitted"}
    _judge(c, False)
    assert c.result["verdict"] == "skip" and c.result["why"] == ["not emitted: line 3: something"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_hand_made_and_replay_skeletons_compile_for_sm90a(tmp_path):
    sources = []
    for p in sorted(KERNELS.glob("*.tir")):
        for c in prepare_file(0, str(p), replay=True):
            assert c.skip is None, (c.id, c.skip)
            sources.append((c.emitted.kernel, c.emitted.source))
            sources += [(e["kernel"], e["source"]) for e in c.replays if e.get("source")][:1]
    for name, src in sources:
        f = tmp_path / f"{name}.cu"
        f.write_text(src)
        r = subprocess.run(["nvcc", "-arch=sm_90a", "-c", "-o", str(tmp_path / f"{name}.o"), str(f)],
                           capture_output=True, text=True)
        assert r.returncode == 0, (name, r.stderr[-2000:])


def test_reads_of_never_written_bytes_are_counted_by_the_reference():
    """AG417 on the GPU: the reference knows which reads no write reached (they return the
    initial fill pattern when the GPU trace equals it); the fixed kernel has none."""
    from asyncguard.emit.gate import unwritten_reads_shown
    from asyncguard.emit.prepare import prepare
    hand = Path(__file__).resolve().parent.parent / "corpus" / "handwritten"
    bad, = prepare([str(hand / "consumer_parity_from_one.tir")], 1, 60)
    good, = prepare([str(hand / "consumer_parity_from_one_fixed.tir")], 1, 60)
    assert bad.refs[0].unwritten_reads and unwritten_reads_shown(bad)
    assert not good.refs[0].unwritten_reads and not unwritten_reads_shown(good)


def test_written_bytes_marking_matches_a_byte_by_byte_model():
    # _Written.mark had one pass over the whole buffer per call (most of the field corpus's
    # preparation time); its three ways (few ranges, many short ones, many long ones) must agree
    # with marking byte by byte, ranges past either end cut as the reference cuts them
    rng = np.random.default_rng(15)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        w, model = reference._Written(n), np.zeros(n, dtype=bool)
        for _ in range(4):
            k = int(rng.integers(1, 60))
            lo = rng.integers(-5, n + 5, k)
            hi = lo + rng.integers(-3, 40 if rng.random() < 0.5 else 400, k)
            w.mark(lo, hi)
            for a, b in zip(lo.tolist(), hi.tolist()):
                model[max(0, min(n, a)):max(0, min(n, b))] = True
            assert (w.bytes == model).all()
            assert (w.untouched(np.array([0]), np.array([n])) == (not model.any())).all()


def test_the_reference_run_leaves_out_the_checkers_pair_checks():
    # the reference needs the engine's event order only; the pairwise race / proxy checks (most
    # of its time) are turned off by overriding them: they must still be the engine's names
    from asyncguard.engine.machine import Machine
    from asyncguard.engine.state.memory import Memory
    from asyncguard.engine.state.proxy import Proxies
    swapped = dict(reference._Recorder.FEATURES)
    assert set(swapped) == {attr for attr, _ in Machine.FEATURES}
    for cls, name in ((Memory, "_check_pair"), (Proxies, "_check_proxy")):
        assert callable(getattr(cls, name, None)), name
        quiet = next(c for c in swapped.values() if issubclass(c, cls))
        assert getattr(quiet, name) is not getattr(cls, name)
    # a racy kernel's reference still predicts the stale read (the race itself is the checker's)
    (c,) = _cases("named_barrier_pingpong_race.tir")
    assert c.static == "buggy" and c.skip is None and compare(c, expected_run(c))["mismatches"] == 0


def test_a_2d_grid_traces_four_of_the_checkers_sixteen_blocks(tmp_path):
    # mha_bwd_bhsd's 3-D grid: 64 sampled blocks, each a full reference: its preparation ran out
    # of budget. The gate traces the first, second, middle and last of the checker's sample
    src = (KERNELS / "xyz_cp_async_ring.tir").read_text()
    src = src.replace('"blockIdx.x": 3', '"blockIdx.x": 64, "blockIdx.y": 64').replace(
        '    bx = T.launch_thread("blockIdx.x", 3)',
        '    bx = T.launch_thread("blockIdx.x", 64)\n    by = T.launch_thread("blockIdx.y", 64)')
    src = src.replace("T.serial(2 + bx % 2)", "T.serial(2 + bx % 2 + by % 3)")
    path = tmp_path / "grid2d.tir"
    path.write_text(src)
    (c,) = prepare_file(0, str(path))
    assert c.skip is None and c.plan["grid"] == [64, 64, 1]
    assert c.plan["blocks"] == [[0, 0, 0], [0, 1, 0], [32, 0, 0], [63, 63, 0]]
    assert [len(r.reads[0]) for r in c.refs] == [2, 3, 2, 3]


def test_a_kernel_whose_plain_run_hung_fails_without_the_tools():
    # its waits timed out on the GPU: the hang is shown, and the tools (not run on it, since every
    # wait would spin to its limit under them) are neither evidence nor "no report"
    from asyncguard.emit.gate import HANG_SHOWN
    (c,) = _cases("xyz_cp_async_ring.tir")
    c.result = {"status": "ran", "trace": {"mismatches": 0, "count_mismatches": 0, "sink_mismatches": 0},
                "timeouts": 12, "not_taken": [],
                "racecheck": {"hazards": None, "not_run": HANG_SHOWN},
                "synccheck": {"hazards": None, "not_run": HANG_SHOWN}}
    _judge(c, False)
    assert c.result["verdict"] == "fail"
    assert c.result["why"] == ["12 mbarrier wait(s) timed out"]


def test_racecheck_reports_on_a_clean_elected_mbarrier_release_are_not_a_disagreement():
    # TileLang's warp-specialized SIMT-copy producer: 256 threads store, bar.sync among them, one
    # elected thread arrives on the mbarrier the consumers wait on. Race free by the PTX memory
    # model; racecheck reported 510 hazards on the H200 (bench/probes/racecheck_bar_then_mbarrier.cu
    # shows the same with a hand-written kernel: 223 reports, none when every producer arrives)
    unseen = ROOT / "corpus" / "unseen" / (
        "issue__issue_ws_simt_copy_full_producer_extent__test_ws_keeps_full_producer_extent_for_lowered_simt_copy"
        "__sm_90a.tir")
    (c,) = prepare_file(0, str(unseen))
    assert c.static == "clean" and ELECTED_ARRIVE in c.emitted.features
    r = _ran(c, racecheck=510)
    assert r["verdict"] == "pass" and "elected thread's mbarrier arrive" in r["why"][0] and agree(c) == "yes"
    assert _ran(c, racecheck=510, trace_bad=3)["verdict"] == "fail"   # a trace difference still fails
    # a kernel whose arrives are every thread's own (no elected release) keeps racecheck's reports
    (plain,) = _cases("xyz_cp_async_ring.tir")
    assert ELECTED_ARRIVE not in plain.emitted.features and _ran(plain, racecheck=1)["verdict"] == "fail"


BREAK_KERNEL = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((4096,), "float16", scope="shared.dyn")
    n = T.alloc_buffer((1,), "int32", scope="local")
    n[0] = 0
    while n[0] < 8:
        T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, n[0] * 512 + tx * 8, 8, 1), 8)
        T.ptx_commit_group()
        T.ptx_wait_group(0)
        if n[0] == 5:
            T.loop_break()
        n[0] = n[0] + 1
    T.tvm_storage_sync("shared")
    C[tx] = S[(tx + 1) % 64 * 8]
'''


def test_while_loops_and_breaks_are_emitted_as_the_kernel_has_them(tmp_path):
    # a while loop was emitted through the branch path and skipped ("no syntax node for a if"):
    # the stream-K GEMM's tile loop is `while start_iter_1[0] < ...`
    (streamk,) = prepare_file(0, str(FIELD / "gemm_streamk__example_tilelang_gemm_streamk__tl_matmul_streamk__sm_80.tir"))
    assert streamk.skip is None and "while (" in streamk.emitted.source
    p = tmp_path / "break.tir"
    p.write_text(BREAK_KERNEL)
    (c,) = prepare_file(0, str(p))
    assert c.skip is None and c.static == "clean"
    line = BREAK_KERNEL.splitlines().index("            T.loop_break()") + 1
    assert f"break;  // line {line}: T.loop_break" in c.emitted.source
    # the reference leaves the loop where the kernel does: six copies of 16 bytes per thread
    assert c.plan["slices"] == [6 * 16] * 64
    if shutil.which("nvcc"):
        for name, case in (("streamk", streamk), ("break", c)):
            f = tmp_path / f"{name}.cu"
            f.write_text(case.emitted.source)
            r = subprocess.run(["nvcc", "-arch=sm_90a", "-c", "-o", str(tmp_path / f"{name}.o"), str(f)],
                               capture_output=True, text=True)
            assert r.returncode == 0, (name, r.stderr[-2000:])


def test_a_block_proved_to_run_as_a_computed_one_reuses_its_reference():
    # blockIdx.x picks 2 + bx % 2 iterations: block 2 runs as block 0 (z3, prover/block_alike.py),
    # block 1 does not. The reused reference is the one a run of block 2 computes.
    (c,) = _cases("xyz_cp_async_ring.tir")
    assert [r.block for r in c.refs] == [{"blockIdx.x": 0}, {"blockIdx.x": 1}, {"blockIdx.x": 2}]
    assert c.refs[2].reads is c.refs[0].reads and c.refs[1].reads is not c.refs[0].reads
    func = parse((KERNELS / "xyz_cp_async_ring.tir").read_text()).functions[0]
    program = elaborate(func)
    from asyncguard.emit.cuda import emit
    fresh = reference.compute(program, emit(func, program), {"blockIdx.x": 2})
    assert fresh.reads == c.refs[2].reads
    assert (fresh.src_bytes == c.refs[2].src_bytes).all() and (fresh.sink == c.refs[2].sink).all()


def test_explicit_width_shared_accesses_are_emitted_at_their_width():
    # TileLang's lds/sts codegen test: all 32 threads sts64 one loaded value to S[bx * 2], a
    # barrier, then lds64 of the same 8 bytes (docs/model.md, "Explicit-width loads and stores")
    cases = prepare_file(0, str(ROOT / "corpus" / "unseen_wide" /
                                "language__language_ldst__test_lds_sts64_codegen__sm_90a.tir"))
    (c,) = cases
    assert c.skip is None and c.static == "clean"
    src = c.emitted.source
    assert "8LL, 0u, ag_ucount[0]);  // line 15: sts64, one value per element" in src
    assert "8LL);  // line 17: lds64" in src
    assert compare(c, expected_run(c))["mismatches"] == 0
