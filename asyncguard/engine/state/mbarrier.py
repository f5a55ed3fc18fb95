"""mbarriers: per barrier the phase in progress, its pending arrivals and transaction bytes, the
released vector clock of every completed phase, and the parity waits blocked on it. Each
barrier's phase clock is a vector-clock column (`Machine.vc[:, T + b]`): reading TMA bytes needs
the phase they completed on acquired. Problems: use before init or its publication, overflow,
stale parity, run-ahead arrivals, tx mismatches, lapped waiters and their aliasing, and waits
that never return (docs/model.md "mbarriers").
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ... import ir
from ...events import Access, AccessKind, MbarArrive, MbarFenceInit, MbarInit, MbarWait
from ...models.launch import WARP
from ...models.mbarrier import CARVED_POOL
from ..exprs import NotConcrete
from .memory import PENDING, Record, filled, thread_rows, thread_table


@dataclass
class MbarProblem:
    kind: str          # "uninitialized" | "init-unpublished" | "init-unfenced" | "overflow" |
                       # "stale-parity" | "aliasing" | "lapped" | "tx-mismatch" | "reinit" |
                       # "run-ahead" | "not-a-barrier" | "barrier-bytes-used"
    barrier: str       # "mbarrier_1[2]"
    span: ir.Span
    tids: np.ndarray
    detail: dict
    tainted: bool | None = None   # known when it happened: its threads' progress rested on an unmodelled op


@dataclass
class StuckWait:
    """A wait that never returns: an mbarrier phase that never completes."""
    barrier: str
    span: ir.Span
    tids: np.ndarray
    parity: int
    phase: int
    pending_arrivals: int
    tx: int
    others: list       # [(what, span, tids)] every other blocked wait: the cycle


def mbarrier_names(program) -> list:
    """One name per mbarrier of the program's barrier regions: "region[i]", 8 bytes each; in a
    cluster, one set per CTA, "region[i] (CTA r)", rank-major (state/cluster.py)."""
    local = [f"{r.name}[{i}]" for r in program.barrier_regions for i in range(r.nbytes // 8)]
    ctas = program.launch.cluster_size
    return local if ctas == 1 else [f"{n} (CTA {r})" for r in range(ctas) for n in local]


class CarvedBarriers:
    """The mbarriers one run carves out of shared memory: byte address -> slot of the pool, in the
    order first met. `named(slot, name)` is told each slot's name once (Mbarriers)."""

    def __init__(self, base: int, named=None):
        self.base, self.slots, self.named = base, {}, named

    def ids(self, addresses, name_of, span):
        """The barrier ids of `addresses` (an int or a per-thread array of byte addresses). (A
        misaligned address is checks/resources.py's AG509; the model still follows it.)"""
        flat = np.asarray(addresses).reshape(-1)
        out = np.empty(flat.shape, dtype=np.int64)
        for a in np.unique(flat).tolist():
            slot = self.slots.get(a)
            if slot is None:
                if len(self.slots) >= CARVED_POOL:
                    raise NotConcrete(f"more than {CARVED_POOL} mbarriers carved out of shared memory", span)
                slot = self.slots[a] = len(self.slots)
                if self.named is not None:
                    self.named(self.base + slot, name_of(a), a)
            out[flat == a] = self.base + slot
        return int(out[0]) if np.ndim(addresses) == 0 else out.reshape(np.shape(addresses))


