"""Lower kernels of TileLang's own TESTS (not its examples) to device TIR on a CPU: the held-out corpus
(corpus/unseen/). asyncguard's other corpora were built alongside its code; these kernels were not looked at
before this corpus was checked.

Usage (one command regenerates it; it runs its test files one at a time, each in a subprocess):
    . /work/tl-venv/bin/activate
    nice -n 15 python corpus/lower_unseen.py [--out corpus/unseen] [--only SUBSTR ...] [--timeout S]

The tests come from `testing/python/` of the TileLang mirror at COMMIT (extracted to /tmp/tl-testing with
`git -C MIRROR archive COMMIT testing`). TESTS below names, per test file, the test functions to run (the
files' pipelined / TMA / warp-specialized / dynamic-shape / persistent / cluster / tcgen05 kernels first);
a test with `@pytest.mark.parametrize` is called with its first parameter set. BUILDERS adds kernels that
tests only pass through single passes (a persistent GEMM with a symbolic tile bound, a GEMM dynamic in
M, N and K).

How a kernel is obtained: the GPU stubs of corpus/lower_field.py (torch.cuda queries answer as the primary
arch's GPU, "cuda" tensors live on torch's meta device) are installed; TileLang's compile entries
(tilelang.cache.cached as used by tilelang.compile and @tilelang.jit, JITKernel construction, and
tilelang.lower called directly by a test) are replaced by a function that lowers the PrimFunc it is handed
for each arch of the test, under the test's pass_configs, with `tilelang.lower(func, target=Target(...))`,
and saves `str(artifact.device_mod)`; then the test is stopped (it would run the kernel on a GPU). The first
kernel each test compiles is kept. Byte-identical TIR is kept once.
Archs: sm_100a for tcgen05/TMEM tests, sm_90a for Hopper-only ones (TMA, wgmma, warp specialization,
mbarriers, clusters), sm_80 and sm_90a for the rest.
Output: NAME.tir with NAME = <testdir>__<file-stem minus test_tilelang_>__<test function>__<arch>,
MANIFEST.md, lowering.json.

--wide (corpus/unseen_wide/, a second held-out corpus):
    nice -n 15 python corpus/lower_unseen.py --wide --out corpus/unseen_wide --timeout 240 [--budget-min 70]
runs every test file under WIDE_DIRS of testing/python that names a compile entry (TESTS's files too), every
test function of it, and for a parametrized test up to WIDE_SETS_PER_TEST parameter sets (the first, then
those that differ most, shapes / stages / threads / dtypes / warp specialization first; a test whose first set
corpus/unseen has runs only the others), at most WIDE_MAX_PER_FILE compiling runs a file. The first kernel of
each (test, parameter set) is kept, as above; a parametrized test's NAME has the set in it:
<test function>__p<index>_<param><value>-... . TIR byte-identical to a kernel of corpus/field, field_sizes,
field_sm120 or unseen is not kept, nor TIR with no shared memory (no "shared..." storage scope: nothing for
asyncguard to verify). No test file is started after --budget-min minutes. BUILDERS are not run.

--wide for one arch (corpus/unseen_tests_sm100/, session 31): with the environment variable
LOWER_UNSEEN_FORCE_ARCH=ARCH every test is lowered for ARCH only, a test's first parameter set runs even
where corpus/unseen has it (corpus/unseen lowered it for other archs), and TIR byte-identical to any .tir
under corpus/ (but --out) is not kept. LOWER_UNSEEN_SETS / LOWER_UNSEEN_MAX_PER_FILE replace
WIDE_SETS_PER_TEST / WIDE_MAX_PER_FILE (the children read them too: they inherit the environment).
"""
import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lower_field  # noqa: E402  (the field corpus's GPU stubs)
from lowering import (COMMIT, extract_from_mirror, keep_distinct, last_line, lower_and_record,  # noqa: E402
                      scratch_dir, sha256_text)

TESTING = "/tmp/tl-testing/testing/python"

