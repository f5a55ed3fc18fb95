"""Run corpus/lower_field.py under an OLDER TileLang (0.1.11) on that release's own examples/ tree.
Adapted from corpus/unseen_versions/lower_versions.py (the 0.1.8 probe). lower_field.py is unchanged: this
wrapper makes the children run through it too (run_child's `script`), then calls lower_field.main() with the
same command line. For TileLang 0.1.11 it changes three things:

  * lower_field.COMMIT (printed in MANIFEST.md) names the examples' commit, v0.1.11 =
    cd37ed5fc35ae7a60a1277c8eb49028174ac51e6, instead of the 0.1.15 corpus commit;
  * lowering.lower_device's fallback (when CUDA codegen fails after the TIR pipeline succeeded it re-runs
    the pipeline with 0.1.15's `tilelang.backend.create_backend_context` + `lower_to_host_device_ir(func,
    ctx)`) is replaced by 0.1.11's own `tilelang.engine.lower.lower_to_host_device_ir(func, target)`: 0.1.11
    has a `tilelang.backend` package but no `create_backend_context`, and its `lower_to_host_device_ir`
    takes the target, not a backend context (it returns the same (host_mod, device_mod, params, target,
    target_host)). The primary path (`str(tilelang.lower(func, target).device_mod)` under
    PassContext(opt_level=3, pass configs)) is asyncguard's own, untouched;
  * lower_field's kernel stand-in (`_KernelStandIn`, what the example gets instead of a compiled kernel)
    answers the attribute `_tilelang_cache_key` as absent (AttributeError) instead of stopping the example:
    0.1.11's `JITImpl.__call__` (tilelang/jit/__init__.py), in lazy mode, right after compiling, does
    `getattr(kernel, "_tilelang_cache_key", None)` to store a "frontend cache" entry (0.1.15 has no such
    step). Without this every such example stopped at its first kernel ("example used kernel
    flashattn_fwd.flash_fwd._tilelang_cache_key", 29 of the first 57 files, before any backward kernel).
    Absent, the key is None and 0.1.11 stores nothing; nothing else of the stand-in changes.

The 0.1.8 wrapper's third change (answering the carver's `tilelang.carver.arch.CUDA` with a faked GPU) is
NOT made: 0.1.8's carver template instantiated the arch at *import* (`field(default=auto_infer_current_arch())`),
0.1.11's does it per template instance (`field(default_factory=auto_infer_current_arch)`), as 0.1.15's does,
and 0.1.11's `carver/arch/cuda.py` `CUDA.__init__` and `driver/cuda_driver.py` are 0.1.15's (only import paths
differ), so the examples meet the carver exactly as under 0.1.15's lower_field.

    nice -n 15 /tmp/tl-0111-venv/bin/python corpus/unseen_v0111/lower_v0111.py \
        --examples /tmp/tl-0111-examples/examples --out /tmp/unseen_v0111_raw --jobs 1 --timeout 200 --resume
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402
import lowering  # noqa: E402

OLD_COMMIT = "cd37ed5fc35ae7a60a1277c8eb49028174ac51e6"   # tag v0.1.11 of tile-ai/tilelang
lower_field.COMMIT = OLD_COMMIT
_lower_device = lowering.lower_device


def lower_device(func, arch, pass_configs=None, lower=None):
    try:
        from tilelang.backend import create_backend_context  # noqa: F401 -- 0.1.15: asyncguard's own lowering
        return _lower_device(func, arch, pass_configs, lower=lower)
    except ImportError:
        pass
    import tilelang
    import tvm
    from tvm.target import Target
    target = Target({"kind": "cuda", "arch": arch})
    with tvm.transform.PassContext(opt_level=3, config=dict(pass_configs or {})), target:
        try:
            artifact = (lower or tilelang.lower)(func, target=target)
            return lowering.Lowered(str(artifact.device_mod), artifact.kernel_source, None)
        except Exception as e:  # noqa: BLE001 -- retried below without the CUDA codegen (0.1.11's own step)
            import tilelang.engine.lower  # noqa: F401 -- the module (the package's `lower` is the function)
            el = sys.modules["tilelang.engine.lower"]
            _, device_mod, _, _, _ = el.lower_to_host_device_ir(func, target=target)
            return lowering.Lowered(str(device_mod), None, e)


lowering.lower_device = lower_device

_standin_getattr = lower_field._KernelStandIn.__getattr__


def _standin_getattr_0111(self, attr):
    if attr == "_tilelang_cache_key":   # 0.1.11's JITImpl.__call__: getattr(kernel, key, None)
        raise AttributeError(attr)
    return _standin_getattr(self, attr)


lower_field._KernelStandIn.__getattr__ = _standin_getattr_0111
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
