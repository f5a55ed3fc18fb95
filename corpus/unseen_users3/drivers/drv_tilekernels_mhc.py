"""Driver for corpus/unseen_users3 (not part of the source repository): deepseek-ai/TileKernels manifold
hyper-connection kernels (tile_kernels/mhc/*_kernel.py), each jit factory called as the package's modeling
wrappers (tile_kernels/modeling/mhc/ops/) call it: mhc_mult 4 (mhc_mult3 = 4 * (2 + 4) = 24), hidden 4096,
one RMS group of 4 * 4096, 4 layers, SM count 132 (stubbed H100). Placed at tilekernels/."""
import os
from _tk_common import call
from tile_kernels.config import get_num_sms
from tile_kernels.mhc.expand_kernel import expand_to_mhc_fwd_tl, expand_to_mhc_bwd_tl
from tile_kernels.mhc.head_compute_mix_kernel import _mhc_head_compute_mix_fwd, _mhc_head_compute_mix_bwd
from tile_kernels.mhc.multilayer_recompute_kernel import _mhc_multilayer_recompute_kernel
from tile_kernels.mhc.norm_fn_kernel import (_mhc_fn_normw_merge_fwd, _mhc_fn_normw_merge_bwd, _mhc_pre_norm_fn_fwd_mul,
                                             _mhc_pre_norm_fn_fwd_norm, _mhc_pre_norm_fn_bwd_norm,
                                             _mhc_pre_norm_fn_bwd_mul)
from tile_kernels.mhc.post_kernel import _mhc_post_fwd, _mhc_post_bwd
from tile_kernels.mhc.pre_apply_mix_kernel import _mhc_pre_apply_mix_fwd, _mhc_pre_apply_mix_bwd
from tile_kernels.mhc.pre_big_fuse_kernel import _mhc_pre_big_fuse
from tile_kernels.mhc.pre_split_mixes_kernel import _mhc_pre_split_mixes_fwd, _mhc_pre_split_mixes_bwd
from tile_kernels.mhc.sinkhorn_kernel import _mhc_sinkhorn_fwd, _mhc_sinkhorn_bwd

M, Hd = 4, 4096
M3 = M * (2 + M)
sms = get_num_sms()
PART = os.environ.get("TK_MHC_PART", "1")
if PART == "1":
    call("expand_fwd", expand_to_mhc_fwd_tl, Hd, M)
    call("expand_bwd", expand_to_mhc_bwd_tl, Hd, M)
    call("head_compute_mix_fwd", _mhc_head_compute_mix_fwd, M, 1e-6, 32)
    call("head_compute_mix_bwd", _mhc_head_compute_mix_bwd, M, 32, sms)
    call("multilayer_recompute", _mhc_multilayer_recompute_kernel, M, Hd, 4, 4)
    call("fn_normw_merge_fwd", _mhc_fn_normw_merge_fwd, M3, M * Hd)
    call("fn_normw_merge_bwd", _mhc_fn_normw_merge_bwd, M3, M * Hd)
    call("pre_norm_fn_fwd_mul", _mhc_pre_norm_fn_fwd_mul, M3, 1, M * Hd)
    call("pre_norm_fn_fwd_norm", _mhc_pre_norm_fn_fwd_norm, M3, 1, M * Hd, 1e-6, 16)
    call("pre_norm_fn_bwd_norm", _mhc_pre_norm_fn_bwd_norm, M3, 1, M * Hd, 1e-6)
    call("pre_norm_fn_bwd_mul", _mhc_pre_norm_fn_bwd_mul, M3, 1, M * Hd)
if PART == "2":
    call("post_fwd", _mhc_post_fwd, M, Hd)
    call("post_bwd", _mhc_post_bwd, M, Hd)
    call("pre_apply_mix_fwd", _mhc_pre_apply_mix_fwd, M, Hd)
    call("pre_apply_mix_bwd", _mhc_pre_apply_mix_bwd, M, Hd)
    call("pre_big_fuse", _mhc_pre_big_fuse, M * Hd, 1e-6, 1e-6, 1e-6, 2.0, 20)
    call("pre_split_mixes_fwd", _mhc_pre_split_mixes_fwd, M, 2.0, 1e-6, 32)
    call("pre_split_mixes_bwd", _mhc_pre_split_mixes_bwd, M, 2.0, 32, sms)
    call("sinkhorn_fwd", _mhc_sinkhorn_fwd, M * Hd, 32, 20, 1e-6)
    call("sinkhorn_bwd", _mhc_sinkhorn_bwd, M * Hd, 32, 20, 1e-6)
