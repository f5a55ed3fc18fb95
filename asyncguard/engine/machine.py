"""The concrete abstract machine: executes a Program for one block, every thread at once.

Threads that run the same path form a *task* (a mask of thread ids, a program position, an
environment); a branch on thread ids forks a task, and tasks that meet again merge. Each
statement instance runs once per task, vectorised over its threads with numpy.

Happens-before is a vector clock per thread (`vc[t, u]`: the newest clock of thread u that
thread t has synchronized with). Every shared access becomes a `Record` that stays *live*
until it happens-before every live thread; a new access is compared with the live records
whose bytes it overlaps. A cp.async record is a write that lands at the issuer's covering
`wait_group`: until then any access to its bytes races with it (see docs/model.md).

This module is the scheduler: tasks, frames, branches, joins, loops, stepping, the vector clocks
and the run's end. What each hardware feature adds (its state, its events, the raw facts its
checks read) lives in `engine/state/`, one module per feature; `FEATURES` lists them and
`Machine._event` hands each event to the feature that owns its class (engine/state/__init__.py
says how to add one).
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..events import Access, LoopBreak, SetDescriptor, ThreadReturn, Unsupported
from ..models import NotModelled, interned
from ..models.clc import CLC_STATE, ClcState
from ..models.mbarrier import CARVED, CARVED_SCOPE
from . import accelerate
from .exprs import HardwareData, NotConcrete
from .nodes import (PIf, PLet, PLoop, PNote, POp, Program, PStore, PWhile, arm_lines, loop_synchronizes, register_key,
                    statements)
# The facts the checks read (Race, Record, the *Problem classes, ...) are defined with the
# feature that produces them and stay importable from here, where the checks import them.
from .state.barriers import BarrierProblem, Barriers  # noqa: F401
from .state.cluster import Cluster, ExitProblem  # noqa: F401
from .state.cp_async import AsyncGroups, PendingAtExit  # noqa: F401
from .state.mbarrier import CarvedBarriers, Mbarriers, MbarProblem, StuckWait, mbarrier_names  # noqa: F401
from .state.memory import PENDING, Memory, Race, Record, UnwrittenRead, _Group, thread_rows  # noqa: F401
from .state.proxy import Proxies, ProxyProblem  # noqa: F401
from .state.tcgen05 import FenceProblem, TensorMemoryFences  # noqa: F401
from .inputs import numbers_enumerated
from .taint import Taint, drop_dependent

# the events the scheduler handles itself (every other event class belongs to one feature)
SCHEDULER_EVENTS = (SetDescriptor, Unsupported, LoopBreak, ThreadReturn)
# The hardware features, as (attribute of the machine, state class): each owns its state and the
# events named in its class's EVENTS (engine/state/__init__.py). Built in this order.
FEATURES = (
    ("cluster", Cluster),        # the CTAs of a cluster: layout, cluster barrier, exit check
    ("memory", Memory),          # shared-memory records, races, unwritten reads
    ("cp_async", AsyncGroups),   # cp.async / bulk / wgmma groups
    ("barriers", Barriers),      # block and named barriers, warp syncs
    ("mbarrier", Mbarriers),     # mbarriers, TMA completion
    ("proxy", Proxies),          # generic / async proxy fences
    ("tcgen05", TensorMemoryFences),   # tcgen05 fences around the synchronization of tensor memory
)


# The key, in a PLoop's plan cache, saying that a skip of the loop was thrown away: a run of the
# program stopped because the loop skipped while another did not (Machine._stop_if_mixed)
THROWN_AWAY = "thrown away"
SETTLING_THROWN_AWAY = "settling thrown away"   # the plans that compare from the first iteration

# The most threads one machine runs (every CTA of a cluster together): its vector clocks are a
# square matrix of that many rows (2048: 32 MiB per clock matrix)
MAX_MACHINE_THREADS = 2048
# The most mbarriers one machine tracks: each is a clock column and per-thread state. A CTA's
# shared memory (at most 228 KiB) holds fewer than 32,768; a kernel declaring more (a corrupted
# or mistyped extent) is not run, rather than exhausting the memory of the checking machine
MAX_MBARRIERS = 1 << 15
# mbarrier problems (state/mbarrier.py MbarProblem kinds) a run decides only at its end: a lapped
# waiter's hang, and a cp.async arrive no completing arrival follows
END_DECIDED_MBAR = frozenset(("lapped", "increment-unordered"))


# ---------------------------------------------------------------- results the checks read
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
    tcgen05_fence_problems: list = field(default_factory=list)
    mbar_problems: list = field(default_factory=list)
    unwritten_reads: list = field(default_factory=list)
    stuck: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    assumed: list = field(default_factory=list)   # Notes of the assumptions reached (PNote.assumed)
    blind_taken: list = field(default_factory=list)  # scope lines of the arms `_branch` ran blind
    blind_arms: list = field(default_factory=list)   # program.arm_lines of each: a read there may never run
    steps: int = 0
    limit_hit: str | None = None
    internal_error: str | None = None
    accelerated: list = field(default_factory=list)   # (loop span, trips, skipped from, to, how)
    # loops' skips disagreed (one skipped, another beside it did not or skipped another count):
    # this run is not the kernel's, and analyze.py runs the block again without skipping
    skips_mixed: bool = False
    # spans of loops that ran every iteration but neither wait nor release anybody
    # (program.synchronizes): their outcome cannot make skips disagree
    sync_free: set = field(default_factory=set)
    # span of a loop that ran every iteration -> spans of the relevant loops inside it: a loop
    # holding one that skipped (a tile loop with a `T.loop_break` around its K loops) does not
    # disagree with it (skip_outcomes)
    holds: dict = field(default_factory=dict)
    # spans of loops that skipped while another live task, at no loop beside them and not frozen
    # through the compared period, ran: threads that may have followed the skipped periods
    # outside a matched loop (Machine._maybe_jump); only such a skip makes outcomes disagree
    loose: set = field(default_factory=set)
    control_lost: bool = False   # a branch or loop bound could not be evaluated: paths were skipped
    # the run stopped at an undefined operation (`trapped`): no thread runs on
    halted: bool = False
    # every control lost was a thread stopped at hardware data (a CLC response decided a branch:
    # Machine._lose_control): what ran is a prefix of a real execution (RunResult.prefix)
    halted_exact: bool = False
    # the run stopped at an operation the PTX ISA leaves undefined (a warp whose lanes name
    # different named barriers, engine/state/barriers.py): why, for the scope line
    trapped: str | None = None
    num_threads: int = 0
    cluster_exits: list = field(default_factory=list)   # state/cluster.py ExitProblem
    cluster_starts: list = field(default_factory=list)  # state/cluster.py StartProblem
    cta_threads: int = 0          # threads per CTA (num_threads counts every CTA of a cluster)
    # line of a tcgen05.commit / cp.async.mbarrier.arrive -> (its mbarrier, the instruction, the
    # issuing threads first seen): their arrivals release the threads' copies only, so a race on
    # the threads' other accesses says so (checks/shared_race.py)
    system_arrivals: dict = field(default_factory=dict)

    def skip_outcomes(self, leave_out=(), skipping=frozenset()) -> list:
        """Whether each loop outcome skipped, of the loops whose outcome counts: not those that
        ran every iteration without waiting for or releasing anybody (`sync_free`), nor the
        loops at the lines `leave_out`, nor a loop that ran every iteration around one that
        skipped: each of its iterations ran the inner loops' skips exactly, and a loop beside it
        (other threads) that skipped was refused, its frame saying it skipped nothing
        (Machine._skips_apart, Machine._skip_decided). `skipping`: spans of loops about to skip
        (a run in progress: a loop beside one that skipped has yet to reach its boundary)."""
        skipped = {span for span, _, a, _, _ in self.accelerated if a is not None} | skipping
        return [a is not None for span, _, a, _, _ in self.accelerated
                if (a is not None or span not in self.sync_free and not self.holds.get(span, set()) & skipped)
                and span.line not in leave_out]

    def skips_disagree(self, leave_out=(), skipping=frozenset()) -> bool:
        """One loop skipped periods while another that may block or release threads did not
        (the loops at the lines `leave_out` aside), and some skip taken was `loose`. A skip every
        other thread met in a matched loop beside it or frozen is the kernel's whatever other
        loops do: their own skips are matched when they run together (Machine._skips_apart,
        _skip_decided). (A loop about to skip, in `skipping`, counts as skipping; whether its
        skip is loose is known when it is taken, and the machine asks again then.)"""
        taken = self.skip_outcomes(leave_out, skipping)
        return any(taken) and not all(taken) and any(s.line not in leave_out for s in self.loose)

    def prefix(self) -> "RunResult":
        """The facts of a run stopped at hardware data (`halted_exact`) that its prefix decides:
        races, proxy and tcgen05 fence problems, and the mbarrier problems found when an
        operation ran. Those that rest on how the run ended (operations pending at exit, hangs,
        barriers never completed, reads no write reached, cluster peers, a lapped waiter that
        never wakes, an increment no arrival follows) are left out: the run did not end there."""
        return dataclasses.replace(
            self, pending=[], stuck=[], barrier_problems=[], unwritten_reads=[], cluster_exits=[],
            cluster_starts=[], mbar_problems=[p for p in self.mbar_problems if p.kind not in END_DECIDED_MBAR])

    def mixed(self) -> bool:
        """The run is not the kernel's: its skips disagreed (analyze.py runs it again without
        skipping), or the machine stopped it for that."""
        return self.skips_mixed or self.skips_disagree()


# ---------------------------------------------------------------- scheduler state
class _Frame:
    __slots__ = ("body", "idx", "loop", "it", "n", "start", "join", "plan", "history", "ready", "skipped",
                 "peers", "entered", "skip_no", "frozen_by")

    def __init__(self, body, loop=None, n=0, start=0, join=None):
        self.body, self.idx, self.loop, self.it, self.n, self.start, self.join = body, 0, loop, 0, n, start, join
        self.plan = None
        self.history = None    # ((iteration, synchronization state, peers), ...) at compared boundaries
        self.ready = None      # the period its state repeats with, while it waits for loops beside it
        # a loop's skipping outcome once decided: the iterations it skipped (0: it runs them all);
        # None while a plan may still skip (or for a frame that is no loop)
        self.skipped = None
        self.peers = None      # {id(task): (task, its steps, its threads)} of the other tasks at the first boundary
        self.entered = 0       # Machine.skips_taken when the loop was entered
        self.skip_no = 0       # Machine.skips_taken after this loop skipped
        self.frozen_by = frozenset()   # ids of loop frames that skipped while this one's task was frozen

    def copy(self):
        f = _Frame(self.body, self.loop, self.n, self.start, self.join)
        f.idx, f.it, f.plan, f.history, f.skipped = self.idx, self.it, self.plan, self.history, self.skipped
        f.ready = self.ready
        f.peers, f.entered, f.skip_no, f.frozen_by = self.peers, self.entered, self.skip_no, self.frozen_by
        return f


class _Join:
    __slots__ = ("parked", "broken")

    def __init__(self):
        self.parked, self.broken = None, False


class _Task:
    __slots__ = ("mask", "tids", "frames", "env", "state", "where", "pending", "cta", "steps", "quiesced")

    def __init__(self, mask, frames, env, cta: int = 0):
        self.mask, self.frames, self.env, self.state, self.where = mask, frames, env, "run", None
        self.tids = interned(np.flatnonzero(mask))
        self.pending = []   # events of a multi-step operation left after a blocking barrier
        self.cta = cta      # cluster rank of its threads: a task never spans CTAs
        self.steps = 0      # statements it ran: a task whose count stands still did nothing
        self.quiesced = None   # (loop frame, iteration): the boundary it last let the others run at

    def key(self):
        if self.pending:
            return (id(self),)  # mid-operation: never merged
        return (self.cta,) + tuple((id(f.body), f.idx, f.it, id(f.join)) for f in self.frames)

    def loops(self) -> dict:
        return {f.loop.var: f.start + f.it for f in self.frames if f.loop is not None}


def _assign(task: _Task, s) -> str | None:
    """Run let or register store `s` for `task`; why a store's value is unknown (None: known).
    A let with no value is dropped, so a later use of it is reported where it decides something."""
    try:
        if isinstance(s, PLet):
            task.env[s.name] = s.value(task.env, task.tids) if s.lanes else s.value(task.env)
        else:
            s.apply(task.env)
    except NotConcrete as err:
        if isinstance(s, PLet):
            task.env.pop(s.name, None)
            return None
        return err.reason
    return None


def _registers_only(stmts) -> bool:
    """Statements that store registers and bind lets alone (branches and loops of them included):
    no memory access, synchronization or unmodelled operation."""
    return bool(stmts) and all(
        isinstance(st, (PStore, PLet)) or
        isinstance(st, PIf) and not isinstance(st, PWhile) and _registers_only_or_empty(st.then) and
        _registers_only_or_empty(st.other) or
        isinstance(st, PLoop) and _registers_only_or_empty(st.body) for st in stmts)


def _registers_only_or_empty(stmts) -> bool:
    return not stmts or _registers_only(stmts)


class Machine:
    # a subclass may swap a feature's class (the gate's reference turns the pair checks off)
    FEATURES = FEATURES
    def __init__(self, program: Program, max_steps: int = 2_000_000, max_threads: int = 1024,
                 block: dict | None = None, accelerate_above: int = 64, sizes: dict | None = None,
                 accelerate_lines: tuple = (), settle: bool = True, plan_fixed: bool = True,
                 strict: frozenset = frozenset()):
        self.p = program
        # the opt-in readings (`--strict`) a feature's state consults (state/proxy.py: "proxy")
        self.strict = frozenset(strict)
        # with symbolic sizes, loops of constant bounds are planned like in any kernel (`_long`);
        # False: as before that (analyze.py's fallback when their skips disagreed), and
        # `fixed_planned` says whether one was
        self.plan_fixed, self.fixed_planned = plan_fixed, False
        # loops inside a while loop compare their state from the end of their first iteration on
        # (accelerate.plan's `settles`); False: from the end of their second period, as others
        self.settle = settle
        self.settled = False   # a loop of this run was planned so (analyze.py's fallback)
        self.sizes = sizes or {}    # values of symbolic kernel parameters for this run
        self.accelerate_above = accelerate_above
        self.accelerate_lines = set(accelerate_lines)   # loops that may skip at any trip count
        # line -> (shift, warm, tail) chosen by the induction for those loops (prover/induction.py)
        self.size_geometry = dict(accelerate_lines) if isinstance(accelerate_lines, dict) else {}
        self.block = block or {}
        self.inner_loops: dict = {}   # id(PLoop) -> whether relevant loops run inside it (_tile)
        self.counted_whiles: dict = {}   # id(PWhile) -> accelerate.CountedWhile or None (_counted)
        # ids of the loops inside a while loop (`_in_while`; they compare from their first
        # iteration: settling plans)
        self.while_loops = {id(x) for w in statements(program.body) if isinstance(w, PWhile)
                            for x in statements(w.then) if isinstance(x, PLoop)}
        # every CTA of a cluster runs in this machine (state/cluster.py); Tc threads per CTA
        self.T, self.Tc = program.launch.machine_threads, program.launch.num_threads
        self.max_steps = max_steps
        self.result = RunResult(num_threads=self.T, cta_threads=self.Tc)
        self.features: list = []
        self.handlers: dict = {}    # event class -> the handler of the feature that owns it
        self.seen_notes: set = set()    # (before any early return: the caller adds notes)
        if self.Tc > max_threads:
            self.result.limit_hit = (f"{self.Tc} threads per block: more than the {max_threads} "
                                     "the concrete engine (and CUDA) allow")
            return
        if self.T > MAX_MACHINE_THREADS:
            self.result.limit_hit = (f"a cluster of {program.launch.cluster_size} CTAs of {self.Tc} threads: "
                                     f"more than the {MAX_MACHINE_THREADS} threads the concrete engine "
                                     "runs together")
            return
        T = self.T
        barriers = sum(r.nbytes // 8 for r in program.barrier_regions) * program.launch.cluster_size
        if barriers > MAX_MBARRIERS:
            self.result.limit_hit = (f"{barriers:,} mbarriers declared: more than the {MAX_MBARRIERS:,} that "
                                     "fit in shared memory; not run")
            return
        self.NB = len(mbarrier_names(program))
        # columns T.. are the mbarriers' phase clocks: reading TMA bytes needs the phase acquired;
        # the last column is the taint (engine/taint.py): progress resting on an unmodelled op
        # int32 clocks (half the bytes every barrier's row max and retirement's row min read): a
        # thread's clock moves once per synchronization it takes part in, a few per statement
        # instance at most, so below 2^24 steps it stays far from 2^31
        self.vc = np.zeros((T, T + self.NB + 1), dtype=np.int32 if max_steps < 1 << 24 else np.int64)
        self.vc[np.arange(T), np.arange(T)] = 1
        self.taint = Taint(program, T + self.NB)
        self.alive = np.ones(T, dtype=bool)
        self.tasks: list[_Task] = []
        self.seen_pairs: set = set()    # (statement, statement, ...) pairs reported already
        self.handlers.update({SetDescriptor: self._set_descriptor, Unsupported: self._unsupported,
                              LoopBreak: self._loop_break, ThreadReturn: self._thread_return})   # SCHEDULER_EVENTS
        for attr, cls in self.FEATURES:
            feature = cls(self)
            setattr(self, attr, feature)
            self.features.append(feature)
            for event, method in cls.EVENTS.items():
                self.handlers[event] = getattr(feature, method)
        self.mbars = self.mbarrier.mbars

    @property
    def async_live(self) -> list:
        """The async records a wait_group has not completed yet (state/cp_async.py)."""
        return self.cp_async.live

    @property
    def live(self) -> list:
        """Every live access record (state/memory.py)."""
        return list(self.memory.live.values())

    # ------------------------------------------------------------ driver
    DEADLINE = "deadline"   # result.limit_hit when `deadline` (time.monotonic()) has passed
    deadline: float | None = None   # set where no alarm signal can stop the run (worker threads)

    # analyze.py's in-run stop (Limits.stop_at_race): asked with the machine each time the run
    # has recorded more races; True ends the run there, without its end-of-run checks
    on_race = None
    stopped_at_race = False
    # moves whenever what a plain shared read would meet may have changed: every event but such
    # a read, every sync, retirement, taint and loop skip (Memory._read_key)
    epoch = 0
    _races_asked = 0
    # the redundant lint's shared prefix (repair/prefix.py): `at_stmt(machine, task, s)` is asked
    # before a task runs a statement whose id is in `watched`; True skips it (not run, no step
    # counted: the statement is not in the program)
    watched: frozenset = frozenset()
    at_stmt = None

    def run(self) -> RunResult:
        if self.result.limit_hit:
            return self.result
        self.tasks = []
        self.quiescing = []   # tasks waiting at a compared boundary (_quiesce_first), resumed last first
        self.tiles_decided = {}   # trips -> frames of role loops over tiles that decided (_tile_peers)
        clc = ClcState()   # the run's cluster launch control responses, shared by its CTAs
        pool = next((r for r in self.p.barrier_regions if r.scope == CARVED_SCOPE), None)
        carved = None if pool is None else CarvedBarriers(pool.barrier_base, self.mbarrier.carve)
        for rank in range(self.p.launch.cluster_size):   # one task per CTA of the cluster
            env = self.p.launch.base_env(self.block, rank)
            env.update(self.sizes)
            env[CLC_STATE] = clc
            if carved is not None:
                env[CARVED] = carved
            mask = np.zeros(self.T, dtype=bool)
            mask[self.cluster.threads_of(rank)] = True
            self.tasks.append(_Task(mask, [_Frame(self.p.body)], env, rank))
        return self.resume(None)

    def resume(self, first: "_Task | None") -> RunResult:
        """Run on from here (`run` starts here): `first` (a copy of the machine made while that
        task was between two statements of its step, repair/prefix.py) steps first, as the
        task that was running would have gone on; then the scheduler's own order."""
        while True:
            task, first = (first, None) if first is not None else \
                (next((t for t in self.tasks if t.state == "run"), None), None)
            if task is None:
                while self.quiescing:   # every other task is blocked, parked or done
                    task = self.quiescing.pop()
                    if task.state == self.QUIESCING:
                        task.state = "run"
                        break
                else:
                    task = None
                if task is not None:
                    continue
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
                self.note(getattr(err, "reason", str(err)), ir.NO_SPAN)
                self.result.limit_hit = f"stopped: {getattr(err, 'reason', err)}"
            except Exception as err:  # noqa: BLE001 -- a model bug must never become a traceback or "clean"
                self.result.internal_error = f"{type(err).__name__}: {err}"
                break
            if self.result.limit_hit or self.result.halted:
                break
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.result.limit_hit = self.DEADLINE
                break
            if self.on_race is not None and self._stop_at_race():
                return self.result
            self.tasks = [t for t in self.tasks if t.state != "gone"]
        self._finish()
        return self.result

    def _stop_at_race(self) -> bool:
        """Whether to end the run here: on_race asked once per newly recorded race(s)."""
        if len(self.result.races) > self._races_asked:
            self._races_asked = len(self.result.races)
            self.stopped_at_race = bool(self.on_race(self))
        return self.stopped_at_race

    def note(self, reason: str, span: ir.Span) -> None:
        key = (reason, span.line, span.col)
        if key not in self.seen_notes:
            self.seen_notes.add(key)
            self.result.notes.append(Note(reason, span))

    _note = note

    def assume(self, reason: str, span: ir.Span) -> None:
        """An assumption reached (PNote.assumed): a scope line, or a note if a finding rests on it
        (taint.drop_dependent)."""
        if all((n.reason, n.span) != (reason, span) for n in self.result.assumed):
            self.result.assumed.append(Note(reason, span))

    def _step(self, task: _Task) -> None:
        """Run `task` until it blocks, parks at a join, or finishes."""
        res = self.result
        watched = self.watched
        while task.pending and task.state == "run":
            ev, s = task.pending.pop(0)
            self._event(task, ev, s)
        while task.state == "run" and not res.limit_hit and not res.halted:
            if self.on_race is not None and self._stop_at_race():
                return   # a task runs until it blocks: in a uniform kernel, the whole kernel
            frames = task.frames
            f = frames[-1]
            if f.idx >= len(f.body):
                if f.loop is not None and f.it + 1 < f.n:
                    if f.plan is not None and f.plan.jump_to is not None and self._quiesce_first(task, f):
                        return   # the other tasks run first: the state is compared once they cannot
                    f.it += 1
                    if f.plan is not None and f.plan.jump_to is not None:
                        self.running = task
                        self._maybe_jump(f)
                    f.idx = 0
                    task.env[f.loop.var] = f.start + f.it
                    continue
                frames.pop()
                if f.loop is not None and f.loop.cut is not None and f.n < f.loop.cut:
                    # a loop cut short for a size (loop_sizes.py `_clc_sizes`) ran out: the kernel's
                    # own loop would have gone on
                    self.note(f"the loop at line {f.loop.span.line} ran all {f.n} iterations it was "
                              f"cut to (of {f.loop.cut}) without leaving on a cluster launch control "
                              "response", f.loop.span)
                    self._lose_control(task, HardwareData("cut loop", f.loop.span))
                    continue
                if f.join is not None and not f.join.broken:
                    self._arrive_join(task, f.join)
                    continue
                if not frames:
                    task.state = "done"
                    self.alive[task.tids] = False
                    self.retire()
                    self.cluster.phase_check()   # exited threads no longer hold the cluster barrier
                continue
            s = f.body[f.idx]
            if watched and id(s) in watched and self.at_stmt(self, task, s):
                f.idx += 1      # a statement not in the program (repair/prefix.py)
                continue
            f.idx += 1
            res.steps += 1
            task.steps += 1
            if res.steps > self.max_steps:
                res.limit_hit = (f"more than {self.max_steps} statement instances: too large for the "
                                 "concrete engine (raise --max-steps, or use the symbolic engine)")
                return
            if isinstance(s, POp):
                try:
                    events = s.run(task.env, task.tids)
                except (NotModelled, NotConcrete) as err:
                    self.note(getattr(err, "reason", str(err)), s.span)
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
                    self.note(f"loop bounds: {err.reason}", s.span)
                    self._lose_control(task, err)
                    continue
                if n > 0:
                    self._enter_loop(task, s, int(start), int(n))
            elif isinstance(s, PWhile):   # before PIf, which it extends
                if s.relevant:
                    self._while(task, s)
            elif isinstance(s, PIf):
                if not s.relevant:
                    continue
                self._branch(task, s)
            elif isinstance(s, (PLet, PStore)):
                why = _assign(task, s)
                if why is not None:
                    self.note(why, s.span)
            elif isinstance(s, PNote):
                if s.assumed:
                    self.assume(s.reason, s.span)
                    for region, size in s.clears:   # what the skipped trips loaded: unknown
                        for k in range(size):
                            task.env.pop(register_key(region, k), None)
                else:
                    self.note(s.reason, s.span)
                self.taint.note(self, task, s)

    def _enter_loop(self, task: _Task, s: PLoop, start: int, n: int) -> None:
        """`task` starts for loop `s` of `n` > 0 trips from `start`: its frame, and the loop's
        skip plan when it is long, a tile loop or repeated inside another."""
        frames = task.frames
        task.env[s.var] = int(start)
        frame = _Frame(s.body, s, int(n), int(start))
        frame.entered = self.skips_taken
        in_outer = self._in_outer(s, n, task)
        repeated = self._in_while(s, n) or in_outer
        long = self._long(s, n)
        if long or s.span.line in self.accelerate_lines or self._tile(s, n, task) or repeated:
            self.running = task
            frame.plan = self._plan(s, int(n), int(start), in_outer)
            if frame.plan.jump_to is None and (long or not repeated):
                # (a loop planned only for running inside a while loop or an outer loop
                # that has no plan says nothing: it runs every iteration, as it did unplanned)
                self._not_skipped(frame, frame.plan.reason, task)
        frames.append(frame)
        if frame.plan is None or frame.plan.jump_to is None:
            self._skip_decided(task, frame, 0)

    # A loop that synchronizes (a pipeline's main loop) runs a whole stage per iteration, so it is
    # planned from accelerate_above // SYNC_FACTOR trips (16 by default), not only above
    # accelerate_above: MLA decode's 64-trip loops of two stages each ran every iteration (2 of its
    # 3.9 s). A loop of register and shared accesses alone costs little to run and is not. In a
    # kernel with symbolic sizes this holds for loops of fixed trips too (the induction,
    # prover/induction.py, plans only the size loops; a skip is exact, so a run that skips inside
    # a size loop's iteration is the run the induction compares): the pooled MQA's 32 AllReduce
    # calls per iteration, 6 named barriers each, ran for every trip count
    SYNC_FACTOR = 4

    def _long(self, loop: PLoop, n: int) -> bool:
        """`loop` with `n` trips is planned as a long loop: a skip is tried, and its outcome
        recorded (a loop beside it that skips while this one does not makes the run mixed)."""
        if n > self.accelerate_above:
            return True
        if not (n > self.accelerate_above // self.SYNC_FACTOR and loop_synchronizes(loop)):
            return False
        if self.p.symbols:
            if not self.plan_fixed or not (loop.src and all(isinstance(e, ir.Const) for e in loop.src)):
                return False   # a size loop, or one of bounds a size may reach: the induction's
            self.fixed_planned = True
        return True

    # A loop of few trips whose iterations run inner loops (a persistent kernel's tile loop) costs
    # like a long one: it is planned from accelerate_above // TILE_FACTOR trips (8 by default)
    # when every live thread runs it together, so that no loop runs beside it (a skip must be
    # matched by the loops beside it: `_skips_apart`), in kernels without symbolic sizes
    TILE_FACTOR = 8

    def _tile(self, loop: PLoop, n: int, task: _Task) -> bool:
        """`loop` with `n` trips, run by `task`, is planned as a tile loop (accelerate.plan's
        `tile`)."""
        if not (n * self.TILE_FACTOR >= self.accelerate_above and n <= self.accelerate_above) or self.p.symbols:
            return False   # symbolic sizes: the induction (prover/induction.py) runs the loops it needs
        if self._numbers_searched():
            return False
        return self._holds_loops(loop) and loop.span.line not in self.accelerate_lines and \
            not (self.alive & ~task.mask).any()

    def _holds_loops(self, loop: PLoop) -> bool:
        """Relevant loops run inside `loop` (a tile loop's K loops)."""
        inner = self.inner_loops.get(id(loop))
        if inner is None:
            inner = self.inner_loops[id(loop)] = any(
                isinstance(x, PLoop) and x.relevant for x in statements(loop.body))
        return inner

    def _numbers_searched(self) -> bool:
        """Numbers loaded from memory decide something and the run enumerates them (engine/
        inputs.py): the outcome-pattern search varies the cells the run meets, and a skipped
        iteration's cells would never be met (NSA's 16 selected blocks, a branch each). Not when
        they cannot be enumerated (`problem`): the run then loads no number, and what reads one
        is unknown in every iteration alike; nor when every branch on one was reduced."""
        return numbers_enumerated(self.p)

    def _in_while(self, loop: PLoop, n: int) -> bool:
        """`loop` with `n` trips runs inside a while loop (a persistent kernel's tile loop over a
        register it advances, `while idx < 1024`): it runs once per trip of that loop, which
        may be many, so it is planned from accelerate_above // TILE_FACTOR trips (8 by default)
        like a tile loop, in kernels without symbolic sizes or loaded numbers (`_tile`'s
        reasons). TileLang 0.1.15's block-scaled 2-CTA GEMMs run K loops of 64 stages inside
        their while loops, 14 tiles per cluster."""
        if not (n * self.TILE_FACTOR >= self.accelerate_above and n <= self.accelerate_above) or self.p.symbols:
            return False
        if self._numbers_searched():
            return False
        return id(loop) in self.while_loops and loop.span.line not in self.accelerate_lines

    def _in_outer(self, loop: PLoop, n: int, task: _Task) -> bool:
        """`loop` with `n` trips runs inside outer for loops that have no plan (a persistent
        kernel's tile loop of fewer trips than a tile loop has: TileLang's persistent MLA decode
        runs 4 tiles of two 64-stage loops), and the trips of them all exceed accelerate_above:
        planned from accelerate_above // TILE_FACTOR trips like a loop in a while loop, when it
        synchronizes (a loop of register and shared accesses costs little to run), in kernels
        without symbolic sizes or loaded numbers (`_tile`'s reasons)."""
        if not (n * self.TILE_FACTOR >= self.accelerate_above and n <= self.accelerate_above) or self.p.symbols:
            return False
        trips = n
        for f in task.frames:
            if f.loop is not None:
                if f.plan is not None or f.skipped:
                    return False   # the outer loop's own plan decides what is skipped
                trips *= f.n
        if trips <= self.accelerate_above or loop.span.line in self.accelerate_lines or self._numbers_searched():
            return False
        return loop_synchronizes(loop)

    def _not_skipped(self, f: _Frame, why: str, task: _Task) -> None:
        """Record that `f`'s loop, run by `task`, runs every iteration. A tile loop's is not
        recorded: unplanned, it would have run them all as well, nothing runs beside it, and a
        loop not skipped in a run where others did makes analyze.py run the block again."""
        if not self._tile(f.loop, f.n, task):
            if not loop_synchronizes(f.loop):
                self.result.sync_free.add(f.loop.span)
            if self._holds_loops(f.loop):
                self.result.holds[f.loop.span] = {x.span for x in statements(f.loop.body)
                                                  if isinstance(x, PLoop) and x.relevant}
            self._outcome((f.loop.span, f.n, None, None, f"not skipped: {why}"))

    def _tile_in_vain(self, f: _Frame, task: _Task) -> str | None:
        """Why a tile loop does not skip: a loop of this run (one inside it) already ran every
        iteration, so a skip would only make analyze.py run the block again (None: it may)."""
        if self._tile(f.loop, f.n, task) and not all(self.result.skip_outcomes()):
            return "a loop of this run did not skip"
        return None

    def _plan(self, loop: PLoop, n: int, start: int, in_outer: bool = False):
        """The skip plan of `loop` with `n` trips from `start`, run by `self.running`'s CTA
        (`in_outer`: `_in_outer` holds for it, so it settles as a loop in a while loop does)."""
        geometry = self.size_geometry.get(loop.span.line)
        env = self.running.env if self.running is not None else {}
        block = tuple(sorted((name, int(env[name])) for name in self.p.launch.block_vars
                             if isinstance(env.get(name), (int, np.integer))))
        tile = self.running is not None and self._tile(loop, n, self.running)
        key = (n, start, geometry, block) + (("tile",) if tile else ())
        cache = loop.plan if isinstance(loop.plan, dict) else {}
        if cache.get(THROWN_AWAY) and not self.p.symbols:
            return accelerate.Plan(0, 0, None, "its skip was thrown away in an earlier run (a loop "
                                   "beside it could not skip)")
        settles = self.settle and not tile and not cache.get(SETTLING_THROWN_AWAY) and (
            id(loop) in self.while_loops or in_outer)
        key += (("settles",) if settles else ())
        if key not in cache:
            try:
                cache[key] = accelerate.plan(loop, n, start, self.p, geometry, block, tile, settles)
            except Exception as err:  # noqa: BLE001 -- a failed proof only means "no skipping"
                cache[key] = accelerate.Plan(0, 0, None, f"unknown: {type(err).__name__}: {err}")
            loop.plan = cache
        self.settled = self.settled or cache[key].settle and not tile
        return cache[key]

    def _signature(self):
        return tuple(sig for sig in (f.signature() for f in self.features) if sig is not None)

    # A task at a compared period boundary of its loop (`_maybe_jump`) waits, in this state, until
    # no other task can run: what the others did meanwhile is then decided by where this task is
    # (and the blocked ones), not by which task the scheduler happened to run last. Without it,
    # a 2-CTA cluster's peer producer is caught mid-iteration at one boundary and between
    # iterations at the next (its TMA bytes in flight on the leader's barrier at one, landed at
    # the other) and the state never repeats. The order of the threads' steps is free (the race
    # check follows happens-before, not the schedule); this only picks one.
    QUIESCING = "quiescing"
    HALTED = "halted"   # a task stopped at hardware data (Machine._lose_control): it never runs again

    def _quiesce_first(self, task: _Task, f: _Frame) -> bool:
        """Whether `task`, at the end of `f`'s iteration, should first let every other task run
        until it blocks: the next iteration starts at a compared boundary, and another task can
        run. Once per boundary."""
        if self.p.symbols:
            return False   # the induction chose the boundaries from runs that never waited (prover/sizes.py)
        plan, nxt = f.plan, f.it + 1
        if nxt not in (plan.warm - plan.shift, plan.warm) or task.quiesced is not None and \
                task.quiesced[0] is f and task.quiesced[1] == nxt:
            return False
        if not any(t.state == "run" for t in self.tasks if t is not task):
            return False
        task.quiesced = (f, nxt)   # the frame itself: a later frame may reuse a freed one's id
        task.state = self.QUIESCING
        self.quiescing.append(task)
        return True

    # Role loops over a persistent kernel's tiles (`_tiles_together`) compare the state at a
    # boundary with that at each of up to MAX_PERIODS earlier ones. Their state repeats with the
    # lcm of their bodies' periods, which no one loop's proof sees: Thor's stream-K GEMM runs 102
    # tiles per block, its producer's proof has period 6 (a ring of 6 stages, 128 per tile), its
    # epilogue's 4 (two accumulators, each with a parity), and the kernel's state repeats every 12
    MAX_PERIODS = 6

    def _maybe_jump(self, f: _Frame) -> None:
        """At the period boundaries before the jump, compare the synchronization state; when it
        repeats, and the loops other threads run beside this one skip the same iterations, skip
        whole periods (engine/accelerate.py states the argument). `self.running`: f's task.

        A plan that settles (accelerate.Plan.settle) compares again a shift later while the state
        does not repeat. Role loops over tiles (`_tiles_together`) do too, and compare with every
        earlier boundary: a repeat `j` shifts back is a period of `j * shift` iterations, a
        multiple of the proved one; they skip together (`_waits`, `_count`)."""
        plan = f.plan
        self.epoch += 1
        if f.it == plan.warm - plan.shift:
            f.history = ((f.it, self._signature(), self._peer_steps(self.running)),)
        elif f.it == plan.warm:
            task = self.running
            sig = self._signature()
            together = self._tiles_together(task, f)
            history = f.history or ()
            before = next(((it, peers) for it, old, peers in reversed(history if together else history[-1:])
                           if old == sig), None)
            period = None if before is None else f.it - before[0]
            if before is not None:
                f.peers = before[1]   # the compared period's start (_frozen, _loose)
            # the state repeats one period back and every loop beside it (and every role loop that
            # decided, when f is one) can skip the plan's count: skip it now, as any loop does (a
            # producer and its consumer with one plan)
            plain = period == plan.shift and self._skips_apart(task, f, plan.jump_to - f.it) is None and not (
                together and any(g.skipped not in (None, plan.jump_to - f.it) for g in self._tile_peers(task, f)))
            if not plain and (
                    before is None and (plan.settle or together) and plan.warm + 2 * plan.shift <= plan.jump_to
                    or before is not None and together and self._waits(task, f, period)):
                # compare again a shift later, still inside the proved range
                self.settled = self.settled or together and (before is not None or not plan.settle)
                f.ready = period
                f.history = history[1 - self.MAX_PERIODS:] + ((f.it, sig, self._peer_steps(task)),)
                f.plan = dataclasses.replace(plan, warm=plan.warm + plan.shift)
                return
            if before is None:
                self._not_skipped(f, f"the state did not repeat at {len(history) + 1} boundaries a period "
                                  "apart" if together and history[1:] else
                                  "the state did not repeat after one period", task)
                self._skip_decided(task, f, 0, together)
            else:
                agreed = together and not plain   # the count the role loops agree on (`_count`)
                count, why = self._count(task, f, period) if agreed else (plan.jump_to - f.it, None)
                apart = why or self._skips_apart(task, f, count, agreed) or self._tile_in_vain(f, task) or \
                    self._move_counters(task, plan, count, (f.loop.var, f.start + f.it + count - 1))
                if apart is not None:
                    self._not_skipped(f, apart, task)
                    self._skip_decided(task, f, 0, together)
                else:
                    if self._loose(task, f):
                        self.result.loose.add(f.loop.span)
                    self.settled = self.settled or agreed
                    reason = plan.reason if period == plan.shift else \
                        f"{plan.reason}; the state repeats every {period} iterations"
                    self.result.accelerated.append((f.loop.span, f.n, f.start + f.it,
                                                    f.start + f.it + count, reason))
                    f.it += count
                    if not self.skips_taken:   # what was found before any skip stays true
                        self.found_before_skip = {k: len(getattr(self.result, k)) for k in self.FINDINGS}
                    self.skips_taken += 1
                    f.skip_no = self.skips_taken
                    self.skipped_loops += (f.loop,)
                    for other in self._frozen(task, f):   # its loops never met the skipped periods
                        for g in other.frames:
                            g.frozen_by = g.frozen_by | {id(f)}
                    self._skip_decided(task, f, count, together)
                    self._stop_if_mixed()
            f.plan = None

    def _tiles_together(self, task: _Task, f: _Frame) -> bool:
        """`f` is a role's loop over a persistent kernel's tiles, and so is every loop beside it:
        each the outermost loop its task is in and in no while loop (one instance of it runs
        beside the others, so a skip is matched against the loop that follows the same tiles, not
        a later instance), each holding inner loops, all of the same trip count; in a kernel
        without symbolic sizes (the induction chooses those boundaries, prover/induction.py).
        Like a settling plan's, it is the machine's `settle` choice: a run where such loops did
        not skip alike is run again without it (analyze.py), before it is run without skipping."""
        def role_loop(g: _Frame) -> bool:
            return self._holds_loops(g.loop) and id(g.loop) not in self.while_loops and not (
                isinstance(g.loop.plan, dict) and g.loop.plan.get(SETTLING_THROWN_AWAY))
        if self.p.symbols or not self.settle or not role_loop(f) or \
                next(g for g in task.frames if g.loop is not None) is not f:
            return False
        for _, g in self._beside(task, f):   # (the other's loop at f's depth: its outermost)
            if g is not None and not (g.n == f.n and role_loop(g)):
                return False
        return True

    def _tile_peers(self, task: _Task, f: _Frame) -> list:
        """The loops `f` (`_tiles_together`) must skip as many iterations as: those beside it
        now, and every role loop over tiles of its trip count that decided in this run. A role
        loop may end before another decides (a producer's last tiles run while its consumer is a
        few tiles behind), and its decision must still be matched."""
        peers = [g for _, g in self._beside(task, f) if g is not None]
        return peers + [g for g in self.tiles_decided.get(f.n, ()) if g is not f and all(g is not h for h in peers)]

    def _waits(self, task: _Task, f: _Frame, period: int) -> bool:
        """Whether `f` (`_tiles_together`), whose state repeats every `period`, skips later rather
        than now: a loop beside it has yet to see its state repeat, none has skipped, and a period
        still fits after `f`'s next boundary. The last to be ready then knows how many
        iterations fit in every one (`_count`): a consumer's pipeline may settle a few tiles
        after its producer's and epilogue's."""
        if f.it + f.plan.shift + period > f.plan.jump_to:
            return False
        waiting = False
        for g in self._tile_peers(task, f):
            if g.skipped:
                return False   # match it now (`_count`)
            waiting = waiting or g.skipped is None and g.ready is None and g.plan is not None \
                and g.plan.jump_to is not None
        return waiting

    def _count(self, task: _Task, f: _Frame, period: int) -> tuple[int, str | None]:
        """(the iterations `f` (`_tiles_together`) skips, its state repeating every `period`; why
        none). As many as a loop it must match decided, when that is a whole number of periods
        before f's jump (else none, and `_skip_decided` stops the run); otherwise the whole
        periods, of f and of every loop beside it ready to skip, that fit before f's jump and
        each one's from its next boundary (a loop that then skips fewer stops the run)."""
        most = f.plan.jump_to - f.it
        fits, whole, lag = most, period, None
        for g in self._tile_peers(task, f):
            if g.skipped is not None:
                if g.skipped % period == 0 and g.skipped <= most:
                    return g.skipped, None if g.skipped else \
                        f"the loop at line {g.loop.span.line} beside it (other threads) does not skip"
                return 0, (f"the loop at line {g.loop.span.line} beside it (other threads) skipped {g.skipped} "
                           f"iterations, not a whole number of this one's {period} within its {most}")
            if g.plan is not None and g.plan.jump_to is not None:
                fits = min(fits, g.plan.jump_to - g.plan.warm)
                lag = max(lag or 0, g.plan.warm - g.it)
                if g.ready:
                    whole = math.lcm(whole, g.ready)
        if lag is not None:
            # f runs on while the others reach their boundaries, and ahead of them while they
            # compare (a producer by up to the shortest tail `short_tails` leaves it): it must
            # still be inside its proved range then, or the state they compare is not periodic
            # and they cannot skip as many
            fits = min(fits, most - lag - min(accelerate.short_tails(f.plan.shift)))
        count = max(fits, 0) // whole * whole
        return count, None if count else (f"the state repeats every {period} iterations: no whole "
                                          "period is left to skip, here or in a loop beside it")

    def _outcome(self, entry: tuple) -> None:
        """Record a loop's skipping outcome (RunResult.accelerated)."""
        self.result.accelerated.append(entry)
        self._stop_if_mixed()

    def _stop_if_mixed(self) -> None:
        """A kernel without symbolic sizes in which some loop skipped and another did not is run
        again with no skipping (analyze.py: the skipped producer may owe the other loop arrivals),
        and this run is thrown away: stop it now. Persistent kernels meet it when one tile's loops
        skip and a later tile's cannot (other threads are elsewhere at its period boundary)."""
        if self.p.symbols or self.result.limit_hit:
            return
        skipping = frozenset(g.loop.span for t in self.tasks if t.state not in ("done", "gone")
                             for g in t.frames if g.loop is not None and g.skipped is None
                             and g.plan is not None and g.plan.jump_to is not None)
        if self.result.skips_disagree(skipping=skipping):
            self.result.limit_hit = ("loop skipping: one loop skipped periods and another did not; "
                                     "run again without skipping")
            self.result.skips_mixed = True
            self._throw_away()

    def _throw_away(self) -> None:
        """The next runs of this program (other blocks) would most likely waste a run the same
        way: the loops that skipped in this one run every iteration there (never wrong, slower);
        in a run with settling plans, only those are dropped (analyze.py runs the block again
        without them first)."""
        for loop in self.skipped_loops:
            if isinstance(loop.plan, dict):
                loop.plan[SETTLING_THROWN_AWAY if self.settled else THROWN_AWAY] = True

    # A skip is sound only together with the loops beside it: a producer's loop that skips periods
    # while its consumer's loop (other threads of the CTA) runs every iteration never makes the
    # arrivals the consumer's late iterations wait for (a false hang), and the consumer's accesses
    # there meet no producer writes (missed races). So a loop skips only when every other task
    # either runs a loop beside it that skips the same number of iterations (or has yet to decide
    # with a plan for that number), or is *frozen*: it ran no statement during the compared
    # period, so it runs none in the skipped ones either (the state repeats) and meets the jump's
    # state as it would have met the real periods' end (a persistent kernel's epilogue warps
    # waiting for the next tile's accumulator). A loop that decides otherwise after one beside it
    # skipped stops the run (unknown), unless the two never ran together: its task was frozen
    # through the skip, or it was entered after the skip.
    skips_taken = 0
    skipped_loops: tuple = ()   # the PLoops that skipped in this run
    running = None
    found_before_skip: dict = {}
    FINDINGS = ("races", "barrier_problems", "pending", "proxy_problems", "tcgen05_fence_problems", "mbar_problems",
                "unwritten_reads", "stuck")

    def _beside(self, task: _Task, f: _Frame):
        """For each other live task (of any CTA of the cluster: a peer's loop may wait on this
        one's arrivals too), the loop frame it runs beside `f`: the frames of loops both tasks
        are in at one iteration (they forked inside it) are common; past them, the other's loop
        frame at f's depth (None where it has none)."""
        mine = [g for g in task.frames if g.loop is not None]
        for other in self.tasks:
            if other is task or other.state in ("done", "gone"):
                continue
            theirs = [g for g in other.frames if g.loop is not None]
            common = 0
            while common < min(len(mine), len(theirs)) and mine[common].loop is theirs[common].loop \
                    and mine[common].it == theirs[common].it:
                common += 1
            depth = next((i for i, g in enumerate(mine) if g is f), None)
            if depth is None or depth < common:
                continue   # f is a loop both run together: it is not beside the other
            yield other, (theirs[depth] if depth < len(theirs) else None)

    def _loose(self, task: _Task, f: _Frame) -> bool:
        """Whether another live task at no loop beside `f` ran during its compared period, or was
        not there at its start with the same threads (it may have followed the periods the jump
        skips in code outside a loop: RunResult.loose). Unlike `_frozen`, tasks that forked or
        merged meanwhile (the skipping loop's own elected threads) leave the others' verdict alone."""
        now = self._peer_steps(task)
        before = f.peers or {}
        return any(g is None and before.get(id(other)) != now.get(id(other))
                   for other, g in self._beside(task, f))

    def _peer_steps(self, task: _Task) -> dict:
        # (the task itself: its id is not reused while held; its threads: a merge or fork changes them)
        return {id(t): (t, t.steps, hash(t.tids.tobytes())) for t in self.tasks
                if t is not task and t.state not in ("done", "gone")}

    def _frozen(self, task: _Task, f: _Frame) -> list:
        """The other live tasks that ran no statement since `f`'s compared period began (none when
        a task forked or merged meanwhile: threads moved between tasks)."""
        now = self._peer_steps(task)
        if f.peers is None or set(now) != set(f.peers):
            return []
        return [t for t in self.tasks if id(t) in now and now[id(t)] == f.peers[id(t)]]

    def _skips_apart(self, task: _Task, f: _Frame, count: int, together: bool = False) -> str | None:
        """Why `f` may not skip `count` iterations (None: it may). `together`: `_tiles_together`
        holds, so a loop beside it yet to decide may skip as many from a later boundary."""
        frozen = {id(t) for t in self._frozen(task, f)}
        for other, g in self._beside(task, f):
            if id(other) in frozen or g is not None and g.skipped == count:
                continue
            if g is None:
                # no loop beside it: threads waiting for the loop's end (an epilogue) or past
                # it. (Threads that followed the loop's periods in straight-line code would
                # be owed them; TileLang writes such code as a loop.)
                continue
            if g.skipped is None and g.plan is not None and g.plan.jump_to is not None and (
                    g.plan.jump_to - g.plan.warm == count or together and g.plan.jump_to - g.plan.warm >= count):
                continue   # it will skip as many (`_count`), or stop the run (_skip_decided)
            return (f"the loop at line {g.loop.span.line} beside it (other threads) does not skip "
                    f"the same {count} iterations")
        return None

    @staticmethod
    def _move_counters(task: _Task, plan, count: int, last: tuple) -> str | None:
        """Advance the loop's counters (accelerate.Plan.counters) by the `count` iterations the
        jump skips, as running them would, then run again the lets and stores the last skipped
        iteration ends with (Plan.refresh, `last`: the loop variable's name and value there); why
        not (None: moved). A counter with no known value, or one its type would wrap, is left
        alone and the loop runs every iteration."""
        moved = {}
        for key, d, (lo, hi), guards in plan.counters:
            v = task.env.get(key)
            if v is None:
                return f"the counter {key} has no known value"
            try:
                v = v + accelerate.counter_step(d, guards, task.env) * count
            except (NotConcrete, NotModelled):
                return f"the branch around the counter {key}'s inner loop has no value here"
            if int(np.min(v)) < lo or int(np.max(v)) >= hi:
                return f"the counter {key} would leave its type's range"
            moved[key] = v
        task.env.update(moved)
        if plan.refresh:
            task.env[last[0]] = last[1]
            for st in plan.refresh:   # (a store it cannot compute was noted when the step loop ran it)
                _assign(task, st)
        return None

    def _skip_decided(self, task: _Task, f: _Frame, count: int, together: bool = False) -> None:
        """`f`'s loop skips `count` iterations (0: none); a loop beside it (`together`: a loop of
        `_tile_peers`) that skipped a different number makes this run's outcome no longer the
        kernel's: stop it (unknown)."""
        f.skipped = count
        peers = self._tile_peers(task, f) if together else [g for _, g in self._beside(task, f)]
        if together:
            self.tiles_decided.setdefault(f.n, []).append(f)
        if not self.skips_taken:
            return
        for g in peers:
            if g is not None and g.skipped is not None and g.skipped != count and not (
                    id(g) in f.frozen_by or id(f) in g.frozen_by    # one was frozen through the other's skip
                    or 0 < g.skip_no <= f.entered or 0 < f.skip_no <= g.entered):   # never ran together
                self.result.limit_hit = (
                    f"loop skipping: the loop at line {f.loop.span.line} skipped {count} iterations and "
                    f"the loop at line {g.loop.span.line} beside it (other threads) {g.skipped}: the "
                    "skipped periods are not the kernel's; run without skipping")
                for k, n in self.found_before_skip.items():   # found since rests on the skip
                    del getattr(self.result, k)[n:]
                # analyze.py runs the block (a size's run: without the fixed loops' plans) again
                self.result.skips_mixed = True
                if not self.p.symbols:
                    self._throw_away()
                return

    def _lose_control(self, task: _Task, err: NotConcrete) -> None:
        """A branch or loop the engine cannot decide: paths are skipped (control_lost keeps only
        unsupported findings). Decided by hardware data (a cluster launch control response,
        models/clc.py), every path after it is an artifact, so the task stops there (a thread
        delayed for ever) instead of running the kernel's persistent loop to its bound, and the
        others run on until they finish, block or stop the same way. While every loss is such a
        stop, what ran is a prefix of a real execution (`halted_exact`, RunResult.prefix)."""
        hardware = isinstance(err, HardwareData)
        self.result.halted_exact = hardware and (self.result.halted_exact or not self.result.control_lost)
        self.result.control_lost = True
        if hardware:
            task.state = self.HALTED

    def _branch(self, task: _Task, s: PIf) -> None:
        try:
            c = s.cond(task.env)
        except NotConcrete as err:
            if s.blind_arm and not isinstance(err, HardwareData):
                # accesses alone (program.py `_blind_arm`): run by every thread, a superset of
                # every outcome pattern's accesses
                line = (f"line {s.span.line}: a branch on a value the engine does not compute "
                        f"({err.reason}) guards only shared-memory reads and tensor-memory "
                        "accesses: checked taken by every thread that reaches it (skipping it only "
                        "leaves accesses out), assuming the value can take it")
                if line not in self.result.blind_taken:
                    self.result.blind_taken.append(line)
                    self.result.blind_arms.append(arm_lines(s))
                task.frames.append(_Frame(s.then))
                return
            if not isinstance(err, HardwareData) and _registers_only(s.then + s.other):
                # register stores alone (a per-thread arg-max's `if score[i] == best[0]: idx[0] =
                # ...`): no access or synchronization to follow, so neither arm runs and every
                # register either may store is unknown from here (a later use that decides
                # something is reported there)
                for st in statements(s.then + s.other):
                    if isinstance(st, PStore):
                        for k in range(st.size):
                            task.env.pop(register_key(st.region, k), None)
                line = (f"line {s.span.line}: a branch on a value the engine does not compute "
                        f"({err.reason}) only stores registers: neither arm run, the registers "
                        "it may store unknown from there")
                if line not in self.result.blind_taken:
                    self.result.blind_taken.append(line)
                return
            self.note(f"branch condition: {err.reason}", s.span)
            self._lose_control(task, err)
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
        other = _Task(m_else, [f.copy() for f in task.frames], dict(task.env), task.cta)
        other.frames.append(_Frame(s.other, join=join))
        task.mask, task.tids = m_then, interned(np.flatnonzero(m_then))
        task.frames.append(_Frame(s.then, join=join))
        self.tasks.insert(self.tasks.index(task) + 1, other)

    def _while(self, task: _Task, s: PWhile) -> None:
        """One test of a while loop: threads whose condition holds run the body once more (a frame
        over `s.cycle`, the body followed by the loop, so the test comes round again); the others
        leave, meeting the rest after the loop as after a branch. Reached as the last statement
        of its own frame, the loop reuses that frame: frames do not pile up with the
        iterations, which the statement and time limits bound."""
        f = task.frames[-1]
        again = f.body is s.cycle and f.idx == len(f.body)
        counted = None if again else self._counted(task, s)
        if counted is not None:
            loop, n = counted
            if n > 0:
                self._enter_loop(task, loop, 0, n)
            return
        try:
            c = s.cond(task.env)
        except NotConcrete as err:
            self.note(f"while loop condition: {err.reason}", s.span)
            self._lose_control(task, err)
            if again:
                f.idx = len(f.body)   # leave the loop: the path after it is no longer definite
            return
        if isinstance(c, np.ndarray):
            c = c.astype(bool, copy=False)
            stay = task.mask & c
            if not stay.any():
                c = False
            elif not (task.mask & ~c).any():
                c = True
            else:
                leave = task.mask & ~c
                if again:   # the leaving threads' copy of this frame is at its end: it pops
                    self.fork(task, leave)
                else:
                    join = _Join()
                    other = _Task(leave, [g.copy() for g in task.frames], dict(task.env), task.cta)
                    other.frames.append(_Frame((), join=join))
                    self.tasks.insert(self.tasks.index(task) + 1, other)
                task.mask, task.tids = stay, interned(np.flatnonzero(stay))
                if again:
                    f.idx = 0
                else:
                    task.frames.append(_Frame(s.cycle, join=join))
                return
        if c:
            if again:
                f.idx = 0
            else:
                task.frames.append(_Frame(s.cycle))

    def _counted(self, task: _Task, s: PWhile) -> tuple | None:
        """(the for loop, its trips) that while loop `s` is for `task` when it is a counted one
        (accelerate.CountedWhile) and its counter holds one value in all the task's threads: run
        as that loop, it is planned and skipped like one (a persistent kernel's tile loop). Not
        in kernels with symbolic sizes, whose loops the induction plans (prover/induction.py)."""
        if self.p.symbols:
            return None
        how = self.counted_whiles.get(id(s), False)
        if how is False:
            how = self.counted_whiles[id(s)] = accelerate.counted_while(s, self.p)
        if how is None:
            return None
        r0 = task.env.get(register_key(*how.cell))
        if isinstance(r0, np.ndarray):
            vals = r0[task.tids]
            if not len(vals) or (vals != vals[0]).any():
                return None
            r0 = vals[0]
        if not isinstance(r0, (int, np.integer)):
            return None
        n = how.trips(int(r0))
        loops = s.counted_loops
        if n not in loops:   # one loop per trip count: its src and plan cache hold for that count
            loops[n] = PLoop(f"while@{s.span.line}", lambda env: 0, lambda env, n=n: n, s.then, s.span,
                             s.relevant, (ir.Const(0), ir.Const(n)))
        return loops[n], n

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
            if v is mine:
                continue   # one array (thread ids): kept, so what is memoized on it stays found
            if isinstance(v, np.ndarray) or isinstance(mine, np.ndarray) or v != mine:
                task.env[k] = np.where(other.mask, v, mine)
        task.mask = task.mask | other.mask
        task.tids = interned(np.flatnonzero(task.mask))
        other.state = "gone"

    # ------------------------------------------------------------ events
    def _event(self, task: _Task, ev, s: POp) -> None:
        ev = self.cluster.place(task, ev, s)   # what it names, in the task's CTA or a peer's
        if type(ev) is not Access:
            self.epoch += 1   # (Memory.access moves it for accesses other than plain reads)
        handler = self.handlers.get(type(ev))
        if handler is not None:
            handler(task, ev, s)

    def _set_descriptor(self, task: _Task, ev: SetDescriptor, s: POp) -> None:
        old = task.env.get(ev.key, 0) if ev.add else 0
        full = np.zeros(self.T, dtype=np.int64)
        if isinstance(old, np.ndarray):
            full[:] = old
        else:
            full[:] = old
        full[ev.tids] = (full[ev.tids] if ev.add else 0) + ev.value
        task.env[ev.key] = full

    def _unsupported(self, task: _Task, ev: Unsupported, s: POp) -> None:
        self.note(ev.reason, s.span)

    def _loop_break(self, task: _Task, ev: LoopBreak, s: POp) -> None:
        """`break`: the task leaves the innermost loop around it, as after its last iteration.
        A branch left on the way that had split the threads will not see this task again: its
        join is broken (the other side goes on alone, as it does when nobody can move)."""
        frames = task.frames
        target = next((k for k in range(len(frames) - 1, -1, -1) if frames[k].loop is not None
                       or frames[k].body and isinstance(frames[k].body[-1], PWhile)
                       and frames[k].body[-1].cycle is frames[k].body), None)
        if target is None:
            self.note("T.loop_break outside any loop", s.span)
            return
        self._leave_frames(frames, target + 1)
        f = frames.pop()
        if f.join is not None and not f.join.broken:   # a while loop some threads had left
            self._arrive_join(task, f.join)

    def _thread_return(self, task: _Task, ev: ThreadReturn, s: POp) -> None:
        """`return`: where the task holds every live thread of its CTA, they exit (every frame
        left, the kernel's body run to its end: Machine.resume then marks the task done). Where
        other threads of the CTA go on, what their barriers then count is not modelled: the task
        stops (models/control.py)."""
        cta = np.zeros(self.T, dtype=bool)
        cta[self.cluster.threads_of(task.cta)] = True
        if (self.alive & cta & ~task.mask).any():
            self.note("T.thread_return by some threads of a block while others go on (what the "
                      "block's barriers then count is not modelled)", s.span)
            self._lose_control(task, NotConcrete("an early return of part of a block", s.span))
            return
        self._leave_frames(task.frames, 1)
        task.frames[0].idx = len(task.frames[0].body)   # the kernel's body, run to its end

    @staticmethod
    def _leave_frames(frames: list, keep: int) -> None:
        """Pop `frames` down to the first `keep`: a branch left on the way that had split the
        threads will not see these threads again, so its join is broken (the other side goes on
        alone, as it does when nobody can move)."""
        while len(frames) > keep:
            join = frames.pop().join
            if join is not None and not join.broken:
                join.broken = True
                if join.parked is not None:
                    join.parked.state = "run"
                    join.parked = None

    # ------------------------------------------------------------ what the features call
    # note(reason, span), fork(task, mask), sync(waiters, arrivers), retire(), release(tasks);
    # and the vector clocks `vc`, `T`, `tasks`, `result`, `seen_pairs`, `taint`.
    def fork(self, task: _Task, mask: np.ndarray) -> _Task:
        """A copy of `task` for the threads of `mask`, scheduled right after it."""
        other = _Task(mask, [f.copy() for f in task.frames], dict(task.env), task.cta)
        self.tasks.insert(self.tasks.index(task) + 1, other)
        return other

    def split(self, task: _Task, parts: list) -> list:
        """`task` divided by the thread sets `parts` (their union is the task's threads): the
        task keeps the first part, a fork takes each other one. -> one task per part, in order
        (a wait on several barriers, or barrier ids that differ between threads, goes on as one
        task per barrier)."""
        tasks = [task] + [self.fork(task, self._mask_of(tids)) for tids in parts[1:]]
        task.mask = self._mask_of(parts[0])
        task.tids = np.flatnonzero(task.mask)
        return tasks

    def _mask_of(self, tids) -> np.ndarray:
        mask = np.zeros(self.T, dtype=bool)
        mask[tids] = True
        return mask

    def sync(self, waiters: np.ndarray, arrivers: np.ndarray, known: bool = True) -> np.ndarray | None:
        """Release everyone's knowledge to the waiters; everyone starts a new clock interval.
        Returns what every live thread now knows (`vc[alive].min(axis=0)`, for `retire`) when
        two or more live threads wait: each live waiter's row is then the joined row plus one on
        its own diagonal, so the least of each column over those rows is the joined value, and
        only the other live rows are reduced (a named barrier of 512 of 640 threads: 128 rows,
        not 640). Else None (always, without `known`)."""
        self.epoch += 1
        everyone = (np.concatenate([waiters, arrivers]) if arrivers.size else waiters).astype(np.int64, copy=False)
        if everyone.size == 0:
            return None
        # one run of thread ids (a block barrier: all of them) is read through a view, not a copy
        rows = thread_rows(everyone)
        joined = self.vc[rows].max(axis=0)
        waiting = thread_rows(waiters) if waiters.size else None
        if waiting is not None:
            self.vc[waiting] = joined
        if isinstance(rows, slice) and self.vc.flags.c_contiguous:
            # the run's diagonal cells as a strided view of the flat matrix (no 2-d fancy index)
            step = self.vc.shape[1] + 1
            self.vc.reshape(-1)[rows.start * step:(rows.stop - 1) * step + 1:step] += 1
        else:
            self.vc[everyone, everyone] += 1
        if waiters.size < 2 or not known:
            return None
        alive = self.alive
        if isinstance(waiting, slice) and waiting.start == 0 and waiting.stop == self.T:
            rest = None
            if np.count_nonzero(alive) < 2:
                return None
        else:
            covered = np.zeros(self.T, dtype=bool)
            covered[waiters] = True
            rest = alive & ~covered
            if np.count_nonzero(alive & covered) < 2:
                return None
            if not rest.any():
                rest = None
        if rest is None:
            return joined
        return np.minimum(joined, self.vc[thread_rows(np.flatnonzero(rest))].min(axis=0))

    def retire(self, known: np.ndarray | None = None) -> None:
        """Records that happen-before every live thread leave the race check (state/memory.py).
        `known`: `vc[alive].min(axis=0)` when the caller has it (Machine.sync's result)."""
        self.epoch += 1
        self.memory.retire(known)

    def release(self, released: list) -> None:
        """Tasks a barrier or mbarrier phase released: those at one program position run on as one."""
        by_key: dict = {}
        for t in released:
            if t.state != "run":
                continue
            k = t.key()
            if k in by_key:
                self._merge_into(by_key[k], t)
            else:
                by_key[k] = t

    # ------------------------------------------------------------ the end of the kernel
    def _finish(self) -> None:
        self._finish_run()
        drop_dependent(self)   # what rests on an unmodelled operation is not definite

    def _finish_run(self) -> None:
        res = self.result
        if res.limit_hit or res.internal_error or res.trapped:
            return   # the kernel did not run to its end: nothing can be said about the end
        for feature in self.features:
            feature.finish(res)
