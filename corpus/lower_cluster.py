"""Lower TileLang 0.1.15's own thread-block-cluster kernels to device TIR on a CPU (corpus/real/cluster_*).

TileLang's examples/ tree uses clusters only in the sm_100a 2-CTA tcgen05 GEMMs (already in
corpus/field). Its tests use the cluster vocabulary directly; this script lowers the kernels of
testing/python/cuda/test_tma_dsmem.py and test_tma_multicast_demo.py (TileLang mirror, commit
a35008a) for sm_90a, as written there (sizes of the tests):

    . /work/tl-venv/bin/activate && nice python corpus/lower_cluster.py [--out corpus/real] [--only NAME ...]
"""
import argparse
import ast
import os
import runpy
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lowering import lower_device, show_from_mirror  # noqa: E402

# (test file, factory, arguments, output name)
KERNELS = [
    ("testing/python/cuda/test_tma_dsmem.py", "make_store_cluster_kernel", (128,), "dsmem_tma_store_cluster"),
    ("testing/python/cuda/test_tma_dsmem.py", "make_store_cluster_simt_no_barrier_kernel", (128,),
     "dsmem_simt_cluster_sync"),
    ("testing/python/cuda/test_tma_dsmem.py", "make_store_cluster_simt_barrier_kernel", (4, 64, 32),
     "dsmem_multi_tma_rows"),
    ("testing/python/cuda/test_tma_dsmem.py", "make_store_cluster_simt_barrier_kernel", (4, 64, 31),
     "dsmem_simt_remote_arrive"),
    ("testing/python/cuda/test_tma_multicast_demo.py", "make_tma_multicast_demo_kernel",
     (1024, 1024, 128, 64, 0b0011), "tma_multicast_demo"),
]


def child(src, factory, args, out):
    """One kernel per child process (TileLang's global state stays out of the next lowering). The test
    module is run as a plain module (not __main__): only its factories are defined."""
    func = runpy.run_path(src, run_name="lowered")[factory](*args)
    with open(out, "w") as f:
        f.write(lower_device(func, "sm_90a").tir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "real"))
    ap.add_argument("--child", nargs=4, metavar=("SRC", "FACTORY", "ARGS", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="*", default=[], help="output names containing one of these")
    a = ap.parse_args()
    if a.child:
        src, factory, args, out = a.child
        return child(src, factory, ast.literal_eval(args), out)
    os.makedirs(a.out, exist_ok=True)
    for path, factory, args, name in KERNELS:
        if a.only and not any(o in name for o in a.only):
            continue
        src = f"/tmp/lower_cluster_{os.path.basename(path)}"
        with open(src, "w") as f:
            f.write(show_from_mirror(path))
        out = os.path.join(a.out, f"cluster_{name}_sm90a.tir")
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", src, factory, repr(args), out],
                           capture_output=True, text=True, timeout=900)
        print(name, "ok" if r.returncode == 0 else "FAILED\n" + r.stderr[-3000:])


if __name__ == "__main__":
    main()