class _Mbar:
    """One mbarrier: the phase in progress, its pending arrivals and tx-count, its history."""

    def __init__(self, name: str, ncols: int, threads: int):
        self.name, self.count, self.phase, self.pending, self.tx = name, None, 0, 0, 0
        self.last_phase = np.full(threads, -1, dtype=np.int64)   # per thread: phase its last arrival joined
        self.init = None            # (tid, clock, span)
        self.fence_clk = None       # initializer's clock at fence.mbarrier_init
        # initializer's clock at its first fence.proxy.async after the init: orders the init for
        # the async proxy within the CTA (the CUDA guide's TMA example, init then
        # fence.proxy.async.shared::cta then __syncthreads), not for other CTAs of a cluster
        self.proxy_fence_clk = None
        # Uses of the current init without fence.mbarrier_init, held back while only generic
        # threads of the barrier's own CTA have used it (the block barrier publishing the init is
        # enough for them); reported once the async proxy or another CTA uses the barrier.
        self.unfenced: list = []
        self.beyond_cta = False     # the async proxy or another CTA has used the current init
        # uses ordered after the init by a fence.proxy.async only, held back until another CTA
        # uses the barrier (`cross_cta`), which only fence.mbarrier_init orders the init for
        self.proxy_fenced_only: list = []
        self.cross_cta = False
        # the phase's increments by counting cp.async.mbarrier.arrives: [tids, their clocks at
        # issue, span, which of them an arrival of the phase is known to follow]
        self.increments: list = []
        self.rel_vc = np.zeros(ncols, dtype=np.int64)
        self.completed: list = []   # per completed phase: the released vector clock
        # per completed phase: did an arrival come from the system once tcgen05 work completed
        # (tcgen05.commit)? Knowing such a phase complete takes observing the barrier itself.
        self.completed_deferred: list = []
        self.deferred = False       # the phase in progress has such an arrival
        self.delivered: list = []   # TMA records delivering into the phase in progress
        self.expected, self.bytes_in = 0, 0
        self.arrivals: list = []    # (span, n) this phase
        self.waiters: list = []     # (task, parity, span)
        self.observations: list = []  # (phase observed, tids, clocks after the wait, span, watch id)
        # per thread: how many of the first completed phases it is known to know complete (a
        # lower bound, `Mbarriers._wait_parity`'s count for a set of threads that held it)
        self.known_by = np.zeros(threads, dtype=np.int64)


