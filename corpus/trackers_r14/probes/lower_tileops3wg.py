"""TileOPs #1550 / #1574: the cooperative template (`_make_cooperative_kernel`, the default config block_m 128) of
tileops/kernels/grouped_gemm/grouped_gemm_persistent_3wg.py, taken verbatim from the TileOPs snapshot at a given
commit (git show COMMIT:FILE, written to a scratch module next to a stub `tileops.kernels.kernel_base`), built at a
small shape and lowered for sm_90a on the CPU with the kernel's own pass configs (TL_ENABLE_FAST_MATH,
TL_DISABLE_THREAD_STORAGE_SYNC: every barrier in the output is one the kernel wrote).
Usage: python lower_tileops3wg.py COMMIT OUT.tir   (run with the TileLang wanted first on PYTHONPATH)."""
import importlib
import os
import subprocess
import sys

COMMIT, OUT = sys.argv[1], sys.argv[2]
MIRROR = "/work/.mirror/tile-ai+TileOPs/repo"
SRC = "tileops/kernels/grouped_gemm/grouped_gemm_persistent_3wg.py"
scratch = f"/tmp/r14/tileops_{COMMIT}"
os.makedirs(f"{scratch}/tileops/kernels", exist_ok=True)
for d in ("tileops", "tileops/kernels"):
    open(f"{scratch}/{d}/__init__.py", "w").close()
open(f"{scratch}/tileops/kernels/kernel_base.py", "w").write("class Kernel:\n    pass\n")
src = subprocess.run(["git", "-C", MIRROR, "show", f"{COMMIT}:{SRC}"], check=True, capture_output=True, text=True).stdout
open(f"{scratch}/tileops/kernels/gg3wg.py", "w").write(src)
sys.path.insert(0, scratch)

import tilelang  # noqa: E402
from tvm.target import Target  # noqa: E402
import tvm  # noqa: E402

mod = importlib.import_module("tileops.kernels.gg3wg")
# Shape: 4 experts, numel 512, N 256, K 128 (2 k-tiles), 2 SMs (so each CTA runs several waves); default config.
cfg = dict(mod._DEFAULT_CONFIG)
func = mod._make_cooperative_kernel(512, 4, 256, 128, "bfloat16", 2, cfg["block_m"], cfg["block_n"], cfg["block_k"],
                                    cfg["num_stages"], cfg["threads"], cfg.get("group_size_m", 1))
configs = {tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True, tilelang.PassConfigKey.TL_DISABLE_THREAD_STORAGE_SYNC: True}
target = Target({"kind": "cuda", "arch": "sm_90a"})
with tvm.transform.PassContext(opt_level=3, config=configs), target:
    art = tilelang.lower(func, target=target)
open(OUT, "w").write(str(art.device_mod))
open(OUT[:-4] + ".cu", "w").write(art.kernel_source)
print("tilelang", tilelang.__version__, "->", OUT)
