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
    ASYNC_WRITE = "async-write"   # cp.async / TMA load: lands at a covering wait (group or mbarrier phase)
    ASYNC_READ = "async-read"     # wgmma operands, TMA store source: read until a covering wait


# Access.buffer of a tcgen05 access: its bytes are tensor-memory cells (models/tcgen05.py), mapped
# past shared memory; ordered by tcgen05 fences and commits, never by the proxy fence
TENSOR_MEMORY = "tensor memory"


class Proxy(str, Enum):
    GENERIC = "generic"
    ASYNC = "async"               # TMA, wgmma, bulk copies (PTX "async proxy")


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
    group_kind: str = "cp.async"   # async accesses: which commit/wait family completes them
    mbarrier: object = None        # TMA load: barrier ids (per thread) whose phase it completes on
    proxy: Proxy = Proxy.GENERIC
    collective: bool = False       # one operation of all `tids` (wgmma): any thread's wait completes it
    same_value: bool = False       # a store whose value is the same in every thread (benign overlap)
    cta: int | None = None         # cluster rank whose shared memory it touches (None: the thread's own)
    mbarrier_cta: int | None = None  # cluster rank of the completion mbarrier (None: `cta`'s)
    tx_bytes: int | None = None    # TMA load: transaction bytes per thread's copy (None: hi - lo;
                                   # unpacked fp4 counts its packed payload, models/tma.py)
    atomic: bool = False           # an atomic read-modify-write (models/atomics.py): no race with another
    # a copy from memory the kernel never writes: (operation, source, coordinates, destination).
    # Two copies with one key write the same bytes with the same values (models/tma.py)
    value_key: tuple | None = None


@dataclass
class CommitGroup:
    tids: np.ndarray
    kind: str = "cp.async"     # "cp.async" | "bulk" (TMA store) | "wgmma"


@dataclass
class WaitGroup:
    tids: np.ndarray
    n: int
    kind: str = "cp.async"


@dataclass
class MbarInit:
    tids: np.ndarray
    bar: np.ndarray            # barrier ids, per thread
    count: int


@dataclass
class MbarFenceInit:
    tids: np.ndarray


@dataclass
class MbarArrive:
    """mbarrier.arrive (arrive=True) and/or expect_tx (tx > 0), one per executing thread.
    `copies` ("cp.async" | "tcgen05"): cp.async.mbarrier.arrive.noinc / tcgen05.commit -- the
    arrival comes once the thread's prior operations of that kind complete, and they complete
    on the phase it joins."""
    tids: np.ndarray
    bar: np.ndarray
    tx: int = 0
    arrive: bool = True
    copies: str = ""     # which copies a completion tracks: "cp.async", "tcgen05" ("": none)
    cta: int | None = None     # cluster rank of the barrier (mapa'd address; None: the thread's own)
    # False: the arrival is not one the init counted (cp.async.mbarrier.arrive without .noinc
    # raises the pending count by one at issue and arrives when the copies land: net nothing)
    counted: bool = True


@dataclass
class MbarWait:
    tids: np.ndarray
    bar: np.ndarray
    parity: np.ndarray


@dataclass
class Tcgen05Fence:
    """tcgen05.fence::before_thread_sync (`after` False) or ::after_thread_sync (`after` True)."""
    tids: np.ndarray
    after: bool


@dataclass
class ProxyFence:
    tids: np.ndarray


@dataclass
class SetDescriptor:
    """A wgmma shared-memory descriptor's start address (flat bytes), per thread."""
    tids: np.ndarray
    key: str
    value: object
    add: bool = False


@dataclass
class Barrier:
    """bar.sync: block barrier (barrier_id 0, count None = every thread) or named barrier."""
    tids: np.ndarray
    barrier_id: int
    count: int | None
    arrive_only: bool = False   # bar.arrive: publishes, does not wait
    grid_sync: bool = False     # one of the two block barriers of a grid sync (models/barriers.py)
    # each thread's barrier id (aligned with tids) when it differs between threads; barrier_id is
    # then the least of them (engine/state/barriers.py splits the event by id)
    lane_ids: np.ndarray | None = None


@dataclass
class ClusterArrive:
    """barrier.cluster.arrive: one arrival per thread on the cluster barrier (release unless
    `relaxed`)."""
    tids: np.ndarray
    relaxed: bool = False


@dataclass
class ClusterWait:
    """barrier.cluster.wait: blocks until every thread of the cluster arrived on the phase the
    thread's own last arrival joined (acquire)."""
    tids: np.ndarray


@dataclass
class WarpSync:
    tids: np.ndarray


@dataclass
class LoopBreak:
    """`break`: the threads leave the innermost loop around them (engine/machine.py)."""
    tids: np.ndarray


@dataclass
class ThreadReturn:
    """`return` from the kernel: the threads exit (engine/machine.py)."""
    tids: np.ndarray


@dataclass
class Unsupported:
    """The model cannot say what this does to shared memory or synchronization."""
    reason: str
    tids: np.ndarray | None = None


Event = (Access | CommitGroup | WaitGroup | Barrier | WarpSync | LoopBreak | Unsupported | MbarInit | MbarFenceInit
         | MbarArrive | MbarWait | ProxyFence | SetDescriptor | ClusterArrive | ClusterWait)
