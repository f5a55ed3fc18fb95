"""Driver for corpus/unseen_users (not part of the source repository): impecme/Tilelang-Learning
projects/tilelang_three_stage_lab/tilelab/advanced.py: the kernels its gemm_tilelang (defaults: block
128x128x32, 128 threads, 3 stages), row_softmax_parallel_tilelang and rmsnorm_parallel_tilelang wrappers
compile (each a tilelang.jit factory), on 512x512x512 fp16 and 256x1024 fp16 rows. No __main__ there;
nothing of it is changed. Placed at tilelang_learning/ in the scratch tree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "projects", "tilelang_three_stage_lab"))
from tilelab import advanced  # noqa: E402

advanced._compile_gemm(512, 512, 512, 128, 128, 32, 128, 3, "float16", "float32")
advanced._compile_row_softmax_parallel(256, 1024, 256, "float16")
advanced._compile_rmsnorm_parallel(256, 1024, 256, "float16", 1e-5)
