"""Run corpus/lower_field.py under an OLDER TileLang (0.1.8) on that release's own examples/ tree.
lower_field.py is unchanged: this wrapper (like corpus/unseen_sm8x/lower_sm8x.py) makes the children run
through it too (run_child's `script`), then calls lower_field.main() with the same command line. It changes
two things, both only for TileLang releases older than the one lower_field was written for:

  * lower_field.COMMIT (printed in MANIFEST.md) names the examples' commit, v0.1.8 =
    41b25527cd672434f88eeea7e056d8d7c0d4faa4, instead of the 0.1.15 corpus commit;
  * lowering.lower_device's fallback (when CUDA codegen fails after the TIR pipeline succeeded it re-runs
    the pipeline with 0.1.15's `tilelang.backend.create_backend_context` + `lower_to_host_device_ir`,
    neither of which exists in 0.1.8) is replaced by the same steps 0.1.8's own `tilelang.lower` takes
    before codegen (PreLowerSemanticCheck, LowerAndLegalize, OptimizeForTarget, Filter(device call)).
    The primary path (`str(tilelang.lower(func, target).device_mod)` under PassContext(opt_level=3,
    pass configs)) is asyncguard's own, untouched;
  * in the children, TileLang 0.1.8's carver (`tilelang.carver.arch.CUDA`, which its template module
    instantiates at import time, `_arch = field(default=auto_infer_current_arch())`, and which the
    autotuned examples import) asks `tvm.runtime.cuda(0)` and the CUDA driver for the device; there is no
    GPU, so it is answered as lower_field fakes torch.cuda: the primary arch's GPU (name, SM count,
    compute capability, 227 KiB opt-in shared memory per block). Nothing else of the carver is changed.

    /tmp/tl-old-venv/bin/python corpus/unseen_versions/lower_versions.py \
        --examples /tmp/tl-old-examples/examples --out /tmp/unseen_versions_raw --jobs 1 --timeout 200 --resume
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lower_field  # noqa: E402
import lowering  # noqa: E402

OLD_COMMIT = "41b25527cd672434f88eeea7e056d8d7c0d4faa4"   # tag v0.1.8 of tile-ai/tilelang
lower_field.COMMIT = OLD_COMMIT
_lower_device = lowering.lower_device


def lower_device(func, arch, pass_configs=None, lower=None):
    try:
        import tilelang.backend  # noqa: F401 -- 0.1.15: asyncguard's own lowering, fallback included
        return _lower_device(func, arch, pass_configs, lower=lower)
    except ImportError:
        pass
    import tilelang
    import tvm
    from tvm import tir
    from tvm.target import Target
    target = Target({"kind": "cuda", "arch": arch})
    with tvm.transform.PassContext(opt_level=3, config=dict(pass_configs or {})), target:
        try:
            artifact = (lower or tilelang.lower)(func, target=target)
            return lowering.Lowered(str(artifact.device_mod), artifact.kernel_source, None)
        except Exception as e:  # noqa: BLE001 -- retried below without the CUDA codegen (0.1.8's own steps)
            import tilelang.engine.lower  # noqa: F401 -- the module (the package's `lower` is the function)
            el = sys.modules["tilelang.engine.lower"]
            mod = func
            if isinstance(func, tir.PrimFunc):
                mod = tvm.IRModule({func.attrs["global_symbol"]: func})
            t = tvm.target.Target(target, el.canon_target_host(target, None))
            el.PreLowerSemanticCheck(mod)
            mod = el.LowerAndLegalize(mod, t)
            mod = el.OptimizeForTarget(mod, t)
            device_mod = tir.transform.Filter(el.get_device_call(is_device_c=el.is_cpu_device_backend(t)))(mod)
            return lowering.Lowered(str(device_mod), None, e)


lowering.lower_device = lower_device


def _patch_carver_cuda(mod, primary):
    import types
    cap = lower_field.ARCH_CAPABILITY[primary]
    gpu_name, sms = lower_field.ARCH_GPU[primary]
    fake = types.SimpleNamespace(exist=True, multi_processor_count=sms, warp_size=32,
                                 compute_version=f"{cap[0]}.{cap[1]}")
    orig = mod.CUDA.__init__

    def init(self, target):
        from tvm.target import Target
        if isinstance(target, str) and target.strip() == "cuda":
            target = Target({"kind": "cuda", "arch": primary})
        rt, drv = mod.tvm.runtime, mod.cuda_driver
        saved = rt.cuda, drv.get_device_name, drv.get_shared_memory_per_block
        rt.cuda = lambda *a, **k: fake
        drv.get_device_name = lambda *a, **k: gpu_name
        drv.get_shared_memory_per_block = lambda *a, **k: 227 * 1024
        try:
            orig(self, target)
        finally:
            rt.cuda, drv.get_device_name, drv.get_shared_memory_per_block = saved

    mod.CUDA.__init__ = init


def _hook_carver(primary):
    """Patch tilelang.carver.arch.cuda.CUDA as soon as that module is executed (before the carver's
    template module instantiates it)."""
    import importlib.abc
    import importlib.machinery
    name = "tilelang.carver.arch.cuda"
    if name in sys.modules:
        _patch_carver_cuda(sys.modules[name], primary)
        return

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None or spec.loader is None:
                return spec
            exec_module = spec.loader.exec_module

            def exec_and_patch(module):
                exec_module(module)
                _patch_carver_cuda(module, primary)
            spec.loader.exec_module = exec_and_patch
            return spec

    sys.meta_path.insert(0, _Finder())


_install_stubs = lower_field._install_stubs


def install_stubs(primary):
    _install_stubs(primary)
    _hook_carver(primary)


lower_field._install_stubs = install_stubs
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
