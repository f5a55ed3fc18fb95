"""Driver for corpus/unseen_users (not part of the source repository): builds the TileLang kernels of
sgl-project/sglang python/sglang/srt/layers/attention/nsa/tilelang_kernel.py as added by commit efbc687c2
("Support DeepSeek V3.2 Exp (#11061)"), through its @tilelang.jit factories, at DeepSeek-V3.2 sizes
(dim 7168 activations, indexer 64 heads x 128, 128 query heads with DP attention, kv_lora_rank 512 + rope 64,
topk 2048 as tilelang_sparse_fwd asserts): act_quant_kernel, fp8_index_kernel, sparse_attention_fwd_kernel_v2
(what tilelang_sparse_fwd builds on CUDA; TileLang 0.1.15 refuses it: see the last line) and
sparse_attention_fwd_kernel_v1 (its ROCm path, a generic
kernel; num_stages=1 as tilelang_sparse_fwd passes). The file has no __main__; nothing of it is changed.
Its only sglang import, sglang.srt.utils.is_hip, is the stand-in sglang_srt_utils_standin.py (False).
Placed at sglang/ in the scratch tree (next to python/)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
import tilelang  # noqa: E402

# The file's pass_configs name tilelang.PassConfigKey.TL_DISABLE_FAST_MATH, which TileLang removed in
# v0.1.7.post1 (0.1.15 has only TL_ENABLE_FAST_MATH, default False, read by the nvcc flags only, not by the TIR
# pipeline); later sglang versions drop it the same way. So that the file imports, the removed name is made an
# alias of TL_DISABLE_WARP_SPECIALIZED, which the same dict already sets to True: the dict keeps exactly its
# other two entries, and fast math stays off, as the file asks.
if not hasattr(tilelang.PassConfigKey, "TL_DISABLE_FAST_MATH"):
    tilelang.PassConfigKey.TL_DISABLE_FAST_MATH = tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED

from sglang.srt.layers.attention.nsa import tilelang_kernel as K  # noqa: E402

SM_SCALE = 192 ** -0.5   # DeepSeek qk_head_dim 128 + 64
K.act_quant_kernel(7168)
K.fp8_index_kernel(64, 128)
K.sparse_attention_fwd_kernel_v1(128, 512, 64, 2048, sm_scale=SM_SCALE, num_stages=1)
# Last: TileLang 0.1.15 refuses it (its T.gemm calls pass wg_wait=-1, a keyword 0.1.15's T.gemm no longer takes).
K.sparse_attention_fwd_kernel_v2(128, 512, 64, 2048, sm_scale=SM_SCALE)
