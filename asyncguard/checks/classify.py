"""Which bug family a race between two accesses belongs to (one place, read by the checks)."""
from __future__ import annotations

from ..engine.machine import Race, Record
from ..events import AccessKind

READS = (AccessKind.READ, AccessKind.ASYNC_READ)


def is_tma(rec: Record) -> bool:
    return rec.group_kind == "mbarrier"


def family(race: Race) -> str:
    """The rule code a race is reported under."""
    a, b = race.first, race.second
    if a.kind == AccessKind.ASYNC_WRITE:
        if race.first_pending:
            if b.kind in READS:
                return "AG401" if is_tma(a) else "AG101"
            return "AG103"
        if b.kind not in READS and b.kind == AccessKind.ASYNC_WRITE:
            return "AG103"
        return "AG401" if is_tma(a) else "AG102"
    if a.kind == AccessKind.ASYNC_READ and b.kind not in READS and b is not a:
        return "AG402"
    if b.kind == AccessKind.ASYNC_WRITE and a is not b:
        return "AG103"
    return "AG201"
