"""`asyncguard sanitize`: skeleton emission (CPU), the numpy reference, and the GPU gate (gpu marker)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from asyncguard.emit import reference
from asyncguard.emit.cuda import EmitError, emit
from asyncguard.emit.cuda import _resolve_warpgroup_barriers as resolve
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
ROOT = CORPUS.parent
EMITTED = ["real/gemm_sm80_s3_128x128x32.tir", "real/reduce_sum_shared_sm80_t256.tir",
           "real/softmax_rows_sm80_t128.tir", "handwritten/ring2.tir", "handwritten/persistent_ring.tir",
           "real/copy_pipelined_sm90a_s2.tir", "handwritten/ws_tma_pipeline.tir",
           "real/gemm_sm90a_ws_s3_128x128x64.tir", "real/fa_fwd_sm90a_nows_s2.tir",
           "real/conv2d_im2col_sm90a_s2.tir", "real/softmax_rows_sm90a_t128.tir"]


def _emit(rel):
    path = CORPUS / rel
    func = parse(path.read_text(), str(path)).functions[0]
    program = elaborate(func)
    return func, program, emit(func, program)


def _gpu_reason():
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        try:
            from cuda import cuda as driver  # noqa: F401
        except ImportError:
            return "cuda-python is not installed (pip install '.[gpu]')"
    from asyncguard.emit.gate import Gpu, find_sanitizer
    try:
        Gpu()
    except Exception as err:  # noqa: BLE001
        return f"no usable GPU: {err}"
    if find_sanitizer() is None:
        return "compute-sanitizer not found"
    return None


@pytest.mark.parametrize("rel", EMITTED)
def test_emission_keeps_the_launch_and_layout(rel):
    func, program, e = _emit(rel)
    assert e.threads == tuple(program.launch.threads) and e.grid == tuple(program.launch.blocks)
    assert e.smem_bytes >= program.layout.dyn_bytes
    assert f"void __launch_bounds__({program.launch.num_threads}) {e.kernel}(" in e.source
    assert "%" not in "".join(ln.split("//")[0] for ln in e.source.split("void __launch_bounds__")[1].splitlines()
                              if "asm" not in ln), "TIR % must print as ag_floormod"


def test_cp_async_and_waits_are_emitted():
    _, _, e = _emit("handwritten/ring2.tir")
    assert e.source.count("ag_cp_async(ag,") == 2 and "ag_cp_wait(1LL)" in e.source
    assert "ag_cp_wait(0LL)" in e.source and "__syncthreads();  // line" in e.source


def test_wgmma_operands_are_read_by_the_consumer_warpgroups():
    func, program, e = _emit("real/gemm_sm90a_ws_s3_128x128x64.tir")
    wgmma_lines = [ln for ln in e.source.splitlines() if "ag_wgmma_read(ag," in ln]
    assert len(wgmma_lines) == 2 and "wgmma A" in wgmma_lines[0] and "wgmma B" in wgmma_lines[1]
    assert "i64 ag_desc_desc_a = 0;" in e.source
    ref = reference.compute(program, e)
    counts = [len(r) for r in ref.reads]
    # 256 threads: the producer warpgroup (threadIdx.x >= 128 in this kernel) issues TMA and
    # reads nothing; every consumer thread reads its slice of A and B of each wgmma
    consumers = [c for c in counts if c]
    assert len(consumers) == 128 and len(set(consumers)) == 1 and consumers[0] > 0
    assert ref.problem is None and ref.hang is None


def test_each_warpgroup_wait_is_a_barrier_of_its_warpgroup():
    # 256 threads: the consumer warpgroup (threadIdx.x < 128) waits at ID 15, the producer's
    # would at 14; the kernel's own named barriers keep their IDs
    _, _, e = _emit("real/gemm_sm90a_ws_s3_128x128x64.tir")
    waits = [ln for ln in e.source.splitlines() if "warpgroup_wait, the warpgroup's" in ln]
    assert waits and all("ag_bar_sync((ag.tid < 128u ? 15LL : 14LL), 128LL);" in ln for ln in waits)
    own = {ln.split("(")[1].split(",")[0] for ln in e.source.splitlines()
           if "ag_bar_sync(" in ln and "warpgroup_wait" not in ln and "__device__" not in ln}
    assert not own & {"15LL", "14LL"}


def test_no_warp_refills_a_wgmma_stage_before_its_warpgroup_read_it():
    # the one-warpgroup decode without its barrier after the QK wgmma: the static checker reads it
    # clean (a warpgroup's wait completes its wgmma); the skeleton must order every thread's slice
    # read (line 140) before any thread's refill of the stage (line 146), through the wait (142)
    path = (CORPUS.parent / "bench" / "sanitizer_h200" / "2026-12-05-session38" / "kernels" /
            "blocksparse_attention__example_tilelang_sparse_gqa_decode_varlen_mask__flashattn__sm_90a__nows"
            "__drop-barrier_L144.tir")
    func = parse(path.read_text(), str(path)).functions[0]
    lines = emit(func, elaborate(func), sizes={"num_blocks": 7, "num_split": 2,
                                               "max_cache_seqlen": 1}).source.splitlines()
    read = max(i for i, ln in enumerate(lines) if "line 140: wgmma B" in ln)
    wait = next(i for i, ln in enumerate(lines) if "line 142: warpgroup_wait" in ln)
    refill = next(i for i, ln in enumerate(lines) if "line 146" in ln)
    assert read < wait < refill and "ag_bar_sync((15LL), 128LL);" in lines[wait]


def test_warpgroup_barriers_take_ids_the_kernel_leaves_free():
    lines = ["ag_bar_sync(15LL, 256LL);", "ag_bar_sync(@AG_WARPGROUP_BARRIER@, 128LL);"]
    assert resolve(lines, 256, {15}, None)[1] == "ag_bar_sync((ag.tid < 128u ? 14LL : 13LL), 128LL);"
    with pytest.raises(EmitError, match="computed at run time"):
        resolve(["ag_bar_sync(v_id, 128LL);"] + lines[1:], 128, set(), "v_id")
    with pytest.raises(EmitError, match="no free ID"):
        resolve(lines[1:], 128, set(range(1, 16)), None)


def test_the_emitter_records_the_barrier_ids_it_writes():
    """The IDs the warpgroup waits avoid come from the emitter as it writes each barrier: the
    attention-sink backward's own named barrier moved from ID 3 to 15 sends the waits to 14 and
    13; one computed at run time is refused."""
    path = CORPUS / "field" / "attention_sink__example_gqa_sink_bwd_bhsd__flashattn_bwd.flash_bwd__sm_90a.tir"
    own = 'T.tvm_storage_sync("shared.dyn", 3, 128)'
    for text, waits in ((path.read_text(), "(ag.tid < 128u ? 15LL : 14LL)"),
                        (path.read_text().replace(own, own.replace(" 3,", " 15,")), "(ag.tid < 128u ? 14LL : 13LL)")):
        assert own in path.read_text()
        func = parse(text, str(path)).functions[0]
        lines = emit(func, elaborate(func)).source.splitlines()
        assert [ln for ln in lines if "warpgroup_wait, the" in ln]
        assert all(f"ag_bar_sync({waits}, 128LL);" in ln for ln in lines if "warpgroup_wait, the" in ln)
    func = parse(path.read_text().replace(own, own.replace(" 3,", " bx % 4 + 1,")), str(path)).functions[0]
    with pytest.raises(EmitError, match="computed at run time"):
        emit(func, elaborate(func))


def test_wgmma_slices_cover_the_operand_once():
    for start, n in ((0, 2048), (4096, 4096), (100, 256), (7, 8)):
        covered = []
        for t in range(128, 256):            # the second warpgroup: ranks are tid % 128
            lo, hi = reference.wgmma_slice(t, start, start + n)
            covered += range(lo, hi)
        assert covered == list(range(start, start + n))


def test_tma_store_bytes_go_to_the_sink_reference():
    _, program, e = _emit("real/softmax_rows_sm90a_t128.tir")
    assert "ag_bulk_store(ag_sinkb," in e.source
    ref = reference.compute(program, e)
    stored = ref.sink[:8192]                # Y_shared: 4096 float16 at offset 0, stored by TMA
    initial = reference.pattern(reference.INIT_SEED, np.arange(8192))
    assert stored.any() and (stored != initial).mean() > 0.9    # the threads' writes, not the initial fill
    assert not ref.sink[8192:].any()        # nothing else is stored


def test_symbolic_k_runs_at_sizes_the_checker_lists():
    from asyncguard.emit.gate import gate_sizes
    path = CORPUS / "real" / "gemm_sm90a_ws_dynamic_k_s3_128x128x64.tir"
    func = parse(path.read_text(), str(path)).functions[0]
    program = elaborate(func)
    with pytest.raises(EmitError, match="symbolic"):
        emit(func, program)
    sizes = gate_sizes(program)
    assert len(sizes) >= 3 and sizes[0] == {"K": 1}
    reads = []
    for size in sizes:
        e = emit(func, program, sizes=size)
        assert f"const i64 v_K = {size['K']}LL;" in e.source
        ref = reference.compute(program, e, sizes=size)
        assert ref.problem is None
        reads.append(max(len(r) for r in ref.reads))
    assert reads == sorted(reads) and reads[0] < reads[-1]    # more K tiles, more operand reads


def test_reference_sees_the_stale_stage_when_the_wait_is_too_large():
    refs = {}
    for rel in ("handwritten/ring2.tir", "handwritten/ring2_wait_too_large.tir"):
        _, program, e = _emit(rel)
        refs[rel] = reference.compute(program, e)
    ok, bad = refs.values()
    assert all(len(r) == 12 for r in ok.reads) and ok.problem is None and ok.hang is None
    assert [h for h, _ in ok.reads[0]] != [h for h, _ in bad.reads[0]]


def test_reference_runs_every_iteration_of_a_long_loop():
    # the checker skips proved-periodic iterations of loops over 64 trips; the skeleton runs them all
    path = CORPUS / "handwritten" / "ring2.tir"
    text = path.read_text().replace("T.serial(12)", "T.serial(200)").replace("if k < 11:", "if k < 199:")
    func = parse(text, str(path)).functions[0]
    program = elaborate(func)
    ref = reference.compute(program, emit(func, program))
    assert ref.problem is None and all(len(r) == 200 for r in ref.reads)


def test_reference_predicts_the_named_barrier_hang():
    _, program, e = _emit("handwritten/named_barrier_count.tir")
    assert reference.compute(program, e).hang


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("rel", EMITTED)
def test_emitted_cuda_compiles(rel, tmp_path):
    _, _, e = _emit(rel)
    src = tmp_path / "k.cu"
    src.write_text(e.source)
    p = subprocess.run(["nvcc", "-cubin", "-arch=sm_90a", "-o", str(tmp_path / "k.cubin"), str(src)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]


def test_no_gpu_exits_2_with_the_reason():
    if _gpu_reason() is None:
        pytest.skip("a GPU is present")
    p = subprocess.run([sys.executable, "-m", "asyncguard", "sanitize", str(CORPUS / "handwritten" / "ring2.tir")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "asyncguard sanitize: no" in p.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_prepare_only_needs_no_gpu_and_compiles_each_distinct_skeleton(tmp_path):
    import json
    out = tmp_path / "p.json"
    p = subprocess.run([sys.executable, "-m", "asyncguard", "sanitize", "--prepare-only", "--jobs", "1",
                        "--json", str(out), str(CORPUS / "handwritten" / "ring2.tir"),
                        str(ROOT / "tests" / "gate_kernels" / "register_mask_ring.tir")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = json.loads(out.read_text())
    assert [r["compile"] for r in rows] == ["compiled", "compiled"]
    assert all(r["prepare_seconds"] > 0 for r in rows)
    assert "distinct skeleton(s) compiled in" in p.stderr


@pytest.mark.gpu
def test_gate_on_a_gpu(tmp_path):
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    junit = tmp_path / "j.xml"
    p = subprocess.run([sys.executable, "-m", "asyncguard", "sanitize", "--junit", str(junit),
                        str(CORPUS / "handwritten" / "ring2.tir"), str(CORPUS / "handwritten" / "row_copy_waited.tir"),
                        str(CORPUS / "real" / "gemm_sm90a_ws_s1_128x128x64.tir")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'failures="0"' in junit.read_text()


@pytest.mark.gpu
def test_gate_fails_a_missing_barrier(tmp_path):
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    p = subprocess.run([sys.executable, "-m", "asyncguard", "sanitize",
                        str(CORPUS / "real" / "transpose_shared_sm80_32x32_t128_nosync.tir")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 1, p.stdout + p.stderr


@pytest.mark.gpu
def test_gate_agrees_on_loop_breaks(tmp_path):
    """tests/gate_kernels_break/: `T.loop_break` kernels. The two small ones here; the 0.1.14
    persistent GEMM and its producer-breaks-early mutant take minutes to prepare (their H200 run:
    bench/sanitizer_h200/2026-12-02-session14/gate_loop_break.*)."""
    reason = _gpu_reason()
    if reason:
        pytest.skip(reason)
    kernels = Path(__file__).parent / "gate_kernels_break"
    out = tmp_path / "r.json"
    subprocess.run([sys.executable, "-m", "asyncguard", "sanitize", "--json", str(out),
                    str(kernels / "while_break_clean.tir"), str(kernels / "break_skips_wait.tir")],
                   capture_output=True, text=True, timeout=600)
    rows = {Path(r["kernel"].split("::")[0]).name: r for r in json.loads(out.read_text())}
    assert rows["while_break_clean.tir"]["verdict"] == "pass"
    assert rows["break_skips_wait.tir"]["verdict"] == "fail" and rows["break_skips_wait.tir"]["agree"] == "yes"


def test_a_warp_sync_is_emitted_as_syncwarp_at_both_sides_of_the_size_branch(tmp_path):
    # flashinfer#3439's kernel (tracker round 10) waits for its own warp's cp.async copies, then
    # `__syncwarp()` (T.sync_warp): the gate had no skeleton for it and skipped the kernel. Its
    # race sits behind `if prev_k + 8 > 16`: the gate launches both values the checker ran
    # (1 and 9; the last was dropped as if it were an induction's far value)
    from asyncguard.emit.gate import gate_sizes
    path = CORPUS / "trackers_r10" / "flashinfer3439_ssu_per_warp_cpasync_cross_warp_read_sm80.tir"
    func = parse(path.read_text(), str(path)).functions[0]
    program = elaborate(func)
    assert gate_sizes(program) == [{"prev_k": 1}, {"prev_k": 9}]
    e = emit(func, program, sizes={"prev_k": 9})
    assert "__syncwarp();  // line 55" in e.source
    if shutil.which("nvcc") is not None:
        src = tmp_path / "k.cu"
        src.write_text(e.source)
        p = subprocess.run(["nvcc", "-cubin", "-arch=sm_80", "-o", str(tmp_path / "k.cubin"), str(src)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]


def test_a_block_mask_copied_into_a_register_fragment_is_emitted_and_decides_the_branches(tmp_path):
    # tilelang#2030's block-sparse copy: `block_mask_f[i * 4:i * 4 + 4] = BlockMask[by * 8 + i * 4:...]`
    # (line 47 of the buggy file), `a = block_mask_f[i]` (50), `if 0 <= a:` (52). The engine decides the branch per
    # iteration (an unknown outcome, engine/loaded_numbers.py `_iteration_choice`) and left the
    # register's elements unknown, so the emitter refused the let; the skeleton now copies the
    # cells from the launch's table into the register and evaluates the kernel's own condition
    from asyncguard.emit.prepare import Case, _prepare_instance, prepare
    stem = CORPUS / "trackers_r9" / "tilelang2030_blocksparse_copy_sync_hoisted_before_if_sm90a"
    got = {c.id.split("/")[-1]: c for c in prepare([f"{stem}.tir", f"{stem}_fixed.tir"])}
    assert len(got) == 3 and all(c.skip is None for c in got.values()), {k: c.skip for k, c in got.items()}
    for c in got.values():
        src = c.emitted.source
        copy_line = next(k for k, ln in enumerate(Path(c.path).read_text().splitlines(), 1)
                         if ln.strip().startswith("block_mask_f_1[i * 4:i * 4 + 4] = BlockMask_1["))
        for j in range(4):
            assert (f"ag_reg_block_mask_f[(0LL + ((v_i * 4LL)) + {j}LL)] = (i64)(ag_num_BlockMask((i64)(0LL + "
                    f"(((((v_by * 8LL) + (v_i * 4LL)) + {j}LL))) * 4LL)));  // line {copy_line}: register slice copy") in src
        assert "i64 v_a = (i64)(ag_reg_block_mask_f[(0LL + v_i)]);" in src and "if ((0LL <= v_a)) {" in src
        # every branch taken in the reference (and the witness's values, 0, take them too): the
        # table holds cell values that take them, BlockMask[by * 8 + i] for block 0
        assert "case 0LL: return 0LL; case 4LL: return 0LL;" in src and "case 28LL: return 0LL;" in src
        assert all(c.refs[0].chosen[("BlockMask", 4 * k)] == 0 for k in range(8))
        assert (c.refs[0].sink != 0).any()
        if shutil.which("nvcc") is not None:
            cu = tmp_path / f"{c.emitted.kernel}.cu"
            cu.write_text(src)
            p = subprocess.run(["nvcc", "-c", "-arch=sm_90a", "-o", str(cu.with_suffix(".o")), str(cu)],
                               capture_output=True, text=True)
            assert p.returncode == 0, p.stderr[-2000:]
    # a witness naming cell values that skip iterations (-1: `0 <= a` false): the reference skips
    # exactly those and the table returns -1 there, so the skeleton's branches skip them too
    func = parse(Path(f"{stem}.tir").read_text(), f"{stem}.tir").functions[0]
    program = elaborate(func)
    skipped = Case(f"{stem}.tir", "witness")
    _prepare_instance(skipped, func, program, {}, "ag_w", witness=({}, {f"BlockMask_1[{k}]": -1 for k in (5, 6, 7)}))
    assert skipped.skip is None
    assert "case 16LL: return 0LL; case 20LL: return -1LL; case 24LL: return -1LL; case 28LL: return -1LL;" \
        in skipped.emitted.source
    assert skipped.refs[0].chosen == {("BlockMask", 4 * k): (-1 if k >= 5 else 0) for k in range(8)}


def test_the_lanes_of_a_row_storing_the_rows_value_write_one_pattern():
    # flashinfer#1661's merge-states kernel (corpus/trackers_r12): `s_smem[ty] = st_m[0]` by the 8
    # lanes of each row, one value per element (engine/same_value.py): the skeleton writes the
    # site's pattern, not each lane's own, or the clean kernel's trace would differ on the GPU
    from asyncguard.emit.prepare import prepare
    path = CORPUS / "trackers_r12" / "flashinfer1661_persistent_merge_states_next_item_cpasync_overwrites_sync_state_sm80_fixed.tir"
    (case,) = prepare([str(path)])
    assert case.skip is None
    lines = case.emitted.source.splitlines()
    row = next(ln for ln in lines if ln.rstrip().endswith("// line 78: store, one value per element"))
    assert row.strip().startswith("ag_write_uniform((8192LL + (v_ty) * 4LL), 4LL,")
    # the lane's own element (line 60, `s_smem[ty * 8 + tx]`) keeps the lane's pattern
    assert any(ln.strip().startswith("ag_write(ag, (8192LL + (((v_ty * 8LL) + v_tx)) * 4LL), 4LL);  // line 60")
               for ln in lines)
