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

from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..events import Access, AccessKind, Barrier, CommitGroup, Unsupported, WaitGroup, WarpSync
from ..models import NotModelled
from ..models.launch import WARP
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
    done: np.ndarray | None = None     # cp.async: clock at the covering wait, PENDING before
    group: np.ndarray | None = None    # cp.async: group index per thread, -1 while open
    wait_span: ir.Span | None = None   # cp.async: the wait that completed it (first thread)
    lo_min: int = 0
    hi_max: int = 0


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
    notes: list = field(default_factory=list)
    steps: int = 0
    limit_hit: str | None = None
    num_threads: int = 0


# ---------------------------------------------------------------- scheduler state
class _Frame:
    __slots__ = ("body", "idx", "loop", "it", "n", "start", "join")

    def __init__(self, body, loop=None, n=0, start=0, join=None):
        self.body, self.idx, self.loop, self.it, self.n, self.start, self.join = body, 0, loop, 0, n, start, join

    def copy(self):
        f = _Frame(self.body, self.loop, self.n, self.start, self.join)
        f.idx, f.it = self.idx, self.it
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


class _BarrierGen:
    def __init__(self):
        self.arrivals = []      # (task, tids, span, arrive_only)
        self.count = 0


class Machine:
    def __init__(self, program: Program, max_steps: int = 2_000_000, max_threads: int = 1024,
                 block: dict | None = None):
        self.p = program
        self.block = block or {}
        self.T = program.launch.num_threads
        self.max_steps = max_steps
        self.result = RunResult(num_threads=self.T)
        if self.T > max_threads:
            self.result.limit_hit = (f"{self.T} threads per block: more than the {max_threads} "
                                     "the concrete engine (and CUDA) allow")
            return
        T = self.T
        self.vc = np.zeros((T, T), dtype=np.int64)
        self.vc[np.arange(T), np.arange(T)] = 1
        self.alive = np.ones(T, dtype=bool)
        self.committed = np.zeros(T, dtype=np.int64)
        self.last_wait: dict = {}       # tid -> (span, n) of its latest wait_group (witness)
        self.live: list[Record] = []
        self.async_live: list[Record] = []
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
            self._step(task)
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
                    continue
                if n <= 0:
                    continue
                task.env[s.var] = int(start)
                frames.append(_Frame(s.body, s, int(n), int(start)))
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

    def _branch(self, task: _Task, s: PIf) -> None:
        try:
            c = s.cond(task.env)
        except NotConcrete as err:
            self._note(f"branch condition: {err.reason}", s.span)
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
            for r in self.async_live:
                sel = np.isin(r.tids, ev.tids) & (r.group == -1)
                if sel.any():
                    r.group[sel] = self.committed[r.tids[sel]]
            self.committed[ev.tids] += 1
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
        for tid in ev.tids.tolist():
            self.last_wait[tid] = (s.span, ev.n)
        keep = []
        for r in self.async_live:
            sel = np.isin(r.tids, ev.tids) & (r.done == PENDING) & (r.group >= 0)
            if sel.any():
                issuers = r.tids[sel]
                landed = r.group[sel] < self.committed[issuers] - ev.n
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
        # tasks released at the same program position run on as one
        by_key: dict = {}
        for t in released:
            k = t.key()
            if k in by_key:
                self._merge_into(by_key[k], t)
            else:
                by_key[k] = t
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
            self.live = [r for r in self.live if r.done is not None and (r.done == PENDING).any()]
            return
        known = self.vc[alive].min(axis=0)
        keep = []
        for r in self.live:
            when = r.done if r.done is not None else r.clk
            if (when == PENDING).any() or not (known[r.tids] >= when).all():
                keep.append(r)
        self.live = keep

    # ------------------------------------------------------------ the race check
    def _access(self, task: _Task, ev: Access, s: POp) -> None:
        if ev.tids.size == 0:
            return
        tids = ev.tids.astype(np.int64, copy=False)
        rec = Record(self.next_id, ev.kind, tids, ev.lo.astype(np.int64), ev.hi.astype(np.int64),
                     self.vc[tids, tids].copy(), s.span, ev.via, ev.buffer, ev.region_base,
                     ev.elem_size, task.loops())
        self.next_id += 1
        rec.lo_min, rec.hi_max = int(rec.lo.min()), int(rec.hi.max())
        writes = ev.kind != AccessKind.READ
        for old in self.live:
            if old.kind == AccessKind.READ and not writes:
                continue
            if old.hi_max <= rec.lo_min or rec.hi_max <= old.lo_min:
                continue
            self._check_pair(old, rec)
        if writes:
            self._check_self(rec)
        if ev.kind == AccessKind.ASYNC_WRITE:
            rec.done = np.full(len(tids), PENDING, dtype=np.int64)
            rec.group = np.full(len(tids), -1, dtype=np.int64)
            self.async_live.append(rec)
        self.live.append(rec)

    def _check_pair(self, old: Record, new: Record) -> None:
        ov = (new.lo[:, None] < old.hi[None, :]) & (old.lo[None, :] < new.hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        t_new, t_old = new.tids[rows], old.tids[cols]
        known = self.vc[t_new, t_old]
        if old.done is not None:
            done = old.done[cols]
            pending = done == PENDING
            ordered = ~pending & ((t_new == t_old) | (known >= done))
        else:
            pending = np.zeros(len(rows), dtype=bool)
            ordered = (t_new == t_old) | (known >= old.clk[cols])
        bad = np.flatnonzero(~ordered)
        if bad.size == 0:
            return
        key = (old.span.start, new.span.start, old.via, new.via)
        if key in self.seen_pairs:
            return
        self.seen_pairs.add(key)
        # prefer a witness on two different threads unless the issuer itself read too early
        cross = bad[t_new[bad] != t_old[bad]]
        k = bad[0] if cross.size == 0 else cross[0]
        i, j = rows[k], cols[k]
        lo, hi = max(new.lo[i], old.lo[j]), min(new.hi[i], old.hi[j])
        issuer = int(t_old[k])
        self.result.races.append(Race(old, new, issuer, int(t_new[k]), int(lo), int(hi),
                                      bool(pending[k]), int(self.committed[issuer]),
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
