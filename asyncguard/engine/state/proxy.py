"""The generic and the async proxy. Shared bytes accessed through one and then through the
other need a `fence.proxy.async` between: a generic write later read by wgmma or a TMA store, a
generic read later overwritten by a TMA load. Each generic record carries its threads' clocks at
their next proxy fence (`Record.fence_clk`; a cp.async also the first fence after it landed,
for the strict reading); generic records retired from the race check but not yet fenced are
kept here for the async-proxy accesses that may still come (docs/model.md "The async proxy").
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ...events import TENSOR_MEMORY, AccessKind, Proxy, ProxyFence
from ..program import PIf, PLoop, POp
from .memory import _READS, PENDING, Record, filled, thread_table


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
    # cp.async landed (the strict reading, docs/model.md "The async proxy"). "path-fence": the
    # only fence ordering them is a third thread's on the happens-before path (`fencer` at
    # `fence_line`), neither the writer's nor the reader's (the strict reading too).
    # "reader-fence": only the async-proxy reader fenced, after acquiring another thread's
    # write (`Proxies.writer_fences_only`, the strict reading again).
    direction: str = "write-read"
    fencer: int | None = None
    fence_line: int | None = None


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


class _Bytes:
    """The records of one (kind, first byte, end byte) in insertion order, and for each thread
    key (Memory.thread_key) those of them quiet for it (Record.quiet_for): a group whose records
    are all quiet for an access's threads is passed over whole."""
    __slots__ = ("recs", "quiet")

    def __init__(self):
        self.recs: dict = {}    # record id -> record
        self.quiet: dict = {}   # thread key -> {record id} of recs quiet for it


