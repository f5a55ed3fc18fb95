"""Driver for corpus/unseen_users3 (not part of the source repository): deepseek-ai/TileKernels Engram kernels
(tile_kernels/engram/*_kernel.py), each jit factory called as the package's wrappers call it (hidden 4096,
hc_mult 4, contiguous k/v strides, SM count 132 from the stubbed H100). Placed at tilekernels/."""
from _tk_common import call
from tile_kernels.config import get_num_sms
from tile_kernels.engram.engram_fused_weight_kernel import get_engram_fused_weight_kernel
from tile_kernels.engram.engram_gate_kernel import get_engram_gate_fwd_kernel, get_engram_gate_bwd_kernel
from tile_kernels.engram.engram_grad_w_reduce_kernel import get_engram_grad_w_reduce_kernel
from tile_kernels.engram.engram_hash_kernel import get_engram_hash_kernel

Hd, HC = 4096, 4
sms = get_num_sms()
call("engram_fused_weight", get_engram_fused_weight_kernel, Hd, HC)
call("engram_gate_fwd", get_engram_gate_fwd_kernel, Hd, 1e-6, Hd ** -0.5, HC * Hd, Hd, Hd, sms, 1e-6, HC, True)
call("engram_gate_bwd", get_engram_gate_bwd_kernel, Hd, Hd ** -0.5, HC * Hd, Hd, Hd, sms, 1e-6, HC)
call("engram_grad_w_reduce", get_engram_grad_w_reduce_kernel, Hd, sms, HC)
call("engram_hash", get_engram_hash_kernel, 3, 2, 8)
