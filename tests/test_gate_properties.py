"""The gate never raises (issue 15): preparation, reference, emission and comparison, over the
corpus, the field corpus, the hand-made kernels and generated variants (threadIdx.y/z, uneven
roles, 1 to 1024 threads and more, several sampled blocks, symbolic sizes). A kernel the gate
cannot handle is a SKIP with a reason; one it handles expects, from a correct GPU, exactly the
reference (the comparison of the reference's own trace finds nothing)."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from asyncguard.emit.prepare import compare, expected_run, prepare_file

ROOT = Path(__file__).resolve().parent.parent
FIELD = Path(os.environ.get("AG_FIELD_CORPUS", ROOT / "corpus" / "field"))   # TileLang's examples
KERNELS = sorted(str(p) for p in (ROOT / "tests" / "gate_kernels").glob("*.tir"))
CORPUS = sorted(str(p) for d in ("real", "handwritten", "resources") for p in (ROOT / "corpus" / d).glob("*.tir"))
VARIANTS = sorted(str(p) for p in (ROOT / "corpus" / "variants").glob("*.tir"))
FIELD_FILES = sorted(str(p) for p in FIELD.glob("**/*.tir")) if FIELD.is_dir() else []

SLOW = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def check_cases(cases, path):
    assert cases, path
    for c in cases:
        if c.skip is not None:
            assert isinstance(c.skip, str) and c.skip.strip() and "None" not in c.skip.split(":")[0]
            continue
        e = c.emitted
        assert e is not None and "NoneLL" not in e.source and " None" not in e.source.split("extern \"C\"")[1]
        T = c.plan["threads_total"]
        assert T == e.threads[0] * e.threads[1] * e.threads[2]
        assert all(len(r.reads) == T for r in c.refs) and len(c.refs) == c.plan["nslots"]
        res = compare(c, expected_run(c))
        assert res["mismatches"] == res["count_mismatches"] == res["sink_mismatches"] == 0, res["first"]
        # a run of another shape (another kernel's trace) is reported, not indexed past its end
        other = expected_run(c)
        other["trace"], other["counts"] = other["trace"][:, : max(T // 2, 1)], other["counts"][:, : max(T // 2, 1)]
        if T > 1:
            assert compare(c, other).get("shape_error")


@SLOW
@given(st.sampled_from(CORPUS + KERNELS))
def test_corpus_kernels_prepare_without_raising(path):
    check_cases(prepare_file(0, path, seconds=20), path)


@SLOW
@given(st.sampled_from(VARIANTS))
def test_variants_prepare_without_raising(path):
    check_cases(prepare_file(0, path, seconds=20), path)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.sampled_from(FIELD_FILES))
def test_field_corpus_prepares_without_raising(path):
    check_cases(prepare_file(0, path, seconds=20), path)


def test_hand_made_kernels_prepare_and_emit():
    for path in KERNELS:
        cases = prepare_file(0, path, seconds=120)
        check_cases(cases, path)
        assert all(c.skip is None for c in cases), [(c.id, c.skip) for c in cases]


# ---------------------------------------------------------------- generated kernels
def generated(x, y, z, split, trips, grid, barrier_kind, symbolic, race) -> str:
    """A kernel over an x*y*z block: every thread stores its slot, a barrier, then role A
    (linear id < split) reads its neighbour's slot and role B another one, a barrier. `trips`:
    a constant, blockIdx-dependent ("bx") or the symbolic size K. `race`: the first barrier
    dropped. `barrier_kind`: __syncthreads or, per role, named barriers."""
    n = x * y * z
    tid = "tx" + (f" + ty * {x}" if y > 1 else "") + (f" + tz * {x * y}" if z > 1 else "")
    loop = {"const": "3", "bx": "1 + bx % 3", "K": "K"}[trips]
    params = 'A: T.handle("float32", "global")' + (", K: T.int32" if symbolic else "")
    lines = [
        "# from tvm.script import tirx as T",
        "@T.prim_func",
        f"def gen({params}):",
        f'    T.func_attr({{"dyn_shared_memory_buf": {max(n, 1) * 4}, "target": T.target({{"arch": "sm_80", "kind": "cuda"}}), '
        f'"thread_extent": {{"blockIdx.x": {grid}, "threadIdx.x": {x}, "threadIdx.y": {y}, "threadIdx.z": {z}}}}})',
        f'    bx = T.launch_thread("blockIdx.x", {grid})',
        f'    tx = T.launch_thread("threadIdx.x", {x})',
        f'    ty = T.launch_thread("threadIdx.y", {y})',
        f'    tz = T.launch_thread("threadIdx.z", {z})',
        f"    S = T.alloc_buffer(({n},), scope=\"shared.dyn\")",
        f"    for k in T.serial({loop}):",
        f"        S[{tid}] = T.float32(1.0)",
    ]
    if not race:
        lines.append('        T.tvm_storage_sync("shared")')
    if barrier_kind == "named" and 0 < split < n and split % 32 == 0 and (n - split) % 32 == 0:
        lines += [f"        if {tid} < {split}:",
                  f"            v = S[({tid} + 1) % {split}]",
                  f'            T.tvm_storage_sync("shared", 1, {split})',
                  "        else:",
                  f"            v = S[{split} + ({tid} - {split} + 1) % {n - split}]",
                  f'            T.tvm_storage_sync("shared", 2, {n - split})']
    else:
        lines += [f"        if {tid} < {split}:",
                  f"            v = S[({tid} + 1) % {n}]",
                  "        else:",
                  f"            v = S[({tid} + 3) % {n}]",
                  '        T.tvm_storage_sync("shared")']
    return "\n".join(lines) + "\n"


@st.composite
def layouts(draw):
    x = draw(st.sampled_from([1, 2, 7, 32, 33, 64, 96, 128, 160, 256, 384, 1024, 2048]))
    y = draw(st.sampled_from([1, 1, 2, 3, 4]))
    z = draw(st.sampled_from([1, 1, 2, 65]))
    n = x * y * z
    split = draw(st.sampled_from([0, 32, 96, 128, 256, n // 2, n]))
    return dict(x=x, y=y, z=z, split=min(split, n), trips=draw(st.sampled_from(["const", "bx", "K"])),
                grid=draw(st.sampled_from([1, 3, 64])), barrier_kind=draw(st.sampled_from(["block", "named"])),
                race=draw(st.booleans()))


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(layouts())
def test_generated_layouts_prepare_without_raising(tmp_path_factory, params):
    src = generated(symbolic=params["trips"] == "K", **params)
    path = tmp_path_factory.mktemp("gen") / "gen.tir"
    path.write_text(src)
    cases = prepare_file(0, str(path), seconds=60)
    check_cases(cases, src)
    n = params["x"] * params["y"] * params["z"]
    for c in cases:
        if n > 1024 or params["z"] > 64:
            assert c.skip and "CUDA allows at most" in c.skip, c.skip
    if n <= 1024 and params["z"] <= 64 and not params["race"]:
        ran = [c for c in cases if c.skip is None]
        assert ran, [c.skip for c in cases]
        if params["trips"] == "bx" and params["grid"] > 1:
            assert all(c.plan["nslots"] > 1 for c in ran)       # several sampled blocks traced
        if params["trips"] == "K":
            assert len(ran) >= 2 and all("[K=" in c.func for c in ran)


def test_unknown_element_size_is_skip_never_none(tmp_path):
    # an int4 buffer (sub-byte): no byte size, so no skeleton -- a SKIP that says why, never `NoneLL`
    src = (ROOT / "tests" / "gate_kernels" / "xyz_cp_async_ring.tir").read_text()
    src = src.replace('T.type_annotation("float32"), S.data', 'T.type_annotation("int4"), S.data')
    path = tmp_path / "int4.tir"
    path.write_text(src)
    cases = prepare_file(0, str(path), seconds=60)
    assert cases and all(c.skip for c in cases)
    assert any("element size" in c.skip or "int4" in c.skip for c in cases), [c.skip for c in cases]


def test_a_file_the_parser_rejects_is_one_skip(tmp_path):
    bad = tmp_path / "bad.tir"
    bad.write_text("@T.prim_func\ndef f(:\n")
    (c,) = prepare_file(0, str(bad))
    assert c.skip.startswith("not prepared: InputError") and c.func == "<file>"


def test_the_preparation_budget_makes_a_skip(tmp_path):
    path = ROOT / "corpus" / "real" / "fa_fwd_causal_sm80_s2.tir"
    cases = prepare_file(0, str(path), seconds=0.05)
    assert cases and all(c.skip and ("more than" in c.skip or "budget" in c.skip or "timeout" in c.skip.lower())
                         for c in cases), [c.skip for c in cases]


def test_expected_run_shape_matches_the_launch_buffers():
    cases = prepare_file(0, KERNELS[0])
    c = next(c for c in cases if c.skip is None)
    run = expected_run(c)
    S, T, R = run["trace"].shape
    assert (S, T) == run["counts"].shape and R == max(c.plan["maxr"], 1) and T == c.plan["threads_total"]
    assert np.asarray(run["sink"]).shape[1] >= c.plan["smem"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_generated_skeletons_compile_for_sm90a(tmp_path):
    layouts_ = [dict(x=32, y=2, z=2, split=64, trips="bx", grid=64, barrier_kind="named", race=False),
                dict(x=160, y=1, z=1, split=128, trips="K", grid=1, barrier_kind="named", race=False),
                dict(x=7, y=3, z=1, split=5, trips="const", grid=3, barrier_kind="block", race=True),
                dict(x=1024, y=1, z=1, split=512, trips="const", grid=1, barrier_kind="named", race=False)]
    names = []
    for i, p in enumerate(layouts_):
        path = tmp_path / f"g{i}.tir"
        path.write_text(generated(symbolic=p["trips"] == "K", **p))
        for c in prepare_file(i, str(path)):
            assert c.skip is None, c.skip
            (tmp_path / f"{c.emitted.kernel}.cu").write_text(c.emitted.source)
            names.append(f"{c.emitted.kernel}.cu")
    r = subprocess.run(["nvcc", "-arch=sm_90a", "-c"] + names, cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_symbolic_grids_get_a_concrete_launch():
    # a grid extent over a size the checker needs no value for (mhc_post: its block index only
    # addresses global memory) is launched at size 1; a block index the prover treats as a size
    # (fp8 quant) is not a kernel parameter of the skeleton (it comes from the block map)
    for name in ("mhc_post_sm80.tir", "fp8_quant_sm90a.tir"):
        path = str(ROOT / "corpus" / "dynamic" / name)
        cases = prepare_file(0, path, seconds=60)
        assert cases and all(c.skip is None for c in cases), [(c.id, c.skip) for c in cases]
        check_cases(cases, path)