class _ByBytes:
    """Records in insertion order, also grouped by (kind, first byte, end byte), so an access finds
    the ones whose bytes it may overlap without visiting the rest: a persistent kernel keeps
    hundreds of its epilogue's generic records for tiles while every TMA and MMA access of its
    main loop, to other bytes, is checked. `overlapping` lists the same records, in the same
    order, as a scan of every record with the same byte test would (less, when asked, those
    quiet for the access's threads, which the checks skip: for each set of threads asked about,
    `loud` keeps the groups with a record not quiet for it, so the groups all quiet are not
    even visited). Also grouped by thread ids, so a fence visits only the records of threads it
    covers: a warp that never fences (the softmax warp of a warp-specialized kernel) leaves
    thousands of records unfenced, in hundreds of groups."""
    __slots__ = ("seq", "order", "groups", "by_threads", "loud", "starts", "max_len", "fenced_to", "landed")

    def __init__(self):
        self.seq = 0
        self.order: dict = {}       # record id -> (insertion number, record), in insertion order
        self.groups: dict = {}      # (kind, lo_min, hi_max) -> _Bytes
        # the keys of `groups` sorted by first byte (lo_min, hi_max, kind): `overlapping` finds
        # those meeting a range by binary search (first byte in (lo - max_len, hi)), not by a
        # visit of every group (a warp that never fences keeps hundreds of them)
        self.starts: list = []
        self.max_len = 0            # of any group's bytes so far (a bound: it never shrinks)
        self.by_threads: dict = {}  # thread ids (tids.tobytes()) -> {record id: record}
        self.loud: dict = {}        # thread key -> {group key: _Bytes} not all quiet for it
        # Proxies.fence: (thread key of a `by_threads` group, the fencing threads' ids) -> the
        # last insertion number that fence visited: every record of the group inserted up to it
        # has a fence clock for each of the fencing threads it holds (a fence clock once set stays),
        # so the same fence again visits only the records inserted since. Not for a group that
        # ever held a cp.async (`landed`): its landed fence clocks are set by a later fence.
        self.fenced_to: dict = {}
        self.landed: set = set()    # thread keys of groups that held a record with landed_fence_clk

    def add(self, r: Record) -> None:
        self.order[r.id] = (self.seq, r)
        self.seq += 1
        key = (r.kind, r.lo_min, r.hi_max)
        g = self.groups.get(key)
        if g is None:
            g = self.groups[key] = _Bytes()
            bisect.insort(self.starts, (r.lo_min, r.hi_max, r.kind))
            self.max_len = max(self.max_len, r.hi_max - r.lo_min)
        g.recs[r.id] = r
        quiet_for = r.quiet_for or ()
        for k in quiet_for:
            g.quiet.setdefault(k, set()).add(r.id)
        for k, loud in self.loud.items():
            if k not in quiet_for:
                loud[key] = g
        tkey = r.tkey or r.tids.tobytes()
        self.by_threads.setdefault(tkey, {})[r.id] = r
        if r.landed_fence_clk is not None:
            self.landed.add(tkey)

    def discard(self, r: Record) -> None:
        if self.order.pop(r.id, None) is not None:
            key = (r.kind, r.lo_min, r.hi_max)
            g = self.groups[key]
            del g.recs[r.id]
            if not g.recs:
                del self.groups[key]
                del self.starts[bisect.bisect_left(self.starts, (r.lo_min, r.hi_max, r.kind))]
                for loud in self.loud.values():
                    loud.pop(key, None)
            else:
                for k in r.quiet_for or ():
                    q = g.quiet[k]
                    q.discard(r.id)
                    if not q:
                        del g.quiet[k]
                for k, loud in self.loud.items():   # the record left may have been the loud one
                    if key in loud and len(g.quiet.get(k, ())) == len(g.recs):
                        del loud[key]
            tkey = r.tkey or r.tids.tobytes()
            same = self.by_threads[tkey]
            del same[r.id]
            if not same:
                del self.by_threads[tkey]

    def note_quiet(self, r: Record, threads: bytes) -> None:
        """`threads` was just added to `r.quiet_for`."""
        if r.id in self.order:
            key = (r.kind, r.lo_min, r.hi_max)
            g = self.groups[key]
            q = g.quiet.setdefault(threads, set())
            q.add(r.id)
            loud = self.loud.get(threads)
            if loud is not None and len(q) == len(g.recs):
                loud.pop(key, None)

    def values(self) -> list:
        return [r for _, r in self.order.values()]

    def __len__(self) -> int:
        return len(self.order)

    def overlapping(self, lo: int, hi: int, kinds, threads: bytes | None = None) -> list:
        """The records of a kind in `kinds` whose bytes [lo_min, hi_max) meet [lo, hi); with
        `threads`, less those quiet for them."""
        if threads is None:
            groups = self.groups
        else:
            groups = self.loud.get(threads)
            if groups is None:
                groups = self.loud[threads] = {key: g for key, g in self.groups.items()
                                               if len(g.quiet.get(threads, ())) < len(g.recs)}
        starts = self.starts
        if len(groups) <= 8:
            hit = [g for (kind, a, b), g in groups.items() if kind in kinds and b > lo and hi > a]
        else:
            i = bisect.bisect_left(starts, (lo - self.max_len + 1,))
            j = bisect.bisect_left(starts, (hi,), lo=i)
            hit = []
            for a, b, kind in starts[i:j]:
                if b > lo and kind in kinds:
                    g = groups.get((kind, a, b))
                    if g is not None:
                        hit.append(g)
        if not hit:
            return []
        if threads is None:
            out = [r for g in hit for r in g.recs.values()]
        else:
            out = [r for g in hit for r in g.recs.values()
                   if r.quiet_for is None or threads not in r.quiet_for]
        if len(hit) > 1:
            order = self.order
            out.sort(key=lambda r: order[r.id][0])
        return out


_WRITES = (AccessKind.WRITE, AccessKind.ASYNC_WRITE)


