"""Honest verdicts around what the models do not know.

An operation no model executes (an unknown builtin, an op whose arguments could not be
evaluated, a loop the engine cannot run) is an AG001 finding, so the verdict is `unknown`. But
the machine runs on without its effect, and what it concludes afterwards may rest on that
missing effect: a wait that hangs because the op's arrival is missing (a false AG408), copies
pending at exit that the op completes (a false AG104), a thread that never reaches a barrier
because the op's path differs (a false AG301), a read that looks unordered because the op was
a synchronization (a false race). A definite finding must not rest on it.

The machine taints:
- the threads that reach such an operation (or whose event the machine had to skip): from
  then on their progress is uncertain. The taint is one more vector-clock column, so it flows
  to every thread that later learns of a tainted thread's progress (bar.sync, an mbarrier
  phase a tainted thread arrived on), exactly as knowledge does;
- the mbarriers its arguments name: a wait on one taints the waiter; a hang on one is unknown;
- the asynchronous copies in flight from the threads that reach it, or into shared views its
  arguments name: it may complete them.

`drop_dependent` then removes from the run's result every finding that involves a tainted
access, thread or mbarrier, or a hang while an operation that names an mbarrier was never
reached (it may be what the hang kept from running). Findings untouched by the taint stay.

A spin on a global flag assumed to end (PNote.assumed) taints its threads' *order* only: another
block's release through global memory may order what they do next, so races resting on them are
dropped, but their progress is executed exactly, so hangs, missing arrivals and copies left
pending stay unless some operation tainted progress too (`Taint.progress`). A dropped finding
turns the assumptions reached into notes (`rested_on`).
"""
from __future__ import annotations

import numpy as np

from .nodes import PNote, statements


class Taint:
    def __init__(self, program, column: int):
        self.column = column                 # the vector-clock column: 1 = progress is uncertain
        self.barriers: set[int] = set()      # mbarrier ids an unmodelled op may arrive on
        self.records: set[int] = set()       # async records an unmodelled op may complete
        self.reached: set = set()            # (line, col) of the barrier-naming notes reached
        self.barrier_notes = {(n.span.line, n.span.col) for n in _notes(program.body) if n.barriers}
        # some taint is uncertain progress (an operation that may wait, arrive, complete copies or
        # end the path), not only uncertain order (a spin assumed to end, PNote.assumed): then a
        # hang or a missing arrival may rest on it too
        self.progress = False

    def threads(self, machine, tids, progress: bool = True) -> None:
        """`tids` did something the machine could not execute (`progress`), or something that may
        order them after what it cannot see (a release through global memory) but is otherwise
        executed exactly."""
        tids = np.asarray(tids, dtype=np.int64)
        if tids.size:
            machine.epoch += 1
            machine.vc[tids, self.column] = 1
            if not progress:
                return
            self.progress = True
            for r in machine.async_live:   # copies in flight from these threads: it may complete them
                if np.isin(r.tids, tids).any():
                    self.records.add(r.id)

    def note(self, machine, task, note: PNote) -> None:
        """`task` reached an operation no model executes."""
        if note.access_only:
            return   # an access of unknown shape: it may hide a race, never create one
        if note.assumed:   # a spin: it names no barrier or buffer, and its threads then go on
            self.threads(machine, task.tids, progress=False)
            return
        self.threads(machine, task.tids)
        if note.barriers:
            self.reached.add((note.span.line, note.span.col))
        per_cta = machine.cluster.per_cta   # ids name the task's own CTA's barriers
        for ref in note.barriers:
            try:
                ids = np.asarray(ref(task.env)).ravel()
                ids = ids[(ids >= 0) & (ids < per_cta)] + task.cta * per_cta
            except Exception:  # noqa: BLE001 -- an index the engine cannot evaluate: every barrier
                ids = np.arange(machine.NB)
            self.barriers.update(int(b) for b in ids if 0 <= int(b) < machine.NB)
        shift = task.cta * machine.cluster.stride   # the task's own CTA's copy of the buffers
        for view in note.views:   # copies in flight into the buffers it names
            lo = view.flat_base + shift
            hi = view.region.base + view.region.nbytes + shift
            for r in machine.async_live:
                if (r.lo < hi).any() and (r.hi > lo).any():
                    self.records.add(r.id)

    def rested_on(self, machine) -> None:
        """Findings were dropped for the taint: the assumptions reached (PNote.assumed) are no
        mere scope lines then, but notes, as unmodelled operations are."""
        for a in machine.result.assumed:
            machine.note(a.reason + " (assumed to end; a finding rested on it)", a.span)

    def tainted_barrier(self, machine, mbar) -> bool:
        return any(machine.mbars[b] is mbar for b in self.barriers)

    def barrier_names(self, machine) -> set:
        return {machine.mbars[b].name for b in self.barriers}


def _notes(body):
    return (s for s in statements(body) if isinstance(s, PNote))


def drop_dependent(machine) -> None:
    """Remove from `machine.result` what rests on an unmodelled operation."""
    t: Taint = machine.taint
    res = machine.result
    tainted = machine.vc[:, t.column] > 0
    if not tainted.any() and not t.barriers and not t.records and t.reached == t.barrier_notes:
        return
    names = t.barrier_names(machine)

    def rec_bad(r) -> bool:
        return getattr(r, "tainted", False) or r.id in t.records

    def threads_bad(tids) -> bool:
        tids = np.asarray(tids, dtype=np.int64)
        return bool(tids.size) and bool(tainted[tids].any())

    def progress_bad(tids) -> bool:   # what only a thread's uncertain progress can explain
        return t.progress and threads_bad(tids)

    # a hang: uncertain when any blocked thread's progress is uncertain or it waits on a tainted
    # mbarrier, or when an operation naming an mbarrier never ran (the hang may be what kept it
    # from running)
    blocked = [task for task in machine.tasks if task.state in ("mbar", "barrier")]
    hang_uncertain = t.reached != t.barrier_notes or any(
        progress_bad(task.tids) or task.state == "mbar" and task.where[0] in t.barriers
        for task in blocked)

    before = _count(res)
    res.races = [r for r in res.races if not (r.tainted or r.first.id in t.records or r.second.id in t.records)]
    res.proxy_problems = [p for p in res.proxy_problems if not (rec_bad(p.write) or rec_bad(p.read))]
    res.tcgen05_fence_problems = [p for p in res.tcgen05_fence_problems
                                  if not (rec_bad(p.first) or rec_bad(p.second))]
    res.pending = [p for p in res.pending   # (copies left pending: a matter of progress)
                   if not (p.record.id in t.records or t.progress and rec_bad(p.record) or progress_bad(p.tids))]
    res.mbar_problems = [p for p in res.mbar_problems   # (tainted: judged when it happened)
                         if (p.tainted is False if p.tainted is not None else
                             p.barrier not in names and not threads_bad(p.tids))]
    res.stuck = [s for s in res.stuck if not hang_uncertain]
    res.barrier_problems = [
        p for p in res.barrier_problems
        if not (hang_uncertain or progress_bad(p.missing)
                or any(progress_bad(tids) for _, tids in p.arrivals))]
    if _count(res) < before:
        t.rested_on(machine)


def _count(res) -> int:
    """The findings a result holds, a race counted once per statement pair (a pair that also
    raced between untainted threads is still reported when its tainted race is dropped)."""
    pairs = {(r.first.span.start, r.second.span.start, r.first.via, r.second.via) for r in res.races}
    return len(pairs) + sum(map(len, (res.proxy_problems, res.tcgen05_fence_problems, res.pending,
                                      res.mbar_problems, res.stuck, res.barrier_problems)))
