"""Driver for corpus/unseen_users (not part of the source repository): builds the TileLang kernels of
deepseek-ai/DeepSeek-V3.2-Exp inference/kernel.py (its @tilelang.jit factories act_quant_kernel,
fp8_gemm_kernel, fp8_index_kernel) at the sizes inference/model.py uses with config_671B_v3.2.json
(dim 7168, q_lora_rank 1536, index_n_heads 64, index_head_dim 128, block_size 128). kernel.py has no
__main__; nothing of it is changed. Placed at dsv32/ in the scratch tree (next to inference/)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "inference"))

import tilelang  # noqa: E402

# kernel.py's pass_configs name tilelang.PassConfigKey.TL_DISABLE_FAST_MATH, which TileLang removed in
# v0.1.7.post1 (0.1.15 has only TL_ENABLE_FAST_MATH, default False, read by the nvcc flags only, not by the TIR
# pipeline). So that kernel.py imports, the removed name is made an alias of TL_DISABLE_WARP_SPECIALIZED,
# which the same dict already sets to True: the dict keeps exactly its other two entries, and fast math stays
# off, as kernel.py asks.
if not hasattr(tilelang.PassConfigKey, "TL_DISABLE_FAST_MATH"):
    tilelang.PassConfigKey.TL_DISABLE_FAST_MATH = tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED
import kernel  # noqa: E402  (deepseek-ai/DeepSeek-V3.2-Exp inference/kernel.py)

kernel.act_quant_kernel(7168)                 # act_quant(x, 128, scale_fmt=None) on a dim-7168 activation
kernel.fp8_gemm_kernel(1536, 7168)            # Linear(dim 7168 -> q_lora_rank 1536): wq_a
kernel.fp8_index_kernel(64, 128)              # indexer: fp8_index(q, weights, k_cache, k_scale)
