"""The event vocabulary: what one operation instance does, for the threads that execute it.

Models (`asyncguard.models`) turn a TIR call into events; the machine (`asyncguard.engine`)
consumes them. Per-thread quantities are numpy arrays aligned with `tids`.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np


class AccessKind(str, Enum):
    READ = "read"
    WRITE = "write"
    ASYNC_WRITE = "async-write"   # cp.async: lands at the issuer's covering wait_group


@dataclass
class Access:
    kind: AccessKind
    tids: np.ndarray      # int32 thread ids
    lo: np.ndarray        # first byte (flat shared address space), per thread
    hi: np.ndarray        # one past the last byte, per thread
    buffer: str           # name the source used
    region_base: int      # flat address of the buffer view's byte 0, to print element offsets
    elem_size: int
    via: str = ""         # the operation: "load", "store", "ptx_cp_async", "ptx_ldmatrix", ...


@dataclass
class CommitGroup:
    tids: np.ndarray


@dataclass
class WaitGroup:
    tids: np.ndarray
    n: int


@dataclass
class Barrier:
    """bar.sync: block barrier (barrier_id 0, count None = every thread) or named barrier."""
    tids: np.ndarray
    barrier_id: int
    count: int | None
    arrive_only: bool = False   # bar.arrive: publishes, does not wait


@dataclass
class WarpSync:
    tids: np.ndarray


@dataclass
class Unsupported:
    """The model cannot say what this does to shared memory or synchronization."""
    reason: str
    tids: np.ndarray | None = None


Event = Access | CommitGroup | WaitGroup | Barrier | WarpSync | Unsupported
