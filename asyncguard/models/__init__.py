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
from . import pure, memory_ops, cp_async, barriers, extern, mbarrier, tma, wgmma, hopper, logical, tcgen05, cluster  # noqa: E402,F401
