"""Driver for corpus/unseen_users (not part of the source repository): impecme/Tilelang-Learning
projects/tilelang_starter_three_stage_lab/starter_tilelab/advanced.py: the pipelined GEMM its gemm_tilelang
compiles with its defaults (block 16x16x32, 32 threads, fp16 in / fp32 accumulate) when K > block_k, on
64x64x128. No __main__ there; nothing of it is changed. Placed at tilelang_learning/ in the scratch tree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "projects",
                                "tilelang_starter_three_stage_lab"))
from starter_tilelab import advanced  # noqa: E402

advanced._compile_gemm(64, 64, 128, 16, 16, 32, 32, "float16", "float32")
