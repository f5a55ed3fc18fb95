"""Proxy fences, and what is not modelled yet: some tcgen05 forms.

`T.fence_proxy_async()` is `fence.proxy.async.shared::cta`: it orders the executing thread's
generic-proxy view of shared memory with its async-proxy operations (TMA, wgmma). The other
operations below become `unsupported` findings naming what they may do, so a kernel using them
is never called clean, and nothing definite rests on them (engine/taint.py).
"""
from __future__ import annotations

from ..events import ProxyFence
from . import NotModelled, op

NOT_MODELLED = {
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
