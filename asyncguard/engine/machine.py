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
import time
from dataclasses import dataclass, field, replace

import numpy as np

from .. import ir
from ..events import (Access, AccessKind, Barrier, CommitGroup, MbarArrive, MbarFenceInit, MbarInit,
                      MbarWait, Proxy, ProxyFence, SetDescriptor, Unsupported, WaitGroup, WarpSync)
from ..models import NotModelled
from ..models.launch import WARP
from . import accelerate
from .exprs import NotConcrete
from .program import PIf, PLet, PLoop, PNote, POp, Program, PStore
from .taint import Taint, drop_dependent

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
    fence_clk: np.ndarray | None = None  # generic accesses: the thread's clock at its next proxy fence
    landed_fence_clk: np.ndarray | None = None  # cp.async: clock at the first fence after it landed
    mbarrier: int = -1                 # TMA load: barrier id; phase it completed on in `phase`
    phase: int = -1
    collective: bool = False           # wgmma: one operation; a wait by any owner completes it
    tainted: bool = False              # issued after its thread's progress came to rest on an unmodelled op
    same_value: bool = False           # a store of one value in every thread (program.same_in_every_thread)


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


@dataclass
class MbarProblem:
    kind: str          # "uninitialized" | "init-unpublished" | "init-unfenced" | "overflow" |
                       # "stale-parity" | "aliasing" | "lapped" | "tx-mismatch" | "reinit" |
                       # "run-ahead" | "not-a-barrier"
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
class UnwrittenRead:
    """A read of shared bytes that no write reached before it: no write happens-before it, and
    none ran earlier in the executed schedule (an earlier unordered one is a race instead)."""
    record: Record
    thread: int
    lo: int
    hi: int


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
    unwritten_reads: list = field(default_factory=list)
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
        self.observations: list = []  # (phase observed, tids, clocks after the wait, span, watch id)


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
        # columns T.. are the mbarriers' phase clocks: reading TMA bytes needs the phase acquired;
        # the last column is the taint (engine/taint.py): progress resting on an unmodelled op
        self.vc = np.zeros((T, T + self.NB + 1), dtype=np.int64)
        self.vc[np.arange(T), np.arange(T)] = 1
        self.fence_vc = np.full((T, T + self.NB + 1), -1, dtype=np.int64)  # knowledge at last proxy fence
        self.mbars = [_Mbar(n, T + self.NB + 1, T) for n in names]
        self.taint = Taint(program, T + self.NB)
        self.alive = np.ones(T, dtype=bool)
        # Per passed mbarrier wait (a *watch*): which of its threads acted (accessed shared memory,
        # arrived, added expected bytes) before their next wait or block / named barrier.
        # `guard[t]`: thread t's latest watch, -1 after a barrier.
        self.guard = np.full(T, -1, dtype=np.int64)
        self.watch_acted: list = []
        # shared bytes some write (store, cp.async, TMA, any thread) has reached so far
        self.written = np.zeros(0, dtype=bool)
        self.written_prefix = None      # cumulative count of `written`, rebuilt after a write
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
        # generic reads retired from `live` but not yet proxy-fenced: a TMA load over them later
        # needs a fence.proxy.async in between (the reverse direction)
        self.async_writers = _uses(program.body, ("tma_load", "tma_load_multicast", "tma_load_im2col"))
        self.unfenced_reads: list = []
        self.barriers: dict[int, _BarrierGen] = {}
        self.tasks: list[_Task] = []
        self.next_id = 0
        self.seen_pairs: set = set()
        self.seen_notes: set = set()

    # ------------------------------------------------------------ driver
    DEADLINE = "deadline"   # result.limit_hit when `deadline` (time.monotonic()) has passed
    deadline: float | None = None   # set where no alarm signal can stop the run (worker threads)

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
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.result.limit_hit = self.DEADLINE
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
                    self.taint.threads(self, task.tids)   # its effect is skipped
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
            elif isinstance(s, PStore):
                try:
                    s.apply(task.env)
                except NotConcrete as err:
                    self._note(err.reason, s.span)
            elif isinstance(s, PNote):
                self._note(s.reason, s.span)
                self.taint.note(self, task, s)

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
        for k in [k for k in task.env if k not in other.env]:
            del task.env[k]   # unknown for `other`'s threads (a register or let it could not compute)
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
        if waiters:   # what they do next is ordered by this barrier, not guarded by their last mbarrier wait
            self.guard[np.concatenate(waiters)] = -1
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
            elif r.fence_clk is not None and _unfenced(r):
                if r.kind in _READS:
                    self.unfenced_reads.append(r)
                elif self.async_readers:
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
        if ev.mbarrier is not None and np.ndim(ev.mbarrier) and len(np.unique(ev.mbarrier)) > 1:
            # TMA loads of one statement completing on different mbarriers (one per warp or
            # thread): one record per barrier, each completing with its own barrier's phase
            bars = np.asarray(ev.mbarrier)
            for b in np.unique(bars).tolist():
                sel = bars == b
                self._access(task, replace(ev, tids=ev.tids[sel], lo=ev.lo[sel], hi=ev.hi[sel],
                                           mbarrier=bars[sel]), s)
            return
        tids = ev.tids.astype(np.int64, copy=False)
        self._acts(tids)
        rec = Record(self.next_id, ev.kind, tids, ev.lo.astype(np.int64), ev.hi.astype(np.int64),
                     self.vc[tids, tids].copy(), s.span, ev.via, ev.buffer, ev.region_base,
                     ev.elem_size, task.loops(), owner=tids, group_kind=ev.group_kind, proxy=ev.proxy,
                     collective=ev.collective, tainted=bool(self.vc[tids, self.taint.column].any()),
                     same_value=ev.same_value)
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
                if old.proxy == Proxy.GENERIC and old.fence_clk is not None and old.kind not in _READS:
                    self._check_proxy(old, rec)
            for old in self.unfenced:
                if old.hi_max > rec.lo_min and rec.hi_max > old.lo_min:
                    self._check_proxy(old, rec)
        if ev.proxy == Proxy.ASYNC and writes:   # a TMA refill over bytes read through the generic proxy
            for old in self.live + self.unfenced_reads:
                if old.kind == AccessKind.READ and old.proxy == Proxy.GENERIC and old.fence_clk is not None \
                        and old.hi_max > rec.lo_min and rec.hi_max > old.lo_min:
                    self._check_proxy(old, rec, "read-write")
            self.unfenced_reads = [r for r in self.unfenced_reads
                                   if r.hi_max <= rec.lo_min or rec.hi_max <= r.lo_min]
        if writes:
            self._check_self(rec)
            self._mark_written(rec)
        else:
            self._check_written(rec)
        if ev.proxy == Proxy.GENERIC and (writes or self.async_writers):
            rec.fence_clk = np.full(len(tids), PENDING, dtype=np.int64)
            if ev.kind == AccessKind.ASYNC_WRITE:
                rec.landed_fence_clk = np.full(len(tids), PENDING, dtype=np.int64)
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

    def _check_proxy(self, old: Record, new: Record, direction: str = "write-read") -> None:
        """Shared bytes accessed through the generic proxy and then through the async proxy need
        fence.proxy.async between, in both directions (a generic write read by wgmma or a TMA
        store; a generic read overwritten by a TMA load): by the first thread after its access
        and before the release the second acquired, or by the second after acquiring."""
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
        if bad.size == 0 and old.landed_fence_clk is not None:
            # the strict reading: only a fence the writer ran after its cp.async landed counts
            landed = old.landed_fence_clk[cols]
            strict = (landed != PENDING) & (self.vc[t_new, t_old] >= landed)
            bad = np.flatnonzero(ordered & ~strict & ~reader_fenced)
            direction = "in-flight"
            key = ("proxy-in-flight", old.span.start, new.span.start)
            if key in self.seen_pairs:
                return
        if bad.size == 0:
            return
        self.seen_pairs.add(key)
        k = bad[0]
        i, j = rows[k], cols[k]
        self.result.proxy_problems.append(ProxyProblem(
            old, new, int(old.tids[j]), int(new.tids[i]), int(max(new.lo[i], old.lo[j])),
            int(min(new.hi[i], old.hi[j])), direction))

    def _proxy_fence(self, tids: np.ndarray) -> None:
        self.fence_vc[tids] = self.vc[tids]
        for r in self.live + self.unfenced + self.unfenced_reads:
            if r.fence_clk is None:
                continue
            # covers the thread's generic accesses issued before the fence, cp.async still in
            # flight included (TileLang's InjectFenceProxy model; docs/model.md); for the strict
            # reading, the first fence after a copy landed is kept apart
            mine = np.isin(r.tids, tids)
            sel = mine & (r.fence_clk == PENDING)
            if sel.any():
                r.fence_clk[sel] = self.vc[r.tids[sel], r.tids[sel]]
            if r.landed_fence_clk is not None:
                sel = mine & (r.landed_fence_clk == PENDING) & (r.done != PENDING)
                if sel.any():
                    r.landed_fence_clk[sel] = self.vc[r.tids[sel], r.tids[sel]]
        self.unfenced = [r for r in self.unfenced if _unfenced(r)]
        self.unfenced_reads = [r for r in self.unfenced_reads if _unfenced(r)]

    # ------------------------------------------------------------ shared bytes no write reached
    def _mark_written(self, rec: Record) -> None:
        if rec.hi_max <= len(self.written) and self.written[rec.lo_min: rec.hi_max].all():
            return   # the usual case after the first fill: nothing new
        if rec.hi_max > len(self.written):
            grown = np.zeros(max(rec.hi_max, 2 * len(self.written)), dtype=bool)
            grown[: len(self.written)] = self.written
            self.written = grown
        base = rec.lo_min
        diff = np.zeros(rec.hi_max - base + 1, dtype=np.int64)
        np.add.at(diff, rec.lo - base, 1)
        np.add.at(diff, rec.hi - base, -1)
        self.written[base: rec.hi_max] |= np.cumsum(diff[:-1]) > 0
        self.written_prefix = None

    def _check_written(self, rec: Record) -> None:
        """A read some thread of which touches only bytes no write has reached yet. Only whole
        ranges count: an operand footprint that is approximated (wgmma) may include bytes the
        operation does not really read, but not a range of which it reads none."""
        if rec.hi_max <= len(self.written) and self.written[rec.lo_min: rec.hi_max].all():
            return
        if self.written_prefix is None:
            self.written_prefix = np.concatenate(([0], np.cumsum(self.written, dtype=np.int64)))
        pre = self.written_prefix
        n = len(pre) - 1
        lo, hi = np.minimum(rec.lo, n), np.minimum(rec.hi, n)
        none = (pre[hi] - pre[lo] == 0) & (rec.hi > rec.lo)
        if none.any():
            key = ("unwritten", rec.span.start, rec.via)
            if key in self.seen_pairs:
                return
            self.seen_pairs.add(key)
            k = int(np.flatnonzero(none)[0])
            self.result.unwritten_reads.append(
                UnwrittenRead(rec, int(rec.tids[k]), int(rec.lo[k]), int(rec.hi[k])))

    # ------------------------------------------------------------ mbarriers
    def _mbar_ids(self, bar: np.ndarray, s: POp) -> int | None:
        ids = np.unique(bar)
        if ids.size != 1 or not 0 <= int(ids[0]) < self.NB:
            self._note("mbarrier index differs between threads or is out of range", s.span)
            return None
        return int(ids[0])

    def _per_barrier(self, bar, s: POp) -> list | None:
        """Threads of one statement that name different mbarriers (an array indexed by warp or
        by thread): [(barrier id, selection of the event's threads)] in barrier order, each part
        then handled like an event on one barrier. None (and a note) for an index out of range."""
        bar = np.asarray(bar)
        ids = np.unique(bar)
        if ids.size and not (0 <= int(ids[0]) and int(ids[-1]) < self.NB):
            self._note("mbarrier index out of range", s.span)
            return None
        return [(int(b), bar == b) for b in ids.tolist()]

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
        parts = self._per_barrier(ev.bar, s)
        if parts is None:
            self.taint.threads(self, ev.tids)   # the event is skipped
            return
        if len(parts) > 1:
            self._mbarrier_split(task, ev, s, parts)
            return
        b = parts[0][0]
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
            if ev.copies:
                self._track_copies(ev.tids, m, b, s)
            self._arrive(task, m, b, ev, s)
        else:
            self._wait_parity(task, m, b, ev, s)

    def _mbarrier_split(self, task: _Task, ev, s: POp, parts: list) -> None:
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
                self._mbarrier(task, sub, s)
            return
        if not np.array_equal(np.sort(ev.tids), task.tids):
            self._note("mbarrier wait on several barriers by part of a path", s.span)
            return
        tasks = [task]
        for sub in subs[1:]:
            mask = np.zeros(self.T, dtype=bool)
            mask[sub.tids] = True
            other = _Task(mask, [f.copy() for f in task.frames], dict(task.env))
            self.tasks.insert(self.tasks.index(task) + 1, other)
            tasks.append(other)
        mask = np.zeros(self.T, dtype=bool)
        mask[subs[0].tids] = True
        task.mask, task.tids = mask, np.flatnonzero(mask)
        for t, sub in zip(tasks, subs):
            self._mbarrier(t, sub, s)

    def _arrive(self, task: _Task, m: _Mbar, b: int, ev: MbarArrive, s: POp) -> None:
        self._check_run_ahead(m, b, ev.tids, s)
        self._acts(ev.tids)
        m.tx += ev.tx * len(ev.tids)
        m.expected += ev.tx * len(ev.tids)
        if not ev.arrive:
            if m.count is not None and m.pending == 0 and m.tx == 0:
                self._complete_phase(m, b)
            return
        tids = ev.tids
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

    def _track_copies(self, tids: np.ndarray, m: _Mbar, b: int, s: POp) -> None:
        """cp.async.mbarrier.arrive.noinc: every cp.async the threads issued and have not waited
        for completes on the mbarrier phase their arrival joins (like a TMA load's bytes)."""
        keep = []
        for r in self.async_live:
            pending = (r.done == PENDING) if r.group_kind == "cp.async" else np.zeros(len(r.tids), bool)
            mine = pending & np.isin(r.tids, tids)
            if not mine.any():
                keep.append(r)
            elif (mine == pending).all() and pending.all():
                r.owner = np.full(len(r.tids), self.T + b, dtype=np.int64)
                r.group_kind, r.mbarrier = "mbarrier", b
                m.delivered.append(r)
            else:   # a copy only some of whose threads hand over to the mbarrier
                self._note("cp.async tracked by an mbarrier for only some of its threads", s.span)
                self.taint.threads(self, r.tids)
                keep.append(r)
        self.async_live = keep

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
        if isinstance(ev.mbarrier, str):   # the model found no mbarrier where the completion goes
            self.result.mbar_problems.append(MbarProblem(
                "not-a-barrier", ev.mbarrier, s.span, rec.tids, {"operand": ev.mbarrier}))
            return
        b = self._mbar_ids(ev.mbarrier, s)
        if b is None:
            self.taint.records.add(rec.id)   # its completion is not modelled
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
        if self.taint.barriers and self.taint.tainted_barrier(self, m):
            self.vc[tids, self.taint.column] = 1   # an unmodelled op may arrive on it
        watch = len(self.watch_acted)
        self.watch_acted.append(np.zeros(self.T, dtype=bool))
        self.guard[tids] = watch
        m.observations.append((phase, tids, self.vc[tids, tids].copy(), span, watch))

    def _acts(self, tids: np.ndarray) -> None:
        """`tids` access shared memory or contribute to an mbarrier phase: each one's latest
        passed wait guarded something."""
        if not self.watch_acted:
            return
        g = self.guard[tids]
        lo, hi = int(g.min()), int(g.max())
        if lo == hi:
            if lo >= 0:
                self.watch_acted[lo][tids] = True
            return
        for w in np.unique(g[g >= 0]).tolist():
            self.watch_acted[w][tids[g == w]] = True

    def _wait_parity(self, task: _Task, m: _Mbar, b: int, ev: MbarWait, s: POp) -> None:
        ps = np.unique(ev.parity)
        if ps.size != 1:
            self._note("mbarrier wait parity differs between threads of one path", s.span)
            self.taint.threads(self, ev.tids)
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
        """Two threads of one statement instance writing the same bytes. Not when every thread
        stores the same value: whichever write lands last, the bytes hold that value (racecheck
        classes such a write-write overlap as harmless too)."""
        if len(rec.tids) < 2:
            return
        idx = np.arange(len(rec.tids))   # the instance's accesses that can clash
        if rec.same_value:   # threads storing one value into the same element: one write
            _, keep = np.unique(np.stack([rec.lo, rec.hi]), axis=1, return_index=True)
            idx = np.sort(keep)
        lo, hi = rec.lo[idx], rec.hi[idx]
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
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
        a, b = idx[order[j]], idx[order[k]]
        self.result.races.append(Race(rec, rec, int(rec.tids[a]), int(rec.tids[b]),
                                      int(max(lo[j], lo[k])), int(min(hi[j], hi[k])), False))

    # ------------------------------------------------------------ the end of the kernel
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
                self.result.mbar_problems.append(MbarProblem(
                    "aliasing", m.name, span, who[acts], dict(detail, returns_on_phase=phase + 2)))
                who = who[~acts]
            if who.size:
                detail["delay"] = {"threads": who.tolist(), "warps": np.unique(who // WARP).tolist(),
                                   "before_line": span.line}
                self.result.mbar_problems.append(MbarProblem(
                    "lapped", m.name, span, who,
                    dict(detail, blocks_until_phase=phase + 2, that_phase_completes=phase + 2 < done,
                         acts_after_wait=bool(self.watch_acted[watch][who].any()))))

    def _finish(self) -> None:
        self._finish_run()
        drop_dependent(self)   # what rests on an unmodelled operation is not definite

    def _finish_run(self) -> None:
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
            self._lapped_waiters(m)
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
