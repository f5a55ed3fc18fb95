"""The concrete abstract machine: executes a Program for one block, every thread at once.

Threads that run the same path form a *task* (a mask of thread ids, a program position, an
environment); a branch on thread ids forks a task, and tasks that meet again merge. Each
statement instance runs once per task, vectorised over its threads with numpy.

Happens-before is a vector clock per thread (`vc[t, u]`: the newest clock of thread u that
thread t has synchronized with). Every shared access becomes a `Record` that stays *live*
until it happens-before every live thread; a new access is compared with the live records
whose bytes it overlaps. A cp.async record is a write that lands at the issuer's covering
`wait_group`: until then any access to its bytes races with it (see docs/model.md).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..events import (Access, AccessKind, Barrier, CommitGroup, MbarArrive, MbarFenceInit, MbarInit,
                      MbarWait, Proxy, ProxyFence, SetDescriptor, Unsupported, WaitGroup, WarpSync)
from ..models import NotModelled
from ..models.launch import WARP
from . import accelerate
from .exprs import NotConcrete
from .program import PIf, PLet, PLoop, PNote, POp, Program

PENDING = -1


# ---------------------------------------------------------------- results the checks read
@dataclass
class Record:
    """One access instance: which threads touched which bytes, when, by which statement."""
    id: int
    kind: AccessKind
    tids: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    clk: np.ndarray          # the issuing thread's own clock at the access
    span: ir.Span
    via: str
    buffer: str
    region_base: int
    elem_size: int
    loops: dict
    done: np.ndarray | None = None     # async: owner's clock when it completed, PENDING before
    group: np.ndarray | None = None    # cp.async / bulk / wgmma: group index per thread, -1 while open
    wait_span: ir.Span | None = None   # async: the wait that completed it (first thread)
    lo_min: int = 0
    hi_max: int = 0
    owner: np.ndarray | None = None    # vector-clock column that completes it (TMA: the mbarrier's)
    group_kind: str = ""
    proxy: Proxy = Proxy.GENERIC
    fence_clk: np.ndarray | None = None  # generic writes: writer's clock at its next proxy fence
    mbarrier: int = -1                 # TMA load: barrier id; phase it completed on in `phase`
    phase: int = -1
    collective: bool = False           # wgmma: one operation; a wait by any owner completes it


@dataclass
class Race:
    first: Record
    second: Record
    t_first: int
    t_second: int
    lo: int
    hi: int
    first_pending: bool       # first is a cp.async that had not landed for its issuer
    groups_committed: int = 0  # issuer's committed groups when the second access happened
    last_wait: tuple | None = None  # (span, n) of the issuer's last wait_group before it


@dataclass
class BarrierProblem:
    kind: str               # "divergence" | "count" | "warp-multiple" | "stuck"
    barrier_id: int
    expected: int | None
    arrivals: list          # [(span, tids)]
    missing: np.ndarray     # threads that never arrived
    where_missing: list     # [(span or None, tids)]


@dataclass
class ProxyProblem:
    """A generic-proxy write read by an async-proxy operation with no proxy fence between."""
    write: Record
    read: Record
    t_write: int
    t_read: int
    lo: int
    hi: int


@dataclass
class MbarProblem:
    kind: str          # "uninitialized" | "init-unpublished" | "init-unfenced" | "overflow" |
                       # "stale-parity" | "aliasing" | "tx-mismatch" | "reinit" | "run-ahead"
    barrier: str       # "mbarrier_1[2]"
    span: ir.Span
    tids: np.ndarray
    detail: dict


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


@dataclass
class PendingAtExit:
    record: Record
    tids: np.ndarray


@dataclass
class Note:
    reason: str
    span: ir.Span


@dataclass
class RunResult:
    races: list = field(default_factory=list)
    barrier_problems: list = field(default_factory=list)
    pending: list = field(default_factory=list)
    proxy_problems: list = field(default_factory=list)
    mbar_problems: list = field(default_factory=list)
    stuck: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    steps: int = 0
    limit_hit: str | None = None
    internal_error: str | None = None
    accelerated: list = field(default_factory=list)   # (loop span, trips, skipped from, to, how)
    control_lost: bool = False   # a branch or loop bound could not be evaluated: paths were skipped
    num_threads: int = 0


# ---------------------------------------------------------------- scheduler state
class _Frame:
    __slots__ = ("body", "idx", "loop", "it", "n", "start", "join", "plan", "sig")

    def __init__(self, body, loop=None, n=0, start=0, join=None):
        self.body, self.idx, self.loop, self.it, self.n, self.start, self.join = body, 0, loop, 0, n, start, join
        self.plan, self.sig = None, None

    def copy(self):
        f = _Frame(self.body, self.loop, self.n, self.start, self.join)
        f.idx, f.it, f.plan, f.sig = self.idx, self.it, self.plan, self.sig
        return f


class _Join:
    __slots__ = ("parked", "broken")

    def __init__(self):
        self.parked, self.broken = None, False


class _Task:
    __slots__ = ("mask", "tids", "frames", "env", "state", "where", "pending")

    def __init__(self, mask, frames, env):
        self.mask, self.frames, self.env, self.state, self.where = mask, frames, env, "run", None
        self.tids = np.flatnonzero(mask)
        self.pending = []   # events of a multi-step operation left after a blocking barrier

    def key(self):
        if self.pending:
            return (id(self),)  # mid-operation: never merged
        return tuple((id(f.body), f.idx, f.it, id(f.join)) for f in self.frames)

    def loops(self) -> dict:
        return {f.loop.var: f.start + f.it for f in self.frames if f.loop is not None}


class _Mbar:
    """One mbarrier: the phase in progress, its pending arrivals and tx-count, its history."""

    def __init__(self, name: str, ncols: int, threads: int):
        self.name, self.count, self.phase, self.pending, self.tx = name, None, 0, 0, 0
        self.last_phase = np.full(threads, -1, dtype=np.int64)   # per thread: phase its last arrival joined
        self.init = None            # (tid, clock, span)
        self.fence_clk = None       # initializer's clock at fence.mbarrier_init
        self.rel_vc = np.zeros(ncols, dtype=np.int64)
        self.completed: list = []   # per completed phase: the released vector clock
        self.delivered: list = []   # TMA records delivering into the phase in progress
        self.expected, self.bytes_in = 0, 0
        self.arrivals: list = []    # (span, n) this phase
        self.waiters: list = []     # (task, parity, span)
        self.observations: list = []  # (phase observed, tids, clocks after the wait, span)


class _BarrierGen:
    def __init__(self):
        self.arrivals = []      # (task, tids, span, arrive_only)
        self.count = 0


_READS = (AccessKind.READ, AccessKind.ASYNC_READ)


class _Group:
    """The live plain (not async, not collective) records of one statement and kind, as per-thread
    byte intervals indexed by address, so an access finds what it overlaps without scanning
    every live record (kernels without barriers never retire records).

    An interval is left out when an earlier live record of the group has the same thread, the
    same bytes and the same clock: whatever races with it races with that one too, and the
    earlier record is checked first, so the left-out interval can never be the reported one
    (`Machine._access`). Left-out intervals stay in their records, which stay in `Machine.live`.

    `runs` partition the intervals by record id (a run holds only ids above the previous run's),
    each sorted by `lo`; adjacent runs merge when of similar size (a log-structured index).
    A group of at most `small` records (the usual case: barriers retire them) has no index;
    its records are checked one by one."""
    __slots__ = ("kind", "span_start", "via", "recs", "small", "runs", "seen", "kept",
                 "lo_min", "hi_max")

    def __init__(self, kind, span_start: int, via: str, small: int = 32):
        self.kind, self.span_start, self.via, self.small = kind, span_start, via, small
        self.recs: list = []     # the live records, by id
        self.lo_min, self.hi_max = 0, 0   # bounds of their bytes
        self.runs: list = []     # [lo, hi, tid, clk, rid, maxlen]; none while not indexed
        self.seen: set = set()   # (tid, lo, hi, clk) of the intervals indexed
        self.kept: dict = {}     # rid -> the keys it put in `seen`

    def add(self, rec: Record) -> None:
        if self.recs:
            self.lo_min, self.hi_max = min(self.lo_min, rec.lo_min), max(self.hi_max, rec.hi_max)
        else:
            self.lo_min, self.hi_max = rec.lo_min, rec.hi_max
        self.recs.append(rec)
        if self.kept:
            self._index(rec)
        elif len(self.recs) > self.small:
            for r in self.recs:
                self._index(r)

    def candidates(self, rec: Record, vc: np.ndarray) -> list:
        """The records of the group `Machine._check_pair` must see, for an access `rec`."""
        if not self.kept:
            return [r for r in self.recs if r.hi_max > rec.lo_min and rec.hi_max > r.lo_min]
        rid = self.first_bad(rec, vc)
        if rid is None:
            return []
        k = bisect.bisect_left(self.recs, rid, key=lambda r: r.id)
        return [self.recs[k]]

    def _index(self, rec: Record) -> None:
        keys = list(zip(rec.tids.tolist(), rec.lo.tolist(), rec.hi.tolist(), rec.clk.tolist()))
        seen = self.seen
        if seen.isdisjoint(keys):
            sel, mine = slice(None), keys
        else:
            new = [k not in seen for k in keys]
            mine = [k for k, m in zip(keys, new) if m]
            sel = np.flatnonzero(new)
        seen.update(mine)
        self.kept[rec.id] = mine
        if not mine:
            return
        lo, hi = rec.lo[sel], rec.hi[sel]
        order = np.argsort(lo, kind="stable")
        n = len(order)
        self.runs.append([lo[order], hi[order], rec.tids[sel][order], rec.clk[sel][order],
                          np.full(n, rec.id, dtype=np.int64), max(int((hi - lo).max()), 0)])
        runs = self.runs
        while len(runs) > 1 and len(runs[-2][0]) <= 2 * len(runs[-1][0]):
            b, a = runs.pop(), runs.pop()
            cat = [np.concatenate((x, y)) for x, y in zip(a[:5], b[:5])]
            order = np.argsort(cat[0], kind="stable")
            runs.append([c[order] for c in cat] + [max(a[5], b[5])])

    def remove(self, rids: list) -> None:
        gone = set(rids)
        self.recs = [r for r in self.recs if r.id not in gone]
        if self.recs:
            self.lo_min = min(r.lo_min for r in self.recs)
            self.hi_max = max(r.hi_max for r in self.recs)
        if not self.kept:
            return
        if len(self.recs) <= self.small:
            self.runs, self.seen, self.kept = [], set(), {}
            return
        for rid in rids:
            for k in self.kept.pop(rid, ()):
                self.seen.discard(k)
        gone_ids = np.asarray(rids, dtype=np.int64)
        runs = []
        for run in self.runs:
            drop = np.isin(run[4], gone_ids)
            if drop.all():
                continue
            if drop.any():
                run = [c[~drop] for c in run[:5]] + [run[5]]
            runs.append(run)
        self.runs = runs

    def first_bad(self, rec: Record, vc: np.ndarray) -> int | None:
        """The smallest record id with an interval that overlaps `rec` on another thread whose
        access `rec`'s thread has not synchronized with (Machine._check_pair's test), or None."""
        a, b, u = rec.lo, rec.hi, rec.tids
        for lo, hi, tid, clk, rid, maxlen in self.runs:   # oldest ids first
            s = np.searchsorted(lo, a - maxlen, side="right")
            cnt = np.searchsorted(lo, b, side="left") - s
            np.maximum(cnt, 0, out=cnt)
            tot = int(cnt.sum())
            if tot == 0:
                continue
            i = np.repeat(np.arange(len(a)), cnt)
            j = np.arange(tot) + np.repeat(s - (np.cumsum(cnt) - cnt), cnt)
            tj, ui = tid[j], u[i]
            bad = (hi[j] > a[i]) & (ui != tj) & (vc[ui, tj] < clk[j])
            if bad.any():
                return int(rid[j[bad]].min())
        return None


def _uses(body, names) -> bool:
    for s in body:
        if isinstance(s, POp) and s.name in names:
            return True
        if isinstance(s, PLoop) and _uses(s.body, names) or \
                isinstance(s, PIf) and (_uses(s.then, names) or _uses(s.other, names)):
            return True
    return False


class Machine:
    def __init__(self, program: Program, max_steps: int = 2_000_000, max_threads: int = 1024,
                 block: dict | None = None, accelerate_above: int = 64, sizes: dict | None = None,
                 accelerate_lines: tuple = ()):
        self.p = program
        self.sizes = sizes or {}    # values of symbolic kernel parameters for this run
        self.accelerate_above = accelerate_above
        self.accelerate_lines = set(accelerate_lines)   # loops that may skip at any trip count
        # line -> (shift, warm, tail) chosen by the induction for those loops (prover/induction.py)
        self.size_geometry = dict(accelerate_lines) if isinstance(accelerate_lines, dict) else {}
        self.block = block or {}
        self.T = program.launch.num_threads
        self.max_steps = max_steps
        self.result = RunResult(num_threads=self.T)
        if self.T > max_threads:
            self.result.limit_hit = (f"{self.T} threads per block: more than the {max_threads} "
                                     "the concrete engine (and CUDA) allow")
            return
        T = self.T
        names = [f"{r.name}[{i}]" for r in program.barrier_regions for i in range(r.nbytes // 8)]
        self.NB = len(names)
        # columns T.. are the mbarriers' phase clocks: reading TMA bytes needs the phase acquired
        self.vc = np.zeros((T, T + self.NB), dtype=np.int64)
        self.vc[np.arange(T), np.arange(T)] = 1
        self.fence_vc = np.full((T, T + self.NB), -1, dtype=np.int64)  # knowledge at last proxy fence
        self.mbars = [_Mbar(n, T + self.NB, T) for n in names]
        self.alive = np.ones(T, dtype=bool)
        self.acted = np.zeros(T, dtype=bool)   # touched shared memory or arrived somewhere
        self.committed = {k: np.zeros(T, dtype=np.int64) for k in ("cp.async", "bulk", "wgmma")}
        self.last_wait: dict = {}       # tid -> (span, n) of its latest wait_group (witness)
        self.live: list[Record] = []
        # `live` again, split for the race check: plain records indexed per statement (_Group),
        # the rest (async, collective) scanned one by one
        self.groups: dict = {}          # (span start, via, kind) -> _Group
        self.plain: dict = {}           # record id -> its _Group
        self.other_live: list[Record] = []
        self.async_live: list[Record] = []
        # generic writes retired from `live` but not yet proxy-fenced: an async-proxy read
        # (wgmma, TMA store) of them later still needs a fence.proxy.async
        self.unfenced: list[Record] = []
        self.async_readers = _uses(program.body, ("ptx_wgmma_ss", "ptx_wgmma_rs", "tma_store"))
        self.barriers: dict[int, _BarrierGen] = {}
        self.tasks: list[_Task] = []
        self.next_id = 0
        self.seen_pairs: set = set()
        self.seen_notes: set = set()

    # ------------------------------------------------------------ driver
    def run(self) -> RunResult:
        if self.result.limit_hit:
            return self.result
        env = self.p.launch.base_env(self.block)
        env.update(self.sizes)
        self.tasks = [_Task(np.ones(self.T, dtype=bool), [_Frame(self.p.body)], env)]
        while True:
            task = next((t for t in self.tasks if t.state == "run"), None)
            if task is None:
                parked = [t for t in self.tasks if t.state == "join"]
                if parked:  # nobody can move: stop waiting for reconvergence (never a semantic wait)
                    for t in parked:
                        t.state = "run"
                        t.where.broken = True
                    continue
                break
            try:
                self._step(task)
            except (NotModelled, NotConcrete) as err:   # raised mid-event: stop honestly
                self._note(getattr(err, "reason", str(err)), ir.NO_SPAN)
                self.result.limit_hit = f"stopped: {getattr(err, 'reason', err)}"
            except Exception as err:  # noqa: BLE001 -- a model bug must never become a traceback or "clean"
                self.result.internal_error = f"{type(err).__name__}: {err}"
                break
            if self.result.limit_hit:
                break
            self.tasks = [t for t in self.tasks if t.state != "gone"]
        self._finish()
        return self.result

    def _note(self, reason: str, span: ir.Span) -> None:
        key = (reason, span.line, span.col)
        if key not in self.seen_notes:
            self.seen_notes.add(key)
            self.result.notes.append(Note(reason, span))

    def _step(self, task: _Task) -> None:
        """Run `task` until it blocks, parks at a join, or finishes."""
        res = self.result
        while task.pending and task.state == "run":
            ev, s = task.pending.pop(0)
            self._event(task, ev, s)
        while task.state == "run":
            frames = task.frames
            f = frames[-1]
            if f.idx >= len(f.body):
                if f.loop is not None and f.it + 1 < f.n:
                    f.it += 1
                    if f.plan is not None and f.plan.jump_to is not None:
                        self._maybe_jump(f)
                    f.idx = 0
                    task.env[f.loop.var] = f.start + f.it
                    continue
                frames.pop()
                if f.join is not None and not f.join.broken:
                    self._arrive_join(task, f.join)
                    continue
                if not frames:
                    task.state = "done"
                    self.alive[task.tids] = False
                    self._retire()
                continue
            s = f.body[f.idx]
            f.idx += 1
            res.steps += 1
            if res.steps > self.max_steps:
                res.limit_hit = (f"more than {self.max_steps} statement instances: too large for the "
                                 "concrete engine (raise --max-steps, or use the symbolic engine)")
                return
            if isinstance(s, POp):
                try:
                    events = s.run(task.env, task.tids)
                except (NotModelled, NotConcrete) as err:
                    self._note(getattr(err, "reason", str(err)), s.span)
                    continue
                for k, ev in enumerate(events):
                    self._event(task, ev, s)
                    if task.state != "run":  # blocked mid-operation: resume the rest later
                        task.pending = [(e, s) for e in events[k + 1:]]
                        break
            elif isinstance(s, PLoop):
                if not s.relevant:
                    continue
                try:
                    start, n = s.start(task.env), s.extent(task.env)
                    if isinstance(start, np.ndarray) or isinstance(n, np.ndarray):
                        raise NotConcrete("loop bounds differ between threads")
                except NotConcrete as err:
                    self._note(f"loop bounds: {err.reason}", s.span)
                    self.result.control_lost = True
                    continue
                if n <= 0:
                    continue
                task.env[s.var] = int(start)
                frame = _Frame(s.body, s, int(n), int(start))
                if n > self.accelerate_above or s.span.line in self.accelerate_lines:
                    frame.plan = self._plan(s, int(n), int(start))
                    if frame.plan.jump_to is None:
                        self.result.accelerated.append((s.span, int(n), None, None,
                                                        f"not skipped: {frame.plan.reason}"))
                frames.append(frame)
            elif isinstance(s, PIf):
                if not s.relevant:
                    continue
                self._branch(task, s)
            elif isinstance(s, PLet):
                try:
                    task.env[s.name] = s.value(task.env)
                except NotConcrete:
                    task.env.pop(s.name, None)
            elif isinstance(s, PNote):
                self._note(s.reason, s.span)

    def _plan(self, loop: PLoop, n: int, start: int):
        geometry = self.size_geometry.get(loop.span.line)
        key = (n, start, geometry)
        cache = loop.plan if isinstance(loop.plan, dict) else {}
        if key not in cache:
            try:
                cache[key] = accelerate.plan(loop, n, start, self.p, geometry)
            except Exception as err:  # noqa: BLE001 -- a failed proof only means "no skipping"
                cache[key] = accelerate.Plan(0, 0, None, f"unknown: {type(err).__name__}: {err}")
            loop.plan = cache
        return cache[key]

    def _signature(self):
        mb = tuple((m.pending, m.tx, m.phase % 2, len(m.waiters),
                    tuple(np.unique(m.phase - m.last_phase[m.last_phase >= 0]))) for m in self.mbars)
        pend = tuple(sorted((r.span.start, r.lo_min, r.hi_max, int((r.done == PENDING).sum()),
                             int(self.committed[r.group_kind][r.tids[0]] - r.group[0]))
                            for r in self.async_live))
        live = tuple(sorted((r.kind.value, r.span.start, r.lo_min, r.hi_max) for r in self.live))
        return mb, pend, live

    def _maybe_jump(self, f: _Frame) -> None:
        """At the period boundaries before the jump, compare the synchronization state; when it
        repeats, skip whole periods (engine/accelerate.py states the argument)."""
        plan = f.plan
        if f.it == plan.warm - plan.shift:
            f.sig = self._signature()
        elif f.it == plan.warm:
            if f.sig is not None and f.sig == self._signature():
                self.result.accelerated.append((f.loop.span, f.n, f.start + f.it, f.start + plan.jump_to,
                                                plan.reason))
                f.it = plan.jump_to
            else:
                self.result.accelerated.append((f.loop.span, f.n, None, None,
                                                "not skipped: the state did not repeat after one period"))
            f.plan = None

    def _branch(self, task: _Task, s: PIf) -> None:
        try:
            c = s.cond(task.env)
        except NotConcrete as err:
            self._note(f"branch condition: {err.reason}", s.span)
            self.result.control_lost = True
            return
        if not isinstance(c, np.ndarray):
            body = s.then if c else s.other
            if body:
                task.frames.append(_Frame(body))
            return
        c = c.astype(bool, copy=False)
        m_then, m_else = task.mask & c, task.mask & ~c
        if not m_else.any():
            task.frames.append(_Frame(s.then))
            return
        if not m_then.any():
            if s.other:
                task.frames.append(_Frame(s.other))
            return
        join = _Join()
        other = _Task(m_else, [f.copy() for f in task.frames], dict(task.env))
        other.frames.append(_Frame(s.other, join=join))
        task.mask, task.tids = m_then, np.flatnonzero(m_then)
        task.frames.append(_Frame(s.then, join=join))
        self.tasks.insert(self.tasks.index(task) + 1, other)

    def _arrive_join(self, task: _Task, join: _Join) -> None:
        if join.parked is None:
            join.parked = task
            task.state, task.where = "join", join
            return
        other = join.parked
        join.parked = None
        self._merge_into(task, other)

    def _merge_into(self, task: _Task, other: _Task) -> None:
        for k, v in other.env.items():
            mine = task.env.get(k)
            if mine is None:
                continue
            if isinstance(v, np.ndarray) or isinstance(mine, np.ndarray) or v != mine:
                task.env[k] = np.where(other.mask, v, mine)
        task.mask = task.mask | other.mask
        task.tids = np.flatnonzero(task.mask)
        other.state = "gone"

    # ------------------------------------------------------------ events
    def _event(self, task: _Task, ev, s: POp) -> None:
        if isinstance(ev, Access):
            self._access(task, ev, s)
        elif isinstance(ev, CommitGroup):
            committed = self.committed[ev.kind]
            for r in self.async_live:
                if r.group_kind != ev.kind:
                    continue
                sel = np.isin(r.tids, ev.tids) & (r.group == -1)
                if sel.any():
                    r.group[sel] = committed[r.tids[sel]]
            committed[ev.tids] += 1
        elif isinstance(ev, (MbarInit, MbarFenceInit, MbarArrive, MbarWait)):
            self._mbarrier(task, ev, s)
        elif isinstance(ev, ProxyFence):
            self._proxy_fence(ev.tids)
        elif isinstance(ev, SetDescriptor):
            old = task.env.get(ev.key, 0) if ev.add else 0
            full = np.zeros(self.T, dtype=np.int64)
            if isinstance(old, np.ndarray):
                full[:] = old
            else:
                full[:] = old
            full[ev.tids] = (full[ev.tids] if ev.add else 0) + ev.value
            task.env[ev.key] = full
        elif isinstance(ev, WaitGroup):
            self._wait_group(ev, s)
        elif isinstance(ev, Barrier):
            self._barrier(task, ev, s)
        elif isinstance(ev, WarpSync):
            for w in np.unique(ev.tids // WARP):
                self._sync(ev.tids[ev.tids // WARP == w], np.array([], dtype=np.int64))
        elif isinstance(ev, Unsupported):
            self._note(ev.reason, s.span)

    def _wait_group(self, ev: WaitGroup, s: POp) -> None:
        if ev.kind == "cp.async":
            for tid in ev.tids.tolist():
                self.last_wait[tid] = (s.span, ev.n)
        keep = []
        committed = self.committed[ev.kind]
        for r in self.async_live:
            if r.group_kind != ev.kind:
                keep.append(r)
                continue
            sel = np.isin(r.tids, ev.tids) & (r.done == PENDING) & (r.group >= 0)
            if sel.any():
                issuers = r.tids[sel]
                landed = r.group[sel] < committed[issuers] - ev.n
                idx = np.flatnonzero(sel)[landed]
                if idx.size:
                    r.done[idx] = self.vc[r.tids[idx], r.tids[idx]]
                    if r.wait_span is None:
                        r.wait_span = s.span
            if (r.done == PENDING).any():
                keep.append(r)
        self.async_live = keep

    def _barrier(self, task: _Task, ev: Barrier, s: POp) -> None:
        gen = self.barriers.setdefault(ev.barrier_id, _BarrierGen())
        gen.arrivals.append((task, ev.tids, s.span, ev.arrive_only))
        gen.count += len(ev.tids)
        if not ev.arrive_only:
            task.state = "barrier"
            task.where = (ev.barrier_id, s.span)
        expected = self.T if ev.count is None else ev.count
        if ev.count is not None and (ev.count % WARP or ev.count <= 0):
            self.result.barrier_problems.append(BarrierProblem(
                "warp-multiple", ev.barrier_id, ev.count, [(s.span, ev.tids)], np.array([]), []))
        if gen.count >= expected:
            self._complete_barrier(ev.barrier_id, gen, expected)

    def _complete_barrier(self, bid: int, gen: _BarrierGen, expected: int) -> None:
        del self.barriers[bid]
        spans = {(sp.line, sp.col) for _, _, sp, ao in gen.arrivals if not ao}
        arrivals = [(sp, tids) for _, tids, sp, _ in gen.arrivals]
        if gen.count > expected:
            self.result.barrier_problems.append(BarrierProblem(
                "count", bid, expected, arrivals, np.array([], dtype=np.int64), []))
        elif bid == 0 and len(spans) > 1:
            self.result.barrier_problems.append(BarrierProblem(
                "divergence", bid, expected, arrivals, np.array([], dtype=np.int64), []))
        waiters = [tids for _, tids, _, ao in gen.arrivals if not ao]
        arrivers = [tids for _, tids, _, ao in gen.arrivals if ao]
        self._sync(np.concatenate(waiters) if waiters else np.array([], dtype=np.int64),
                   np.concatenate(arrivers) if arrivers else np.array([], dtype=np.int64))
        released = []
        for task, _, _, ao in gen.arrivals:
            if not ao and task.state == "barrier":
                task.state, task.where = "run", None
                released.append(task)
        self._merge_released(released)   # tasks released at one program position run on as one
        self._retire()

    def _sync(self, waiters: np.ndarray, arrivers: np.ndarray) -> None:
        """Release everyone's knowledge to the waiters; everyone starts a new clock interval."""
        everyone = np.concatenate([waiters, arrivers]).astype(np.int64)
        if everyone.size == 0:
            return
        joined = self.vc[everyone].max(axis=0)
        if waiters.size:
            self.vc[waiters] = joined
        self.vc[everyone, everyone] += 1

    def _retire(self) -> None:
        """Drop records that happen-before every live thread: nothing can race with them now."""
        alive = np.flatnonzero(self.alive)
        if alive.size == 0:
            self._set_live([r for r in self.live if r.done is not None and (r.done == PENDING).any()])
            return
        known = self.vc[alive].min(axis=0)
        keep = []
        for r in self.live:
            when = r.done if r.done is not None else r.clk
            if (when == PENDING).any() or not (known[r.owner] >= when).all():
                keep.append(r)
            elif self.async_readers and r.fence_clk is not None and (r.fence_clk == PENDING).any():
                self.unfenced.append(r)
        self._set_live(keep)

    def _set_live(self, keep: list) -> None:
        """`keep`: the live records that stay, in order; the rest leave the race-check index too."""
        if len(keep) == len(self.live):
            return
        ids = {r.id for r in keep}
        by_group: dict = {}
        for r in self.live:
            if r.id not in ids:
                g = self.plain.pop(r.id, None)
                if g is not None:
                    by_group.setdefault(g, []).append(r.id)
        for g, rids in by_group.items():
            g.remove(rids)
            if not g.recs:
                del self.groups[(g.span_start, g.via, g.kind)]
        self.other_live = [r for r in self.other_live if r.id in ids]
        self.live = keep

    # ------------------------------------------------------------ the race check
    def _access(self, task: _Task, ev: Access, s: POp) -> None:
        if ev.tids.size == 0:
            return
        tids = ev.tids.astype(np.int64, copy=False)
        self.acted[tids] = True
        rec = Record(self.next_id, ev.kind, tids, ev.lo.astype(np.int64), ev.hi.astype(np.int64),
                     self.vc[tids, tids].copy(), s.span, ev.via, ev.buffer, ev.region_base,
                     ev.elem_size, task.loops(), owner=tids, group_kind=ev.group_kind, proxy=ev.proxy,
                     collective=ev.collective)
        self.next_id += 1
        rec.lo_min, rec.hi_max = int(rec.lo.min()), int(rec.hi.max())
        writes = ev.kind in (AccessKind.WRITE, AccessKind.ASYNC_WRITE)
        # The race check of every live record against `rec`, in record order: a pair of
        # statements is reported once, on the first record (oldest) that races. Async and
        # collective records are checked one by one; of each statement's plain records only the
        # oldest that races (found through the index) can be the one reported.
        first = []
        for old in self.other_live:
            if not writes and old.kind in _READS:
                continue
            if old.hi_max <= rec.lo_min or rec.hi_max <= old.lo_min:
                continue
            first.append(old)
        for g in self.groups.values():
            if not writes and g.kind in _READS:
                continue
            if g.hi_max <= rec.lo_min or rec.hi_max <= g.lo_min:
                continue
            if (g.span_start, rec.span.start, g.via, rec.via) in self.seen_pairs:
                continue
            first.extend(g.candidates(rec, self.vc))
        if len(first) > 1:
            first.sort(key=lambda r: r.id)
        for old in first:
            self._check_pair(old, rec)
        if ev.proxy == Proxy.ASYNC:   # async-proxy accesses: every live generic write, one by one
            for old in self.live:
                if not writes and old.kind in _READS:
                    continue
                if old.hi_max <= rec.lo_min or rec.hi_max <= old.lo_min:
                    continue
                if old.proxy == Proxy.GENERIC and old.fence_clk is not None:
                    self._check_proxy(old, rec)
            for old in self.unfenced:
                if old.hi_max > rec.lo_min and rec.hi_max > old.lo_min:
                    self._check_proxy(old, rec)
        if writes:
            self._check_self(rec)
        if ev.proxy == Proxy.GENERIC and writes:
            rec.fence_clk = np.full(len(tids), PENDING, dtype=np.int64)
        if ev.kind in (AccessKind.ASYNC_WRITE, AccessKind.ASYNC_READ):
            rec.done = np.full(len(tids), PENDING, dtype=np.int64)
            rec.group = np.full(len(tids), -1, dtype=np.int64)
            if ev.mbarrier is not None:
                self._tma_deliver(task, rec, ev, s)
            else:
                self.async_live.append(rec)
        self.live.append(rec)
        if rec.done is None and not rec.collective:
            gk = (rec.span.start, rec.via, rec.kind)
            g = self.groups.get(gk)
            if g is None:
                g = self.groups[gk] = _Group(rec.kind, rec.span.start, rec.via)
            g.add(rec)
            self.plain[rec.id] = g
        else:
            self.other_live.append(rec)

    def _check_proxy(self, old: Record, new: Record) -> None:
        """Generic writes read through the async proxy need fence.proxy.async: by the writer
        before the release the reader acquired, or by the reader after acquiring the write."""
        key = ("proxy", old.span.start, new.span.start)
        if key in self.seen_pairs:
            return
        ov = (new.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < new.hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        t_new, t_old = new.tids[rows], old.owner[cols]
        when = old.done[cols] if old.done is not None else old.clk[cols]
        if (when == PENDING).any():
            return  # unordered: the race check reports it
        ordered = (t_new == t_old) | (self.vc[t_new, t_old] >= when)
        writer_fenced = (old.fence_clk[cols] != PENDING) & (self.vc[t_new, t_old] >= old.fence_clk[cols])
        reader_fenced = self.fence_vc[t_new, t_old] >= when
        bad = np.flatnonzero(ordered & ~writer_fenced & ~reader_fenced)
        if bad.size == 0:
            return
        self.seen_pairs.add(key)
        k = bad[0]
        i, j = rows[k], cols[k]
        self.result.proxy_problems.append(ProxyProblem(
            old, new, int(old.tids[j]), int(new.tids[i]), int(max(new.lo[i], old.lo[j])),
            int(min(new.hi[i], old.hi[j]))))

    def _proxy_fence(self, tids: np.ndarray) -> None:
        self.fence_vc[tids] = self.vc[tids]
        self.unfenced = [r for r in self.unfenced if (r.fence_clk == PENDING).any()]
        for r in self.live + self.unfenced:
            if r.fence_clk is None:
                continue
            # covers the thread's generic writes issued before the fence, cp.async still in
            # flight included (TileLang's InjectFenceProxy model; docs/model.md)
            sel = np.isin(r.tids, tids) & (r.fence_clk == PENDING)
            if sel.any():
                r.fence_clk[sel] = self.vc[r.tids[sel], r.tids[sel]]

    # ------------------------------------------------------------ mbarriers
    def _mbar_ids(self, bar: np.ndarray, s: POp) -> int | None:
        ids = np.unique(bar)
        if ids.size != 1 or not 0 <= int(ids[0]) < self.NB:
            self._note("mbarrier index differs between threads or is out of range", s.span)
            return None
        return int(ids[0])

    def _check_init(self, tids: np.ndarray, b: int, s: POp) -> None:
        m = self.mbars[b]
        if m.init is None:
            self.result.mbar_problems.append(MbarProblem(
                "uninitialized", m.name, s.span, tids, {}))
            return
        t0, c0, span0 = m.init
        others = tids[tids != t0]
        if others.size == 0:
            return
        knows = self.vc[others, t0]
        if not (knows >= c0).all():
            self.result.mbar_problems.append(MbarProblem(
                "init-unpublished", m.name, s.span, others[knows < c0],
                {"init_line": span0.line, "init_thread": int(t0)}))
        elif m.fence_clk is None or not (knows >= m.fence_clk).all():
            self.result.mbar_problems.append(MbarProblem(
                "init-unfenced", m.name, s.span, others, {"init_line": span0.line, "init_thread": int(t0)}))

    def _mbarrier(self, task: _Task, ev, s: POp) -> None:
        if isinstance(ev, MbarFenceInit):
            for m in self.mbars:
                if m.init is not None and m.fence_clk is None and np.isin(m.init[0], ev.tids):
                    m.fence_clk = int(self.vc[m.init[0], m.init[0]])
            return
        b = self._mbar_ids(ev.bar, s)
        if b is None:
            return
        m = self.mbars[b]
        if isinstance(ev, MbarInit):
            if m.init is not None:
                self.result.mbar_problems.append(MbarProblem(
                    "reinit", m.name, s.span, ev.tids, {"first_line": m.init[2].line}))
            t0 = int(ev.tids[0])
            m.init, m.count, m.pending, m.fence_clk = (t0, int(self.vc[t0, t0]), s.span), ev.count, ev.count, None
            return
        self._check_init(ev.tids, b, s)
        if isinstance(ev, MbarArrive):
            self._arrive(task, m, b, ev, s)
        else:
            self._wait_parity(task, m, b, ev, s)

    def _arrive(self, task: _Task, m: _Mbar, b: int, ev: MbarArrive, s: POp) -> None:
        self._check_run_ahead(m, b, ev.tids, s)
        m.tx += ev.tx * len(ev.tids)
        m.expected += ev.tx * len(ev.tids)
        if not ev.arrive:
            if m.count is not None and m.pending == 0 and m.tx == 0:
                self._complete_phase(m, b)
            return
        tids = ev.tids
        self.acted[tids] = True
        m.rel_vc = np.maximum(m.rel_vc, self.vc[tids].max(axis=0))
        self.vc[tids, tids] += 1   # later accesses are not covered by this release
        n = len(tids)
        m.arrivals.append((s.span, n))
        if m.count is None:
            return
        while n > 0:
            if m.pending == 0:
                self.result.mbar_problems.append(MbarProblem(
                    "overflow", m.name, s.span, tids,
                    {"count": m.count, "phase_arrivals": [{"line": sp.line, "count": k} for sp, k in m.arrivals],
                     "tx": m.tx, "phase": m.phase}))
                return
            take = min(n, m.pending)
            m.pending -= take
            n -= take
            if m.pending == 0 and m.tx == 0:
                completed = self._complete_phase(m, b)
                if n > 0:
                    self.result.mbar_problems.append(MbarProblem(
                        "overflow", m.name, s.span, tids,
                        {"count": m.count, "arrivals_in_statement": len(tids), "phase": completed,
                         "spill": n}))

    def _check_run_ahead(self, m: _Mbar, b: int, tids: np.ndarray, s: POp) -> None:
        """A thread that arrives or adds expected bytes again must know that the phase its previous
        contribution joined has completed. If it cannot, another schedule puts both into that
        phase: it completes without one of its partners (an early release), or waits for bytes
        issued only after its own waiters move on (a hang)."""
        prev = m.last_phase[tids]
        ahead = (prev >= 0) & (prev < m.phase) & (self.vc[tids, self.T + b] <= prev)
        if ahead.any():
            self.result.mbar_problems.append(MbarProblem(
                "run-ahead", m.name, s.span, tids[ahead],
                {"count": m.count, "phase_of_previous_arrival": int(prev[ahead][0]), "phase": m.phase}))
        m.last_phase[tids] = m.phase

    def _tma_deliver(self, task: _Task, rec: Record, ev: Access, s: POp) -> None:
        b = self._mbar_ids(ev.mbarrier, s)
        if b is None:
            return
        m = self.mbars[b]
        self._check_init(rec.tids, b, s)
        rec.owner = np.full(len(rec.tids), self.T + b, dtype=np.int64)
        rec.mbarrier = b
        nbytes = int((rec.hi - rec.lo).sum())
        m.tx -= nbytes
        m.bytes_in += nbytes
        m.delivered.append(rec)
        if m.count is not None and m.pending == 0 and m.tx == 0:
            self._complete_phase(m, b)

    def _complete_phase(self, m: _Mbar, b: int) -> int:
        phase = m.phase
        vc = m.rel_vc.copy()
        vc[self.T + b] = phase + 1
        m.completed.append(vc)
        if m.bytes_in != m.expected:
            self.result.mbar_problems.append(MbarProblem(
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
        self._merge_released(released)
        self._retire()
        return phase

    def _acquire(self, tids: np.ndarray, m: _Mbar, phase: int, span) -> None:
        if phase >= 0:
            self.vc[tids] = np.maximum(self.vc[tids], m.completed[phase])
        m.observations.append((phase, tids, self.vc[tids, tids].copy(), span))

    def _wait_parity(self, task: _Task, m: _Mbar, b: int, ev: MbarWait, s: POp) -> None:
        ps = np.unique(ev.parity)
        if ps.size != 1:
            self._note("mbarrier wait parity differs between threads of one path", s.span)
            return
        p = int(ps[0])
        # The earliest phase this wait can find the barrier in: phases whose completion the
        # waiter already knows of. A different answer there means a schedule observes a stale phase.
        known = 0
        mine = self.vc[ev.tids]
        while known < len(m.completed) and (mine[:, : self.T] >= m.completed[known][: self.T]).all():
            known += 1
        early = known - 1 if known % 2 != p else known
        if m.phase % 2 != p:     # the phase with parity p has completed: return at once
            observed = m.phase - 1
            self._acquire(ev.tids, m, observed, s.span)
        else:
            observed = m.phase
            task.state, task.where = "mbar", (b, s.span, p)
            m.waiters.append((task, p, s.span))
        if early != observed:
            self.result.mbar_problems.append(MbarProblem(
                "stale-parity", m.name, s.span, ev.tids,
                {"parity": p, "phase_observed": observed, "phase_possible": early,
                 "phases_known_complete": known}))

    def _merge_released(self, released: list) -> None:
        by_key: dict = {}
        for t in released:
            if t.state != "run":
                continue
            k = t.key()
            if k in by_key:
                self._merge_into(by_key[k], t)
            else:
                by_key[k] = t

    def _check_pair(self, old: Record, new: Record) -> None:
        key = (old.span.start, new.span.start, old.via, new.via)
        if key in self.seen_pairs:
            return   # reported already: nothing below has another effect
        ov = (new.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < new.hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        t_new, t_old = new.tids[rows], old.owner[cols]
        known = self.vc[t_new, t_old]
        if old.collective:
            # one operation: ordered once ANY of its threads' waits happens-before the access
            landed = old.done != PENDING
            seen = (self.vc[np.ix_(t_new, old.owner)] >= old.done[None, :]) | \
                (t_new[:, None] == old.owner[None, :])
            ok = (seen & landed[None, :]).any(axis=1)
            pending = ~landed[cols] & ~ok
            ordered = ok
        elif old.done is not None:
            done = old.done[cols]
            pending = done == PENDING
            ordered = ~pending & ((t_new == t_old) | (known >= done))
        else:
            pending = np.zeros(len(rows), dtype=bool)
            ordered = (t_new == t_old) | (known >= old.clk[cols])
        bad = np.flatnonzero(~ordered)
        if bad.size == 0:
            return
        self.seen_pairs.add(key)
        # prefer a witness on two different threads unless the issuer itself read too early
        cross = bad[t_new[bad] != t_old[bad]]
        k = bad[0] if cross.size == 0 else cross[0]
        i, j = rows[k], cols[k]
        lo, hi = max(new.lo[i], old.lo[j]), min(new.hi[i], old.hi[j])
        issuer = int(t_old[k])
        issuer = int(old.tids[cols[k]])
        self.result.races.append(Race(old, new, issuer, int(t_new[k]), int(lo), int(hi),
                                      bool(pending[k]), int(self.committed["cp.async"][issuer]),
                                      self.last_wait.get(issuer)))

    def _check_self(self, rec: Record) -> None:
        """Two threads of one statement instance writing the same bytes."""
        if len(rec.tids) < 2:
            return
        order = np.argsort(rec.lo, kind="stable")
        lo, hi = rec.lo[order], rec.hi[order]
        run_hi = np.maximum.accumulate(hi)
        clash = np.flatnonzero(lo[1:] < run_hi[:-1])
        if clash.size == 0:
            return
        k = clash[0] + 1
        j = int(np.flatnonzero(hi[:k] > lo[k])[0])
        key = (rec.span.start, rec.span.start, rec.via, rec.via)
        if key in self.seen_pairs:
            return
        self.seen_pairs.add(key)
        a, b = order[j], order[k]
        self.result.races.append(Race(rec, rec, int(rec.tids[a]), int(rec.tids[b]),
                                      int(max(lo[j], lo[k])), int(min(hi[j], hi[k])), False))

    # ------------------------------------------------------------ the end of the kernel
    def _finish(self) -> None:
        res = self.result
        if res.limit_hit or res.internal_error:
            return   # the kernel did not run to its end: nothing can be said about the end
        blocked = [t for t in self.tasks if t.state in ("mbar", "barrier")]
        for t in blocked:
            if t.state != "mbar":
                continue
            b, span, p = t.where
            m = self.mbars[b]
            others = [("mbarrier" if o.state == "mbar" else "barrier", o.where[1], o.tids)
                      for o in blocked if o is not t]
            res.stuck.append(StuckWait(m.name, span, t.tids, p, m.phase, m.pending, m.tx, others))
        for b, m in enumerate(self.mbars):
            for phase, tids, clocks, span in m.observations:
                # a waiter that never touches shared memory nor arrives guards nothing: skip it
                keep = self.acted[tids]
                tids, clocks = tids[keep], clocks[keep]
                if tids.size and phase + 1 < len(m.completed):
                    nxt = m.completed[phase + 1]
                    if not (nxt[tids] >= clocks).all():
                        res.mbar_problems.append(MbarProblem(
                            "aliasing", m.name, span, tids[nxt[tids] < clocks],
                            {"phase_observed": phase, "next_phase": phase + 1}))
        for r in self.async_live:
            still = r.done == PENDING
            if still.any():
                res.pending.append(PendingAtExit(r, r.tids[still]))
        for bid, gen in self.barriers.items():
            arrived = np.concatenate([tids for _, tids, _, _ in gen.arrivals])
            missing = np.setdiff1d(np.arange(self.T), arrived)
            where = []
            for t in self.tasks:
                sel = np.intersect1d(t.tids, missing)
                if sel.size:
                    where.append((t.where[1] if t.state == "barrier" and t.where else None, sel))
            res.barrier_problems.append(BarrierProblem(
                "stuck", bid, None, [(sp, tids) for _, tids, sp, _ in gen.arrivals], missing, where))