# test file (under testing/python) -> test functions to run ("*" = every test_ function, capped).
TESTS = {
    "kernel/test_tilelang_kernel_gemm.py": ["test_gemm_f16f16f16_nn", "test_gemm_f16f16f32_nn",
                                             "test_gemm_bf16bf16f32_nn", "test_gemm_f16f16f16_tn",
                                             "test_gemm_f16f16f16_nt", "test_pad_aligned_f16f16f16_nn",
                                             "test_pad_f16f16f16_nn", "test_gemm_i8i8i32_nt",
                                             "test_gemm_f32f32f32_nt"],
    "kernel/test_tilelang_kernel_gemm_with_stride.py": ["*"],
    "kernel/test_tilelang_kernel_gemm_batched.py": ["*"],
    "kernel/test_tilelang_kernel_int8_gemm_tcgen5.py": ["*"],
    "kernel/test_tilelang_kernel_bf16_gemm_tcgen5_ts.py": ["*"],
    "language/test_tilelang_language_async_copy_gemm_sm80.py": ["*"],
    "language/test_tilelang_language_pipeline.py": ["*"],
    "language/test_tilelang_language_tma_copy.py": ["*"],
    "language/test_tilelang_language_tma_1d.py": ["*"],
    "language/test_tilelang_language_tma_store.py": ["*"],
    "language/test_tilelang_language_tma_gather_scatter.py": ["*"],
    "language/test_tilelang_language_wgmma_gemm.py": ["*"],
    "language/test_tilelang_language_cluster.py": ["*"],
    "language/test_tilelang_language_tcgen05_gemm.py": ["*"],
    "language/test_tilelang_language_tile_schedule.py": ["*"],
    "language/test_tilelang_language_copy.py": ["*"],
    "language/test_tilelang_language_pdl.py": ["*"],
    "issue/test_tilelang_issue_tma_no_ws.py": ["*"],
    "issue/test_tilelang_issue_ws_simt_copy_full_producer_extent.py": ["*"],
    "issue/test_tilelang_issue_1001.py": ["*"],
    "issue/test_tilelang_issue_1008.py": ["*"],
    "issue/test_tilelang_issue_1210.py": ["*"],
    "issue/test_tilelang_issue_1237.py": ["*"],
    "issue/test_tilelang_issue_1263.py": ["*"],
    "issue/test_tilelang_issue_1697.py": ["*"],
    "issue/test_tilelang_issue_1728.py": ["*"],
    "issue/test_tilelang_issue_1810.py": ["*"],
    "issue/test_tilelang_issue_1993.py": ["*"],
    "issue/test_tilelang_issue_2365.py": ["*"],
    "issue/test_tilelang_issue_2433.py": ["*"],
    "issue/test_tilelang_issue_2522.py": ["*"],
    "issue/test_tilelang_issue_2528.py": ["*"],
    "issue/test_tilelang_issue_2529.py": ["*"],
    "issue/test_tilelang_issue_2883.py": ["*"],
    "issue/test_tilelang_issue_2928.py": ["*"],
    "issue/test_tilelang_issue_830.py": ["*"],
    "issue/test_tilelang_issue_96.py": ["*"],
    "cuda/test_tma_dsmem.py": ["*"],
    "cuda/test_tma_multicast_demo.py": ["*"],
    "jit/test_tilelang_jit_gemm.py": ["*"],
    "jit/test_tilelang_jit_gemm_cython.py": ["test_cython_dynamic_shape"],
    "jit/test_tilelang_jit_tvm_ffi.py": ["test_tvm_ffi_dynamic_shape"],
    "transform/test_tilelang_transform_producer_consumer_ws_persistent.py": ["*"],
    "transform/test_tilelang_transform_producer_consumer_ws.py": ["*"],
    "transform/test_tilelang_transform_pipeline_barrier_ownership.py": ["*"],
    "components/test_tilelang_pass_config_disable_tma_lower.py": ["*"],
    "components/test_tilelang_pass_config_disable_warp_specialized.py": ["*"],
    "tilelibrary/test_tilelang_tilelibrary_gemm_sp.py": ["*"],
    "quantize/test_tilelang_quantize_fp8.py": ["*"],
}
# Kernels that a test only passes through single TileLang passes (never compiles), or compiles only after
# a first, less interesting, one: file -> [(label, builder call evaluated in the test module's globals)].
# The PrimFunc it returns is lowered like a compiled one.
BUILDERS = {
    "transform/test_tilelang_transform_producer_consumer_ws_persistent.py": [
        ("persistent_matmul_serial_dynamic_bound", "persistent_matmul_serial_dynamic_bound()")],
    "jit/test_tilelang_jit_gemm_cython.py": [
        ("matmul_dynamic_mnk", 'matmul(T.dynamic("m"), T.dynamic("n"), T.dynamic("k"), 128, 128, 32, False, False, '
                               'T.float16, T.float16, T.float32, 2, 128)')],
}
MAX_TESTS_PER_FILE = 6
# --wide (corpus/unseen_wide/): every test file of WIDE_DIRS that calls a compile entry (WIDE_COMPILE), every
# test function of it, and for a parametrized test up to WIDE_SETS_PER_TEST parameter sets (the first, then
# the sets that differ most from those chosen, parameters naming shapes / stages / threads / dtypes / warp
# specialization counting triple); at most WIDE_MAX_PER_FILE (test, parameter set) runs that compile a
# kernel per file, every test's first set before any test's second, but 2 of them kept for other sets.
WIDE_DIRS = ("kernel", "language", "issue", "transform", "tilelibrary", "jit", "components", "cuda", "quantize",
             "fastmath", "math", "layout", "debug", "analysis", "profiler", "runtime", "cache", "target", "utils",
             "tools", "autotune")
