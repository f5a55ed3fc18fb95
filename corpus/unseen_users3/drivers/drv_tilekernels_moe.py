"""Driver for corpus/unseen_users3 (not part of the source repository): deepseek-ai/TileKernels MoE routing
kernels (tile_kernels/moe/*_kernel.py), each jit factory called as the package's own wrapper calls it, with
DeepSeek-V3 routing sizes (256 routed experts in 8 groups, top-4 groups, top-8 experts, hidden 7168; SM count
from the stubbed H100: 132). The package targets SM90/SM100. Placed at tilekernels/ in the scratch tree."""
from tilelang import language as T
from _tk_common import call
from tile_kernels.config import get_num_sms
from tile_kernels.moe.aux_fi_kernel import get_aux_fi_kernel
from tile_kernels.moe.get_fused_mapping_kernel import get_get_fused_mapping_kernel
from tile_kernels.moe.group_count_kernel import get_group_count_kernel
from tile_kernels.moe.inplace_unique_group_indices_kernel import get_inplace_unique_group_indices_kernel
from tile_kernels.moe.mask_indices_by_tp_kernel import get_mask_indices_by_tp_kernel
from tile_kernels.moe.normalize_weight_kernel import get_normalize_weight_kernel
from tile_kernels.moe.top2_sum_gate_kernel import get_top2_sum_gate_kernel
from tile_kernels.moe.topk_gate_kernel import get_topk_gate_kernel
from tile_kernels.moe.topk_sum_and_topk_group_idx_kernel import get_topk_sum_and_topk_group_idx_kernel
from tile_kernels.moe.reduce_fused_kernel import get_reduce_fused_kernel
from tile_kernels.moe.expand_to_fused_kernel import get_expand_to_fused_kernel
from tile_kernels.moe.scoring import ScoringFunc

E, K, G, TG, H = 256, 8, 8, 4, 7168
sms = get_num_sms()
call("aux_fi", get_aux_fi_kernel, K, E, sms)
call("get_fused_mapping", get_get_fused_mapping_kernel, E, K, 128, sms)
call("group_count", get_group_count_kernel, K, G, sms)
call("inplace_unique_group_indices", get_inplace_unique_group_indices_kernel, K, G, sms)
call("mask_indices_by_tp", get_mask_indices_by_tp_kernel, K, T.int64)
call("normalize_weight", get_normalize_weight_kernel, K)
call("top2_sum_gate", get_top2_sum_gate_kernel, ScoringFunc.SIGMOID.value, K, TG, G, E, False, False, False, False)
call("topk_gate", get_topk_gate_kernel, E, K)
call("topk_sum_and_topk_group_idx", get_topk_sum_and_topk_group_idx_kernel, G, E // G, TG, 2)
call("reduce_fused", get_reduce_fused_kernel, H, K, T.bfloat16, T.bfloat16, False, True, False)
call("expand_to_fused", get_expand_to_fused_kernel, H, K, None, None, None, T.bfloat16, T.float32)
