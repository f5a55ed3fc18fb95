"""cp.async, bulk-copy and wgmma groups: per thread and kind, the groups committed; the async
records in flight and the group each joined; `wait_group N` lands every record of the waiting
threads whose group is older than the newest N. Copies never waited for are reported at the end.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...events import CommitGroup, WaitGroup
from .memory import PENDING, Record, thread_table


@dataclass
class PendingAtExit:
    record: Record
    tids: np.ndarray


class AsyncGroups:
    """Groups committed per thread and kind; the async records (cp.async, bulk, wgmma) in flight."""
    EVENTS = {CommitGroup: "commit", WaitGroup: "wait_group"}

    def __init__(self, machine):
        self.machine = machine
        T = machine.T
        self.committed = {k: np.zeros(T, dtype=np.int64) for k in ("cp.async", "bulk", "wgmma", "tcgen05")}
        self.last_wait: dict = {}       # tid -> (span, n) of its latest wait_group (witness)
        self.live: list[Record] = []    # async records not yet completed by a wait_group

    def issue(self, rec: Record) -> None:
        """An async access (its `done` and `group` set PENDING / open) that a wait_group completes."""
        self.live.append(rec)

    def signature(self):
        committed = self.committed
        return tuple(sorted((r.span.start, r.lo_min, r.hi_max, int((r.done == PENDING).sum()),
                             int(committed[r.group_kind][r.tids[0]] - r.group[0]))
                            for r in self.live))

    def commit(self, task, ev: CommitGroup, s) -> None:
        committed = self.committed[ev.kind]
        issuing = thread_table(ev.tids, self.machine.T)
        for r in self.live:
            if r.group_kind != ev.kind:
                continue
            sel = issuing[r.tids] & (r.group == -1)
            if sel.any():
                r.group[sel] = committed[r.tids[sel]]
        committed[ev.tids] += 1

    def wait_group(self, task, ev: WaitGroup, s) -> None:
        if ev.kind == "cp.async":
            for tid in ev.tids.tolist():
                self.last_wait[tid] = (s.span, ev.n)
        keep = []
        committed = self.committed[ev.kind]
        vc = self.machine.vc
        waiting = thread_table(ev.tids, self.machine.T)
        for r in self.live:
            if r.group_kind != ev.kind:
                keep.append(r)
                continue
            sel = waiting[r.tids] & (r.done == PENDING) & (r.group >= 0)
            if sel.any():
                issuers = r.tids[sel]
                landed = r.group[sel] < committed[issuers] - ev.n
                idx = np.flatnonzero(sel)[landed]
                if idx.size:
                    r.done[idx] = vc.diagonal()[r.tids[idx]]   # each issuer's own clock
                    if r.wait_span is None:
                        r.wait_span = s.span
            if (r.done == PENDING).any():
                keep.append(r)
        self.live = keep

    def finish(self, result) -> None:
        for r in self.live:
            still = r.done == PENDING
            if still.any():
                result.pending.append(PendingAtExit(r, r.tids[still]))