WIDE_COMPILE = re.compile(r"tilelang\.compile|tl\.compile|@tilelang\.jit|@tl\.jit|tilelang\.jit\(|tl\.jit\(|"
                          r"tilelang\.lower\(|tl\.lower\(|\.compile\(|JITKernel|@jit|jit\(")
WIDE_SETS_PER_TEST = int(os.environ.get("LOWER_UNSEEN_SETS", 4))
WIDE_MAX_PER_FILE = int(os.environ.get("LOWER_UNSEEN_MAX_PER_FILE", 5))
FORCE_ARCH = os.environ.get("LOWER_UNSEEN_FORCE_ARCH")   # every test for this arch only (see the docstring)
WIDE_INTERESTING = re.compile(r"^(m|n|k|b|h|d|l|s|e)$|stage|thread|dtype|ws|warp|speciali|block|shape|size|dim|"
                              r"pipelin|tma|persist|split|policy|len|seq|head|batch|tile|trans|accum|num|cluster",
                              re.I)
# einops, when a test needs it (the GPU stubs stand in for absent modules otherwise).
WIDE_PYDEPS = "/tmp/relower_patch/site"
# The mirror's examples/ at COMMIT (some tests import helpers from it), as corpus/lower_field.py extracts it.
WIDE_EXAMPLES = lower_field.DEFAULT_EXAMPLES
EXISTING_CORPORA = ("field", "field_sizes", "field_sm120", "unseen")
# Case-sensitive: upper-case names are pass configs that turn a feature off (TL_DISABLE_WARP_SPECIALIZED).
SM100 = re.compile(r"sm_?100|tcgen0?5|T\.tmem|alloc_tmem")
HOPPER = re.compile(r"(^|[_/])tma|wgmma|warp_speciali|_ws[._]|mbarrier|cluster|dsmem|multicast|T\.ws\(|"
                    r"set_max_nreg|float8|fp8|requires_cuda_compute_version(_ge|_eq)?\(9")


def archs_for(rel, src):
    """The file's archs. A test whose own source names sm_100 / tcgen05 gets sm_100a (test_archs)."""
    if FORCE_ARCH:
        return [FORCE_ARCH]
    if SM100.search(rel):
        return ["sm_100a"]
    if HOPPER.search(rel) or HOPPER.search(src):
        return ["sm_90a"]
    return ["sm_80", "sm_90a"]


def test_archs(fn, file_archs):
    if FORCE_ARCH:
        return [FORCE_ARCH]
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return file_archs
    return ["sm_100a"] if SM100.search(src) else file_archs


def short(rel):
    d, f = rel.split("/")
    stem = os.path.splitext(f)[0]
    for p in ("test_tilelang_", "test_"):
        if stem.startswith(p):
            stem = stem[len(p):]
            break
    return d, stem


# ------------------------------------------------------------------------------------------------
# Child: import one test file and call its chosen tests with TileLang's compile intercepted
# ------------------------------------------------------------------------------------------------


def first_params(fn):
    """Keyword arguments of the first @pytest.mark.parametrize set(s) of fn, or None when fn takes other
    arguments (fixtures) this driver cannot supply."""
    sets = all_params(fn)
    return None if sets is None else sets[0]


def all_params(fn):
    """Every parameter set of fn's @pytest.mark.parametrize marks (their product, in pytest's order, the
    first being first_params's), as keyword dicts; [{}] for a test without marks; None when fn takes other
    arguments (fixtures) this driver cannot supply."""
    import itertools
    axes = []
    for m in getattr(fn, "pytestmark", []):
        if m.name != "parametrize" or len(m.args) < 2:
            continue
        names = [n.strip() for n in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
        vals = list(m.args[1])
        if not vals:
            return None
        sets = []
        for v in vals:
            raw = getattr(v, "values", v)  # pytest.param(...)
            if len(names) == 1:
                raw = (raw[0],) if isinstance(raw, tuple) and getattr(v, "values", None) else (raw,)
            sets.append(dict(zip(names, raw)))
        axes.append(sets)
    out = [{k: v for d in combo for k, v in d.items()} for combo in itertools.product(*axes)] if axes else [{}]
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return out
    for p in sig.parameters.values():
        if p.name not in out[0] and p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL,
                                                                                            p.VAR_KEYWORD):
            return None
    return out


