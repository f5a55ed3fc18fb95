"""The generic and the async proxy. Shared bytes accessed through one and then through the
other need a `fence.proxy.async` between: a generic write later read by wgmma or a TMA store, a
generic read later overwritten by a TMA load. Each generic record carries its threads' clocks at
their next proxy fence (`Record.fence_clk`; a cp.async also the first fence after it landed,
for the strict reading); generic records retired from the race check but not yet fenced are
kept here for the async-proxy accesses that may still come (docs/model.md "The async proxy").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...events import AccessKind, Proxy, ProxyFence
from ..program import PIf, PLoop, POp
from .memory import _READS, PENDING, Record, thread_table


@dataclass
class ProxyProblem:
    """Two accesses to the same bytes through different proxies with no fence.proxy.async
    between: a generic write then an async-proxy read (`write`, `read` in that order), or a
    generic read then an async-proxy write (`write` is then the generic read: `first`)."""
    write: Record
    read: Record
    t_write: int
    t_read: int
    lo: int
    hi: int
    # "write-read": generic write, async read. "read-write": generic read, async-proxy write
    # (a TMA refill). "in-flight": the only fence covering the generic write ran before that
    # cp.async landed (the strict reading, docs/model.md "The async proxy").
    direction: str = "write-read"


def _unfenced(r: Record) -> bool:
    """Some thread of `r` has not proxy-fenced it yet (a cp.async: not since it landed)."""
    return bool((r.fence_clk == PENDING).any() or
                (r.landed_fence_clk is not None and (r.landed_fence_clk == PENDING).any()))


def _uses(body, names) -> bool:
    for s in body:
        if isinstance(s, POp) and s.name in names:
            return True
        if isinstance(s, PLoop) and _uses(s.body, names) or \
                isinstance(s, PIf) and (_uses(s.then, names) or _uses(s.other, names)):
            return True
    return False


class Proxies:
    """Each thread's knowledge at its last proxy fence; generic records retired but not yet fenced."""
    EVENTS = {ProxyFence: "fence"}

    def __init__(self, machine):
        self.machine = machine
        program, T, cols = machine.p, machine.T, machine.vc.shape[1]
        self.fence_vc = np.full((T, cols), -1, dtype=np.int64)  # knowledge at last proxy fence
        # generic writes retired from `live` but not yet proxy-fenced: an async-proxy read
        # (wgmma, TMA store) of them later still needs a fence.proxy.async
        self.unfenced: list[Record] = []
        self.async_readers = _uses(program.body, ("ptx_wgmma_ss", "ptx_wgmma_rs", "tma_store",
                                                  "ptx_tcgen05_mma_ss", "ptx_tcgen05_mma_ts"))
        # generic reads retired from `live` but not yet proxy-fenced: a TMA load over them later
        # needs a fence.proxy.async in between (the reverse direction)
        self.async_writers = _uses(program.body, ("tma_load", "tma_load_multicast", "tma_load_im2col"))
        self.unfenced_reads: list = []

    def signature(self):
        return None

    def finish(self, result) -> None:
        pass

    def retired(self, r: Record) -> None:
        """`r` (a generic record) left the race check: keep it while some thread has not fenced it."""
        if _unfenced(r):
            if r.kind in _READS:
                self.unfenced_reads.append(r)
            elif self.async_readers:
                self.unfenced.append(r)

    def track(self, rec: Record, ev, writes: bool) -> None:
        """A new access: a generic one waits for its threads' next proxy fence."""
        if ev.proxy == Proxy.GENERIC and (writes or self.async_writers):
            rec.fence_clk = np.full(len(rec.tids), PENDING, dtype=np.int64)
            if ev.kind == AccessKind.ASYNC_WRITE:
                rec.landed_fence_clk = np.full(len(rec.tids), PENDING, dtype=np.int64)

    def check_access(self, rec: Record, ev, writes: bool) -> None:
        """An async-proxy access against the generic accesses of its bytes not yet fenced."""
        if ev.proxy != Proxy.ASYNC:
            return
        live = self.machine.memory.live
        # async-proxy accesses: every live generic write, one by one
        for old in live:
            if not writes and old.kind in _READS:
                continue
            if old.hi_max <= rec.lo_min or rec.hi_max <= old.lo_min:
                continue
            if old.proxy == Proxy.GENERIC and old.fence_clk is not None and old.kind not in _READS:
                self._check_proxy(old, rec)
        for old in self.unfenced:
            if old.hi_max > rec.lo_min and rec.hi_max > old.lo_min:
                self._check_proxy(old, rec)
        if writes:   # a TMA refill over bytes read through the generic proxy
            for old in live + self.unfenced_reads:
                if old.kind == AccessKind.READ and old.proxy == Proxy.GENERIC and old.fence_clk is not None \
                        and old.hi_max > rec.lo_min and rec.hi_max > old.lo_min:
                    self._check_proxy(old, rec, "read-write")
            self.unfenced_reads = [r for r in self.unfenced_reads
                                   if r.hi_max <= rec.lo_min or rec.hi_max <= r.lo_min]

    def _check_proxy(self, old: Record, new: Record, direction: str = "write-read") -> None:
        """Shared bytes accessed through the generic proxy and then through the async proxy need
        fence.proxy.async between, in both directions (a generic write read by wgmma or a TMA
        store; a generic read overwritten by a TMA load): by the first thread after its access
        and before the release the second acquired, or by the second after acquiring."""
        key = ("proxy", old.span.start, new.span.start)
        if key in self.machine.seen_pairs:
            return
        ov = (new.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < new.hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        t_new, t_old = new.tids[rows], old.owner[cols]
        when = old.done[cols] if old.done is not None else old.clk[cols]
        if (when == PENDING).any():
            return  # unordered: the race check reports it
        ordered = (t_new == t_old) | (self.machine.vc[t_new, t_old] >= when)
        # a fence is the issuing thread's, at its own clock: compare it with what the reader knows
        # of that thread (a copy handed to an mbarrier by cp.async.mbarrier.arrive.noinc is owned
        # by the barrier, whose clock column is another one)
        t_issuer = old.tids[cols]
        writer_fenced = (old.fence_clk[cols] != PENDING) & (self.machine.vc[t_new, t_issuer] >= old.fence_clk[cols])
        reader_fenced = self.fence_vc[t_new, t_old] >= when
        bad = np.flatnonzero(ordered & ~writer_fenced & ~reader_fenced)
        if bad.size == 0 and old.landed_fence_clk is not None:
            # the strict reading: only a fence the writer ran after its cp.async landed counts
            landed = old.landed_fence_clk[cols]
            strict = (landed != PENDING) & (self.machine.vc[t_new, t_issuer] >= landed)
            bad = np.flatnonzero(ordered & ~strict & ~reader_fenced)
            direction = "in-flight"
            key = ("proxy-in-flight", old.span.start, new.span.start)
            if key in self.machine.seen_pairs:
                return
        if bad.size == 0:
            return
        self.machine.seen_pairs.add(key)
        k = bad[0]
        i, j = rows[k], cols[k]
        self.machine.result.proxy_problems.append(ProxyProblem(
            old, new, int(old.tids[j]), int(new.tids[i]), int(max(new.lo[i], old.lo[j])),
            int(min(new.hi[i], old.hi[j])), direction))

    def fence(self, task, ev: ProxyFence, s) -> None:
        tids, vc = ev.tids, self.machine.vc
        self.fence_vc[tids] = vc[tids]
        fencing = thread_table(tids, self.machine.T)
        for r in self.machine.memory.live + self.unfenced + self.unfenced_reads:
            if r.fence_clk is None:
                continue
            # covers the thread's generic accesses issued before the fence, cp.async still in
            # flight included (TileLang's InjectFenceProxy model; docs/model.md); for the strict
            # reading, the first fence after a copy landed is kept apart
            mine = fencing[r.tids]
            sel = mine & (r.fence_clk == PENDING)
            if sel.any():
                r.fence_clk[sel] = vc[r.tids[sel], r.tids[sel]]
            if r.landed_fence_clk is not None:
                sel = mine & (r.landed_fence_clk == PENDING) & (r.done != PENDING)
                if sel.any():
                    r.landed_fence_clk[sel] = vc[r.tids[sel], r.tids[sel]]
        self.unfenced = [r for r in self.unfenced if _unfenced(r)]
        self.unfenced_reads = [r for r in self.unfenced_reads if _unfenced(r)]
