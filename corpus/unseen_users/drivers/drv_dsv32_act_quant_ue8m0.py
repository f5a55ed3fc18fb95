"""Driver for corpus/unseen_users (not part of the source repository): deepseek-ai/DeepSeek-V3.2-Exp
inference/kernel.py act_quant_kernel with round_scale=True, as act_quant(x, 128, scale_fmt="ue8m0") builds it
(config_671B_v3.2.json sets scale_fmt ue8m0; kernel.py then uses num_stages=0). A separate file because
lower_field lowers each (jit function, prim_func) pair once per file."""
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
import kernel  # noqa: E402

kernel.act_quant_kernel(7168, round_scale=True)