def _param_text(v):
    if isinstance(v, (tuple, list)):
        return "x".join(_param_text(x) for x in v)
    name = getattr(v, "__name__", None)
    t = name if isinstance(name, str) else str(v)
    return t.replace("T.", "").replace("torch.", "").replace("PassConfigKey.", "")


def choose_sets(sets, cap, skip_first):
    """Indices of at most `cap` parameter sets: the first (left out, though counted as chosen, when
    skip_first: corpus/unseen has it), then greedily the set with the most parameter values not chosen yet
    (a parameter matching WIDE_INTERESTING counts 3), ties to the earlier set."""
    if len(sets) <= 1:
        return [] if skip_first else list(range(len(sets)))
    seen = {k: {repr(v)} for k, v in sets[0].items()}
    chosen = [0]
    while len(chosen) < min(cap, len(sets)):
        best, best_score = None, 0
        for i, s in enumerate(sets):
            if i in chosen:
                continue
            score = sum((3 if WIDE_INTERESTING.search(k) else 1) for k, v in s.items()
                        if repr(v) not in seen.get(k, set()))
            if score > best_score:
                best, best_score = i, score
        if best is None:
            break
        chosen.append(best)
        for k, v in sets[best].items():
            seen.setdefault(k, set()).add(repr(v))
    return chosen[1:] if skip_first else chosen


def set_label(i, kwargs, first):
    """p<index>_<param><value>-... (only the parameters that differ from the first set when all would be
    long), at most ~70 characters."""
    import hashlib
    parts = [f"{k}{_param_text(v)}" for k, v in kwargs.items()]
    lab = "-".join(parts)
    if len(lab) > 70:
        lab = "-".join(f"{k}{_param_text(v)}" for k, v in kwargs.items()
                       if k not in first or repr(first[k]) != repr(v)) or lab
    lab = lower_field.sanitize(lab)
    if len(lab) > 70:
        lab = lab[:60] + "~" + hashlib.sha1(lab.encode()).hexdigest()[:6]
    return f"p{i}_{lab}" if lab else f"p{i}"


def wide_runs(mod, names, done):
    """(key, test name, kwargs, set index) of the runs --wide makes for one file's tests, in order (each
    test's first chosen set, then the others round-robin), and (test, outcome) of the tests it skips."""
    per_test, skipped = [], []
    for n in names:
        fn = getattr(mod, n)
        sets = all_params(fn)
        if sets is None:
            skipped.append((n, "skipped: needs fixtures"))
            continue
        idx = choose_sets(sets, WIDE_SETS_PER_TEST, n in done)
        if not idx:
            skipped.append((n, "skipped: its only parameter set is in corpus/unseen"))
            continue
        plain = len(sets) == 1
        per_test.append([(n if plain else f"{n}__{set_label(i, sets[i], sets[0])}", n, sets[i], i) for i in idx])
    runs = []
    for r in range(WIDE_SETS_PER_TEST):
        runs += [t[r] for t in per_test if r < len(t)]
    return runs, skipped


