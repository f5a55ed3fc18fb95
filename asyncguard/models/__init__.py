"""What each TIR operation does to shared memory, threads, groups and barriers.

One module per hardware feature registers handlers in `OPS` (statement-level calls). A handler
gets the elaboration context and the call, and returns `run(env, tids) -> [events]`, or raises
`NotModelled` to make the call an `unsupported` finding. `VALUE_OPS` does the same for calls
used inside expressions. `PURE` lists calls known to have no
shared-memory or synchronization effect.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

OPS: dict[str, Callable] = {}
VALUE_OPS: dict[str, Callable] = {}   # calls used as values that read shared memory
PURE: set[str] = set()


class NotModelled(Exception):
    """This call may touch shared memory or synchronization, and no model says how."""


def op(*names: str):
    def register(fn):
        for n in names:
            OPS[n] = fn
        return fn
    return register


def value_op(*names: str):
    """Like `op`, for calls that are values (`if T.any_of(...)`): `run` gives their accesses."""
    def register(fn):
        for n in names:
            VALUE_OPS[n] = fn
        return fn
    return register


LIMIT = 1 << 48   # no shared address, count or index is this large: beyond it, int64 math may have wrapped


_TIDS: dict = {}   # interned: thread-id bytes -> the one read-only array of those ids


def interned(tids: np.ndarray) -> np.ndarray:
    """The process's one read-only array of these thread ids: every task of every run over the
    same threads holds the same array, so what the models and the race check remember by an
    array's identity (engine/exprs.py memoize, models.ThreadRanges) is found again."""
    key = tids.tobytes()
    got = _TIDS.get(key)
    if got is None or got.dtype != tids.dtype:
        tids.flags.writeable = False
        if len(_TIDS) >= 1024:
            _TIDS.clear()
        got = _TIDS[key] = tids
    return got


def per_thread(value, tids: np.ndarray) -> np.ndarray:
    """A value (scalar or all-threads array) restricted to the executing threads."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iub":
            raise NotModelled("a non-integer value where an address or count is needed")
        out = value[tids].astype(np.int64, copy=False)
        if out.size and (np.abs(out) >= LIMIT).any():
            raise NotModelled("an address or count out of range (integer overflow?)")
        return out
    if isinstance(value, float) or abs(int(value)) >= LIMIT:
        raise NotModelled("an address or count out of range, or not an integer")
    return np.full(len(tids), int(value), dtype=np.int64)


class ThreadRanges:
    """One statement's per-thread byte ranges `lo = base + per_thread(offset, tids) * scale`,
    `hi = lo + width`, remembered for the last few (offset, threads, base, scale, width) by
    identity: a memoized address (engine/exprs.py) is the same read-only array while the names
    it reads hold the same values, and a task's thread ids are the same array while the task
    runs, so each loop iteration or block that repeats them reuses the ranges (and what the
    race check remembers of them, engine/state/memory.py). The ranges are read-only. An entry
    holds the arrays it is keyed by, so their ids stay theirs."""
    __slots__ = ("recent",)
    SIZE = 128   # as many as engine/exprs.py MEMO_ENTRIES

    def __init__(self):
        self.recent: dict = {}

    def get(self, offset, tids: np.ndarray, base: int, scale: int, width: int):
        t = type(offset)
        key = (t is int, offset if t is int else id(offset), id(tids), base, scale, width) \
            if t is int or (t is np.ndarray and not offset.flags.writeable) else None
        if key is not None:
            hit = self.recent.get(key)
            if hit is not None and hit[1] is tids and (t is int or hit[0] is offset):
                return hit[2], hit[3]
        lo = base + per_thread(offset, tids) * scale
        hi = lo + width
        if key is not None:
            lo.flags.writeable = hi.flags.writeable = False
            if len(self.recent) >= self.SIZE:
                self.recent.clear()
            self.recent[key] = (offset, tids, lo, hi)
        return lo, hi


_FROZEN: dict = {}


def frozen(values: np.ndarray) -> np.ndarray:
    """One read-only array per content (int64 ids, addresses), for the whole process: a model
    whose per-thread values come out the same as before hands the engine the same array, and
    what the engine remembers of an array by its identity (thread facts, the byte ranges'
    facts, engine/state/memory.py) holds again, as for ThreadRanges' ranges."""
    key = (values.dtype.str, values.tobytes())
    hit = _FROZEN.get(key)
    if hit is None:
        if len(_FROZEN) >= 4096:
            _FROZEN.clear()
        hit = values.copy() if values.flags.writeable or values.base is not None else values
        hit.flags.writeable = False
        _FROZEN[key] = hit
    return hit


def constant(value, what: str) -> int:
    """A value that must be the same for every thread (a wait count, a barrier id...)."""
    if isinstance(value, np.ndarray):
        if value.size and (value == value.flat[0]).all():
            value = value.flat[0]
        else:
            raise NotModelled(f"{what} differs between threads")
    if isinstance(value, (float, np.floating)) or abs(int(value)) >= LIMIT:
        raise NotModelled(f"{what} out of range or not an integer")
    return int(value)


# Import the feature modules so their handlers register.
from . import pure, memory_ops, cp_async, barriers, extern, mbarrier, tma, wgmma, wmma, hopper, logical, tcgen05, tcgen05_blockscale, cluster, clc, control, gemm_sp  # noqa: E402,F401
