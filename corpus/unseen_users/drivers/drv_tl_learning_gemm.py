"""Driver for corpus/unseen_users (not part of the source repository): impecme/Tilelang-Learning
kernels/gemm.py, the GEMM that matmul_tilelang() compiles with its defaults (block 128x128x32, 128 threads,
3 stages, fp16 in / fp32 accumulate) on 1024x1024x1024 (the size of the repo's benchmarks/bench_gemm.py is
not assumed: any tile-aligned size). kernels/gemm.py has no __main__; nothing of it is changed.
Placed at tilelang_learning/ in the scratch tree."""
from kernels import gemm  # noqa: E402  (tilelang_learning/kernels/gemm.py; its tilelang.jit factory)

gemm._compile_gemm(1024, 1024, 1024, 128, 128, 32, 128, 3, "float16", "float32")
