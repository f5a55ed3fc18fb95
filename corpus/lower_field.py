"""Lower every kernel of TileLang's own examples/ tree to device TIR on a CPU: the field corpus (corpus/field/).

Usage:
    . /work/tl-venv/bin/activate
    python corpus/lower_field.py [--examples DIR] [--out corpus/field] [--only SUBSTR ...] [--jobs N]

--examples defaults to /tmp/tl-examples/examples; when it is missing it is extracted from the TileLang mirror
(`git -C MIRROR archive COMMIT examples`). Nothing of TileLang is written under --out except lowered TIR.

How a kernel is obtained, per example file (one subprocess each, with a time limit):
  * the example runs as `__main__` (runpy, argv = [file]; a file without a `__main__` block whose module
    defines `main()` gets `main()` called), inside `with Target({"kind": "cuda", "arch": PRIMARY})`, so
    TileLang's "auto" target resolves to that arch without a GPU;
  * GPU-only set-up is stubbed, nothing that lowering reads: torch.cuda device queries answer as the
    primary arch's GPU would, tensors created on / moved to "cuda" are created on torch's "meta" device
    (shapes only, no data, no memory), and Python packages the examples import but this environment lacks
    (triton, einops, flash_attn, fla, ...) are empty stand-ins (only used by the examples' references);
  * TileLang's compile entry (tilelang.cache.cached, as called by tilelang.compile, @tilelang.jit and the
    autotuner, and JITKernel construction as a fallback) is replaced: the PrimFunc handed to it is lowered
    here for each arch of the file, under the PassContext the example asked for (its pass_configs), with
    `tilelang.lower(func, target=Target(...))`; `str(artifact.device_mod)` is saved. When CUDA codegen fails
    after the TIR pipeline succeeded, the device module of `lower_to_host_device_ir` is saved instead
    ("tir-only"). (That lowering is asyncguard's own, shared by every corpus script: corpus/lowering.py.)
    The example gets back a stand-in kernel object whose every use stops the example, so
    nothing runs on a device. Calling the stand-in returns zero tensors of the output shapes (when static),
    so an example that feeds one kernel's outputs to the next (forward, then backward) keeps compiling;
    get_kernel_source returns the CUDA source lowered here; any other use (profiler, benchmark) stops it.
  * An example that reads tensor values before compiling (varlen masks, .item(), nonzero) and so lowered
    nothing on meta tensors is run once more with the "cuda" tensors on the CPU instead.
  * Only the first instance of each (jit function, prim_func name) pair is lowered: autotuners and
    size sweeps compile the same kernel many times.
Archs per file: sm_100a for sm100/tcgen05/blockscaled examples, sm_90a for Hopper-only ones (wgmma, TMA,
warp specialization, fp8, ...), sm_80 and sm_90a for generic ones (TileLang lowers them differently on
Hopper), sm_120 for the sm120 examples. AMD examples are skipped. Byte-identical TIR is kept once.
Output: NAME.tir with NAME = <exampledir>__<file-stem>__<kernel>__<arch>, MANIFEST.md, lowering.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lowering import (COMMIT, extract_from_mirror, keep_distinct, last_line, lower_and_record,  # noqa: E402
                      scratch_dir)

DEFAULT_EXAMPLES = "/tmp/tl-examples/examples"
ARCH_CAPABILITY = {"sm_80": (8, 0), "sm_90a": (9, 0), "sm_100a": (10, 0), "sm_120": (12, 0),
                   # targets no example names, for --arch-map
                   "sm_103a": (10, 3), "sm_110a": (11, 0), "sm_121a": (12, 1)}
ARCH_GPU = {"sm_80": ("NVIDIA A100-SXM4-80GB", 108), "sm_90a": ("NVIDIA H100 80GB HBM3", 132),
            "sm_100a": ("NVIDIA B200", 148), "sm_120": ("NVIDIA GeForce RTX 5090", 170),
            "sm_103a": ("NVIDIA B300", 148), "sm_110a": ("NVIDIA Jetson AGX Thor", 20),
            "sm_121a": ("NVIDIA GB10", 48)}
SMS_ENV = "LOWER_FIELD_SMS"   # --sms, read by the children: the SM count the stubbed GPU reports
MAX_KERNELS_PER_FILE = 16
# Imported by some examples (for references, benchmarks or plotting) but not installed here.
MISSING_MODULES = ("triton", "einops", "flash_attn", "fla", "transformers", "pandas", "matplotlib", "tabulate",
                   "flash_mla", "deep_gemm", "aiter", "vllm", "sgl_kernel", "flashinfer", "seaborn", "cuda",
                   "cupy", "safetensors", "datasets", "accelerate", "bitblas", "ml_dtypes_stub", "nvtx",
                   "torch_npu", "xformers", "natten", "apex", "scipy", "tilelang_stub_none")

# ------------------------------------------------------------------------------------------------
# Which examples, for which archs
# ------------------------------------------------------------------------------------------------

SKIP_PREFIXES = ("test_", "regression_", "conftest")
SM100_MARK = re.compile(r"sm_?100|tcgen0?5|blockscaled|T\.tmem|alloc_tmem", re.I)
# Hopper-only: by file name, or by an op / dtype that has no sm_80 lowering.
HOPPER_PATH = re.compile(r"hopper|sm_?90|warp_specializ|_ws\.py$|fp8|(^|[_/])tma([_.]|$)", re.I)
HOPPER_SRC = re.compile(r"wgmma|T\.ws\(|mbarrier|T\.tma_copy|set_max_nreg|copy_cluster|cluster_dims|"
                        r"float8|\bfp8\b|e4m3|e5m2", re.I)
AMD_MARK = re.compile(r"amd|hip|cdna|mfma|rocm", re.I)


def classify(rel, src):
    """(archs, skip_reason) for one example file (rel: path under examples/)."""
    base = os.path.basename(rel)
    top = rel.split("/")[0]
    if top == "amd" or AMD_MARK.search(rel):
        return [], "AMD/ROCm example (not an NVIDIA target)"
    if base.startswith(SKIP_PREFIXES):
        return [], "pytest/regression driver (calls the examples' own entries, which are run directly)"
    if "tilelang" not in src:
        return [], "no TileLang kernel (reference/utility code)"
    if "sm120" in rel:
        return ["sm_120"], None   # consumer Blackwell (block-scaled mma.sync): its own arch only
    if not re.search(r"T\.prim_func|tilelang\.jit|@jit|tilelang\.compile|T\.Kernel", src):
        return [], "defines no kernel (helper module)"
    if SM100_MARK.search(rel) or SM100_MARK.search(src):
        return ["sm_100a"], None
    if HOPPER_PATH.search(rel) or HOPPER_SRC.search(src):
        return ["sm_90a"], None
    return ["sm_80", "sm_90a"], None


def discover(examples):
    out = []
    for root, dirs, files in os.walk(examples):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                p = os.path.join(root, f)
                out.append(os.path.relpath(p, examples))
    return out


def sanitize(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "x"


# ------------------------------------------------------------------------------------------------
# Child: run one example with TileLang's compile intercepted
# ------------------------------------------------------------------------------------------------


class StopExample(BaseException):
    """Raised to end the example once it would use a compiled kernel (BaseException: examples and
    TileLang's autotuner catch Exception)."""


# Packages the examples use that the TileLang environment lacks, installed apart from it (appended to the
# children's sys.path, so the environment's own packages come first): `pip install --target /tmp/field-pydeps
# einops matplotlib`. matplotlib: TileLang's layout-visualization pass (a pass config of
# visual_layout_inference) imports it while lowering.
PYDEPS = "/tmp/field-pydeps"


def _install_stubs(primary):
    if os.path.isdir(PYDEPS):
        sys.path.append(PYDEPS)
    import importlib.abc
    import importlib.machinery
    import types
    from unittest import mock

    _Absent = _absent_class()

    class _MissingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            # Only for imports written in the examples: libraries (torch probes triton, say) keep their
            # own fallbacks for an absent module.
            if name.split(".")[0] in MISSING_MODULES and _imported_by_example():
                if name == "triton":
                    _import_torch_triton_probes()
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            m = _Absent(name=spec.name)
            m.__name__, m.__spec__, m.__path__, m.__file__ = spec.name, spec, [], None
            for attr, fn in PURE_HELPERS.get(spec.name, {}).items():
                setattr(m, attr, fn)
            return m

        def exec_module(self, module):
            pass

    # Only for modules that really are absent here.
    absent = []
    for name in MISSING_MODULES:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001
            absent.append(name)
    globals()["MISSING_MODULES"] = tuple(absent)
    # TileLang/TVM probe optional modules at import: import them before the stand-ins exist.
    import tilelang  # noqa: F401
    import tilelang.jit  # noqa: F401
    sys.meta_path.append(_MissingFinder())

    import torch
    from torch.overrides import TorchFunctionMode

    cap = ARCH_CAPABILITY[primary]
    gpu_name, sms = ARCH_GPU[primary]
    sms = int(os.environ.get(SMS_ENV) or sms)   # persistent kernels size their grids by it
    props = types.SimpleNamespace(name=gpu_name, major=cap[0], minor=cap[1], multi_processor_count=sms,
                                  total_memory=80 * 2**30, L2_cache_size=50 * 2**20, warp_size=32,
                                  max_shared_memory_per_block_optin=227 * 1024)

    class _Event:
        def __init__(self, *a, **k):
            pass

        def record(self, *a, **k):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 1.0

    c = torch.cuda
    c.is_available = lambda: True
    c.device_count = lambda: 1
    c.current_device = lambda: 0
    c.set_device = lambda *a, **k: None
    # `with torch.cuda.device(i):` (the kda/gdn examples' own FLA helpers) swaps the current device.
    c._exchange_device = c._maybe_exchange_device = lambda idx: -1 if idx < 0 else 0
    c.get_device_capability = lambda *a, **k: cap
    c.get_device_name = lambda *a, **k: gpu_name
    c.get_device_properties = lambda *a, **k: props
    c.synchronize = lambda *a, **k: None
    c.empty_cache = lambda *a, **k: None
    c.manual_seed = lambda *a, **k: None
    c.manual_seed_all = lambda *a, **k: None
    c.max_memory_allocated = lambda *a, **k: 0
    c.memory_allocated = lambda *a, **k: 0
    c.reset_peak_memory_stats = lambda *a, **k: None
    c.Event = _Event
    c.current_stream = lambda *a, **k: mock.MagicMock(name="stream")
    c.is_initialized = lambda: True

    def is_cuda(d):
        if d is None:
            return False
        if isinstance(d, int):
            return True
        return str(d).startswith("cuda")

    # A random generator asked for "cuda" (seeded input data): the CPU one, which CPU and meta tensors take.
    # (A class, not a function: torch's own annotations write `torch.Generator | None`.)
    cpu_generator = torch.Generator

    class Generator(cpu_generator):
        def __new__(cls, device="cpu"):
            return cpu_generator(device="cpu" if is_cuda(device) else device)

    torch.Generator = Generator

    class _MetaForCuda(TorchFunctionMode):
        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if is_cuda(kwargs.get("device")):
                kwargs["device"] = TENSOR_DEVICE
            name = getattr(func, "__name__", "")
            if func is torch.device and args and isinstance(args[0], int):
                # torch.device(0) asks CPU torch for an accelerator; name the CUDA device instead.
                return torch.device(f"cuda:{args[0]}")
            if name == "cuda" and args and isinstance(args[0], torch.Tensor):
                return args[0].to(TENSOR_DEVICE)
            if name == "to" and args:
                args = tuple(TENSOR_DEVICE if (i > 0 and is_cuda(a) and not isinstance(a, torch.Tensor)) else a
                             for i, a in enumerate(args))
            if name == "pin_memory" and args:
                return args[0]
            return func(*args, **kwargs)

    _MetaForCuda().__enter__()


# Arithmetic helpers of absent packages, as those packages define them: the examples' Triton references size
# their tiles with them in Python before launching (a stand-in) and, when they get a stand-in back instead of
# a number, stop before the TileLang kernel is built (kda's FLA_KDA references: min(64, next_power_of_2(V))).
PURE_HELPERS = {"triton": {"next_power_of_2": lambda n: 0 if n == 0 else 1 << (int(n) - 1).bit_length(),
                           "cdiv": lambda x, y: (x + y - 1) // y}}

# torch modules that, when first imported, ask whether triton is installed (`import triton`, functools.cache'd
# has_triton_package) and then import its submodules.
TORCH_TRITON_PROBES = ("torch.utils._triton", "torch._inductor.runtime.hints", "torch._inductor.runtime.triton_compat",
                       "torch._inductor.utils", "torch._inductor.codecache", "torch._functorch.aot_autograd",
                       "torch.utils.flop_counter", "torch._dynamo")


def _import_torch_triton_probes():
    """Import (once) the torch modules that probe for triton, before an example's own `import triton` puts a
    stand-in in sys.modules: torch's lazily imported compiler stack (torch.compile, autograd.Function,
    FlopCounter) would otherwise find that stand-in, take triton for installed, and fail importing its
    submodules. Imported now, they see triton absent, as it is, and keep their own fallbacks."""
    import importlib
    import torch.utils._triton
    torch.utils._triton.has_triton_package()
    for mod in TORCH_TRITON_PROBES:
        try:
            importlib.import_module(mod)
        except Exception:  # noqa: BLE001 -- a torch without that module: nothing to import early
            pass


def _unpack_count(frame):
    """How many values the instruction `frame` is executing unpacks into (`a, b, c = f()`), else 0."""
    import dis
    for ins in dis.get_instructions(frame.f_code):
        if ins.offset == frame.f_lasti:
            if ins.opname == "UNPACK_SEQUENCE":
                return ins.arg
            if ins.opname == "UNPACK_EX":  # a, *rest, b = f(): the fixed names before and after
                return (ins.arg & 0xFF) + (ins.arg >> 8)
            return 0
    return 0


def _absent_class():
    from unittest import mock

    class _Absent(mock.MagicMock):
        """Stand-in for a module the examples import but this environment lacks (only their references
        use them). Unlike a bare MagicMock it unpacks into as many stand-ins as the example's own
        statement names (`W_ref, U_ref = recompute_w_u_fwd(...)`: the gdn examples call fla's reference
        before compiling their kernel) and has a `__version__` (the nsa examples compare fla's)."""

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            # MagicMock gives every instance its own class and installs its magic methods there.
            type(self).__iter__ = _Absent._unpack
            type(self).__version__ = "0.0.0"

        def _unpack(self):
            return iter([_Absent() for _ in range(_unpack_count(sys._getframe(1)))])

    return _Absent


def _imported_by_example():
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith("<frozen") and "importlib" not in fn:
            return os.path.abspath(fn).startswith(EXAMPLES_ROOT)
        f = f.f_back
    return False


EXAMPLES_ROOT = "/nonexistent"
# Where "cuda" tensors go: "meta" (shapes only: free) first; "cpu" when an example reads values before it
# compiles (varlen masks, nonzero, .item()).
TENSOR_DEVICE = "meta"


class _KernelStandIn:
    """What the example gets instead of a compiled kernel. Calling it returns meta tensors of the output
    shapes (when they are static), so an example that feeds one kernel's outputs to the next (forward then
    backward) goes on compiling; get_kernel_source returns the CUDA source lowered here; any other use
    (profilers, benchmarks) stops the example."""

    def __init__(self, name, func=None, out_idx=None, source=None):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_func", func)
        object.__setattr__(self, "_out_idx", out_idx)
        object.__setattr__(self, "_source", source)

    def __getattr__(self, attr):
        if attr in ("get_kernel_source", "get_host_source") and self._source is not None:
            return lambda *a, **k: self._source
        raise StopExample(f"example used kernel {self._name}.{attr}")

    def __call__(self, *a, **k):
        import torch
        func, out_idx = self._func, self._out_idx
        if func is None:
            raise StopExample(f"example ran kernel {self._name}")
        if out_idx is None:
            return None
        idx = [out_idx] if isinstance(out_idx, int) else list(out_idx)
        n = len(func.params)
        outs = []
        for i in idx:
            buf = func.buffer_map.get(func.params[i % n])
            shape = []
            for d in (buf.shape if buf is not None else ()):
                try:
                    shape.append(int(d))
                except Exception:  # noqa: BLE001
                    raise StopExample(f"example ran kernel {self._name} (output with a symbolic shape)")
            dt = getattr(torch, _TORCH_DTYPE.get(str(buf.dtype), str(buf.dtype)), None) if buf is not None else None
            if buf is None or not isinstance(dt, torch.dtype):
                raise StopExample(f"example ran kernel {self._name} (output of unknown type)")
            outs.append(torch.zeros(shape, dtype=dt, device=TENSOR_DEVICE))
        return outs[0] if len(outs) == 1 else outs


_TORCH_DTYPE = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
                "int8": "int8", "uint8": "uint8", "int32": "int32", "int64": "int64", "int16": "int16",
                "bool": "bool", "float8_e4m3": "float8_e4m3fn", "float8_e4m3fn": "float8_e4m3fn",
                "float8_e5m2": "float8_e5m2", "uint32": "uint32", "uint16": "uint16", "uint64": "uint64"}


def _out_idx(func, out_idx):
    try:
        if out_idx is None and func.attrs and "tilelang_out_idx" in func.attrs:
            return [int(i) for i in func.attrs["tilelang_out_idx"]]
    except Exception:  # noqa: BLE001
        pass
    return out_idx


def _jit_name():
    """Name of the @tilelang.jit function whose compile is under way (walks the stack)."""
    import inspect
    f = inspect.currentframe()
    while f is not None:
        s = f.f_locals.get("self")
        if s is not None and type(s).__name__ == "JITImpl":
            fn = getattr(s, "func", None)
            return getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", None)
        f = f.f_back
    return None


class InterceptedLowering:
    """TileLang's compile entry points (`tilelang.cache.cached`, `JITKernel`) replaced in this child
    process: each kernel an example builds is lowered for every arch (lowering.lower_and_record),
    one JSON record per lowering goes to `results`, and the example gets a stand-in back. A kernel
    built again (same jit name and symbol) is lowered once. lower_sizes.py runs several variants of
    one example in one child: `start_variant` tags the records and starts a fresh set of kernels."""

    def __init__(self, archs, tmp, results):
        import threading
        self.archs, self.tmp, self.results = archs, tmp, results
        self.lock = threading.RLock()
        self.variant = None
        self.seen, self.sources, self.kernels = {}, {}, 0

    def start_variant(self, tag):
        self.variant, self.seen, self.sources = tag, {}, {}

    def lower(self, func, pass_configs, out_idx=None):
        sym = None
        try:
            sym = str(func.attrs["global_symbol"]) if func.attrs and "global_symbol" in func.attrs else None
        except Exception:  # noqa: BLE001
            sym = None
        jn = _jit_name()
        key = (jn, sym)
        with self.lock:
            if key in self.seen:
                if self.variant is None:
                    self.results.write(json.dumps({"event": "repeat", "jit": jn, "symbol": sym}) + "\n")
                return _KernelStandIn(sym, func, _out_idx(func, out_idx), self.sources.get(key))
            if len(self.seen) >= MAX_KERNELS_PER_FILE:
                raise StopExample("kernel cap reached")
            self.seen[key] = len(self.seen)
            kname = sym if sym and sym not in ("main", "kernel", "func") or not jn else jn
            if jn and sym and sym not in (jn, "main", "kernel", "func"):
                kname = f"{jn}.{sym}"
            number = self.kernels     # files of this child: k<number>_<arch>.tir
            self.kernels += 1
            for arch in self.archs:
                rec = {"event": "kernel"}
                if self.variant is not None:
                    rec["variant"] = self.variant
                rec.update({"jit": jn, "symbol": sym, "kernel": kname, "arch": arch})
                if self.variant is None:
                    rec["index"] = self.seen[key]
                rec["pass_configs"] = {str(k): str(v) for k, v in (pass_configs or {}).items()}
                tir_path = os.path.join(self.tmp, f"k{number}_{arch}.tir")
                lowered = lower_and_record(func, arch, pass_configs, tir_path, rec)
                if lowered is not None and lowered.cuda_source is not None:
                    self.sources.setdefault(key, lowered.cuda_source)
                self.results.write(json.dumps(rec) + "\n")
        return _KernelStandIn(kname, func, _out_idx(func, out_idx), self.sources.get(key))

    def install(self):
        def fake_cached(func=None, out_idx=None, *a, pass_configs=None, **k):
            return self.lower(func, pass_configs, out_idx)

        def fake_jitkernel_init(_kernel, func=None, *a, pass_configs=None, **k):
            self.lower(func, pass_configs)
            raise StopExample("JITKernel constructed directly")

        # tilelang.jit / tilelang.cache are shadowed by same-named functions on the package: use the modules.
        jit_mod, cache_mod, kernel_mod = (sys.modules[m] for m in ("tilelang.jit", "tilelang.cache", "tilelang.jit.kernel"))
        cache_mod.cached = fake_cached
        jit_mod.cached = fake_cached
        kernel_mod.JITKernel.__init__ = fake_jitkernel_init


def enter_example(child_path: str) -> str:
    """Work where the example lives, importable as it expects (its folder and its parent on the
    path; EXAMPLES_ROOT: the `examples` folder above it); its absolute path."""
    global EXAMPLES_ROOT
    path = os.path.abspath(child_path)
    d = os.path.dirname(path)
    root = d
    while os.path.basename(root) != "examples" and os.path.dirname(root) != root:
        root = os.path.dirname(root)
    EXAMPLES_ROOT = root if os.path.basename(root) == "examples" else d
    os.chdir(d)
    sys.path[:0] = [d, os.path.dirname(d)]
    return path


def run_example(run, results, **tags) -> tuple:
    """run() (an example, or a variant of one); how it ended: ("finished" | "stopped" | "exit" |
    "error", why). An error's traceback tail goes to `results` as an event (with `tags`)."""
    import traceback
    try:
        run()
        return "finished", ""
    except StopExample as e:
        return "stopped", str(e)
    except SystemExit as e:
        return "exit", f"SystemExit({e.code})"
    except BaseException as e:  # noqa: BLE001
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        results.write(json.dumps({"event": "traceback", **tags, "text": "".join(tb[-6:])[-3000:]}) + "\n")
        return "error", f"{type(e).__name__}: {last_line(e)}"


def child(args):
    archs = args.archs.split(",")
    globals()["TENSOR_DEVICE"] = args.device
    os.makedirs(args.tmp, exist_ok=True)
    results = open(os.path.join(args.tmp, "results.jsonl"), "a", buffering=1)
    _install_stubs(archs[0])
    from tvm.target import Target
    import tilelang.cache  # noqa: F401
    import tilelang.jit.kernel  # noqa: F401

    InterceptedLowering(archs, args.tmp, results).install()
    path = enter_example(args.child)
    sys.argv = [path]
    src = open(path).read()
    import runpy

    def run():
        with Target({"kind": "cuda", "arch": archs[0]}):
            g = runpy.run_path(path, run_name="__main__")
            if "__main__" not in src and callable(g.get("main")):
                g["main"]()
    outcome, why = run_example(run, results)
    results.write(json.dumps({"event": "end", "outcome": outcome, "why": why}) + "\n")
    results.close()
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------------------------------------
# Parent
# ------------------------------------------------------------------------------------------------


def ensure_examples(examples):
    if not os.path.isdir(examples):
        extract_from_mirror("examples", os.path.dirname(os.path.abspath(examples)))
    return examples


def run_one(rel, archs, examples, tmproot, timeout):
    r = run_child(rel, archs, examples, tmproot, timeout, "meta")
    end = [e for e in r["events"] if e["event"] == "end"]
    lowered = lambda x: sum(1 for e in x["events"] if e["event"] == "kernel" and e.get("status") != "fail")
    tried = lambda x: sum(1 for e in x["events"] if e["event"] == "kernel")
    if end and end[0]["outcome"] == "error" and "meta" in end[0]["why"].lower() and tried(r) == 0:
        # The example read tensor values (cu_seqlens, page tables, .item(), nonzero) before it compiled
        # anything: again with real CPU tensors holding the example's own values. (Whatever assertion
        # the traceback shows, no kernel had been compiled, so it cannot be a check of a kernel's output.)
        r2 = run_child(rel, archs, examples, tmproot + "-cpu", timeout, "cpu")
        r2["device"] = "cpu"
        if (lowered(r2), tried(r2)) > (lowered(r), tried(r)):  # it got further (a failed lowering is a record too)
            return r2
        r["cpu_retry"] = summarize(r2)
    r["device"] = "meta"
    return r


def read_events(tmp: str) -> list:
    """The child's results.jsonl (one JSON object a line; a line cut by a kill is skipped)."""
    events = []
    rp = os.path.join(tmp, "results.jsonl")
    if os.path.exists(rp):
        for line in open(rp):
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
    return events


def run_child(rel, archs, examples, tmproot, timeout, device, script=None):
    """Lower one example file in a child process (`script --child`, this file by default: the
    pass-config probe, corpus/lower_passcfg.py, is its own child)."""
    tmp = os.path.join(tmproot, sanitize(rel))
    if os.path.isdir(tmp):
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, TILELANG_DISABLE_CACHE="1", CUDA_VISIBLE_DEVICES="", TQDM_DISABLE="1",
               TVM_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, os.path.abspath(script or __file__), "--child", os.path.join(examples, rel),
           "--archs", ",".join(archs), "--tmp", tmp, "--device", device]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        rc, tail = p.returncode, (p.stdout + p.stderr)[-2000:]
    except subprocess.TimeoutExpired as e:
        rc, tail = "timeout", ((e.stdout or b"")[-1000:].decode("utf8", "replace") if isinstance(e.stdout, bytes)
                               else str(e.stdout or "")[-1000:])
    wall = round(time.time() - t0, 1)
    events = read_events(tmp)
    return {"rel": rel, "archs": archs, "rc": rc, "wall_s": wall, "events": events, "tail": tail}



def children_through(wrapper: str) -> None:
    """Run each example's child as `wrapper --child` instead of this file: a wrapper module that
    patches this one (extra archs, another TileLang version's hooks) must be the child too."""
    default = run_child

    def through(rel, archs, examples, tmproot, timeout, device, script=None):
        return default(rel, archs, examples, tmproot, timeout, device, script or wrapper)

    globals()["run_child"] = through

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", default=DEFAULT_EXAMPLES)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "field"))
    ap.add_argument("--only", nargs="*", default=[], help="example paths holding one of these (^PREFIX: starting with it)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--tmp", help="the children's temporary directory (default: one per --out)")
    ap.add_argument("--child")
    ap.add_argument("--archs", help="(a child's archs; the parent picks each file's own)")
    ap.add_argument("--arch-map", nargs="*", default=[], metavar="FIELD=NEW",
                    help="lower each file whose field archs (comma-joined, e.g. sm_100a or sm_80,sm_90a) are "
                    "named for the NEW archs instead (e.g. sm_100a=sm_103a sm_120=sm_121a); files whose "
                    "archs are not named are skipped")
    ap.add_argument("--generic-archs", help="lower only the generic examples (those lowered for sm_80 "
                    "and sm_90a), for these archs instead (e.g. sm_100a: an arch they do not target); "
                    "the same as --arch-map sm_80,sm_90a=ARCHS")
    ap.add_argument("--sms", type=int, help="the SM count the stubbed GPU reports (default: the arch's GPU's)")
    ap.add_argument("--device", default="meta", choices=("meta", "cpu"))
    ap.add_argument("--keep", action="store_true", help="keep earlier records of files not rerun (with --only)")
    ap.add_argument("--resume", action="store_true", help="keep lowering.json and run only files not in it")
    ap.add_argument("--retry-timeouts", action="store_true", help="with --resume: run again files that timed "
                    "out (kernels they had lowered keep their earlier record and .tir)")
    ap.add_argument("--manifest-only", action="store_true", help="rewrite MANIFEST.md from lowering.json")
    args = ap.parse_args()
    args.tmp = args.tmp or scratch_dir("field", args.out)
    if args.sms:
        os.environ[SMS_ENV] = str(args.sms)
    arch_map = dict(m.split("=", 1) for m in args.arch_map)
    if args.generic_archs:
        arch_map["sm_80,sm_90a"] = args.generic_archs
    if args.child:
        return child(args)
    if args.manifest_only:
        state = json.load(open(os.path.join(args.out, "lowering.json")))
        examples = ensure_examples(args.examples)
        state["pending"] = sorted(rel for rel in discover(examples) if rel not in state["files"])
        write_outputs(state, None, args.out)
        write_manifest(state, args.out)
        with open(os.path.join(args.out, "lowering.json"), "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        return 0

    examples = ensure_examples(args.examples)
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "lowering.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {"files": {}}
    if not args.keep and not args.only and not args.resume:
        state = {"files": {}}
    todo = []
    for rel in discover(examples):
        src = open(os.path.join(examples, rel), errors="replace").read()
        archs, skip = classify(rel, src)
        if args.only and not any(rel.startswith(s[1:]) if s.startswith("^") else s in rel for s in args.only):
            continue
        if arch_map and not skip:
            if ",".join(archs) in arch_map:
                archs = arch_map[",".join(archs)].split(",")
            else:
                skip = f"lowered for {','.join(archs)} in the field corpus: not named by --arch-map"
        if skip:
            state["files"][rel] = {"archs": [], "skip": skip, "kernels": []}
            continue
        if args.resume and rel in state["files"] and not state["files"][rel].get("skip"):
            old = state["files"][rel]
            if not (args.retry_timeouts and old["outcome"] == "timeout"):
                continue
        todo.append((rel, archs))
    # The most common kernel families first, so a partial run already covers them.
    first = ("gemm/", "flash_attention/", "warp_specialize/", "gemm_tcgen05/", "blockscaled_gemm_sm100/",
             "flash_attention_sm100/", "elementwise/", "norm/", "gemm_fp8/", "flash_decoding/", "gemv/",
             "gemm_splitk/", "dynamic_shape/", "convolution/", "deepseek_mla/")
    todo.sort(key=lambda t: (t[0] in state["files"],  # retried timeouts last
                             next((i for i, p in enumerate(first) if t[0].startswith(p)), len(first))))
    print(f"{len(todo)} example files to run", flush=True)

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(run_one, rel, archs, examples, args.tmp, args.timeout) for rel, archs in todo]
        for fut in futs:
            r = fut.result()
            state["files"][r["rel"]] = keep_earlier_kernels(summarize(r), state["files"].get(r["rel"]))
            fr = state["files"][r["rel"]]
            print(f"{r['rel']}: {fr['outcome']} {r['wall_s']}s, "
                  f"{sum(1 for k in fr['kernels'] if k['status'] != 'fail')} lowered, "
                  f"{sum(1 for k in fr['kernels'] if k['status'] == 'fail')} failed {fr.get('why','')[:120]}",
                  flush=True)
            write_outputs(state, r, args.out)
            with open(state_path, "w") as f:
                json.dump(state, f, indent=1, sort_keys=True)
            write_manifest(state, args.out)
    write_outputs(state, None, args.out)
    write_manifest(state, args.out)


def keep_earlier_kernels(new, old):
    """A file run again (a timeout retried, an --only run) keeps the records of kernels it had lowered before
    (same kernel and arch), so their .tir stays byte-identical: a few lowerings differ run to run in nothing
    but which of two aliasing AllReduce workspaces gets which name. Kernels the new run reached first are
    added; earlier ones it did not reach (it timed out sooner) are kept."""
    if not old or old.get("skip"):
        return new
    earlier = {(k["kernel"], k["arch"]): k for k in old.get("kernels") or [] if k["status"] != "fail"}
    kernels = [earlier.pop((k["kernel"], k["arch"]), k) for k in new["kernels"]]
    new["kernels"] = kernels + list(earlier.values())
    return new


def summarize(r):
    kernels, outcome, why, tb, repeats = [], None, "", "", 0
    for ev in r["events"]:
        if ev["event"] == "kernel":
            kernels.append(ev)
        elif ev["event"] == "end":
            outcome, why = ev["outcome"], ev["why"]
        elif ev["event"] == "traceback":
            tb = ev["text"]
        elif ev["event"] == "repeat":
            repeats += 1
    if outcome is None:
        outcome = "timeout" if r["rc"] == "timeout" else f"crashed (rc={r['rc']})"
        why = r["tail"].strip().splitlines()[-1][:300] if r["tail"].strip() else ""
    out = {"archs": r["archs"], "tensor_device": r.get("device"), "outcome": outcome, "why": why, "traceback": tb,
           "wall_s": r["wall_s"], "kernels": kernels, "repeats_skipped": repeats}
    if r.get("cpu_retry"):
        retry = r["cpu_retry"]
        out["cpu_retry"] = {"outcome": retry["outcome"], "why": retry["why"], "wall_s": retry["wall_s"],
                            "lowered": sum(1 for k in retry["kernels"] if k["status"] != "fail")}
    return out


def write_outputs(state, r, out):
    """Copy the lowered TIR of every run into out, byte-identical TIR once (names and dedup are derived over
    the whole state, so they do not depend on the order files ran in); with r None (a whole run done), .tir
    files no record keeps are removed."""
    kernels = []
    for rel in sorted(state["files"]):
        d = rel.split("/")[0] if "/" in rel else "_top"
        stem = os.path.splitext(os.path.basename(rel))[0]
        for k in state["files"][rel]["kernels"]:
            if k["status"] != "fail" and k.get("file"):
                kernels.append(("__".join(sanitize(x) for x in (d, stem, k["kernel"] or "main", k["arch"])), k))
    keep_distinct(kernels, out, remove_stale=r is None)


def write_manifest(state, out):
    files = state["files"]
    lines = ["# Field corpus: TileLang's own examples, lowered on a CPU", "",
             f"Source: TileLang `examples/` at commit `{COMMIT}` (mirror `tile-ai/tilelang`).",
             "Lowered by tilelang " + _tl_version() + " with `corpus/lower_field.py` (its docstring says how: each "
             "example runs as `__main__` in a subprocess with GPU queries stubbed and tensors on torch's meta "
             "device; TileLang's compile entry lowers the PrimFunc the example builds, for each arch, and the "
             "example is stopped before any kernel would run). Every `.tir` is `str(artifact.device_mod)` "
             "(or, marked tir-only, the device module of `lower_to_host_device_ir` when CUDA codegen failed); "
             "nothing was edited. Byte-identical TIR is kept once. An example that read tensor values before "
             "its first compile (cu_seqlens, page tables, `.item()`) is run again with CPU tensors holding its "
             "own values (`tensors on cpu` below).", "",
             "Sizes: each example's default arguments (its own `main()` / `__main__` defaults).", "",
             "Regenerate (one job, niced: the machine is shared): lowering, adding what is missing or timed "
             "out: `nice -n 15 python corpus/lower_field.py --resume --retry-timeouts --timeout 480`; "
             "this file alone: `python corpus/lower_field.py --manifest-only`. Verdicts (RESULTS.md, "
             "results.json), after any change to asyncguard, every kernel checked afresh: "
             "`python corpus/check_field.py --jobs 2`; after adding kernels with asyncguard unchanged, only the "
             "new ones: `python corpus/check_field.py --reuse --jobs 1`.", ""]
    # Files a stopped run had not reached (recorded by --manifest-only); a later --resume run records them.
    pending = sorted(rel for rel in state.get("pending") or [] if rel not in files)
    n_files = len(files)
    run = [r for r in files.values() if not r.get("skip")]
    per_arch = {}
    for r in files.values():
        for k in r["kernels"]:
            a = per_arch.setdefault(k["arch"], {"ok": 0, "tir-only": 0, "fail": 0, "kept": 0})
            a[k["status"]] += 1
            if k.get("name"):
                a["kept"] += 1
    n_files += len(pending)
    lines += [f"Example .py files found: {n_files}; run: {len(run)}; skipped: {len(files) - len(run)}; "
              f"not run: {len(pending)}.", "",
              "| arch | lowered (ok) | tir-only | failed | distinct .tir kept |", "|---|---|---|---|---|"]
    for a in sorted(per_arch):
        v = per_arch[a]
        lines.append(f"| {a} | {v['ok']} | {v['tir-only']} | {v['fail']} | {v['kept']} |")
    # Grouped reasons.
    groups = {}
    for rel, r in files.items():
        if r.get("skip"):
            groups.setdefault("skipped: " + r["skip"], []).append(rel)
        elif not any(k["status"] != "fail" for k in r["kernels"]):
            reason = _reason_group(r)
            if rel in WHY_NO_KERNEL:
                reason += " (" + WHY_NO_KERNEL[rel] + ")"
            groups.setdefault("no kernel lowered: " + reason, []).append(rel)
    if pending:
        lines += ["", f"Not run in this build (the lowering run was stopped at its time budget on a shared "
                  f"2-core machine; rerun `corpus/lower_field.py --resume` to add them): {len(pending)}: "
                  + ", ".join(f"`{x}`" for x in pending)]
    lines += ["", "## Files that gave no kernel, grouped by reason", ""]
    for g in sorted(groups, key=lambda g: (-len(groups[g]), g)):
        lines.append(f"- **{g}** ({len(groups[g])}): " + ", ".join(f"`{x}`" for x in sorted(groups[g])))
    lines += ["", "## Per example", "",
              "Outcome: `stopped` (the example used a compiled kernel in a way only a GPU can serve: the "
              "expected end), `finished` (ran to its end), `error` (the example raised: the message is the "
              "note; kernels compiled before it are kept), `timeout` (per-file limit). Kernel names are "
              "`<jit function>.<prim_func>` when they differ; `= NAME` marks TIR byte-identical to a kept file.", "",
              "| example | archs | outcome | kernels (status per arch) | note |", "|---|---|---|---|---|"]
    for rel in sorted(files):
        r = files[rel]
        if r.get("skip"):
            continue
        ks = []
        for k in r["kernels"]:
            s = k["status"]
            tag = k.get("name") or (f"= {k['duplicate_of']}" if k.get("duplicate_of") else "")
            note = f" ({k.get('why', '')[:90]})" if s != "ok" else ""
            pc = ",".join(f"{a}={b}" for a, b in sorted((k.get("pass_configs") or {}).items()))
            ks.append(f"{k['kernel']}@{k['arch']}: {s}{note} {tag}".strip() + (f" [pass_configs {pc}]" if pc else ""))
        note = r["why"][:160].replace("|", "\\|") if r["outcome"] not in ("stopped", "finished") or not ks else \
            r["why"][:80].replace("|", "\\|")
        if rel in WHY_NO_KERNEL and not ks:
            note += "; " + WHY_NO_KERNEL[rel]
        if r.get("cpu_retry"):
            rt = r["cpu_retry"]
            note += (f"; rerun with CPU tensors: {rt['outcome']} ({rt['wall_s']}s, {rt['lowered']} lowered) "
                     + rt["why"][:120].replace("|", "\\|"))
        lines.append(f"| `{rel}` | {','.join(r['archs'])} | {r['outcome']} ({r['wall_s']}s, tensors on "
                     f"{r.get('tensor_device') or 'meta'}) | "
                     + "<br>".join(x.replace("|", "\\|") for x in ks) + f" | {note} |")
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


# Why a file gave no kernel, where its last exception does not say (read from its traceback). The examples are
# TileLang's at COMMIT, newer than the tilelang 0.1.15 wheel that lowers them; where an example needs a package or
# a toolchain this CPU environment lacks, its stand-in (above) cannot stand for values the example computes.
WHY_NO_KERNEL = {
    "linear_attention/example_linear_attn_fwd.py": "its inputs pass through fla's l2norm_fwd (fla needs triton: a "
    "stand-in here) before the kernel is built, so the sizes it builds with are stand-ins: `DK % BK` fails",
    "linear_attention/example_linear_attn_bwd.py": "its inputs pass through fla's l2norm_fwd (fla needs triton: a "
    "stand-in here) before the kernel is built, so the sizes it builds with are stand-ins: `DK % BK` fails",
    "analyze/example_gemm_analyze.py": "compiles no kernel: it hands get_tir's PrimFunc to TileLang's carver "
    "Analyzer, which asks a CUDA device (tvm.runtime.cuda(0)) for its properties",
    "analyze/example_conv_analyze.py": "compiles no kernel: it hands get_tir's PrimFunc to TileLang's carver "
    "Analyzer, which asks a CUDA device (tvm.runtime.cuda(0)) for its properties",
    "deepseek_nsa/example_tilelang_nsa_bwd.py": "its Triton reference (fla, not installed) runs forward and "
    "backward before the TileLang kernels are built; its gradients are stand-ins (q.grad is None)",
    "deepseek_nsa/example_tilelang_nsa_fwd_varlen.py": "its token indices come from fla's prepare_token_indices "
    "(not installed) before the kernel is built",
    "minference/example_vertical_slash_sparse_attn.py": "it builds a CUDA C++ extension (torch cpp_extension: "
    "nvcc, CUDA_HOME) for its index conversion before its kernel",
    "deepseek_v32/inference/kernel.py": "a PassConfigKey newer than tilelang 0.1.15",
    "gemm_fp8/example_tilelang_gemm_fp8_sm100.py": "a PassConfigKey newer than tilelang 0.1.15",
    "flash_attention_sm100/gqa_bwd_bshd.py": "written for a newer T.tcgen05_gemm (0.1.15's requires mbar=)",
    "flash_attention_sm100/mha_bwd_bshd.py": "written for a newer T.tcgen05_gemm (0.1.15's requires mbar=)",
    "bitnet-1.58b/kernel_benchmark/tilelang_bitnet_158_int8xint2_prefill.py": "an intrinsic emitter 0.1.15 does "
    "not have",
    "autodd/tilelang_buggy.py": "AutoDD's input, buggy on purpose: TileLang's T.gemm shape check rejects it",
    "autodd/tilelang_minimized_expected.py": "AutoDD's expected output: defines the reduced kernel, compiles "
    "nothing",
    "gemm_sp/sparse_utils.py": "helper module: its compress kernel is lowered through gemm_sp/example_gemm_sp.py",
}


def _reason_group(r):
    w = r.get("why") or ""
    if r["outcome"] == "timeout":
        return "timed out before its first compile"
    failed = [k for k in r.get("kernels") or [] if k["status"] == "fail"]
    if failed:  # it did reach TileLang's compile, which refused every kernel: that is the reason, not its end
        return "TileLang 0.1.15 failed to lower every kernel: " + re.sub(r"\s+", " ", failed[0].get("why", ""))[:90]
    retry = r.get("cpu_retry")
    if retry:
        # Meta tensors stopped it before any compile; the rerun with CPU tensors says why it still gave nothing.
        return "read tensor values before compiling; with CPU tensors: " + _reason_group(
            {"outcome": retry["outcome"], "why": retry["why"]})
    m = re.match(r"(\w+(?:Error|Exception)?):", w)
    if "No module named" in w:
        return "imports a module not installed here: " + w.split("No module named")[-1].strip()
    if r["outcome"] == "finished":
        return "ran to the end without compiling a kernel through TileLang's JIT"
    return (m.group(1) if m else r["outcome"]) + ": " + w[len(m.group(0)) if m else 0:][:100].strip()


def _tl_version():
    try:
        import importlib.metadata
        return importlib.metadata.version("tilelang")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    main()
