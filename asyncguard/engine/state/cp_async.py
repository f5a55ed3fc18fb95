"""cp.async, bulk-copy and wgmma groups: per thread and kind, the groups committed; the async
records in flight and the group each joined; `wait_group N` lands every record of the waiting
threads whose group is older than the newest N. Copies never waited for are reported at the end.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...events import CommitGroup, WaitGroup
from .memory import PENDING, Record, thread_table


def _joined(recs: list) -> tuple:
    """The records' thread ids end to end, and where each record's start and end."""
    sizes = [len(r.tids) for r in recs]
    ends = np.cumsum(sizes)
    return np.concatenate([r.tids for r in recs]), ends - sizes, ends.tolist()


_WAIT_LOG = 16   # wait_groups kept per thread for `wait_before` (a pipeline's depth or so)


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
        # tid -> its latest cp.async wait_groups, oldest first: (own clock, span, n, groups
        # committed); `wait_before` finds the last one another thread's clock covers (witness)
        self.wait_log: dict = {}
        self.live: list[Record] = []    # async records not yet completed by a wait_group

    def issue(self, rec: Record) -> None:
        """An async access (its `done` and `group` set PENDING / open) that a wait_group completes."""
        self.live.append(rec)

    def wait_before(self, tid: int, known: int) -> tuple | None:
        """(span, n, groups committed) of thread `tid`'s last cp.async wait_group at a clock of
        its own at most `known` (one another thread's clock covers: ordered before that thread's
        later accesses), or None when there is none (or it is older than the log keeps)."""
        entries = self.wait_log.get(tid)
        if not entries:
            return None
        for clk, span, n, c in reversed(entries):
            if clk <= known:   # clocks grow: the first found from the end is the latest
                return span, n, c
        return None

    def signature(self):
        committed = self.committed
        return tuple(sorted((r.span.start, r.lo_min, r.hi_max, int((r.done == PENDING).sum()),
                             int(committed[r.group_kind][r.tids[0]] - r.group[0]))
                            for r in self.live))

    def commit(self, task, ev: CommitGroup, s) -> None:
        committed = self.committed[ev.kind]
        issuing = thread_table(ev.tids, self.machine.T)
        mine = [r for r in self.live if r.group_kind == ev.kind]
        if mine:
            # every record's threads at once; a record is written only where one of its open
            # threads commits (a pipelined loop keeps dozens of stages' records in flight)
            tids, starts, ends = _joined(mine)
            sel = issuing[tids] & (np.concatenate([r.group for r in mine]) == -1)
            for r, any_sel, a, b in zip(mine, np.logical_or.reduceat(sel, starts).tolist(), starts.tolist(), ends):
                if any_sel:
                    here = sel[a:b]
                    r.group[here] = committed[r.tids[here]]
        committed[ev.tids] += 1

    def wait_group(self, task, ev: WaitGroup, s) -> None:
        committed = self.committed[ev.kind]
        vc = self.machine.vc
        if ev.kind == "cp.async":
            log = self.wait_log
            for tid, clk, c in zip(ev.tids.tolist(), vc.diagonal()[ev.tids].tolist(),
                                   committed[ev.tids].tolist()):
                self.last_wait[tid] = (s.span, ev.n)
                entries = log.get(tid)
                if entries is None:
                    entries = log[tid] = []
                elif len(entries) >= 2 * _WAIT_LOG:
                    del entries[:_WAIT_LOG]
                entries.append((clk, s.span, ev.n, c))
        waiting = thread_table(ev.tids, self.machine.T)
        mine = [r for r in self.live if r.group_kind == ev.kind]
        if not mine:
            return
        # every record's threads at once: the waiting issuers whose group is older than the
        # newest `ev.n` land, at each issuer's own clock
        tids, starts, ends = _joined(mine)
        done = np.concatenate([r.done for r in mine])
        group = np.concatenate([r.group for r in mine])
        pending = done == PENDING
        landed = waiting[tids] & pending & (group >= 0) & (group < committed[tids] - ev.n)
        any_landed = np.logical_or.reduceat(landed, starts).tolist()
        pending &= ~landed
        still = np.logical_or.reduceat(pending, starts).tolist()
        clocks = None
        gone = set()
        for r, got, left, a, b in zip(mine, any_landed, still, starts.tolist(), ends):
            if got:
                if clocks is None:
                    clocks = vc.diagonal()[tids]
                idx = np.flatnonzero(landed[a:b])
                r.done[idx] = clocks[a:b][idx]   # each issuer's own clock
                if r.wait_span is None:
                    r.wait_span = s.span
            if not left:
                gone.add(r.id)
        if gone:
            self.live = [r for r in self.live if r.id not in gone]

    def finish(self, result) -> None:
        for r in self.live:
            still = r.done == PENDING
            if still.any():
                result.pending.append(PendingAtExit(r, r.tids[still]))
