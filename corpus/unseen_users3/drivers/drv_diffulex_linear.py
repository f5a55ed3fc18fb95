"""Driver for corpus/unseen_users3 (not part of the source repository): SJTU-DENG-Lab/Diffulex at f2cbabc8,
diffulex_kernel/python/linear_kernels.py: the integer quantized linear GEMMs (W8A16, W4A16, W8A8, W4A8, their
scaled / fused-activation-quant variants, GPTQ and AWQ W4A16). The autotuned ones are called through the
@tilelang.jit under @tilelang.autotune (`.jit_impl`) with the functions' default tiles (64x64x128, 2 or 3
stages, 128 threads, which are in build_linear_configs' space); sizes M 256 tokens, N = K = 4096, group 128.
The file does `from tvm import tir` (TVM's TIR module, which the TVM inside TileLang 0.1.15 names `tvm.tirx`)
and uses only `tir.const`: the driver makes `tvm.tir` name `tvm.tirx` (a module alias, as
corpus/unseen_users/lower_users.py does for `tilelang.intrinsics`). Placed at diffulex/ in the scratch tree."""
import sys
import tilelang  # noqa: F401  (loads TileLang's TVM)
import tvm

tvm.tir = tvm.tirx
sys.modules.setdefault("tvm.tir", tvm.tirx)
import traceback  # noqa: E402
from diffulex_kernel.python import linear_kernels as lk

M, N, K, GS = 256, 4096, 4096, 128


def call(name, *args):
    fn = getattr(lk, name)
    try:
        getattr(fn, "jit_impl", fn)(*args)
        print(f"[driver] {name}: built")
    except Exception as e:  # noqa: BLE001
        print(f"[driver] {name}: {type(e).__name__}: {e}")
        traceback.print_exc(limit=2)


for name in ("w8a16_gemm", "w8a16_gemm_bias", "w4a16_gemm", "w8a8_gemm", "w8a8_scaled_gemm", "w8a8_fused_act_gemm",
             "w4a8_gemm", "w4a8_scaled_gemm", "w4a8_fused_act_gemm"):
    call(name, M, N, K)
call("w8a8_act_quant", M, K)
call("gptq_w4a16_gemm", M, N, K, K // GS, GS)
call("awq_w4a16_gemm", M, N, K, K // GS, GS)
