"""Proxy fences, and what is not modelled yet: clusters and Blackwell's tcgen05.

`T.fence_proxy_async()` is `fence.proxy.async.shared::cta`: it orders the executing thread's
generic-proxy view of shared memory with its async-proxy operations (TMA, wgmma). The other
operations below become `unsupported` findings, so a kernel using them is never called clean.
"""
from __future__ import annotations

from ..events import ProxyFence
from . import NotModelled, op

NOT_MODELLED = (
    "T.tma_store_cluster", "T.cluster_sync", "T.tcgen05_mma_arrive", "T.ptx_tcgen05_mma_ss",
    "T.tcgen05_ld", "T.tcgen05_before_thread_sync", "T.tcgen05_after_thread_sync",
    "T.ptx_init_tensor_memory", "T.ptx_deallocate_tensor_memory", "T.initialize_tcgen05_descriptor",
)


@op("T.fence_proxy_async")
def fence_proxy_async(ctx, call):
    return lambda env, tids: [ProxyFence(tids)]


def _not_yet(ctx, call):
    raise NotModelled(f"{call.name} (clusters and tcgen05 are not modelled yet)")


for _name in NOT_MODELLED:
    op(_name)(_not_yet)
