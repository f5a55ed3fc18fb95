"""Lower several autotuner configs of TileLang's autotuned benchmarks (TileLang mirror at lowering.COMMIT).

corpus/lower_field.py runs a benchmark as __main__; under its interception the autotuner gets back stand-in
kernels, so only the FIRST config of each autotuned kernel is lowered (and matmul_fp8's get_configs(args,
kwargs) does not match tilelang 0.1.15's autotuner calling convention, so nothing of it lowers that way). This
script instead imports each benchmark with `tilelang.autotuner.autotune` replaced by a recorder (it keeps the
@jit function and the config list, and stops the benchmark when the tuned kernel is called), calls the
benchmark's own entry with its argparse defaults, then for each selected config calls the @jit's
get_tir(default args, **config) (the @jit function's Python body, under the cuda Target of the arch it is
lowered for) to get the PrimFunc (exactly what the autotuner compiles for that
config) and lowers it with corpus/lowering.py's lower_and_record under the @jit's own pass_configs.
Modules the benchmarks import only for references (triton, einops, mamba_ssm, helion) are stand-ins.

Selected configs per benchmark: the autotuner's first config, then every config of the list that matches one of
PICK (first match each), so pipelining depths 0..3, 128/256 threads and larger tiles are covered.

    nice -n 15 python corpus/unseen_bench/lower_configs.py --bench /tmp/tl-bench/benchmark --out DIR
(benchmark/matmul/benchmark_matmul_sp.py imports examples/gemm_sp/sparse_utils.py from ../../examples:
extract `examples/gemm_sp` of the mirror next to `benchmark`.)
"""
import argparse
import importlib.abc
import importlib.machinery
import json
import os
import runpy
import sys
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from lowering import lower_and_record  # noqa: E402

STANDIN = ("triton", "einops", "mamba_ssm", "helion")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STANDIN:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = mock.MagicMock(name=spec.name)
        m.__name__, m.__spec__, m.__path__, m.__file__ = spec.name, spec, [], None
        return m

    def exec_module(self, module):
        pass


class Stop(BaseException):
    pass


TUNED = []


def recording_autotune(configs=None, **kw):
    def deco(jit_impl):
        class Tuned:
            def __call__(self, *args, **kwargs):
                if callable(configs):
                    try:
                        cfgs = configs(*args, **kwargs)
                    except TypeError:  # matmul_fp8: the get_configs(args, kwargs) convention
                        cfgs = configs(args, kwargs)
                else:
                    cfgs = configs
                TUNED.append((jit_impl, args, kwargs, cfgs))
                raise Stop("tuned kernel called")
        return Tuned()
    return deco


def T_policy_name(v):
    return getattr(v, "name", str(v))


# (file under benchmark/, archs as corpus/lower_field.py's classify gives them, argv, config picks)
PICK_GEMM = [dict(block_M=128, block_N=128, num_stages=s, thread_num=128) for s in (1, 2, 3)] + \
            [dict(block_M=128, block_N=256, num_stages=3, thread_num=256), dict(block_M=256, block_N=128, num_stages=2, thread_num=256)]
BENCH = [
    ("matmul/benchmark_matmul.py", ["sm_80", "sm_90a"], PICK_GEMM),
    ("matmul/benchmark_matmul_sp.py", ["sm_80", "sm_90a"], PICK_GEMM),
    ("matmul_fp8/benchmark_matmul.py", ["sm_90a"], PICK_GEMM),
    ("mamba2/benchmark_mamba_chunk_scan.py", ["sm_80", "sm_90a"],
     [dict(block_M=64, block_N=64, num_stages=s) for s in (2, 3)] + [dict(block_M=128, block_N=64, block_K=64, num_stages=2)]),
]


def selected(cfgs, picks):
    out = [cfgs[0]]
    for p in picks:
        for c in cfgs:
            if all(c.get(k) == v for k, v in p.items()):
                if c not in out:
                    out.append(c)
                break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default="/tmp/tl-bench/benchmark")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sys.meta_path.append(_Finder())
    import tilelang
    import tilelang.autotuner
    tilelang.autotuner.autotune = recording_autotune
    recs = []
    for rel, archs, picks in BENCH:
        if args.only and not any(s in rel for s in args.only):
            continue
        del TUNED[:]
        path = os.path.join(args.bench, rel)
        sys.argv = [path]
        d = os.path.dirname(path)
        sys.path[:0] = [d]
        cwd = os.getcwd()
        os.chdir(d)
        try:
            runpy.run_path(path, run_name="__main__")
        except Stop:
            pass
        except BaseException as e:  # noqa: BLE001
            print(json.dumps({"file": rel, "error": f"{type(e).__name__}: {e}"[:300]}), flush=True)
        finally:
            os.chdir(cwd)
            sys.path.remove(d)
        for jit_impl, a, kw, cfgs in TUNED:
            fn = jit_impl.func
            from tvm.target import Target
            pcs = getattr(jit_impl, "pass_configs", None)
            for i, cfg in enumerate(selected(cfgs, picks)):
                tag = "_".join(f"{k}{T_policy_name(v) if k == 'policy' else v}" for k, v in cfg.items())
                stem = os.path.splitext(rel)[0].replace("/", "__")
                for arch in archs:
                    # The PrimFunc is built under the arch's own target (some frontends, gemm_sp's, read it).
                    try:
                        with Target({"kind": "cuda", "arch": arch}):
                            func = jit_impl.get_tir(*a, **kw, **cfg)
                    except Exception as e:  # noqa: BLE001
                        print(json.dumps({"file": rel, "config": str(cfg), "arch": arch, "error": str(e)[:300]}), flush=True)
                        continue
                    rec = {"file": rel, "kernel": fn.__name__, "config": {k: str(v) for k, v in cfg.items()},
                           "arch": arch, "pass_configs": {str(k): str(v) for k, v in (pcs or {}).items()}}
                    name = f"{stem}__{fn.__name__}__c{i}__{arch}.tir"
                    lower_and_record(func, arch, pcs, os.path.join(args.out, name), rec)
                    rec["config_tag"] = tag
                    print(json.dumps(rec), flush=True)
                    recs.append(rec)
    json.dump(recs, open(os.path.join(args.out, "configs_lowering.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
