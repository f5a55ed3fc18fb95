"""`T.call_extern` into TileLang's device templates.

`tl::AllReduce<Op, threads, scale, thread_offset, Barrier>::run(x[, red_buf])`
(tilelang src/tl_templates/cuda/reduce.h) reduces over `threads` lanes in butterfly levels
offset = threads/2, threads/4, ... down to `scale`. A level with offset < 32 is a warp shuffle
(no shared memory). A level with offset >= 32 does: barrier #1; store x to
red_buf[tid - thread_offset]; barrier #2; load red_buf[(tid - thread_offset) ^ offset].
`tl::NamedBarrier<N>` is `bar.sync 1, N` / `bar.sync 2, N`; `tl::SyncThreadsBarrier` is
`__syncthreads()`. There is no barrier after the last load. Other externs are `unsupported`.
"""
from __future__ import annotations

import re

import numpy as np

from ..events import Access, AccessKind, Barrier
from . import NotModelled

_ALLREDUCE = re.compile(r"tl::AllReduce<\s*[\w:]+\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*"
                        r"tl::(NamedBarrier<\s*(\d+)\s*>|SyncThreadsBarrier)\s*>::run$")


def extern_effect(ctx, call):
    """None when the call has no shared/sync effect, else `run(env, tids) -> events`."""
    if len(call.args) < 2:
        raise NotModelled("T.call_extern without a function name")
    name = ctx.literal(call.args[1])
    if not isinstance(name, str):
        raise NotModelled("T.call_extern with a computed function name")
    m = _ALLREDUCE.match(name)
    if m is None:
        raise NotModelled(f"extern call {name} (may use shared memory or barriers internally)")
    threads, scale, offset0 = int(m.group(1)), int(m.group(2)), int(m.group(3))
    named = m.group(5)
    levels = []
    k = threads
    while k != scale and k > 1:
        levels.append(k // 2)
        if k // 2 == scale:
            break
        k //= 2
    smem_levels = [o for o in levels if o >= 32]
    if not smem_levels:
        return None  # warp shuffles only
    if len(call.args) != 4:
        raise NotModelled(f"{name} reduces over {threads} threads but has no shared workspace argument")
    ptr = ctx.access_ptr(call.args[3])
    if ptr is None or not ptr.view.is_shared:
        raise NotModelled(f"{name}: workspace is not a shared T.tvm_access_ptr")
    tidx = ctx.thread_x()

    def run(env, tids):
        base = ptr.view.flat_base + int(np.asarray(ptr.offset(env)).flat[0]) * ptr.elem_size
        lane = tidx[tids] - offset0
        events = []
        for off in smem_levels:
            for bar_id, acc, idx in ((1, AccessKind.WRITE, lane), (2, AccessKind.READ, lane ^ off)):
                events.append(Barrier(tids, bar_id if named else 0, int(named) if named else None))
                lo = base + idx * ptr.elem_size
                events.append(Access(acc, tids, lo, lo + ptr.elem_size, ptr.view.name,
                                     ptr.view.flat_base, ptr.elem_size, "AllReduce"))
        return events
    return run
