"""Block barriers, named barriers and warp sync.

`T.tvm_storage_sync("shared" | "shared.dyn")` is `__syncthreads()` (bar.sync 0, every thread);
`("cluster")` is `tl::cluster_sync()` (TileLang's CUDA codegen);
the 3-argument form `(scope, id, n)` is `bar.sync id, n`; the 2-argument form `(scope, id)`
(`T.sync_threads(id)`) is `tl::__sync_thread_partial(id)`, whose default count prints
`bar.sync id, 0`: every thread of the CTA (docs/model.md "Named barriers"); a barrier id that
differs between threads is one barrier per id where each warp names one id, and a finding where
the lanes of one warp name several (events.Barrier.lane_ids). `T.named_barrier_arrive(id, n)` is
`bar.arrive id, n`. `("warp")` emits nothing in TVM's CUDA codegen, so it orders nothing;
`T.sync_warp()` (`__syncwarp()`, full mask) is `WarpSync`; with a computed mask, when the mask is
exactly the lanes that execute it (models/warp_vote.py). `T.sync_grid()` is
`cooperative_groups::this_grid().sync()`, which inside the block is `bar.sync 0` before and
after the grid-wide handshake (CUDA's cooperative_groups sync_grids): two block barriers.
`T.cluster_sync()` and the cluster barrier's halves are in models/cluster.py.
"""
from __future__ import annotations

import numpy as np

from ..events import Barrier, WarpSync
from . import NotModelled, constant, op, per_thread
from .cluster import cluster_storage_sync
from .warp_vote import active_lanes


@op("T.tvm_storage_sync")
def storage_sync(ctx, call):
    if not call.args:
        raise NotModelled("T.tvm_storage_sync without a scope")
    scope = ctx.literal(call.args[0])
    if scope == "warp":
        return None  # TVM's CUDA codegen emits nothing for it: no ordering at all
    if scope == "cluster":   # TileLang's codegen prints tl::cluster_sync() (models/cluster.py)
        return cluster_storage_sync
    if scope not in ("shared", "shared.dyn", "global"):
        raise NotModelled(f"T.tvm_storage_sync({scope!r})")
    if scope == "global":
        raise NotModelled("grid-wide sync")
    if len(call.args) == 1:
        return lambda env, tids: [Barrier(tids, 0, None)]
    if len(call.args) == 2:
        # TileLang's codegen prints tl::__sync_thread_partial(id), whose thread_count defaults
        # to 0: `bar.sync id, 0`. The PTX ISA: with no count every thread of the CTA takes part;
        # it names no meaning for a count of 0 (a multiple of the warp size; only .arrive needs a
        # non-zero count). On an H200 `bar.sync 1, r` with r = 0 waited for every thread of the
        # CTA, as `bar.sync 1` does (bench/probes/bar_sync_counts.cu). So: every thread of the
        # CTA (count None), docs/model.md "Named barriers".
        id_fn = ctx.compile(call.args[1])
        return lambda env, tids: named_barriers(tids, id_fn(env), None)
    if len(call.args) != 3:
        raise NotModelled(f"T.tvm_storage_sync with {len(call.args)} arguments")
    id_fn, n_fn = ctx.compile(call.args[1]), ctx.compile(call.args[2])

    def run(env, tids):
        return named_barriers(tids, id_fn(env), constant(n_fn(env), "barrier count"))
    return run


def named_barriers(tids, ids, count, arrive_only: bool = False) -> list:
    """`bar.sync ids, count` (or `bar.arrive`) by the threads `tids`: one Barrier. When the id
    differs between threads, the Barrier carries each thread's id (`lane_ids`) and
    engine/state/barriers.py splits it: one barrier per id where each warp's lanes name one id,
    a finding where the lanes of one warp name several."""
    if not isinstance(ids, np.ndarray) or not ids.size or (ids == ids.flat[0]).all():
        return [Barrier(tids, constant(ids, "barrier id"), count, arrive_only=arrive_only)]
    ids = per_thread(ids, tids)
    if ((ids < 0) | (ids > 15)).any():
        raise NotModelled("barrier id outside 0..15")
    return [Barrier(tids, int(ids.min()), count, arrive_only=arrive_only, lane_ids=ids)]


@op("T.named_barrier_arrive")
def named_arrive(ctx, call):
    if len(call.args) != 2:
        raise NotModelled("T.named_barrier_arrive needs (id, count)")
    id_fn, n_fn = ctx.compile(call.args[0]), ctx.compile(call.args[1])

    def run(env, tids):
        return named_barriers(tids, id_fn(env), constant(n_fn(env), "barrier count"), arrive_only=True)
    return run


@op("T.named_barrier_sync")
def named_sync(ctx, call):
    if len(call.args) != 2:
        raise NotModelled("T.named_barrier_sync needs (id, count)")
    id_fn, n_fn = ctx.compile(call.args[0]), ctx.compile(call.args[1])
    return lambda env, tids: named_barriers(tids, id_fn(env), constant(n_fn(env), "barrier count"))


FULL_MASK = 0xFFFFFFFF


@op("T.sync_warp")
def sync_warp(ctx, call):
    if not call.args or ctx.literal(call.args[0]) in (FULL_MASK, -1):
        return lambda env, tids: [WarpSync(tids)]
    mask_fn = ctx.compile(call.args[0])

    def run(env, tids):
        # bar.warp.sync membermask: the lanes of the mask wait for each other. Exact when the
        # mask is the lanes that execute it here (a ballot of the branch condition they took,
        # models/warp_vote.py); a mask naming other lanes waits for lanes the engine does not
        # pair (or is undefined), and stays unmodelled
        masks = per_thread(mask_fn(env), tids) & FULL_MASK
        if (masks != active_lanes(tids)).any():
            raise NotModelled("T.sync_warp whose lane mask is not the lanes that execute it")
        return [WarpSync(tids)]
    return run


@op("T.sync_grid")
def sync_grid(ctx, call):
    return lambda env, tids: [Barrier(tids, 0, None, grid_sync=True), Barrier(tids, 0, None, grid_sync=True)]

