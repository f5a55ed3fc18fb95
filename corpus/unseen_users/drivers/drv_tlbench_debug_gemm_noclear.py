"""Driver for corpus/unseen_users (not part of the source repository): shuminghu/tilelang-bench
tasks/debug/debug_gemm_noclear_fp16/solution.py: its build(M, N, K) (a @T.prim_func passed to tilelang.compile) at 4096^3, the size
of the sq4k perf tasks. (The perf GEMM starter solutions are byte-identical across the 18 perf_gemm_fp16_* and
the 18 perf_gemm_bf16_* tasks; debug_gemm_noclear's planted defect is a missing accumulator clear, numeric, not
synchronization.) One solution per driver file: lower_field lowers each (jit function, prim_func name) pair
once per file, and every solution's prim_func is "main". Nothing of the solution is changed.
Placed at tilelang_bench/ in the scratch tree."""
import importlib.util
import os

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tasks/debug/debug_gemm_noclear_fp16/solution.py")
spec = importlib.util.spec_from_file_location("solution", path)
solution = importlib.util.module_from_spec(spec)
spec.loader.exec_module(solution)
solution.build(4096, 4096, 4096)   # tilelang.compile(...)
