"""Block barriers, named barriers and warp sync.

`T.tvm_storage_sync("shared" | "shared.dyn")` is `__syncthreads()` (bar.sync 0, every thread);
`("cluster")` is `tl::cluster_sync()` (TileLang's CUDA codegen);
the 3-argument form `(scope, id, n)` is `bar.sync id, n`; `T.named_barrier_arrive(id, n)` is
`bar.arrive id, n`. `("warp")` emits nothing in TVM's CUDA codegen, so it orders nothing;
`T.sync_warp()` (`__syncwarp()`, full mask) is `WarpSync`; with a computed mask, when the mask is
exactly the lanes that execute it (models/warp_vote.py). `T.sync_grid()` is
`cooperative_groups::this_grid().sync()`, which inside the block is `bar.sync 0` before and
after the grid-wide handshake (CUDA's cooperative_groups sync_grids): two block barriers.
`T.cluster_sync()` and the cluster barrier's halves are in models/cluster.py.
"""
from __future__ import annotations

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
    if len(call.args) != 3:
        raise NotModelled(f"T.tvm_storage_sync with {len(call.args)} arguments")
    id_fn, n_fn = ctx.compile(call.args[1]), ctx.compile(call.args[2])

    def run(env, tids):
        return [Barrier(tids, constant(id_fn(env), "barrier id"), constant(n_fn(env), "barrier count"))]
    return run


@op("T.named_barrier_arrive")
def named_arrive(ctx, call):
    if len(call.args) != 2:
        raise NotModelled("T.named_barrier_arrive needs (id, count)")
    id_fn, n_fn = ctx.compile(call.args[0]), ctx.compile(call.args[1])

    def run(env, tids):
        return [Barrier(tids, constant(id_fn(env), "barrier id"), constant(n_fn(env), "barrier count"),
                        arrive_only=True)]
    return run


@op("T.named_barrier_sync")
def named_sync(ctx, call):
    if len(call.args) != 2:
        raise NotModelled("T.named_barrier_sync needs (id, count)")
    id_fn, n_fn = ctx.compile(call.args[0]), ctx.compile(call.args[1])
    return lambda env, tids: [Barrier(tids, constant(id_fn(env), "barrier id"),
                                      constant(n_fn(env), "barrier count"))]


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

