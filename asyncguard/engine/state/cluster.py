"""The CTAs of one thread-block cluster in one machine (models/cluster.py says what each cluster
operation does; docs/model.md "Thread-block clusters" why).

The machine runs `ctas` CTAs of `cta_threads` threads each: machine thread `t` belongs to the
CTA of rank `t // cta_threads`. Every CTA has its own copy of everything CTA-local, mapped here:

- shared memory: CTA `r`'s byte `a` is flat byte `r * stride + a` (`stride`: the kernel's whole
  shared layout, rounded up), so accesses of different CTAs never overlap unless one of them
  names the other's memory (a mapa'd address, a multicast, a remote store);
- mbarriers: CTA `r`'s barrier `b` is machine barrier `r * per_cta + b`; an arrival or a TMA
  completion on a peer's barrier names the peer's copy;
- block and named barriers: keyed by (rank, id), each waiting for its own CTA's threads;
- the cluster barrier (barrier.cluster.arrive / wait): a phase completes once every non-exited
  thread of the cluster arrived; a wait returns once the phase its thread's last arrival joined
  has completed.

It also keeps what the end-of-run check (checks/cluster.py) needs: a CTA's shared memory and
mbarriers stop existing when the CTA exits, so every remote access, remote arrival, and every
asynchronous copy that reads a CTA's memory on behalf of a peer must happen-before some thread
of the CTA it touches exits (CUDA Programming Guide, "Distributed Shared Memory": a block must
not exit while others may still access its shared memory; CUTLASS ends cluster kernels with a
cluster barrier for that reason).

What a model says to reach a peer (models/cluster.py does it for the Hopper cluster ops; the
2-CTA tcgen05 forms plug in the same way): an `Access` with `cta=r` touches CTA `r`'s copy of
the bytes it names (one event per destination CTA for a multicast), and `mbarrier_cta=r` makes
its completion go to CTA `r`'s barrier (a `cta_group::2` operation: `models.launch.leader_rank`);
an `MbarArrive` with `cta=r` arrives on CTA `r`'s barrier. The executing CTA's rank is
`env[models.launch.CLUSTER_RANK]` (and `task.cta` in the machine). A model that keeps per-CTA
space above shared memory in the same flat byte space sets `layout.flat_end` (tensor memory's
end is read from models/tcgen05.py), so the CTA stride covers it. A commit that arrives on
several CTAs' barriers (tcgen05.commit multicast) completes, on CTA `r`'s arrival, what its
operations did in CTA `r`'s memory (`cta_of`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import ir
from ...events import Access, ClusterArrive, ClusterWait, MbarArrive, MbarInit, MbarWait
from ...models.tcgen05 import tensor_memory_end

PENDING = -1



def _clone(ev):
    """A shallow copy of an event dataclass, to set a few fields on: a third of the time of
    dataclasses.replace, which runs __init__ again (twice per access of a 2-CTA kernel)."""
    out = object.__new__(type(ev))
    out.__dict__.update(ev.__dict__)
    return out

@dataclass
class ClusterPhase:
    """One phase of the cluster barrier: who arrived (and released), who waits."""
    arrived: np.ndarray          # bool per machine thread
    released: np.ndarray         # joined vector clock of the releasing arrivals
    spans: list                  # (span, tids) of the arrivals
    waiters: list                # (task, span)
    done: bool = False


@dataclass
class RemoteUse:
    """Something that touches CTA `target`'s shared memory or mbarriers on behalf of another CTA
    (or reads `target`'s memory asynchronously for a peer): it must happen-before `target` exits.
    `owner`, `when`: per element, the vector-clock column and clock whose knowledge orders it
    (a thread's own clock for an arrival); for an access, `when` is its Record, whose owner and
    completion (an mbarrier phase for a copy) are read at the end of the run."""
    what: str
    span: ir.Span
    target: int
    tids: np.ndarray
    owner: np.ndarray
    when: object                 # np.ndarray, or a Record whose `done` is read at the end
    buffer: str = ""
    source: bool = False         # a copy reading the target's own memory for a peer


@dataclass
class StartProblem:
    """A plain remote load or store into CTA `target`'s shared memory by a thread that knows of no
    action of any thread of `target`: nothing shows that CTA has started."""
    what: str
    span: ir.Span
    target: int
    thread: int                  # the first such thread (machine id)
    buffer: str = ""


@dataclass
class ExitProblem:
    """A remote use that no thread of its target CTA is ordered after before the CTA exits."""
    use: RemoteUse
    thread: int                  # a thread of the use (machine id)


def cta_stride(layout) -> int:
    """Flat bytes between two CTAs' spaces: the kernel's whole shared layout, and whatever a model
    places above it in the same flat space per CTA (`layout.flat_end`; tensor memory:
    models.tcgen05.tensor_memory_end), rounded up to 1 KiB."""
    end = max((r.base + r.nbytes for r in layout.regions if r.scope in ("shared", "shared.dyn")), default=0)
    end = max(end, getattr(layout, "flat_end", 0) or 0, tensor_memory_end(layout))
    return max(-(-end // 1024) * 1024, 1024)


def local_bytes(ev, layout):
    """(lo, hi) of a placed access in its own CTA's shared memory."""
    if not ev.cta:   # CTA 0 (or no cluster): already local; the stride scans the whole layout
        return ev.lo, ev.hi
    shift = ev.cta * cta_stride(layout)
    return ev.lo - shift, ev.hi - shift


class Cluster:
    """The CTAs of the cluster the machine runs: how their state is laid out, the cluster
    barrier, and the remote uses the exit check judges."""
    EVENTS = {ClusterArrive: "barrier", ClusterWait: "barrier"}

    def __init__(self, machine):
        self.machine = machine
        launch, layout = machine.p.launch, machine.p.layout
        per_cta_barriers = sum(r.nbytes // 8 for r in machine.p.barrier_regions)
        self.ctas = launch.cluster_size
        self.cta_threads = launch.num_threads
        self.T = launch.machine_threads
        self.per_cta = per_cta_barriers
        self.stride = cta_stride(layout)
        self.rank_of = np.arange(self.T, dtype=np.int64) // max(self.cta_threads, 1)
        self.phases: list[ClusterPhase] = []
        self.arrived_in = np.full(self.T, -1, dtype=np.int64)   # per thread: phase of its last arrival
        self.remote: list[RemoteUse] = []
        self.starts: dict = {}    # (line, col, target) -> StartProblem (plain remote accesses)
        self._placed: dict = {}   # (id(source array), shift) -> (source, its read-only shifted copy)

    @property
    def active(self) -> bool:
        return self.ctas > 1

    # ------------------------------------------------------------ naming
    def rank(self, tids: np.ndarray) -> int:
        """The CTA of a task's threads (a task never spans CTAs)."""
        return int(self.rank_of[int(tids[0])]) if len(tids) else 0

    def cta_of(self, flat_byte: int) -> int:
        """The CTA whose copy of shared or tensor memory a placed flat byte lies in."""
        return int(flat_byte) // self.stride if self.active else 0

    def cta_of_barrier(self, b: int) -> int:
        """The CTA whose copy of the mbarriers machine barrier `b` is."""
        return int(b) // self.per_cta if self.active and self.per_cta else 0

    def threads_of(self, rank: int) -> np.ndarray:
        return np.arange(rank * self.cta_threads, (rank + 1) * self.cta_threads, dtype=np.int64)

    def barrier_name(self, name: str, rank: int) -> str:
        return f"{name} (CTA {rank})" if self.active else name

    def place_barriers(self, bar, rank: int):
        """CTA-local mbarrier ids -> machine ids in CTA `rank`."""
        if isinstance(bar, str):
            return bar
        return np.asarray(bar, dtype=np.int64) + rank * self.per_cta

    def place_access(self, ev: Access, own: int) -> Access:
        """An access of CTA `own`'s threads -> its bytes in the flat space of the cluster and its
        completion barrier in the CTA that owns it."""
        target = own if ev.cta is None else ev.cta
        bar_cta = target if ev.mbarrier_cta is None else ev.mbarrier_cta
        shift = target * self.stride
        mbar = ev.mbarrier
        if mbar is not None and not isinstance(mbar, str):
            mbar = self.place_barriers(mbar, bar_cta)
        buffer = ev.buffer if target == own else f"CTA {target}'s {ev.buffer}"   # how findings name it
        placed = _clone(ev)
        placed.lo, placed.hi = self._shifted(ev.lo, shift), self._shifted(ev.hi, shift)
        placed.region_base, placed.mbarrier = ev.region_base + shift, mbar
        placed.cta, placed.mbarrier_cta, placed.buffer = target, bar_cta, buffer
        return placed

    def _shifted(self, values: np.ndarray, shift: int) -> np.ndarray:
        """`values + shift`, one read-only array per read-only source array and shift: what the
        engine remembers of an access's byte arrays by their identity (Memory._known_ranges:
        their bounds, that they were marked written) holds for the placed copies as it does in
        a single CTA, instead of being worked out again at every access of a 2-CTA kernel."""
        if shift == 0:
            return values
        if values.flags.writeable:
            return values + shift
        key = (id(values), shift)
        hit = self._placed.get(key)
        if hit is None or hit[0] is not values:
            if len(self._placed) >= 4096:
                self._placed.clear()
            moved = values + shift
            moved.flags.writeable = False
            hit = self._placed[key] = (values, moved)
        return hit[1]

    # ------------------------------------------------------------ remote uses (exit check)
    def note_record(self, rec, own: int, target: int, mbar_cta: int) -> None:
        """A placed access record: remember it when it touches another CTA's memory, or when it
        reads its own memory for a copy that completes on another CTA's barrier."""
        if not self.active:
            return
        if target != own:
            self.remote.append(RemoteUse(f"{rec.via} into {rec.buffer}", rec.span, target,
                                         rec.tids, rec.owner, rec, rec.buffer))
            if rec.kind.value in ("read", "write"):
                self._check_started(rec, target)
        elif mbar_cta != own and rec.kind.value.startswith("async"):
            self.remote.append(RemoteUse(f"{rec.via} reading CTA {own}'s shared memory for CTA {mbar_cta}",
                                         rec.span, own, rec.tids, rec.owner, rec, rec.buffer, source=True))

    def _check_started(self, rec, target: int) -> None:
        """A plain load or store into a peer's shared memory needs the peer CTA running: the CUDA
        programming guide's distributed-shared-memory example opens with cluster.sync(), which
        "ensures that all thread blocks have started executing and they exist concurrently". A
        thread that knows of some action of a thread of `target` (its vector clock has a column
        of that CTA past zero: every thread's own clock starts at 1) knows it started."""
        key = (rec.span.line, rec.span.col, target)
        if key in self.starts:
            return
        known = self.machine.vc[np.ix_(rec.tids, self.threads_of(target))].max(axis=1)
        blind = np.flatnonzero(known == 0)
        if blind.size:
            self.starts[key] = StartProblem(f"{rec.via} into {rec.buffer}", rec.span, target,
                                            int(rec.tids[blind[0]]), rec.buffer)

    def note_arrive(self, tids: np.ndarray, clocks: np.ndarray, own: int, target: int, span,
                    barrier: str) -> None:
        if self.active and target != own:
            self.remote.append(RemoteUse(f"arrival on {barrier}", span, target, tids, tids.copy(),
                                         clocks.copy(), barrier))

    def exit_problems(self, vc: np.ndarray, alive: np.ndarray) -> list:
        """Remote uses not ordered before their target CTA's exit. A CTA exits after its last
        thread; a use is ordered before that when some thread of the CTA knew of it (had its
        clock, or the completing mbarrier phase) before finishing. CTAs that never exit (a hang
        is reported elsewhere) are skipped."""
        out, seen = [], set()
        # what some thread of the target CTA knew of each clock column: the max over its rows,
        # once per CTA (not a rows x owners block per use: a persistent 2-CTA GEMM notes tens of
        # thousands of remote uses)
        knew: dict = {}
        for use in self.remote:
            colmax = knew.get(use.target)
            if colmax is None:
                members = self.threads_of(use.target)
                colmax = knew[use.target] = False if alive[members].any() else vc[members].max(axis=0)
            if colmax is False:
                continue
            rec = use.when if hasattr(use.when, "clk") else None   # a Record: read its end state
            owner = rec.owner if rec is not None else use.owner
            when = np.asarray(use.when if rec is None else rec.clk if rec.done is None else rec.done)
            if (when == PENDING).any():
                continue   # it never completed: pending copies are reported elsewhere
            known = colmax[owner]
            late = np.flatnonzero(known < when)
            key = (use.span.line, use.span.col, use.target)
            if late.size and key not in seen:
                seen.add(key)
                out.append(ExitProblem(use, int(use.tids[late[0]])))
        return out

    # ------------------------------------------------------------ the cluster barrier
    def phase_for_arrival(self) -> int:
        if not self.phases or self.phases[-1].done:
            self.phases.append(ClusterPhase(np.zeros(self.T, dtype=bool), None, [], []))
        return len(self.phases) - 1

    def place(self, task, ev, s):
        """An event of `task`'s threads, with what it names mapped into the cluster: an access's
        bytes and completion barrier, an mbarrier event's barrier ids (an arrival on a peer's
        barrier is remembered for the exit check)."""
        if not self.active:
            return ev
        if isinstance(ev, Access):
            return self.place_access(ev, task.cta)
        if isinstance(ev, (MbarInit, MbarArrive, MbarWait)):
            rank = ev.cta if isinstance(ev, MbarArrive) and ev.cta is not None else task.cta
            ev = _clone(ev)
            ev.bar = self.place_barriers(ev.bar, rank)
            if rank != task.cta:
                m = self.machine
                tids = ev.tids.astype(np.int64)
                b = np.asarray(ev.bar).ravel()
                name = m.mbars[int(b[0])].name if b.size and 0 <= b[0] < m.NB else "?"
                self.note_arrive(tids, m.vc[tids, tids], task.cta, rank, s.span, name)
        return ev

    def signature(self):
        """An open cluster-barrier phase (who has arrived) is state a skipped loop period must repeat."""
        open_phase = self.phases[-1].arrived.tobytes() if self.phases and not self.phases[-1].done else None
        return None if open_phase is None else ("cluster", open_phase)

    def barrier(self, task, ev, s) -> None:
        """barrier.cluster.arrive / wait. An arrival joins the phase in progress; a wait returns
        once the phase of the thread's own last arrival completed, with the knowledge every
        releasing arrival carried."""
        m = self.machine
        tids = ev.tids.astype(np.int64)
        if isinstance(ev, ClusterArrive):
            k = self.phase_for_arrival()
            ph = self.phases[k]
            if ph.arrived[tids].any():
                m.note("barrier.cluster.arrive twice without a wait in between", s.span)
                m.taint.threads(m, tids)
                return
            ph.arrived[tids] = True
            ph.spans.append((s.span, tids))
            self.arrived_in[tids] = k
            if not ev.relaxed:
                joined = m.vc[tids].max(axis=0)
                ph.released = joined if ph.released is None else np.maximum(ph.released, joined)
            m.vc[tids, tids] += 1   # later accesses are not covered by this release
            self.phase_check()
            return
        ks = np.unique(self.arrived_in[tids])
        if ks.size != 1 or ks[0] < 0:
            m.note("barrier.cluster.wait by threads that did not all arrive on one phase", s.span)
            m.taint.threads(m, tids)
            return
        ph = self.phases[int(ks[0])]
        self.arrived_in[tids] = -1
        if ph.done:
            self._acquire(m, tids, ph)
            return
        ph.waiters.append((task, s.span))
        task.state, task.where = "barrier", ("cluster", s.span)

    def phase_check(self) -> None:
        """The phase in progress completes once every non-exited thread of the cluster arrived
        (PTX ISA barrier.cluster: the wait is for all non-exited threads). Called after each
        arrival and each thread's exit."""
        m = self.machine
        if not self.phases or self.phases[-1].done:
            return
        ph = self.phases[-1]
        if not (ph.arrived | ~m.alive).all():
            return
        ph.done = True
        released = []
        for waiter, span in ph.waiters:
            self._acquire(m, waiter.tids, ph)
            waiter.state, waiter.where = "run", None
            released.append(waiter)
        ph.waiters = []
        m.release(released)   # tasks released at one position run on as one
        m.retire()

    @staticmethod
    def _acquire(m, tids: np.ndarray, ph: ClusterPhase) -> None:
        if ph.released is not None:
            m.vc[tids] = np.maximum(m.vc[tids], ph.released)
        m.mbarrier.guard[tids] = -1   # what follows is ordered by the cluster barrier, not a watched wait
        m.mbarrier.guard_version += 1

    def finish(self, result) -> None:
        """End of a run that reached the kernel's end: the exit check, without what rests on an
        unmodelled operation. (A cluster-barrier wait that never returns waits for threads
        blocked elsewhere -- exited threads do not hold it -- and their own wait is the hang
        reported.)"""
        if not self.active:
            return
        m = self.machine
        tainted = m.vc[:, m.taint.column] > 0
        problems = self.exit_problems(m.vc, m.alive)
        result.cluster_exits = [p for p in problems if not tainted[p.use.tids].any()]
        # (a thread tainted at its remote access may have learned of the peer through what the
        # machine could not execute: its start problem is dropped too)
        result.cluster_starts = [p for p in self.starts.values() if not tainted[p.thread]]
        if len(result.cluster_exits) < len(problems):
            m.taint.rested_on(m)
