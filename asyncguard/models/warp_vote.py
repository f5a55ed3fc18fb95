"""Warp votes as values: `T.activemask()` and `T.ballot_sync(mask, predicate)` (`__activemask()`,
`__ballot_sync`; PTX `activemask.b32`, `vote.sync.ballot.b32`).

TVM's thread all-reduce over fewer lanes than a warp (TileLang's lowering since issue 2628)
prints `active = T.Cast("uint32", T.activemask())`, `mask = T.Cast("uint32",
T.ballot_sync(active, tk < 4))`, and then `T.sync_warp(mask)` inside `if tk < 4:`. PTX:
`activemask` gives the lanes of the warp that are active, i.e. executing this instruction
together; `vote.sync.ballot` sets bit l for each lane l of `membermask` whose predicate is true,
and every lane in `membermask` must execute it (the executing thread must be in its own mask).

Model: the lanes active at a statement are the lanes of the warp among the threads the engine
runs there together (a task; a warp divided between tasks is active in parts). A ballot whose
mask names a lane that does not execute it with the same mask, or whose executing thread is not
in its mask, is NotModelled (the hardware waits for that lane, or the behaviour is undefined).
The values are per-thread, so `T.sync_warp(mask)` (models/barriers.py) can compare its mask with
the lanes that execute it.
"""
from __future__ import annotations

import numpy as np

from .. import ir
from . import NotModelled, per_thread
from .launch import WARP


def _strip_cast(e):
    while isinstance(e, ir.Call) and e.name == "T.Cast" and len(e.args) == 2:
        e = e.args[1]
    return e


def active_lanes(tids: np.ndarray) -> np.ndarray:
    """Each executing thread's warp-mask of the executing lanes of its warp (int64, over tids)."""
    warps = tids // WARP
    bits = np.left_shift(np.int64(1), tids % WARP)
    out = np.empty(len(tids), dtype=np.int64)
    for w in np.unique(warps):
        sel = warps == w
        out[sel] = np.bitwise_or.reduce(bits[sel])
    return out


def warp_vote(ctx, value):
    """fn(env, tids) -> all-threads array for a (cast) activemask / ballot_sync, else None."""
    call = _strip_cast(value)
    if not isinstance(call, ir.Call):
        return None
    n_all = ctx.launch.num_threads * ctx.launch.cluster_size
    if call.name == "T.activemask" and not call.args:
        def active(env, tids):
            out = np.zeros(n_all, dtype=np.int64)
            out[tids] = active_lanes(tids)
            return out
        return active
    if call.name == "T.ballot_sync" and len(call.args) == 2:
        mask_fn, pred_fn = ctx.compile(call.args[0]), ctx.compile(call.args[1])

        def ballot(env, tids):
            masks = per_thread(mask_fn(env), tids) & 0xFFFFFFFF
            lanes = active_lanes(tids)
            own = np.left_shift(np.int64(1), tids % WARP)
            if ((masks & ~lanes) != 0).any() or ((masks & own) == 0).any():
                raise NotModelled("T.ballot_sync whose mask names lanes that do not execute it here")
            warps = tids // WARP
            pred = per_thread(pred_fn(env), tids) != 0
            out = np.zeros(n_all, dtype=np.int64)
            for w in np.unique(warps):
                sel = warps == w
                if (masks[sel] != masks[sel][0]).any():
                    raise NotModelled("T.ballot_sync with different masks in one warp")
                votes = np.bitwise_or.reduce(np.where(pred[sel], own[sel], 0))
                out[tids[sel]] = votes & masks[sel][0]
            return out
        return ballot
    return None
