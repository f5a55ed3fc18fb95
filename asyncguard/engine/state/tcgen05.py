"""tcgen05 ordering across threads: `tcgen05.fence::before_thread_sync` / `::after_thread_sync`.

A tcgen05 operation (tcgen05.ld / st / mma / cp) on tensor memory is asynchronous to the thread
synchronization around it: PTX ISA 9.7.16.6.3, the fences "compose with execution ordering
instructions ... to establish an ordering between the tcgen05 operations across threads", and
9.7.16.6.4.4 (non-pipelined operations of different threads) gives the one pattern that orders
them: the first thread's operation, its completion (`tcgen05.wait::ld/st`, or a commit), then
`tcgen05.fence::before_thread_sync`, a synchronization (a barrier, an mbarrier arrive), and in
the second thread the synchronization's other side, then `tcgen05.fence::after_thread_sync`,
then its operation. A `tcgen05.commit` carries the first fence implicitly (tcgen05.commit: "an
implicit tcgen05.fence::before_thread_sync").

So two tcgen05 accesses of the same tensor-memory cells by different threads, one a write,
that happens-before orders, are ordered for tcgen05 only when
- the first thread fenced (before_thread_sync) after its access and the second thread knows that
  fence (its clock of the first thread covers it), or the first access completed through a
  commit's arrival (the mbarrier's clock column); and
- the second thread ran after_thread_sync after it knew that point (its clock at its last
  after_thread_sync covers it).
An ordered pair that misses either is a `FenceProblem` (checks/tcgen05_fence.py). A pair that
happens-before does not order is a race, reported by the race check, not here.

Records are kept here, not only while the race check keeps them live: a block barrier that
orders a store for every thread retires it there, and the fence is still owed at the next
tcgen05 access. Of one thread set's accesses of one kind to the same cells only the latest is
kept (a later one of the same threads and cells needs every fence the earlier one did), and at
most KEEP in all (the oldest leave: a check may miss, never invent, a problem).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...events import AccessKind, Tcgen05Fence
from .memory import PENDING, Record

_WRITES = (AccessKind.WRITE, AccessKind.ASYNC_WRITE)


@dataclass
class FenceProblem:
    """Two tcgen05 accesses of tensor memory, `first` then `second` (different threads, one a
    write), ordered by a synchronization without the fence(s) `missing` names: "before" (thread
    `t_first` did not run before_thread_sync between its access and the synchronization),
    "after" (thread `t_second` did not run after_thread_sync between it and its access), or
    "both"."""
    first: Record
    second: Record
    t_first: int
    t_second: int
    lo: int
    hi: int
    missing: str


class TensorMemoryFences:
    """Each thread's knowledge at its last after_thread_sync; the tcgen05 records of tensor
    memory with, per thread, its clock at its first before_thread_sync after the access."""
    EVENTS = {Tcgen05Fence: "fence"}
    KEEP = 256

    def __init__(self, machine):
        self.machine = machine
        # each thread's clocks at its last after_thread_sync (-1: none); made at the first one, so a
        # kernel without tcgen05 fences pays nothing for it
        self.after_vc: np.ndarray | None = None
        self.kept: dict = {}       # (thread key, kind, first byte, end byte) -> Record, oldest first
        self.before: dict = {}     # record id -> its threads' clocks at their next before fence
        self.unfenced: dict = {}   # record id -> record, while some thread of it has not fenced
        self.settled: dict = {}    # record id -> thread keys whose later accesses need no check

    def signature(self):
        return None

    def finish(self, result) -> None:
        pass

    def fence(self, task, ev: Tcgen05Fence, s) -> None:
        t = np.asarray(ev.tids, dtype=np.int64)
        vc = self.machine.vc
        if ev.after:
            if self.after_vc is None:
                self.after_vc = np.full(vc.shape, -1, dtype=vc.dtype)
            self.after_vc[t] = vc[t]
            return
        fencing = np.zeros(self.machine.T, dtype=bool)
        fencing[t] = True
        for rid, rec in list(self.unfenced.items()):
            clk = self.before[rid]
            now = (clk == PENDING) & fencing[rec.tids]
            if now.any():
                clk[now] = vc[rec.tids[now], rec.tids[now]]
                if not (clk == PENDING).any():
                    del self.unfenced[rid]

    def check_access(self, rec: Record) -> None:
        """A tcgen05 access of tensor memory: against the kept ones of its cells, then kept."""
        if "dealloc" in rec.via:
            return   # a synchronous instruction with rules of its own (AG420, AG421)
        memory = self.machine.memory
        threads = memory.thread_key(rec)
        writes = rec.kind in _WRITES
        for old in list(self.kept.values()):
            if old.hi_max <= rec.lo_min or rec.hi_max <= old.lo_min:
                continue
            if not writes and old.kind not in _WRITES:
                continue
            if old.tkey == threads:
                continue   # the same threads again (an MMA issuer's next MMA): program order, no fence
            done = self.settled.get(old.id)
            if done is not None and threads in done:
                continue
            self._check(old, rec, threads)
        key = (threads, rec.kind, rec.lo_min, rec.hi_max)
        gone = self.kept.pop(key, None)
        if gone is None and len(self.kept) >= self.KEEP:
            gone = self.kept.pop(next(iter(self.kept)))
        if gone is not None:
            for table in (self.before, self.settled, self.unfenced):
                table.pop(gone.id, None)
        self.kept[key] = rec
        self.before[rec.id] = np.full(len(rec.tids), PENDING, dtype=np.int64)
        self.unfenced[rec.id] = rec

    def _check(self, old: Record, new: Record, threads: bytes) -> None:
        machine = self.machine
        key = ("tcgen05-fence", old.span.start, new.span.start)
        if key in machine.seen_pairs or not machine.memory.byte_sets.meets(new, old):
            return   # (bytes first: the accumulator halves interleave within one hull)
        ov = (new.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < new.hi[:, None])
        rows, cols = np.nonzero(ov)
        if rows.size == 0:
            return
        t_new, t_old = new.tids[rows], old.tids[cols]
        committed = old.kind in (AccessKind.ASYNC_WRITE, AccessKind.ASYNC_READ)
        # threads of one warp whose plain operations may be ordered only by the warp's convergence,
        # which the machine reads leniently (elect.sync as __syncwarp, docs/model.md): not judged
        apart = t_new != t_old if committed else (t_new // 32) != (t_old // 32)
        if not apart.any():
            self._settle(old, threads)
            return
        rows, cols, t_new, t_old = rows[apart], cols[apart], t_new[apart], t_old[apart]
        vc = machine.vc
        if committed:
            if old.done is None:
                return
            when, col = old.done[cols], old.owner[cols]
            if (when == PENDING).any():
                return   # not complete: the race check's
            ordered = vc[t_new, col] >= when
            before_ok = np.ones(len(rows), dtype=bool)
            point_col, point = col, when
        else:
            ordered = vc[t_new, t_old] >= old.clk[cols]
            clk = self.before.get(old.id)
            fenced = clk[cols] if clk is not None else np.full(len(cols), PENDING, dtype=np.int64)
            before_ok = (fenced != PENDING) & (vc[t_new, t_old] >= fenced)
            point_col, point = t_old, np.where(fenced != PENDING, fenced, old.clk[cols])
        if not ordered.any():
            return   # a race, or not yet ordered: the race check's
        after_ok = (self.after_vc[t_new, point_col] >= point) if self.after_vc is not None else \
            np.zeros(len(rows), dtype=bool)
        bad = np.flatnonzero(ordered & ~(before_ok & after_ok))
        if bad.size == 0:
            if ordered.all():
                self._settle(old, threads)
            return
        k = bad[0]
        missing = "both" if not before_ok[k] and not after_ok[k] else "before" if not before_ok[k] else "after"
        i, j = rows[k], cols[k]
        machine.seen_pairs.add(key)
        machine.result.tcgen05_fence_problems.append(FenceProblem(
            old, new, int(old.tids[j]), int(new.tids[i]), int(max(new.lo[i], old.lo[j])),
            int(min(new.hi[i], old.hi[j])), missing))

    def _settle(self, old: Record, threads: bytes) -> None:
        """Every thread of the new access is ordered after `old` with its fences (or is its own
        thread): so is each of their later accesses (clocks, fence clocks and after-fence
        knowledge only grow)."""
        self.settled.setdefault(old.id, set()).add(threads)