def child(args):
    import importlib.util
    import traceback
    archs = args.archs.split(",")
    os.makedirs(args.tmp, exist_ok=True)
    results = open(os.path.join(args.tmp, "results.jsonl"), "a", buffering=1)
    path = os.path.abspath(args.child)
    lower_field.EXAMPLES_ROOT = os.path.dirname(os.path.dirname(path))
    if args.wide and os.path.isdir(WIDE_PYDEPS):
        sys.path.append(WIDE_PYDEPS)
    lower_field._install_stubs(archs[0])
    import tilelang
    import tvm
    from tvm.target import Target
    import tilelang.cache  # noqa: F401
    import tilelang.jit.kernel  # noqa: F401
    import tilelang.engine.lower  # noqa: F401
    engine_lower = sys.modules["tilelang.engine.lower"]  # the package attribute `lower` is the function

    real_lower = engine_lower.lower
    current = {"test": None, "done": False, "archs": archs}
    Stop = lower_field.StopExample

    def lower_for_archs(func, pass_configs):
        archs = current["archs"]
        if current["done"]:
            raise Stop("test compiled a second kernel")
        current["done"] = True
        for arch in archs:
            rec = {"event": "kernel", "test": current["test"], "arch": arch,
                   "pass_configs": {str(k): str(v) for k, v in (pass_configs or {}).items()}}
            try:
                rec["symbol"] = str(func.attrs["global_symbol"])
            except Exception:  # noqa: BLE001
                pass
            # tilelang.lower itself is intercepted below (tests call it): the real one lowers.
            lower_and_record(func, arch, pass_configs, os.path.join(args.tmp, f"{current['test']}_{arch}.tir"), rec,
                             lower=real_lower)
            results.write(json.dumps(rec) + "\n")
        raise Stop("kernel lowered")

    def fake_cached(func=None, out_idx=None, *a, pass_configs=None, **k):
        lower_for_archs(func, pass_configs)

    def fake_lower(func, *a, **k):
        if args.wide:  # tilelang 0.1.15's TVM has tvm.tirx, no tvm.tir (the default run keeps its import)
            PrimFunc = getattr(getattr(tvm, "tir", None), "PrimFunc", None) or tvm.tirx.PrimFunc
        else:
            from tvm.tir import PrimFunc
        if isinstance(func, tvm.IRModule):
            fs = [f for f in func.functions.values() if isinstance(f, PrimFunc)]
            func = fs[0] if len(fs) == 1 else func
        lower_for_archs(func, dict(tvm.transform.PassContext.current().config))

    jit_mod, cache_mod, kernel_mod = (sys.modules[m] for m in ("tilelang.jit", "tilelang.cache", "tilelang.jit.kernel"))
    cache_mod.cached = fake_cached
    jit_mod.cached = fake_cached

    def fake_jitkernel_init(self, func=None, *a, pass_configs=None, **k):
        lower_for_archs(func, pass_configs)

    kernel_mod.JITKernel.__init__ = fake_jitkernel_init
    engine_lower.lower = fake_lower
    tilelang.lower = fake_lower
    import tilelang.engine
    tilelang.engine.lower = fake_lower

    d = os.path.dirname(path)
    os.chdir(d)
    sys.path[:0] = [d, os.path.dirname(d)]
    if args.wide:  # tests that import the mirror's examples package (from examples.gemm_sp...)
        sys.path.append(os.path.dirname(WIDE_EXAMPLES))
    with Target({"kind": "cuda", "arch": archs[0]}):
        spec = importlib.util.spec_from_file_location("unseen_" + os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        if args.wide:  # dataclasses and pickling look the module up by name
            sys.modules[spec.name] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException as e:  # noqa: BLE001
            results.write(json.dumps({"event": "import-error", "why": last_line(e)}) + "\n")
            os._exit(0)
        wanted = args.tests.split(",")
        names = [n for n in dir(mod) if n.startswith("test_") and callable(getattr(mod, n))]
        names.sort(key=lambda n: getattr(getattr(getattr(mod, n), "__code__", None), "co_firstlineno", 0))
        if wanted != ["*"]:
            names = [n for n in wanted if n in names]
        if args.wide:
            return wide_child(mod, names, set(filter(None, (args.done or "").split(","))), current, archs,
                              results, Stop, traceback)
        kept = 0
        for n in names:
            if kept >= MAX_TESTS_PER_FILE:
                break
            fn = getattr(mod, n)
            kwargs = first_params(fn)
            if kwargs is None:
                results.write(json.dumps({"event": "test", "test": n, "outcome": "skipped: needs fixtures"}) + "\n")
                continue
            current.update(test=n, done=False, archs=test_archs(fn, archs))
            kept += run_test(fn, n, kwargs, current, results, Stop, traceback)
        for label, call in BUILDERS.get(args.rel, []):
            current.update(test=label, done=False, archs=archs)
            outcome = "finished"
            try:
                func = eval(call, vars(mod))  # noqa: S307  (a call written in BUILDERS above)
                lower_for_archs(func, {})
            except Stop as e:
                outcome = "stopped: " + str(e)
            except BaseException as e:  # noqa: BLE001
                outcome = f"error: {type(e).__name__}: {last_line(e)}"
            results.write(json.dumps({"event": "test", "test": label, "outcome": outcome,
                                      "params": {"call": call}}) + "\n")
    results.close()
    os._exit(0)


def run_test(fn, key, kwargs, current, results, Stop, traceback) -> int:
    """Call test `fn` with `kwargs` (stopped by the interception once it compiled a kernel) and
    record the outcome under `key`; 1 when it compiled (and so kept) a kernel, else 0."""
    outcome = "finished"
    try:
        fn(**kwargs)
    except Stop as e:
        outcome = "stopped: " + str(e)
    except BaseException as e:  # noqa: BLE001
        outcome = f"error: {type(e).__name__}: {last_line(e)}"
        results.write(json.dumps({"event": "traceback", "test": key,
                                  "text": "".join(traceback.format_exception(e)[-4:])[-1500:]}) + "\n")
    results.write(json.dumps({"event": "test", "test": key, "outcome": outcome,
                              "params": {k: repr(v) for k, v in kwargs.items()}}) + "\n")
    return 1 if current["done"] else 0


def wide_child(mod, names, done, current, archs, results, Stop, traceback):
    runs, skipped = wide_runs(mod, names, done)
    for n, why in skipped:
        results.write(json.dumps({"event": "test", "test": n, "outcome": why}) + "\n")
    kept = 0
    # Up to 2 of the file's compiling runs are kept for parameter sets other than the first.
    others = sum(i > 0 for *_, i in runs)
    for key, n, kwargs, i in runs:
        others -= i > 0
        if kept >= WIDE_MAX_PER_FILE or (i == 0 and kept >= WIDE_MAX_PER_FILE - min(2, others)):
            results.write(json.dumps({"event": "test", "test": key, "outcome": "not run: file cap",
                                      "params": {k: repr(v) for k, v in kwargs.items()}}) + "\n")
            continue
        fn = getattr(mod, n)
        current.update(test=key, done=False, archs=test_archs(fn, archs))
        kept += run_test(fn, key, kwargs, current, results, Stop, traceback)
    results.close()
    os._exit(0)


# ------------------------------------------------------------------------------------------------
# Parent
# ------------------------------------------------------------------------------------------------


def ensure_testing():
    if not os.path.isdir(TESTING):
        extract_from_mirror("testing", "/tmp/tl-testing")


def run_file(rel, archs, tmproot, timeout, wide_done=None):
    """wide_done: None, or (--wide) the tests whose first parameter set corpus/unseen has."""
    tmp = os.path.join(tmproot, lower_field.sanitize(rel))
    if os.path.isdir(tmp):
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, TILELANG_DISABLE_CACHE="1", CUDA_VISIBLE_DEVICES="", TQDM_DISABLE="1",
               TVM_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", os.path.join(TESTING, rel),
           "--archs", ",".join(archs), "--tmp", tmp, "--tests", ",".join(TESTS[rel]) if wide_done is None else "*",
           "--rel", rel]
    if wide_done is not None:
        cmd += ["--wide", "--done", ",".join(sorted(wide_done)) or ","]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        rc, tail = p.returncode, (p.stdout + p.stderr)[-1500:]
    except subprocess.TimeoutExpired:
        rc, tail = "timeout", ""
    events = lower_field.read_events(tmp)
    return {"archs": archs, "rc": rc, "wall_s": round(time.time() - t0, 1), "events": events,
            "tail": tail if rc not in (0, "timeout") else ""}


