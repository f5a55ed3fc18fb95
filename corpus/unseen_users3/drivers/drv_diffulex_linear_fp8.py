"""Driver for corpus/unseen_users3 (not part of the source repository): SJTU-DENG-Lab/Diffulex at f2cbabc8,
diffulex_kernel/python/linear_kernels.py: the FP8 (e4m3 / e5m2) W8A16 and W8A8 GEMMs, through the @tilelang.jit
under @tilelang.autotune (`.jit_impl`) with the functions' default tiles; M 256, N = K = 4096. FP8, so lowered
for sm_90a only. The file does `from tvm import tir` (TVM's TIR module, which the TVM inside TileLang 0.1.15 names `tvm.tirx`)
and uses only `tir.const`: the driver makes `tvm.tir` name `tvm.tirx` (a module alias, as
corpus/unseen_users/lower_users.py does for `tilelang.intrinsics`). Placed at diffulex/ in the scratch tree."""
import sys
import tilelang  # noqa: F401  (loads TileLang's TVM)
import tvm

tvm.tir = tvm.tirx
sys.modules.setdefault("tvm.tir", tvm.tirx)
import traceback  # noqa: E402
from diffulex_kernel.python import linear_kernels as lk

M, N, K = 256, 4096, 4096
for name in ("fp8_e4m3_w8a16_gemm", "fp8_e5m2_w8a16_gemm", "fp8_e4m3_w8a8_gemm", "fp8_e5m2_w8a8_gemm"):
    try:
        getattr(lk, name).jit_impl(M, N, K)
        print(f"[driver] {name}: built")
    except Exception as e:  # noqa: BLE001
        print(f"[driver] {name}: {type(e).__name__}: {e}")
        traceback.print_exc(limit=2)
