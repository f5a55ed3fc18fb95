"""Which bug family a race between two accesses belongs to (one place, read by the checks)."""
from __future__ import annotations

import numpy as np

from ..engine.machine import Race, Record, RunResult
from ..events import AccessKind
from ..models.tcgen05 import DEALLOC, DEALLOC_PAIR

DEALLOCS = (DEALLOC, DEALLOC_PAIR)

READS = (AccessKind.READ, AccessKind.ASYNC_READ)


def is_tma(rec: Record) -> bool:
    """Completed through an mbarrier phase: a TMA load, or an operation handed to one (a tcgen05.mma
    after its tcgen05.commit, cp.async after cp.async.mbarrier.arrive.noinc)."""
    return rec.group_kind == "mbarrier"


def is_tcgen05(rec: Record) -> bool:
    """An asynchronous tensor-core operation (tcgen05.mma, tcgen05.cp), committed or not."""
    return rec.via.startswith("ptx_tcgen05")


def tcgen05_name(rec: Record) -> str:
    """The tcgen05 operation a record is of, for the messages."""
    return "tcgen05.cp" if rec.via.startswith("ptx_tcgen05_cp") else "tcgen05.mma"


def is_clc(rec: Record) -> bool:
    """A cluster launch control response write (models/clc.py)."""
    return rec.via.startswith("clc_try_cancel")


def async_copy_name(rec: Record) -> str:
    """What an asynchronous write is, for the messages (a committed tcgen05 operation completes
    through an mbarrier phase too, but is no TMA load; nor is a try_cancel's response)."""
    if is_tcgen05(rec):
        return tcgen05_name(rec)
    if is_clc(rec):
        return "try_cancel response write"
    # (a cp.async handed to an mbarrier by cp.async.mbarrier.arrive completes through it too)
    return "TMA load" if is_tma(rec) and not rec.via.startswith("ptx_cp_async") else "cp.async"


def async_reader(rec: Record) -> tuple[str, str]:
    """(what the asynchronous reader is, what completes it) for the messages."""
    if is_tcgen05(rec):
        return tcgen05_name(rec), "wait on the mbarrier its tcgen05.commit (tcgen05_mma_arrive) arrives on"
    if rec.group_kind == "wgmma":
        return "wgmma", "warpgroup_wait"
    return "TMA store", "tma_store_wait"


def copy_in_flight(race: Race) -> bool:
    """Whether the race's first access, an async write, is reported as a copy not yet landed (a
    wait missing: AG101 / AG103) rather than a landed one not published (a barrier missing:
    AG102), by facts that do not depend on how the threads were interleaved, only on each one's
    program order and synchronization:
    - the accessing thread issued part of the same cp.async itself: whether its own wait_group
      had landed its own part (then the wait is there, and a barrier after it is missing);
    - else, whether the copy had not landed, or had landed by a wait that nothing orders before
      the access though a release orders its issue (`Race.issue_seen`: in another schedule it is
      still in flight at the access; a wait is missing before the release, as for
      NVIDIA/cutlass#2502's cp_async_wait<StagesPV - 1> before producer_commit)."""
    if race.own_landed is not None:
        return not race.own_landed
    return race.first_pending or race.issue_seen


def family(race: Race) -> str:
    """The rule code a race is reported under."""
    a, b = race.first, race.second
    if a.via in DEALLOCS or b.via in DEALLOCS:   # the end of a tensor-memory allocation
        return "AG420" if DEALLOC_PAIR in (a.via, b.via) else "AG421"
    if a.kind == AccessKind.ASYNC_WRITE:
        if copy_in_flight(race):
            if b.kind in READS:
                return "AG401" if is_tma(a) or is_tcgen05(a) else "AG101"
            return "AG103"
        if b.kind not in READS and b.kind == AccessKind.ASYNC_WRITE:
            return "AG103"
        return "AG401" if is_tma(a) else "AG102"
    if a.kind == AccessKind.ASYNC_READ and b.kind not in READS and b is not a:
        return "AG402"
    if b.kind == AccessKind.ASYNC_WRITE and a is not b:
        return "AG103"
    return "AG201"


def exited(result: RunResult, tids: np.ndarray) -> np.ndarray:
    """Those of `tids` that reached the end of the kernel: a run that stopped in a deadlock (a wait
    on an mbarrier phase, or a block / named barrier, that never completes) leaves the blocked
    threads waiting forever, and a thread that never exits cannot exit with an operation in flight."""
    blocked = [st.tids for st in result.stuck]
    blocked += [o_tids for st in result.stuck for _, _, o_tids in st.others]
    blocked += [tids_at for p in result.barrier_problems if p.kind == "stuck"
                for _, tids_at in p.arrivals]
    if not blocked:
        return tids
    return tids[~np.isin(tids, np.concatenate([np.asarray(b, dtype=np.int64) for b in blocked]))]
