"""Which bug family a race between two accesses belongs to (one place, read by the checks)."""
from __future__ import annotations

from ..engine.machine import Race, Record
from ..events import AccessKind

READS = (AccessKind.READ, AccessKind.ASYNC_READ)


def is_tma(rec: Record) -> bool:
    """Completed through an mbarrier phase: a TMA load, or an operation handed to one (a tcgen05.mma
    after its tcgen05.commit, cp.async after cp.async.mbarrier.arrive.noinc)."""
    return rec.group_kind == "mbarrier"


def is_tcgen05(rec: Record) -> bool:
    """An asynchronous tensor-core operation (tcgen05.mma), committed or not."""
    return rec.via.startswith("ptx_tcgen05")


def async_reader(rec: Record) -> tuple[str, str]:
    """(what the asynchronous reader is, what completes it) for the messages."""
    if is_tcgen05(rec):
        return "tcgen05.mma", "wait on the mbarrier its tcgen05.commit (tcgen05_mma_arrive) arrives on"
    if rec.group_kind == "wgmma":
        return "wgmma", "warpgroup_wait"
    return "TMA store", "tma_store_wait"


def family(race: Race) -> str:
    """The rule code a race is reported under."""
    a, b = race.first, race.second
    if a.kind == AccessKind.ASYNC_WRITE:
        if race.first_pending:
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