class Mbarriers:
    """Every mbarrier of the program, and the watches of passed waits (what their threads did next)."""
    EVENTS = {MbarInit: "event", MbarFenceInit: "event", MbarArrive: "event", MbarWait: "event"}

    def __init__(self, machine):
        self.machine = machine
        T = machine.T
        names = mbarrier_names(machine.p)
        self.NB = len(names)
        self.mbars = [_Mbar(n, T + self.NB + 1, T) for n in names]
        # per thread, per barrier: the phase clock of the barriers its earlier tcgen05.commits
        # completed (count-1 phases its own arrival completed); a later commit carries them
        self.tcgen05_done = np.zeros((T, self.NB), dtype=np.int64)
        # Per passed mbarrier wait (a *watch*): which of its threads acted (accessed shared memory,
        # arrived, added expected bytes) before their next wait or block / named barrier.
        # `guard[t]`: thread t's latest watch, -1 after a barrier.
        self.guard = np.full(T, -1, dtype=np.int64)
        # each thread's own clock when it last passed an mbarrier wait (-1: never); its accesses
        # after the wait carry a later clock (`_acquire`), so a system-performed arrival can
        # release the thread's progress without its accesses (`_arrive`)
        self.last_wait_clk = np.full(T, -1, dtype=np.int64)
        self.watch_acted: list = []
        # `acts` of a read-only thread-id array since `guard` last changed (`guard_version`): a
        # second time marks nothing new (watch_acted only gains marks)
        self.guard_version = 0
        self._acted: dict = {}   # id(tids) -> (tids, guard_version)
        # barriers carved out of shared memory (models/mbarrier.py CARVED_POOL): id -> byte address
        self.carved_at: dict = {}
        self._carved_reported: set = set()   # (statement, barrier) pairs reported (`check_carved`)
        # initializing thread -> the barriers it initialized and has not run fence.proxy.async
        # after (`proxy_fenced`; a few entries, visited at each proxy fence)
        self.proxy_unfenced_inits: dict = {}

    def carve(self, b: int, name: str, address: int) -> None:
        """Barrier `b` of the pool is the mbarrier at shared byte `address` (CarvedBarriers)."""
        self.mbars[b].name = name
        self.carved_at[b] = address

    def check_carved(self, rec: Record, s) -> None:
        """An access (not an mbarrier operation) of bytes of a carved mbarrier that is initialized:
        PTX ISA, mbarrier.inval: "An mbarrier object must be invalidated before using its memory
        location for any other purpose" (a TMA load landing on it corrupts the phase its waiters
        poll: DeepEP #399)."""
        for b, a in self.carved_at.items():
            m = self.mbars[b]
            if m.init is None or (id(s), b) in self._carved_reported:
                continue
            hit = (rec.lo < a + 8) & (rec.hi > a)
            if hit.any():
                self._carved_reported.add((id(s), b))
                self.machine.result.mbar_problems.append(MbarProblem(
                    "barrier-bytes-used", m.name, s.span, rec.tids[hit],
                    {"access": rec.via or rec.kind.name.lower(), "buffer": rec.buffer, "address": a,
                     "init_line": m.init[2].line}))

    def signature(self):
        # how many phases each thread's last arrival lies behind: only "not behind" / "behind"
        # decides anything (_check_run_ahead: prev < phase), so a lag of 2 or more reads as 2. A
        # thread that stopped arriving (a prologue arrival, the other warpgroup's barrier) falls
        # one period further behind each period; its exact lag kept the state from ever repeating
        return tuple((m.pending, m.tx, m.phase % 2, len(m.waiters),
                      tuple(np.unique(np.minimum(m.phase - m.last_phase[m.last_phase >= 0], 2))))
                     for m in self.mbars)

    def finish(self, result) -> None:
        blocked = [t for t in self.machine.tasks if t.state in ("mbar", "barrier")]
        for t in blocked:
            if t.state != "mbar":
                continue
            b, span, p = t.where
            m = self.mbars[b]
            others = [("mbarrier" if o.state == "mbar" else "barrier", o.where[1], o.tids)
                      for o in blocked if o is not t]
            result.stuck.append(StuckWait(m.name, span, t.tids, p, m.phase, m.pending, m.tx, others))
        for b, m in enumerate(self.mbars):
            self._lapped_waiters(m)

    def _mbar_ids(self, bar: np.ndarray, s) -> int | None:
        ids = np.unique(bar)
        if ids.size != 1 or not 0 <= int(ids[0]) < self.NB:
            self.machine.note("mbarrier index differs between threads or is out of range", s.span)
            return None
        return int(ids[0])

    def _per_barrier(self, bar, s) -> list | None:
        """Threads of one statement that name different mbarriers (an array indexed by warp or
        by thread): [(barrier id, selection of the event's threads)] in barrier order, each part
        then handled like an event on one barrier. None (and a note) for an index out of range."""
        bar = np.asarray(bar)
        ids = np.unique(bar)
        if ids.size and not (0 <= int(ids[0]) and int(ids[-1]) < self.NB):
            self.machine.note("mbarrier index out of range", s.span)
            return None
        return [(int(b), bar == b) for b in ids.tolist()]

    def _check_init(self, tids: np.ndarray, b: int, s, async_proxy: bool = False) -> None:
        """`async_proxy`: the use is a completion through the async proxy (a TMA's bytes, a
        cp.async or tcgen05 commit's arrival), which the init reaches only through
        fence.mbarrier_init, whatever barrier published it."""
        m = self.mbars[b]
        cluster = self.machine.cluster
        owner, user = b // max(cluster.per_cta, 1), cluster.rank(tids)
        if m.init is None:
            if owner != user:
                # a peer CTA's barrier its own threads have not initialized yet: nothing orders
                # the init before this use (a cluster barrier after the init would). What the
                # barrier does from now on is undefined: findings on it are not definite.
                self.machine.result.mbar_problems.append(MbarProblem(
                    "peer-uninitialized", m.name, s.span, tids, {"barrier_cta": owner, "user_cta": user},
                    tainted=bool(self.machine.vc[tids, self.machine.taint.column].any())))
                self.machine.taint.barriers.add(b)
                return
            self.machine.result.mbar_problems.append(MbarProblem(
                "uninitialized", m.name, s.span, tids, {}))
            return
        # PTX ISA (fence.mbarrier_init, mbarrier): the fence orders the init for the async proxy and
        # for the cluster; generic threads of one CTA need only the barrier that published it
        m.beyond_cta = m.beyond_cta or async_proxy or owner != user
        m.cross_cta = m.cross_cta or owner != user
        t0, c0, span0 = m.init
        others = tids[tids != t0]
        if others.size == 0:
            self._report_unfenced(m)
            return
        knows = self.machine.vc[others, t0]
        if not (knows >= c0).all():
            self.machine.result.mbar_problems.append(MbarProblem(
                "init-unpublished", m.name, s.span, others[knows < c0],
                {"init_line": span0.line, "init_thread": int(t0)}))
        elif m.fence_clk is None or not (knows >= m.fence_clk).all():
            problem = MbarProblem("init-unfenced", m.name, s.span, others,
                                  {"init_line": span0.line, "init_thread": int(t0)})
            if m.proxy_fence_clk is not None and (knows >= m.proxy_fence_clk).all():
                problem.detail["proxy_fenced"] = True
                m.proxy_fenced_only.append(problem)
            else:
                m.unfenced.append(problem)
        self._report_unfenced(m)

    def _report_unfenced(self, m: _Mbar) -> None:
        if m.beyond_cta and m.unfenced:
            self.machine.result.mbar_problems.extend(m.unfenced)
            m.unfenced = []
        if m.cross_cta and m.proxy_fenced_only:
            self.machine.result.mbar_problems.extend(m.proxy_fenced_only)
            m.proxy_fenced_only = []

    def proxy_fenced(self, tids: np.ndarray) -> None:
        """Threads `tids` ran fence.proxy.async: the inits they made and had not fenced so far
        are ordered for the async proxy of their CTA (`_Mbar.proxy_fence_clk`)."""
        if not self.proxy_unfenced_inits:
            return
        vc = self.machine.vc
        for t0 in [t for t in self.proxy_unfenced_inits if (tids == t).any()]:
            for b in self.proxy_unfenced_inits.pop(t0):
                m = self.mbars[b]
                if m.init is not None and m.init[0] == t0 and m.proxy_fence_clk is None:
                    m.proxy_fence_clk = int(vc[t0, t0])

    def event(self, task, ev, s) -> None:
        if isinstance(ev, MbarFenceInit):
            for m in self.mbars:
                if m.init is not None and m.fence_clk is None and np.isin(m.init[0], ev.tids):
                    m.fence_clk = int(self.machine.vc[m.init[0], m.init[0]])
            return
        parts = self._per_barrier(ev.bar, s)
        if parts is None:
            self.machine.taint.threads(self.machine, ev.tids)   # the event is skipped
            return
        if len(parts) > 1:
            self._mbarrier_split(task, ev, s, parts)
            return
        if not parts:
            return   # no thread names a barrier (a launch of no thread: an invalid launch, noted)
        b = parts[0][0]
        m = self.mbars[b]
        if isinstance(ev, MbarInit):
            if m.init is not None:
                self.machine.result.mbar_problems.append(MbarProblem(
                    "reinit", m.name, s.span, ev.tids, {"first_line": m.init[2].line}))
            t0 = int(ev.tids[0])
            m.init, m.count, m.pending, m.fence_clk = (t0, int(self.machine.vc[t0, t0]), s.span), ev.count, ev.count, None
            m.unfenced, m.beyond_cta = [], False
            m.proxy_fence_clk, m.proxy_fenced_only, m.cross_cta = None, [], False
            m.increments = []
            self.proxy_unfenced_inits.setdefault(t0, []).append(b)
            return
        self._check_init(ev.tids, b, s, async_proxy=isinstance(ev, MbarArrive) and bool(ev.copies))
        if isinstance(ev, MbarArrive):
            if ev.copies:
                self._track_copies(ev.tids, m, b, s, ev.copies)
                m.deferred = m.deferred or ev.copies == "tcgen05"
            if ev.copies == "tcgen05" and ev.arrive:
                self._commit_in_order(task, m, b, ev, s)
                return
            self._arrive(task, m, b, ev, s)
        else:
            self._wait_parity(task, m, b, ev, s)

    def _mbarrier_split(self, task, ev, s, parts: list) -> None:
        """One statement on several mbarriers: each barrier's threads as their own event. A wait
        splits the task, one per barrier (they block and are released independently; tasks
        released together at one position merge again)."""
        subs = []
        for b, sel in parts:
            kw = {"tids": ev.tids[sel], "bar": np.asarray(ev.bar)[sel]}
            if isinstance(ev, MbarWait):
                kw["parity"] = np.asarray(ev.parity)[sel] if isinstance(ev.parity, np.ndarray) \
                    and np.ndim(ev.parity) else ev.parity
            subs.append(replace(ev, **kw))
        if not isinstance(ev, MbarWait):
            for sub in subs:
                self.event(task, sub, s)
            return
        if not np.array_equal(np.sort(ev.tids), task.tids):
            self.machine.note("mbarrier wait on several barriers by part of a path", s.span)
            return
        for t, sub in zip(self.machine.split(task, [sub.tids for sub in subs]), subs):
            self.event(t, sub, s)

    def _arrive(self, task, m: _Mbar, b: int, ev: MbarArrive, s) -> None:
        if m.increments and ev.arrive:
            # an arrival by an issuer itself follows its own increment in program order
            for inc in m.increments:
                inc[3] |= np.isin(inc[0], ev.tids)
        if not ev.counted:
            self._increment(m, b, ev, s)
            return
        if not (ev.copies == "tcgen05" and m.count == 1):
            # one thread's tcgen05.commits arrive in issue order (each once all its earlier tcgen05
            # work completed), so on a count-1 barrier each completes its own phase
            self._check_run_ahead(m, b, ev.tids, s)
        self.acts(ev.tids)
        m.tx += ev.tx * len(ev.tids)
        m.expected += ev.tx * len(ev.tids)
        if not ev.arrive:
            if m.count is not None and m.pending == 0 and m.tx == 0:
                self._complete_phase(m, b)
            return
        tids = ev.tids
        self._release(m, ev, s)
        if len(tids) == 1:
            t = int(tids[0])
            self.machine.vc[t, t] += 1   # later accesses are not covered by this release
        else:
            self.machine.vc[tids, tids] += 1
        n = len(tids)
        m.arrivals.append((s.span, n))
        if m.count is None:
            return
        # the phases these arrivals complete retire records once, after the last: between them
        # only waiters' clocks grow (never a record's), so the last retirement drops every record
        # an earlier one would (128 arrivals on a count-1 barrier complete 128 phases)
        completed_any = False
        while n > 0:
            if m.pending == 0:
                self.machine.result.mbar_problems.append(MbarProblem(
                    "overflow", m.name, s.span, tids,
                    {"count": m.count, "phase_arrivals": [{"line": sp.line, "count": k} for sp, k in m.arrivals],
                     "tx": m.tx, "phase": m.phase}))
                break
            take = min(n, m.pending)
            m.pending -= take
            n -= take
            if m.pending == 0 and m.tx == 0:
                completed = self._complete_phase(m, b, retire=False)
                completed_any = True
                if n > 0:
                    self.machine.result.mbar_problems.append(MbarProblem(
                        "overflow", m.name, s.span, tids,
                        {"count": m.count, "arrivals_in_statement": len(tids), "phase": completed,
                         "spill": n}))
        if completed_any:
            self.machine.retire()

    def _release(self, m: _Mbar, ev: MbarArrive, s) -> None:
        """Merge what the arriving threads release into the phase in progress. The arrive-on
        that tcgen05.commit / cp.async.mbarrier.arrive has the system perform is ordered after
        the tracked operations only, "not to those of any other instruction issued by the thread"
        (PTX ISA, program order of async operations): of the issuers' own column it releases
        their progress to their last mbarrier wait (a waiter lapped or not, Schedules), not the
        accesses they made after it (docs/model.md "What a system-performed arrival releases")."""
        tids = ev.tids
        released = self.machine.vc[thread_rows(tids)].max(axis=0)
        if ev.copies:
            released[tids] = np.maximum(m.rel_vc[tids], self.last_wait_clk[tids])
            seen = self.machine.result.system_arrivals
            if s.span.line not in seen:
                via = "tcgen05.commit" if ev.copies == "tcgen05" else "cp.async.mbarrier.arrive"
                seen[s.span.line] = (m.name, via, tids)
            elif seen[s.span.line][0] != m.name and not seen[s.span.line][0].endswith("[...]"):
                # one statement, several barriers (a stage index): name the array
                name, via, first = seen[s.span.line]
                seen[s.span.line] = (name.split("[")[0] + "[...]", via, first)
        m.rel_vc = np.maximum(m.rel_vc, released)

    def _increment(self, m: _Mbar, b: int, ev: MbarArrive, s) -> None:
        """A counting cp.async.mbarrier.arrive: +1 pending at issue, the system's arrival when the
        copies land, so the phase's count is unchanged and its copies complete on it (tracked
        already). Its arrival releases what a system-performed arrival does (`_release`). Whether
        the phase's completion is ordered after the increment is decided when it completes
        (`_complete_phase`)."""
        tids = ev.tids
        self.acts(tids)
        if m.phase > 0:
            # the phase before completed already, and not through anything the issuers know of:
            # in another schedule the increment joins that phase instead, whose waiters then miss
            # the copies
            late = self.machine.vc[tids, self.machine.T + b] < m.phase
            if late.any():
                self.machine.result.mbar_problems.append(MbarProblem(
                    "increment-unordered", m.name, s.span, tids[late], {"phase": m.phase - 1}))
        self._release(m, ev, s)
        m.increments.append([tids.copy(), self.machine.vc[tids, tids].copy(), s.span,
                             np.zeros(len(tids), dtype=bool)])
        self.machine.vc[tids, tids] += 1   # later accesses are not covered by the arrival

    def _commit_in_order(self, task, m: _Mbar, b: int, ev: MbarArrive, s) -> None:
        """A tcgen05.commit's arrival. The PTX ISA (tcgen05.commit): the mbarrier tracks the
        completion of *all* prior asynchronous tcgen05 operations the thread initiated, so its
        arrival comes after those an earlier commit of the thread already handed to another
        barrier. A thread whose earlier commit completed a phase by its own arrival (a count-1
        barrier: the phase completed exactly when that commit's work did) therefore releases,
        with this arrival, the knowledge of that phase: a waiter on the last commit's barrier
        (tmem_full after the per-stage `consumed` commits) knows every stage's MMA complete."""
        tids = ev.tids
        earlier = self.tcgen05_done[tids].max(axis=0)
        T = self.machine.T
        m.rel_vc[T:T + self.NB] = np.maximum(m.rel_vc[T:T + self.NB], earlier)
        before = m.phase
        self._arrive(task, m, b, ev, s)
        if m.count == 1 and m.phase == before + 1:   # this arrival completed the phase
            self.tcgen05_done[tids, b] = before + 1

    def _track_copies(self, tids: np.ndarray, m: _Mbar, b: int, s, kind: str) -> None:
        """cp.async.mbarrier.arrive.noinc / tcgen05.commit: every operation of `kind` the threads
        issued and have not waited for completes on the mbarrier phase their arrival joins (like
        a TMA load's bytes)."""
        keep = []
        arriving = thread_table(tids, self.machine.T)
        cluster = self.machine.cluster
        here = cluster.cta_of_barrier(b)   # a multicast commit: this CTA's share only (state/cluster.py)
        live = self.machine.cp_async.live
        asked = [r for r in live if r.group_kind == kind and len(r.tids)
                 and not (cluster.active and cluster.cta_of(r.region_base) != here)]
        # of each record of `kind`: whether some of its pending threads arrive (`any_mine`), and
        # whether all of its threads are pending and arrive (`all_mine`); every record at once
        flags = {}
        if asked:
            sizes = [len(r.tids) for r in asked]
            starts = np.cumsum([0] + sizes[:-1])
            pending = np.concatenate([r.done for r in asked]) == PENDING
            mine = pending & arriving[np.concatenate([r.tids for r in asked])]
            any_mine = np.logical_or.reduceat(mine, starts).tolist()
            all_mine = np.logical_and.reduceat(mine, starts).tolist()
            flags = {r.id: (a, f) for r, a, f in zip(asked, any_mine, all_mine)}
        for r in live:
            some, every = flags.get(r.id, (False, False))
            if not some:
                keep.append(r)
            elif every:
                r.owner = filled(len(r.tids), self.machine.T + b)
                r.group_kind, r.mbarrier = "mbarrier", b
                if r.fence_clk is not None:
                    r.fenced_at_handover = r.fence_clk != PENDING
                m.delivered.append(r)
            else:   # a copy only some of whose threads hand over to the mbarrier
                self.machine.note(f"{kind} tracked by an mbarrier for only some of its threads", s.span)
                self.machine.taint.threads(self.machine, r.tids)
                keep.append(r)
        self.machine.cp_async.live = keep

    def _check_run_ahead(self, m: _Mbar, b: int, tids: np.ndarray, s) -> None:
        """A thread that arrives or adds expected bytes again must know that the phase its previous
        contribution joined has completed. If it cannot, another schedule puts both into that
        phase: it completes without one of its partners (an early release), or waits for bytes
        issued only after its own waiters move on (a hang)."""
        prev = m.last_phase[tids]
        ahead = (prev >= 0) & (prev < m.phase) & (self.machine.vc[tids, self.machine.T + b] <= prev)
        if ahead.any():
            self.machine.result.mbar_problems.append(MbarProblem(
                "run-ahead", m.name, s.span, tids[ahead],
                {"count": m.count, "phase_of_previous_arrival": int(prev[ahead][0]), "phase": m.phase}))
        m.last_phase[tids] = m.phase

    def tma_deliver(self, task, rec: Record, ev: Access, s) -> None:
        if isinstance(ev.mbarrier, str):   # the model found no mbarrier where the completion goes
            self.machine.result.mbar_problems.append(MbarProblem(
                "not-a-barrier", ev.mbarrier, s.span, rec.tids, {"operand": ev.mbarrier}))
            return
        b = self._mbar_ids(ev.mbarrier, s)
        if b is None:
            self.machine.taint.records.add(rec.id)   # its completion is not modelled
            return
        m = self.mbars[b]
        self._check_init(rec.tids, b, s, async_proxy=True)
        rec.owner = filled(len(rec.tids), self.machine.T + b)
        rec.mbarrier = b
        if rec.kind == AccessKind.ASYNC_WRITE:   # a bulk copy's source read completes with it, uncounted
            nbytes = int((rec.hi - rec.lo).sum()) if ev.tx_bytes is None else ev.tx_bytes * len(rec.tids)
            m.tx -= nbytes
            m.bytes_in += nbytes
        cluster = self.machine.cluster
        if cluster.rank(rec.tids) != b // max(cluster.per_cta, 1):
            # completing on a peer CTA's barrier: the copy was issued after every mbarrier phase its
            # issuer had observed, so whoever observes this phase knows those phases completed
            # (phase columns only: no data of the issuer is published; state/cluster.py)
            cols = slice(self.machine.T, self.machine.T + self.NB)
            issuer = self.machine.vc[rec.tids, cols].max(axis=0)
            m.rel_vc[cols] = np.maximum(m.rel_vc[cols], issuer)
        m.delivered.append(rec)
        if m.count is not None and m.pending == 0 and m.tx == 0:
            self._complete_phase(m, b)

    def _complete_phase(self, m: _Mbar, b: int, retire: bool = True) -> int:
        phase = m.phase
        for tids, clks, span, after in m.increments:
            # the phase completes once its counted arrivals came: an increment none of them (nor
            # a later increment's issuer) knew of may come after the completion, and its copies
            # then complete on the next phase, unseen by this phase's waiters
            late = ~(after | (m.rel_vc[tids] >= clks))
            if late.any():
                self.machine.result.mbar_problems.append(MbarProblem(
                    "increment-unordered", m.name, span, tids[late], {"phase": phase}))
        m.increments = []
        vc = m.rel_vc.copy()
        vc[self.machine.T + b] = phase + 1
        m.completed.append(vc)
        m.completed_deferred.append(m.deferred)
        m.deferred = False
        if m.bytes_in != m.expected:
            self.machine.result.mbar_problems.append(MbarProblem(
                "tx-mismatch", m.name, m.arrivals[-1][0] if m.arrivals else ir.NO_SPAN, np.array([]),
                {"phase": phase, "expected": m.expected, "delivered": m.bytes_in}))
        for r in m.delivered:
            r.done[:] = phase + 1
            r.phase = phase
        m.phase, m.pending, m.tx = phase + 1, m.count, 0
        m.rel_vc = np.zeros_like(m.rel_vc)
        m.delivered, m.expected, m.bytes_in, m.arrivals = [], 0, 0, []
        released = []
        still = []
        for task, parity, span in m.waiters:
            if parity == phase % 2:
                self._acquire(task.tids, m, phase, span)
                task.state, task.where = "run", None
                released.append(task)
            else:
                still.append((task, parity, span))
        m.waiters = still
        self.machine.release(released)
        if retire:
            self.machine.retire()
        return phase

    def _acquire(self, tids: np.ndarray, m: _Mbar, phase: int, span) -> None:
        if phase >= 0:
            rows = thread_rows(tids)
            if isinstance(rows, slice):
                view = self.machine.vc[rows]
                np.maximum(view, m.completed[phase], out=view)
            else:
                self.machine.vc[rows] = np.maximum(self.machine.vc[rows], m.completed[phase])
        if self.machine.taint.barriers and self.machine.taint.tainted_barrier(self.machine, m):
            self.machine.vc[tids, self.machine.taint.column] = 1   # an unmodelled op may arrive on it
        watch = len(self.watch_acted)
        self.watch_acted.append(np.zeros(self.machine.T, dtype=bool))
        self.guard[tids] = watch
        self.guard_version += 1
        clocks = self.machine.vc[tids, tids].copy()
        m.observations.append((phase, tids, clocks, span, watch))
        # later accesses are not covered by a release of this progress alone (`_arrive`)
        self.last_wait_clk[tids] = clocks
        self.machine.vc[tids, tids] = clocks + 1

    def acts(self, tids: np.ndarray) -> None:
        """`tids` access shared memory or contribute to an mbarrier phase: each one's latest
        passed wait guarded something."""
        if not self.watch_acted:
            return
        done = self._acted.get(id(tids))
        if done is not None and done[0] is tids and done[1] == self.guard_version:
            return
        if not tids.flags.writeable:
            if len(self._acted) >= 4096:
                self._acted.clear()
            self._acted[id(tids)] = (tids, self.guard_version)
        g = self.guard[tids]
        lo, hi = int(g.min()), int(g.max())
        if lo == hi:
            if lo >= 0:
                self.watch_acted[lo][tids] = True
            return
        for w in np.unique(g[g >= 0]).tolist():
            self.watch_acted[w][tids[g == w]] = True

    def _wait_parity(self, task, m: _Mbar, b: int, ev: MbarWait, s) -> None:
        ps = np.unique(ev.parity)
        if ps.size != 1:
            self.machine.note("mbarrier wait parity differs between threads of one path", s.span)
            self.machine.taint.threads(self.machine, ev.tids)
            return
        p = int(ps[0])
        # The earliest phase this wait can find the barrier in: phases whose completion the
        # waiter already knows of. A different answer there means a schedule observes a stale phase.
        # The count is the least over the threads of each one's count, and each one's only grows
        # (its clocks only grow; a completed phase's clock and flag never change): the search
        # starts at the least count these threads were found to hold before, not at phase 0
        # (a persistent kernel's barriers complete thousands of phases).
        # every thread's clocks at least a phase's: their column-wise least clocks at least it
        known = int(m.known_by[ev.tids].min())
        T = self.machine.T
        mine = self.machine.vc[thread_rows(ev.tids)]
        least, least_own = mine[:, :T].min(axis=0), int(mine[:, T + b].min())
        while known < len(m.completed) and (least >= m.completed[known][:T]).all() \
                and (not m.completed_deferred[known] or least_own > known):
            known += 1
        m.known_by[ev.tids] = np.maximum(m.known_by[ev.tids], known)
        early = known - 1 if known % 2 != p else known
        if m.phase % 2 != p:     # the phase with parity p has completed: return at once
            observed = m.phase - 1
            self._acquire(ev.tids, m, observed, s.span)
        else:
            observed = m.phase
            task.state, task.where = "mbar", (b, s.span, p)
            m.waiters.append((task, p, s.span))
        if early != observed:
            self.machine.result.mbar_problems.append(MbarProblem(
                "stale-parity", m.name, s.span, ev.tids,
                {"parity": p, "phase_observed": observed, "phase_possible": early,
                 "phases_known_complete": known}))


    def _lapped_waiters(self, m: _Mbar) -> None:
        """A waiter that passed the wait for phase p is safe only if phase p + 1 cannot complete
        before it has passed: p + 1's release must happen-after the wait. Otherwise a delayed
        waiter finds the barrier in phase p + 2, whose parity is p's, and blocks until p + 2
        completes. Then, if p + 2 completes and the waiter acts before its next wait (reads the
        stage, arrives), it acts on the wrong phase ("aliasing", a race). If p + 2 never
        completes, or the waiter does nothing before its next wait, the hazard is a hang of the
        delayed threads ("lapped", opt-in: docs/model.md "Schedules")."""
        done = len(m.completed)
        for phase, tids, clocks, span, watch in m.observations:
            if phase + 1 >= done:
                continue   # no later phase exists in this run: nothing can lap the waiter
            nxt = m.completed[phase + 1]
            lapped = nxt[tids] < clocks
            if not lapped.any():
                continue
            who = tids[lapped]
            acts = self.watch_acted[watch][who]
            detail = {"phase_observed": phase, "next_phase": phase + 1, "wait_line": span.line,
                      "delay": {"threads": who.tolist(), "warps": np.unique(who // WARP).tolist(),
                                "before_line": span.line}}
            if phase + 2 < done and acts.any():
                self.machine.result.mbar_problems.append(MbarProblem(
                    "aliasing", m.name, span, who[acts], dict(detail, returns_on_phase=phase + 2)))
                who = who[~acts]
            if who.size:
                detail["delay"] = {"threads": who.tolist(), "warps": np.unique(who // WARP).tolist(),
                                   "before_line": span.line}
                self.machine.result.mbar_problems.append(MbarProblem(
                    "lapped", m.name, span, who,
                    dict(detail, blocks_until_phase=phase + 2, that_phase_completes=phase + 2 < done,
                         acts_after_wait=bool(self.watch_acted[watch][who].any()))))