def write_outputs(state, out, existing=None):
    """Name, deduplicate (byte-identical TIR kept once) and copy every lowered kernel into out.
    existing: None, or (--wide) sha256 -> "corpus/<dir>/<name>" of the other corpora's kernels, which are
    not copied again (the record's duplicate_of names the earlier one)."""
    kernels = []
    for rel in sorted(state["files"]):
        d, stem = short(rel)
        for k in state["files"][rel]["events"]:
            if k["event"] == "kernel" and k["status"] != "fail":
                kernels.append(("__".join(lower_field.sanitize(x) for x in (d, stem, k["test"], k["arch"])), k))
    if existing is not None:
        fresh = []
        for base, k in kernels:
            if "sha" not in k and os.path.exists(k["file"]):
                k["sha"] = sha256_text(open(k["file"]).read())
            if k.get("sha") in existing:
                k["name"], k["duplicate_of"] = None, existing[k["sha"]]
            elif os.path.exists(k["file"]) and '"shared' not in open(k["file"]).read():
                k["name"], k["not_kept"] = None, "no shared memory"
            else:
                fresh.append((base, k))
        kernels = fresh
    keep_distinct(kernels, out, remove_stale=True)


def existing_kernels(out=None):
    """sha256 of every .tir of EXISTING_CORPORA -> corpus/<dir>/<name> (FORCE_ARCH: of every .tir under
    corpus/ but `out`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    seen = {}
    if FORCE_ARCH:
        for dp, dns, fns in os.walk(here):
            dns.sort()
            if out and os.path.abspath(dp) == os.path.abspath(out):
                dns[:] = []
                continue
            for f in sorted(fns):
                if f.endswith(".tir"):
                    path = os.path.join(dp, f)
                    seen.setdefault(sha256_text(open(path).read()),
                                    os.path.relpath(path, os.path.dirname(here))[:-4])
        return seen
    for c in EXISTING_CORPORA:
        d = os.path.join(here, c)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.endswith(".tir"):
                seen.setdefault(sha256_text(open(os.path.join(d, f)).read()), f"corpus/{c}/{f[:-4]}")
    return seen


def wide_files():
    """The --wide test files: WIDE_DIRS in order, each directory's test_*.py that names a compile entry."""
    files = []
    for d in WIDE_DIRS:
        dd = os.path.join(TESTING, d)
        for f in sorted(os.listdir(dd)) if os.path.isdir(dd) else []:
            if f.startswith("test_") and f.endswith(".py") and WIDE_COMPILE.search(open(os.path.join(dd, f)).read()):
                files.append(f"{d}/{f}")
    return files