class Proxies:
    """Each thread's knowledge at its last proxy fence; generic records retired but not yet fenced."""
    EVENTS = {ProxyFence: "fence"}
    FENCE_HISTORY = 8

    def __init__(self, machine):
        self.machine = machine
        program, T, cols = machine.p, machine.T, machine.vc.shape[1]
        # each thread's knowledge at its last proxy fence (-1: none): what the checks read
        self.fence_vc = np.full((T, cols), -1, dtype=machine.vc.dtype)
        # each thread's last FENCE_HISTORY proxy fences, a ring per thread (slot = its fence count
        # modulo FENCE_HISTORY: a fence writes one slot, nothing shifts): its own clock (-1:
        # none), its knowledge and the line; a third thread's fence on the path from a write to
        # its async-proxy reader (`_path_fencer`). A few, not one: the fencing warpgroup runs
        # ahead of the reader it signalled (the next stage's fence) before the reader's turn comes
        self.fence_count = np.zeros(T, dtype=np.int64)
        self.hist_own = np.full((T, self.FENCE_HISTORY), -1, dtype=np.int64)
        self.hist_vc = np.full((T, self.FENCE_HISTORY, cols), -1, dtype=machine.vc.dtype)
        self.hist_line = np.zeros((T, self.FENCE_HISTORY), dtype=np.int64)
        # generic writes retired from `live` but not yet proxy-fenced: an async-proxy read
        # (wgmma, TMA store) of them later still needs a fence.proxy.async
        self.unfenced = _ByBytes()
        self.async_readers = _uses(program.body, ("ptx_wgmma_ss", "ptx_wgmma_rs", "tma_store",
                                                  "ptx_tcgen05_mma_ss", "ptx_tcgen05_mma_ts",
                                                  "ptx_tcgen05_mma_blockscaled_ss", "ptx_tcgen05_cp_warpx4"))
        # generic reads retired from `live` but not yet proxy-fenced: a TMA load over them later
        # needs a fence.proxy.async in between (the reverse direction)
        self.async_writers = _uses(program.body, ("tma_load", "tma_load_multicast", "tma_load_im2col"))
        self.unfenced_reads = _ByBytes()
        # retired records that every thread of has fenced, kept (in `unfenced` or
        # `unfenced_reads`) until every live thread knows those fences (`publish`): a fence that
        # came after the barrier handing the bytes over orders nothing for the reader that
        # passed it (each thread writes, the barrier, each thread fences, thread 0 issues the
        # TMA store: AG405). By id: (the kept set, the record)
        self.awaiting: dict = {}
        # the live records that carry a fence_clk (generic ones), by id in issue order: what the
        # checks and fences below visit, instead of every live record
        self.tracked = _ByBytes()
        self.fences = 0                          # fence events so far (fence_floor's cache key)
        # `--strict proxy`: a fence the async-proxy reader runs after acquiring covers its own
        # generic writes only, not the writes of the threads it synchronized with (the CUDA
        # guide's pattern: every writer fences, then the barrier); the default reading accepts
        # it (docs/model.md "The async proxy")
        self.writer_fences_only = "proxy" in machine.strict
        self._fence_floor_of, self._fence_floor = None, None

    def signature(self):
        return None

    def finish(self, result) -> None:
        pass

    def retired(self, r: Record) -> None:
        """`r` (a generic record) left the race check: keep it while some thread has not fenced it."""
        self.tracked.discard(r)
        kept = self.unfenced_reads if r.kind in _READS else self.unfenced if self.async_readers else None
        if kept is not None:
            kept.add(r)
            if not _unfenced(r):   # fenced; `publish`, at the end of this retirement, decides
                self.awaiting[r.id] = (kept, r)

    def publish(self, known) -> None:
        """Memory.retire's end: records fenced by all their threads whose fences every live
        thread now knows (`known`, vc[alive].min(axis=0), an array or memory._KnownColumns)
        leave: every later async-proxy access is ordered after those fences."""
        gone = []
        for rid, (kept, r) in self.awaiting.items():
            at = known.need(r.tids) if hasattr(known, "need") else known
            if (at[r.tids] >= r.fence_clk).all() and (
                    r.landed_fence_clk is None or (at[r.tids] >= r.landed_fence_clk).all()):
                kept.discard(r)
                gone.append(rid)
        for rid in gone:
            del self.awaiting[rid]

    def track(self, rec: Record, ev, writes: bool) -> None:
        """A new access: a generic one waits for its threads' next proxy fence (of shared memory:
        tensor memory is ordered by tcgen05 fences, state/tcgen05.py)."""
        if ev.proxy == Proxy.GENERIC and (writes or self.async_writers) and ev.buffer != TENSOR_MEMORY:
            rec.fence_clk = filled(len(rec.tids), PENDING)
            if ev.kind == AccessKind.ASYNC_WRITE:
                rec.landed_fence_clk = filled(len(rec.tids), PENDING)
            self.tracked.add(rec)

    def left_live(self, r: Record) -> None:
        """`r` left `Memory.live` (retired, or dropped when no thread is alive)."""
        self.tracked.discard(r)

    def fence_floor(self, rec: Record) -> np.ndarray:
        """`fence_vc[rec.tids].min(axis=0)`: what every thread of `rec` knew at its last proxy
        fence; once per access (fence_vc moves only at a fence)."""
        key = (rec.id, self.fences)
        if self._fence_floor_of != key:
            rows = self.machine.memory._thread_facts(rec.tids)[4]
            self._fence_floor_of, self._fence_floor = key, self.fence_vc[rows].min(axis=0)
        return self._fence_floor

    def check_access(self, rec: Record, ev, writes: bool) -> None:
        """An async-proxy access against the generic accesses of its bytes not yet fenced (shared
        memory only: fence.proxy.async does not order tensor memory)."""
        if ev.proxy != Proxy.ASYNC or ev.buffer == TENSOR_MEMORY:
            return
        # records found quiet for these threads (_check_proxy) stay quiet for them: skipped
        threads = self.machine.memory.thread_key(rec)
        lo, hi = rec.lo_min, rec.hi_max
        # async-proxy accesses: every live generic write of its bytes, one by one, in issue order
        for old in self.tracked.overlapping(lo, hi, _WRITES, threads):
            self._check_proxy(old, rec)
        for old in self.unfenced.overlapping(lo, hi, _WRITES + _READS, threads):
            self._check_proxy(old, rec)
        if writes:   # a TMA refill over bytes read through the generic proxy
            reads = self.unfenced_reads.overlapping(lo, hi, _READS)
            for old in self.tracked.overlapping(lo, hi, _READS, threads) + reads:
                if old.kind == AccessKind.READ and old.proxy == Proxy.GENERIC and old.fence_clk is not None \
                        and (old.quiet_for is None or threads not in old.quiet_for):
                    self._check_proxy(old, rec, "read-write")
            for r in reads:
                self.unfenced_reads.discard(r)

    def _check_proxy(self, old: Record, new: Record, direction: str = "write-read") -> None:
        """Shared bytes accessed through the generic proxy and then through the async proxy need
        fence.proxy.async between, in both directions (a generic write read by wgmma or a TMA
        store; a generic read overwritten by a TMA load): by the first thread after its access
        and before the release the second acquired, or by the second after acquiring."""
        key = ("proxy", old.span.start, new.span.start)
        path_key = ("proxy-path-fence", old.span.start, new.span.start)
        reader_key = ("proxy-reader-fence", old.span.start, new.span.start)
        seen = self.machine.seen_pairs
        if key in seen or path_key in seen or reader_key in seen:
            return   # (a pair reported under a strict reading is not asked again either)
        # the strict reading that discounts the reader's fence: for a generic write read through
        # the async proxy
        by_writer = self.writer_fences_only and direction == "write-read" and new.kind in _READS
        if not self.machine.memory.byte_sets.meets(new, old):
            return   # no interval meets: bytes first, the cheaper test where hulls overlap (2-CTA)
        vc = self.machine.vc
        when = old.done if old.done is not None else old.clk
        # Leave out first the old intervals that no thread of `new` can report, whatever the
        # bytes (the dense overlap matrix of two wide records is most of the cost): completed,
        # and fenced for every new thread, by the writer (and, for the strict reading, after it
        # landed, unless that reading was reported for this pair already) or by the reader. An
        # interval still in flight stays: it ends the check.
        strict_key = ("proxy-in-flight", old.span.start, new.span.start)
        strict = old.landed_fence_clk is not None and strict_key not in self.machine.seen_pairs
        floor = self.machine.memory.floor(new)
        t_issuer = old.tids
        quiet = (when != PENDING) & (old.fence_clk != PENDING) & (floor[t_issuer] >= old.fence_clk)
        if strict:
            quiet &= (old.landed_fence_clk != PENDING) & (floor[t_issuer] >= old.landed_fence_clk)
        if not quiet.all() and not by_writer:
            quiet |= (when != PENDING) & (self.fence_floor(new)[old.owner] >= when)
        if quiet.all():
            # for good: the clocks and fence clocks only grow, a completion or a fence clock once
            # set stays, and the strict reading once reported is not asked again
            if old.quiet_for is None:
                old.quiet_for = set()
            threads = self.machine.memory.thread_key(new)
            old.quiet_for.add(threads)
            for kept in (self.tracked, self.unfenced, self.unfenced_reads):
                kept.note_quiet(old, threads)
            return
        csel = np.flatnonzero(~quiet) if quiet.any() else None
        o_lo, o_hi = (old.lo, old.hi) if csel is None else (old.lo[csel], old.hi[csel])
        ov = (new.lo[:, None] < o_hi[None, :]) & (o_lo[None, :] < new.hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        if csel is not None:
            cols = csel[cols]
        t_new, t_old = new.tids[rows], old.owner[cols]
        when = when[cols]
        if (when == PENDING).any():
            return  # unordered: the race check reports it
        ordered = (t_new == t_old) | (vc[t_new, t_old] >= when)
        # a fence is the issuing thread's, at its own clock: compare it with what the reader knows
        # of that thread (a copy handed to an mbarrier by cp.async.mbarrier.arrive.noinc is owned
        # by the barrier, whose clock column is another one)
        t_issuer = old.tids[cols]
        writer_fenced = (old.fence_clk[cols] != PENDING) & (vc[t_new, t_issuer] >= old.fence_clk[cols])
        if old.fenced_at_handover is not None:   # fenced before an mbarrier took the copy over
            writer_fenced |= old.fenced_at_handover[cols]
        reader_fenced = self.fence_vc[t_new, t_old] >= when
        bad = np.flatnonzero(ordered & ~writer_fenced & ~reader_fenced)
        if bad.size == 0 and strict:
            # the strict reading: only a fence the writer ran after its cp.async landed counts
            landed = old.landed_fence_clk[cols]
            after_landing = (landed != PENDING) & (vc[t_new, t_issuer] >= landed)
            bad = np.flatnonzero(ordered & ~after_landing & ~reader_fenced)
            direction = "in-flight"
            key = strict_key
        if bad.size == 0 and by_writer:
            # the reader fenced after acquiring; the strict reading wants the writer's fence
            bad = np.flatnonzero(ordered & ~writer_fenced & (t_new != t_old))
            direction, key = "reader-fence", reader_key
        if bad.size == 0:
            return
        fencer = None
        if direction == "write-read":
            # a third thread's fence on the path (it knew the write when it fenced; the reader knows
            # that fence): by base causality's cumulativity the fence orders the write too, the way
            # PTX's alias proxy fences count "along the base causality path"; the ISA does not say
            # so for fence.proxy.async, so only the strict reading reports it (docs/model.md)
            triples = np.unique(np.stack([t_new[bad], t_old[bad], when[bad]], axis=1), axis=0)
            fencers = []
            for r, c, w in triples.tolist():
                fencers.append(self._path_fencer(r, c, w))
                if fencers[-1] is None:
                    break
            if all(f is not None for f in fencers):
                fencer, direction, key = fencers[0], "path-fence", path_key
        self.machine.seen_pairs.add(key)
        k = bad[0]
        i, j = rows[k], cols[k]
        self.machine.result.proxy_problems.append(ProxyProblem(
            old, new, int(old.tids[j]), int(new.tids[i]), int(max(new.lo[i], old.lo[j])),
            int(min(new.hi[i], old.hi[j])), direction, *(fencer or (None, None))))

    def _path_fencer(self, reader: int, col: int, when: int) -> tuple | None:
        """(thread, line) of a proxy fence that came after its thread knew clock `when` of column
        `col` (the write) and that the reader knows of (its clock of that thread covers the fence),
        or None. Of each thread's last FENCE_HISTORY fences: an older one the reader synchronized
        with is not seen (the finding then stays, as it would without this reading)."""
        own = self.hist_own
        known = (own >= 0) & (own <= self.machine.vc[reader, :len(own)][:, None])
        hit = known & (self.hist_vc[:, :, col] >= when)
        t, k = np.nonzero(hit)
        if not t.size:
            return None
        # of the first such thread, its newest such fence
        first, slots = int(t[0]), k[t == t[0]]
        age = (int(self.fence_count[first]) - 1 - slots) % self.FENCE_HISTORY
        return first, int(self.hist_line[first, slots[age.argmin()]])

    def fence(self, task, ev: ProxyFence, s) -> None:
        tids, vc = ev.tids, self.machine.vc
        t = tids.astype(np.int64)
        slot = self.fence_count[t] % self.FENCE_HISTORY
        self.fence_count[t] += 1
        mine = vc[t]
        self.fence_vc[t] = mine
        self.hist_vc[t, slot] = mine
        self.hist_own[t, slot] = vc[t, t]
        self.hist_line[t, slot] = s.span.line
        self.machine.mbarrier.proxy_fenced(tids)   # (an mbarrier init's fence for the async proxy)
        self.fences += 1
        fencing = thread_table(tids, self.machine.T)
        first, last = int(tids.min()), int(tids.max())
        fkey = tids.tobytes()
        touched = []
        for kept in (self.tracked, self.unfenced, self.unfenced_reads):
            for tkey, same in kept.by_threads.items():   # the records of one set of threads
                r0 = next(iter(same.values()))
                if r0.tmax < first or last < r0.tmin:
                    continue   # none of its threads fences (the epilogue's records at a producer's fence)
                mine = fencing[r0.tids]
                if not mine.any():
                    continue
                # covers the thread's generic accesses issued before the fence, cp.async still in
                # flight included (TileLang's InjectFenceProxy model; docs/model.md); for the
                # strict reading, the first fence after a copy landed is kept apart. The records
                # this same fence visited before are fenced for its threads already (_ByBytes.
                # fenced_to): the epilogue's elected thread fences before each TMA store, and its
                # 127 other threads' stores stay unfenced for good, hundreds per tile
                recs = same.values()
                if tkey not in kept.landed:
                    mark = kept.fenced_to.get((tkey, fkey))
                    kept.fenced_to[(tkey, fkey)] = kept.seq - 1
                    if mark is not None:
                        order, recs = kept.order, []
                        for r in reversed(same.values()):
                            if order[r.id][0] <= mark:
                                break
                            recs.append(r)
                        recs.reverse()
                for r in recs:
                    sel = mine & (r.fence_clk == PENDING)
                    if sel.any():
                        r.fence_clk[sel] = vc[r.tids[sel], r.tids[sel]]
                    if r.landed_fence_clk is not None:
                        sel = mine & (r.landed_fence_clk == PENDING) & (r.done != PENDING)
                        if sel.any():
                            r.landed_fence_clk[sel] = vc[r.tids[sel], r.tids[sel]]
                    if kept is not self.tracked:
                        touched.append((kept, r))
        # a record's fence clocks change only here: those just fenced by every thread leave once
        # every live thread knows the fences (`publish`)
        for kept, r in touched:
            if not _unfenced(r):
                self.awaiting[r.id] = (kept, r)
