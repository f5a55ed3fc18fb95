"""Hopper (sm_90) asynchronous machinery: TMA, mbarrier, wgmma, proxy fences, clusters.

Not modelled yet: every such call becomes an `unsupported` finding at its line, so a kernel
using them is never called clean.
"""
from __future__ import annotations

from . import NotModelled, op

HOPPER_OPS = (
    "T.ptx_init_barrier_thread_count", "T.ptx_fence_barrier_init", "T.mbarrier_wait_parity",
    "T.mbarrier_expect_tx", "T.ptx_arrive_barrier", "T.ptx_arrive_barrier_expect_tx",
    "T.tma_load", "T.tma_load_multicast", "T.tma_load_im2col", "T.tma_store", "T.tma_store_arrive",
    "T.tma_store_wait", "T.tma_store_cluster", "T.warpgroup_arrive", "T.ptx_wgmma_ss",
    "T.ptx_wgmma_rs", "T.warpgroup_commit_batch", "T.warpgroup_wait", "T.wait_wgmma",
    "T.initialize_wgmma_descriptor", "T.increase_descriptor_offset", "T.fence_proxy_async",
    "T.cluster_sync", "T.tcgen05_mma_arrive", "T.ptx_tcgen05_mma_ss", "T.tcgen05_ld",
    "T.tcgen05_before_thread_sync", "T.tcgen05_after_thread_sync", "T.ptx_init_tensor_memory",
    "T.ptx_deallocate_tensor_memory", "T.initialize_tcgen05_descriptor",
)


def _not_yet(ctx, call):
    raise NotModelled(f"{call.name} (TMA / mbarrier / wgmma are not modelled yet)")


for _name in HOPPER_OPS:
    op(_name)(_not_yet)
