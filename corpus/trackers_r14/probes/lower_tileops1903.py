"""TileOPs #1903 (probe only): the FP8 BN224 WS TMA-V GQA forward kernel of
src/tileops/kernels/attention/gqa_fwd_fp8.py at COMMIT, verbatim but for its two relative imports (stubbed), lowered
for sm_90a by the TileLang first on PYTHONPATH with its own pass configs. tilelang.jit is replaced by the identity so
the factory returns the prim_func. Usage: V2P_NUM_SMS=2 python lower_tileops1903.py COMMIT OUT.tir"""
import importlib, os, subprocess, sys
COMMIT, OUT = sys.argv[1], sys.argv[2]
M = "/work/.mirror/tile-ai+TileOPs/repo"
scratch = f"/tmp/r14/tileops1903_{COMMIT.replace('^', 'p')}"
os.makedirs(f"{scratch}/tileops/kernels/attention", exist_ok=True)
for d in ("tileops", "tileops/kernels", "tileops/kernels/attention"):
    open(f"{scratch}/{d}/__init__.py", "w").close()
show = lambda p: subprocess.run(["git", "-C", M, "show", f"{COMMIT}:{p}"], check=True, capture_output=True, text=True).stdout
open(f"{scratch}/tileops/kernels/online_softmax.py", "w").write(show("src/tileops/kernels/online_softmax.py"))
src = show("src/tileops/kernels/attention/gqa_fwd_fp8.py")
src = src.replace("from .call_spec import ATTENTION_DTYPES, uses_sliding_window",
                  "ATTENTION_DTYPES = ()\nuses_sliding_window = None")
src = src.replace("from .packed_prefill import PackedPrefillKernel", "class PackedPrefillKernel:\n    pass")
open(f"{scratch}/tileops/kernels/attention/fp8k.py", "w").write(src)
sys.path.insert(0, scratch)
import tilelang  # noqa: E402
import tvm  # noqa: E402
from tvm.target import Target  # noqa: E402
tilelang.jit = lambda *a, **kw: (lambda f: f)
mod = importlib.import_module("tileops.kernels.attention.fp8k")
func = mod._gqa_fwd_fp8_bn224_tma_v_kernel(1, 1, 1, 896, 128, "bfloat16")()
cfg = {tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True, tilelang.PassConfigKey.TL_DISABLE_THREAD_STORAGE_SYNC: True}
t = Target({"kind": "cuda", "arch": "sm_90a"})
with tvm.transform.PassContext(opt_level=3, config=cfg), t:
    try:
        art = tilelang.lower(func, target=t)
        open(OUT, "w").write(str(art.device_mod))
    except Exception as e:  # CUDA codegen may fail after the TIR pipeline
        print("lower failed:", str(e)[-400:])
        from tilelang.engine.lower import lower_to_host_device_ir
        from tilelang.backend import create_backend_context
        ctx = create_backend_context(t, None, "auto")
        _, dm, _, _, _ = lower_to_host_device_ir(func, ctx)
        open(OUT, "w").write(str(dm))
print("tilelang", tilelang.__version__, "->", OUT)
