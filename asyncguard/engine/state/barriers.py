"""Block and named barriers (`bar.sync` / `bar.arrive`, `__syncthreads`) and warp syncs: the
arrivals of each barrier's generation in progress, its completion (everyone's knowledge released
to the waiters), and the problems: divergent `__syncthreads`, too many arrivals, counts that are
not a multiple of a warp, barriers some threads never reach.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...events import Barrier, WarpSync
from ...models.launch import WARP


_NONE = np.array([], dtype=np.int64)   # no arrive-only threads
_NONE.flags.writeable = False


@dataclass
class BarrierProblem:
    kind: str               # "divergence" | "count" | "warp-multiple" | "stuck" | "warp-ids" | "run-ahead"
    barrier_id: int
    expected: int | None
    arrivals: list          # [(span, tids)]
    missing: np.ndarray     # threads that never arrived
    where_missing: list     # [(span or None, tids)]
    exited: np.ndarray = field(default_factory=lambda: np.array([], dtype=np.int64))   # of `missing`
    # a grid sync's barrier that the block's thread (0, 0, 0) never reached: the thread that
    # performs the grid-wide handshake (cooperative_groups' sync_grids)
    grid_master_missing: bool = False
    # "warp-ids": each warp whose lanes name several barrier ids -> {id: its lanes' thread ids}
    warp_ids: dict = field(default_factory=dict)
    lane_ids: np.ndarray | None = None   # "warp-ids": every executing thread's id
    # "stuck": the barrier counts every thread of the CTA (`bar.sync 0`, or `bar.sync id, 0` /
    # no count): the hardware waits only for threads that have not exited
    all_threads: bool = False
    # "run-ahead": the threads arrive again (`arrivals[1]`) not knowing that the phase their
    # `bar.arrive` at `arrivals[0]` joined has completed; `missing` are that phase's waiters


class _BarrierGen:
    def __init__(self):
        self.arrivals = []      # (task, tids, span, arrive_only)
        self.count = 0
        self.grid_sync = False  # some arrival is a grid sync's
        self.all_threads = False   # an arrival with no count (every thread of the CTA)
        self.expected = None       # the thread count the last arrival named (None: every thread)


class Barriers:
    """The generation in progress of every block / named barrier some thread has reached."""
    EVENTS = {Barrier: "barrier", WarpSync: "warp_sync"}

    def __init__(self, machine):
        self.machine = machine
        # (cluster rank, barrier id) -> its generation in progress: bar.sync is per CTA, and each
        # CTA of a cluster (state/cluster.py) has its own
        self.barriers: dict[tuple, _BarrierGen] = {}
        # Run-ahead of `bar.arrive` (docs/model.md "Named barriers"), kept only for barriers some
        # thread arrives at without waiting: key -> generations completed so far; key -> each
        # thread's generation of its last bar.arrive still unconfirmed (-1: none) and the line;
        # (key, generation) -> that generation's waiters and their own clocks once released
        self.completed: dict[tuple, int] = {}
        self.arrived_gen: dict[tuple, tuple] = {}
        self.released: dict[tuple, tuple] = {}
        self.arrive_spans: dict = {}   # line -> span of a bar.arrive

    def signature(self):
        return None

    def warp_sync(self, task, ev: WarpSync, s) -> None:
        tids = ev.tids
        if tids.size and int(tids.min()) // WARP == int(tids.max()) // WARP:   # one warp (the usual)
            self.machine.sync(tids, _NONE, known=False)
            return
        for w in np.unique(tids // WARP):
            self.machine.sync(tids[tids // WARP == w], _NONE, known=False)

    def barrier(self, task, ev: Barrier, s) -> None:
        if ev.lane_ids is not None:
            self._per_thread_ids(task, ev, s)
            return
        key = (task.cta, ev.barrier_id)
        if ev.arrive_only or key in self.arrived_gen:
            self._check_run_ahead(key, ev, s)
        gen = self.barriers.setdefault(key, _BarrierGen())
        gen.arrivals.append((task, ev.tids, s.span, ev.arrive_only))
        gen.count += len(ev.tids)
        gen.grid_sync |= ev.grid_sync
        gen.all_threads |= ev.count is None
        gen.expected = ev.count
        if not ev.arrive_only:
            task.state = "barrier"
            task.where = (ev.barrier_id, s.span)
        expected = self.machine.Tc if ev.count is None else ev.count
        if ev.count is not None and (ev.count % WARP or ev.count <= 0):
            self.machine.result.barrier_problems.append(BarrierProblem(
                "warp-multiple", ev.barrier_id, ev.count, [(s.span, ev.tids)], np.array([]), []))
        if gen.count >= expected:
            self._complete_barrier(key, gen, expected)

    def _per_thread_ids(self, task, ev: Barrier, s) -> None:
        """`bar.sync id, n` whose id differs between threads. The PTX ISA (barrier): the
        instruction "marks warps' arrival at barrier", and different warps may wait at different
        barriers. Where each warp's lanes name one id: one barrier per id, the task split like an
        mbarrier wait on several barriers (tasks released together merge again). Where the lanes
        of one warp name several ids the ISA defines no arrival (on an H200 the kernel stopped
        with an illegal instruction, bench/probes/bar_sync_counts.cu): a "warp-ids" problem, and
        the run ends there (`trapped`): nothing after it is checked."""
        ids, tids = ev.lane_ids, ev.tids
        warps = tids // WARP
        mixed = {}
        for w in np.unique(warps):
            sel = warps == w
            if np.unique(ids[sel]).size > 1:
                mixed[int(w)] = {int(b): tids[sel & (ids == b)] for b in np.unique(ids[sel])}
        if mixed:
            self.machine.result.barrier_problems.append(BarrierProblem(
                "warp-ids", ev.barrier_id, ev.count, [(s.span, tids)], np.array([], dtype=np.int64), [],
                warp_ids=mixed, lane_ids=ids))
            self.machine.result.trapped = (
                f"line {s.span.line}: the lanes of one warp name different barrier ids: undefined "
                "(PTX ISA, barrier); nothing after it was checked")
            self.machine.result.halted = True
            return
        parts = [(int(b), ids == b) for b in np.unique(ids)]
        subs = [replace(ev, tids=tids[sel], barrier_id=b, lane_ids=None) for b, sel in parts]
        if ev.arrive_only:   # nobody blocks: one arrival per barrier, the task goes on whole
            for sub in subs:
                self.barrier(task, sub, s)
            return
        if not np.array_equal(np.sort(tids), task.tids):
            self.machine.note("named barrier ids that differ between threads, by part of a path", s.span)
            return
        for t, sub in zip(self.machine.split(task, [sub.tids for sub in subs]), subs):
            self.barrier(t, sub, s)

    def _check_run_ahead(self, key: tuple, ev: Barrier, s) -> None:
        """`bar.arrive` does not wait: a thread that arrives again on the same barrier must know
        that the phase its last `bar.arrive` joined has completed, through some waiter of that
        phase it synchronized with since. If it cannot know, another schedule puts both
        arrivals into that phase: it completes without partners the waiters expect, and a later
        phase is short of them (a hang). The mbarrier form is state/mbarrier.py's run-ahead."""
        tids = ev.tids.astype(np.int64, copy=False)
        done = self.completed.get(key, 0)
        gens, lines = self.arrived_gen.get(key) or (None, None)
        if gens is None:
            gens = np.full(self.machine.T, -1, dtype=np.int64)
            lines = np.zeros(self.machine.T, dtype=np.int64)
            self.arrived_gen[key] = (gens, lines)
        prev = gens[tids]
        # prev == done: the same phase in this schedule, which the count check sees
        for g in np.unique(prev[(prev >= 0) & (prev < done)]).tolist():
            mine = tids[prev == g]
            waiters, clocks = self.released.get((key, g), (None, None))
            if waiters is None:
                continue
            vc = self.machine.vc
            knows = (vc[np.ix_(mine, waiters)] >= clocks[None, :]).any(axis=1)
            ahead = mine[~knows]
            if ahead.size:
                spot = ("bar-run-ahead", key, int(lines[ahead[0]]), s.span.start)
                if spot not in self.machine.seen_pairs:
                    self.machine.seen_pairs.add(spot)
                    first = self.arrive_spans[int(lines[ahead[0]])]
                    self.machine.result.barrier_problems.append(BarrierProblem(
                        "run-ahead", key[1], ev.count, [(first, ahead), (s.span, ahead)], waiters, []))
        gens[tids] = done if ev.arrive_only else -1
        if ev.arrive_only:
            lines[tids] = s.span.line
            self.arrive_spans[s.span.line] = s.span

    def _complete_barrier(self, key: tuple, gen: _BarrierGen, expected: int) -> None:
        del self.barriers[key]
        bid = key[1]
        spans = {(sp.line, sp.col) for _, _, sp, ao in gen.arrivals if not ao}
        arrivals = [(sp, tids) for _, tids, sp, _ in gen.arrivals]
        if gen.count > expected:
            self.machine.result.barrier_problems.append(BarrierProblem(
                "count", bid, expected, arrivals, np.array([], dtype=np.int64), []))
        elif bid == 0 and len(spans) > 1:
            self.machine.result.barrier_problems.append(BarrierProblem(
                "divergence", bid, expected, arrivals, np.array([], dtype=np.int64), []))
        waiters = [tids for _, tids, _, ao in gen.arrivals if not ao]
        arrivers = [tids for _, tids, _, ao in gen.arrivals if ao]
        known = self.machine.sync(np.concatenate(waiters) if waiters else np.array([], dtype=np.int64),
                                  np.concatenate(arrivers) if arrivers else np.array([], dtype=np.int64))
        if key in self.arrived_gen:
            g = self.completed.get(key, 0)
            if arrivers and waiters:
                w = np.concatenate(waiters).astype(np.int64, copy=False)
                self.released[(key, g)] = (w, self.machine.vc[w, w].copy())
                # a generation no thread's last bar.arrive is in can be asked about no more
                gens = self.arrived_gen[key][0]
                oldest = int(gens[gens >= 0].min()) if (gens >= 0).any() else g
                for k in [k for k in self.released if k[0] == key and k[1] < oldest]:
                    del self.released[k]
            self.completed[key] = g + 1
        if waiters:   # what they do next is ordered by this barrier, not guarded by their last mbarrier wait
            self.machine.mbarrier.guard[np.concatenate(waiters)] = -1
            self.machine.mbarrier.guard_version += 1
        released = []
        for task, _, _, ao in gen.arrivals:
            if not ao and task.state == "barrier":
                task.state, task.where = "run", None
                released.append(task)
        self.machine.release(released)   # tasks released at one program position run on as one
        self.machine.retire(known)       # (the clocks have not moved since the sync)

    def finish(self, result) -> None:
        machine = self.machine
        if result.trapped:   # the kernel stopped at an undefined barrier: no end to speak of
            return
        for (cta, bid), gen in self.barriers.items():
            if all(ao for _, _, _, ao in gen.arrivals):
                continue   # only bar.arrive: nobody waits for the phase, so nothing hangs
            arrived = np.concatenate([tids for _, tids, _, _ in gen.arrivals])
            missing = np.setdiff1d(machine.cluster.threads_of(cta), arrived)
            where = []
            for t in machine.tasks:
                sel = np.intersect1d(t.tids, missing)
                if sel.size:
                    where.append((t.where[1] if t.state == "barrier" and t.where else None, sel))
            master = machine.cluster.threads_of(cta)[0]
            result.barrier_problems.append(BarrierProblem(
                "stuck", bid, gen.expected, [(sp, tids) for _, tids, sp, _ in gen.arrivals], missing, where,
                missing[~machine.alive[missing]], gen.grid_sync and bool((missing == master).any()),
                all_threads=gen.all_threads))
