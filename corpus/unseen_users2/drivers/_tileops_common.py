"""Shared helper of the tile-ai/TileOPs drivers (ours): makes tileops.kernels importable from the scratch tree's
src/, turns off the device checks that need a GPU (Kernel._check_arch, get_sm_count -> 132, an H100/H200's SM
count), builds one Kernel class with the given sizes and its default_config, and calls its jit factory with that
config (which is where TileLang compiles, i.e. where lower_field's interception lowers)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))


def build(modname, clsname, *args, forward_args=None, **kwargs):
    import importlib
    import torch
    torch.cuda.current_device = lambda: 0
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    import tileops.utils.utils as uu
    uu.get_sm_count = lambda *a, **k: 132
    if hasattr(uu, "_sm_count"):
        uu._sm_count = lambda *a, **k: 132
    from tileops.kernels.kernel_base import Kernel
    Kernel._check_arch = lambda self: None
    mod = importlib.import_module(modname)
    if hasattr(mod, "get_sm_count"):
        mod.get_sm_count = lambda *a, **k: 132
    k = getattr(mod, clsname)(*args, **kwargs)
    print(clsname, "config", k.config)
    fac = getattr(k, "kernel", None) if forward_args is None else None
    if fac is not None and getattr(fac, "__name__", "") == "<lambda>":
        fac = fac()          # a lambda that builds the jit factory (GroupedGemmPersistent3WGKernel)
    if fac is not None:
        fac(**k.config)
        return k
    # no jit factory kept on the object: forward builds the kernels (compile happens before any shape check);
    # placeholder CPU tensors, one per parameter of forward
    if forward_args is not None:
        k.forward(*forward_args)
        return k
    import inspect
    n = len([p for p in inspect.signature(k.forward).parameters.values() if p.default is inspect.Parameter.empty])
    k.forward(*[torch.zeros(1) for _ in range(n)])
    return k