def unseen_done():
    """rel -> the tests corpus/unseen lowered a kernel of (with their first parameter set); none with
    FORCE_ARCH (corpus/unseen lowered them for other archs)."""
    if FORCE_ARCH:
        return {}
    p = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unseen", "lowering.json")
    done = {}
    for rel, r in json.load(open(p))["files"].items():
        done[rel] = {e["test"] for e in r["events"] if e["event"] == "kernel"}
    return done


def write_manifest(state, out, wide=False):
    lines = ["# Unseen corpus: TileLang's own tests, lowered on a CPU", "",
             f"Source: TileLang `testing/python/` at commit `{COMMIT}` (mirror `tile-ai/tilelang`), not its "
             "`examples/` (those are corpus/field). Lowered by tilelang " + lower_field._tl_version() +
             " with `corpus/lower_unseen.py` (one command: `nice -n 15 python corpus/lower_unseen.py`; its "
             "docstring says how). Every `.tir` is `str(artifact.device_mod)` of `tilelang.lower(func, "
             "target=Target({\"kind\": \"cuda\", \"arch\": ARCH}))` for the first kernel the test compiles, "
             "under the test's pass_configs; nothing was edited. Byte-identical TIR is kept once. Arguments: "
             "the test's own (a parametrized test: its first parameter set, listed).", "",
             "| source file | test function | args | arch | status | .tir |", "|---|---|---|---|---|---|"]
    if wide:
        lines[0] = "# Unseen-wide corpus: more of TileLang's own tests, and more parameter sets, lowered on a CPU"
        if FORCE_ARCH:
            lines[0] = (f"# TileLang's own tests (the --wide selection) lowered for {FORCE_ARCH} only, on a CPU "
                        "(LOWER_UNSEEN_FORCE_ARCH; corpus/lower_unseen.py's docstring)")
        lines[2] = (
            f"Source: TileLang `testing/python/` at commit `{COMMIT}` (mirror `tile-ai/tilelang`). Lowered by "
            "tilelang " + lower_field._tl_version() + " with `nice -n 15 python corpus/lower_unseen.py --wide "
            "--out corpus/unseen_wide --timeout 240` (its docstring says how): every test file of WIDE_DIRS that names "
            f"a compile entry, every test function (at most {WIDE_MAX_PER_FILE} compiling runs a file, 2 of them kept "
            "for parameter sets other than a test's first when there are such), and up to "
            f"{WIDE_SETS_PER_TEST} parameter sets of a parametrized test (the set's index and values are in the "
            "test column and the .tir name; a test whose first set corpus/unseen already has runs only its other "
            "sets). Every `.tir` is `str(artifact.device_mod)` of `tilelang.lower(func, target=Target({\"kind\": "
            "\"cuda\", \"arch\": ARCH}))` for the first kernel the test compiles, under the test's pass_configs; "
            "nothing was edited. Byte-identical TIR is kept once, and TIR byte-identical to a kernel of "
            + ", ".join(f"corpus/{c}" for c in EXISTING_CORPORA) + " is not kept (`= corpus/...` names it), "
            "nor TIR with no shared memory (no `\"shared...\"` storage scope: nothing to verify). "
            "A file not reached within the time budget (--budget-min) is listed as such; README.md has the figures "
            "and the triage.")
    for rel in sorted(state["files"]):
        r = state["files"][rel]
        params = {e["test"]: e.get("params") for e in r["events"] if e["event"] == "test"}
        outcomes = {e["test"]: e["outcome"] for e in r["events"] if e["event"] == "test"}
        kernels = [e for e in r["events"] if e["event"] == "kernel"]
        for k in kernels:
            p = params.get(k["test"]) or {}
            ps = ", ".join(f"{a}={b}" for a, b in p.items()) or "(defaults)"
            pc = ",".join(f"{a}={b}" for a, b in sorted(k.get("pass_configs", {}).items()))
            if pc:
                ps += f"; pass_configs {pc}"
            tag = f"`{k['name']}.tir`" if k.get("name") else (
                f"= `{k['duplicate_of']}`" if k.get("duplicate_of") else "")
            if k.get("not_kept"):
                tag = "not kept: " + k["not_kept"]
            st = k["status"] + (f" ({k.get('why', '')[:100]})" if k["status"] != "ok" else "")
            lines.append(f"| `{rel}` | `{k['test']}` | {ps.replace('|', '/')} | {k['arch']} | "
                         f"{st.replace('|', '/')} | {tag} |")
        for t, o in outcomes.items():
            if not any(k["test"] == t for k in kernels):
                lines.append(f"| `{rel}` | `{t}` | | | no kernel: {o[:120].replace('|', '/')} | |")
        if not kernels and not outcomes:
            why = next((e["why"] for e in r["events"] if e["event"] == "import-error"), None) or \
                ("timeout" if r["rc"] == "timeout" else f"rc={r['rc']} {r['tail'][-120:]}")
            lines.append(f"| `{rel}` | | | | no kernel: {why.replace('|', '/')[:160]} | |")
    if wide:
        for rel in state.get("budget", {}).get("not_reached", []):
            lines.append(f"| `{rel}` | | | | not run: time budget spent | |")
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "unseen"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--tmp", help="the children's temporary directory (default: one per --out)")
    ap.add_argument("--child")
    ap.add_argument("--archs")
    ap.add_argument("--tests")
    ap.add_argument("--rel")
    ap.add_argument("--wide", action="store_true", help="corpus/unseen_wide: more test files and parameter sets")
    ap.add_argument("--done", help=argparse.SUPPRESS)
    ap.add_argument("--budget-min", type=float, default=70.0,
                    help="--wide: start no further test file after this many minutes")
    args = ap.parse_args()
    args.tmp = args.tmp or scratch_dir("unseen", args.out)
    if args.child:
        return child(args)
    if args.wide:
        return main_wide(args)
    ensure_testing()
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "lowering.json")
    state = json.load(open(state_path)) if args.only and os.path.exists(state_path) else {"files": {}}
    for rel in TESTS:
        if args.only and not any(s in rel for s in args.only):
            continue
        archs = archs_for(rel, open(os.path.join(TESTING, rel)).read())
        r = run_file(rel, archs, args.tmp, args.timeout)
        state["files"][rel] = r
        ks = [e for e in r["events"] if e["event"] == "kernel"]
        print(f"{rel} {archs}: {r['wall_s']}s rc={r['rc']}, {sum(k['status'] == 'ok' for k in ks)} lowered, "
              f"{sum(k['status'] != 'ok' for k in ks)} failed", flush=True)
        write_outputs(state, args.out)
        with open(state_path, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        write_manifest(state, args.out)


def main_wide(args):
    ensure_testing()
    if not os.path.isdir(WIDE_EXAMPLES):
        extract_from_mirror("examples", os.path.dirname(WIDE_EXAMPLES))
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "lowering.json")
    state = json.load(open(state_path)) if args.only and os.path.exists(state_path) else {"files": {}}
    existing, done = existing_kernels(args.out), unseen_done()
    t0 = time.time()
    files = [rel for rel in wide_files() if not args.only or any(s in rel for s in args.only)]
    state["budget"] = {"minutes": args.budget_min, "files": len(files), "not_reached": []}
    for rel in files:
        if time.time() - t0 > args.budget_min * 60:
            state["budget"]["not_reached"].append(rel)
            continue
        archs = archs_for(rel, open(os.path.join(TESTING, rel)).read())
        r = run_file(rel, archs, args.tmp, args.timeout, wide_done=done.get(rel, set()))
        state["files"][rel] = r
        ks = [e for e in r["events"] if e["event"] == "kernel"]
        print(f"[{(time.time() - t0) / 60:.1f} min] {rel} {archs}: {r['wall_s']}s rc={r['rc']}, "
              f"{sum(k['status'] == 'ok' for k in ks)} lowered, {sum(k['status'] != 'ok' for k in ks)} failed",
              flush=True)
        write_outputs(state, args.out, existing)
        with open(state_path, "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        write_manifest(state, args.out, wide=True)
    kept = len([f for f in os.listdir(args.out) if f.endswith(".tir")])
    print(f"{kept} kernels in {args.out}; {len(state['budget']['not_reached'])} files not reached", flush=True)


if __name__ == "__main__":
    main()
