"""Proxy fences, and what is not modelled yet: cluster launch control, some tcgen05 forms.

`T.fence_proxy_async()` is `fence.proxy.async.shared::cta`: it orders the executing thread's
generic-proxy view of shared memory with its async-proxy operations (TMA, wgmma). The other
operations below become `unsupported` findings naming what they may do, so a kernel using them
is never called clean, and nothing definite rests on them (engine/taint.py).
"""
from __future__ import annotations

from ..events import ProxyFence
from . import NotModelled, op

NOT_MODELLED = {
    # (thread-block clusters: models/cluster.py)
    "T.clc_try_cancel": "cluster launch control is not modelled: writes its response to shared memory "
                        "and completes on an mbarrier",
    "T.clc_try_cancel_multicast": "cluster launch control is not modelled",
    # Blackwell tcgen05 forms not in models/tcgen05.py or models/tcgen05_blockscale.py
    "T.deallocate_tmem": "tcgen05 is not modelled yet: tensor-memory release",
}


@op("T.fence_proxy_async")
def fence_proxy_async(ctx, call):
    return lambda env, tids: [ProxyFence(tids)]


def _not_yet(ctx, call):
    raise NotModelled(f"{call.name}: {NOT_MODELLED[call.name]}")


for _name in NOT_MODELLED:
    op(_name)(_not_yet)
