"""The sequential reference: what every traced read of the skeleton must see, computed with numpy.

The concrete engine runs one block of the Program under its scheduler (a schedule the kernel's
synchronization allows); a recorder subclass sees every event in the order the engine processes
it. Replaying that stream over a byte array gives the reference:

* shared memory starts with a fixed pattern (the skeleton writes it before its first barrier);
* a store writes `pat(seed(tid, w), addr)` (w: the thread's count of writes so far);
* a cp.async lands at its issuer's covering `wait_group` (the engine's model), or at its issuer's
  `cp.async.mbarrier.arrive.noinc` (every earlier copy of the thread); a TMA / bulk load
  at issue (the earliest landing the engine allows). The bytes come from a global pool whose
  content is a fixed function of (thread, byte offset); each copy takes the next 16-byte-rounded
  slot of its thread's pool. A false cp.async predicate delivers zeros (TVM's: stored at once);
* a load records the FNV-1a checksum of its bytes; an ldmatrix the checksum of the fragments the
  thread receives (PTX `ldmatrix` layout: rows named by lanes 8m..8m+7 of matrix m); a wgmma
  operand (the model's footprint) is checksummed at issue, one 1/128 slice per warpgroup thread;
* a bulk (TMA) store copies its shared bytes, as they are at issue, to the same offsets of the
  block's sink (the skeleton's global destination), compared byte for byte after the run.

For a race-free kernel every schedule gives the same values, so the hardware trace must equal
this one. For a racy one the reference is the value the checker's model predicts (a copy not yet
waited for has not landed), and a difference is the race showing on the silicon.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..engine.inputs import INPUTS, Inputs
from ..engine.machine import Machine
from ..engine.state.memory import Memory
from ..engine.state.proxy import Proxies
from ..engine.state.tcgen05 import TensorMemoryFences
from ..events import Access, AccessKind, CommitGroup, MbarArrive, MbarWait, WaitGroup

from .patterns import M32, fmix, pattern, pool_bytes, seed  # noqa: F401 -- shared with the launcher

INIT_SEED = 0xC0FFEE11
HANG_KINDS = ("stuck", "count", "warp-multiple")


def fnv(data: np.ndarray) -> int:
    h = 2166136261
    for b in data.tolist():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


class AllTaken(Inputs):
    """The data-dependent inputs of the reference run: every truth value loaded from global
    memory is 1 (the checker's first pattern: every branch on an input taken). The skeleton
    prints those loads as 1 (emit/cuda.py loaded_value), so the GPU runs the same pattern."""

    def value(self, cell, text: str, both: bool, group=None, tied: bool = False) -> int:
        super().value(cell, text, both, group, tied=tied)
        return 1


class WitnessInputs(Inputs):
    """The inputs of a finding's witness (`{"BlockSparseMask_1[0]": 0, "cu_seqlens_k_1[1]": 0}`,
    by the names the checker's run gave its cells): a named cell takes the witness's value, any
    other truth value 1 and any other number the launch table's. `used` records what every cell
    met returned, keyed as the skeleton's table is (emit/cuda.py `ag_num_*`).

    A cell deciding an iteration's branches (engine/loaded_numbers.py `_iteration_choice`) is
    asked for an outcome, but the witness names the cell's value (`BlockMask_1[0] = 0` for
    `0 <= a` taken: Inputs.pattern puts `shown` over the outcome). `outcomes` ({cell: 0 or 1})
    gives such cells the outcome instead; `misread()` says which cells of a finished run took
    the other outcome than the witness's value gives (witness_run)."""

    def __init__(self, pattern: dict, numbers: dict | None = None, outcomes: dict | None = None):
        super().__init__(numbers=numbers)
        self.pattern = dict(pattern)
        self.outcomes = dict(outcomes or {})
        self.used: dict = {}
        self.returned: dict = {}

    def value(self, cell, text: str, both: bool, group=None, tied: bool = False) -> int:
        super().value(cell, text, both, group, tied=tied)
        v = int(self.pattern.get(text, 1))
        self.used[cell] = v
        self.returned[cell] = int(self.outcomes.get(cell, v))
        return self.returned[cell]

    def misread(self) -> dict:
        """{cell: the outcome to take} of the iteration choices this run met whose outcome's
        value (`shown`, set by the engine after asking) is not the value the witness names: the
        witness's value gives the other outcome (the engine's run that found it showed it)."""
        out = {}
        for cell, shown in self.shown.items():
            named = self.names.get(cell)
            if cell in self.returned and named in self.pattern and int(self.pattern[named]) != int(shown):
                out[cell] = 1 - int(bool(self.returned[cell]))
        return out

    def table(self) -> dict:
        """What the skeleton's table must return for every cell this run met: an iteration
        choice's cell a value giving the outcome run (the skeleton evaluates the kernel's own
        condition on it), any other cell what it returned."""
        return {**self.used, **{c: int(v) for c, v in self.shown.items()}}

    def number(self, cell, text: str):
        v = int(self.pattern[text]) if text in self.pattern else super().number(cell, text)
        if v is not None:
            self.used[cell] = v
        return v


# The reference needs the order of events, not the checker's findings (the static check has
# them): the pairwise race and proxy checks, which only record findings, were most of a
# reference's time (dequant mxfp4 GEMM: 35 of 42 s in Memory._check_pair)
class _MemoryOrderOnly(Memory):
    def _check_pair(self, old, new) -> None:
        return


class _ProxiesOrderOnly(Proxies):
    def _check_proxy(self, old, new, direction: str = "write-read") -> None:
        return


class _FencesOrderOnly(TensorMemoryFences):
    def check_access(self, rec) -> None:
        return


_ORDER_ONLY = {Memory: _MemoryOrderOnly, Proxies: _ProxiesOrderOnly, TensorMemoryFences: _FencesOrderOnly}


class _Recorder(Machine):
    FEATURES = tuple((attr, _ORDER_ONLY.get(cls, cls)) for attr, cls in Machine.FEATURES)

    def __init__(self, program, info, **kw):
        super().__init__(program, **kw)
        self.info, self.stream = info, []

    def _event(self, task, ev, s):
        extra = None
        inf = self.info.get(id(s))
        if inf is not None and inf.pred is not None and isinstance(ev, Access):
            v = inf.pred(task.env)
            extra = np.asarray(v, dtype=bool)[ev.tids] if isinstance(v, np.ndarray) else \
                np.full(len(ev.tids), bool(v))
        self.stream.append((ev, s, task.tids.copy(), extra))
        super()._event(task, ev, s)

@dataclass
class Reference:
    block: dict
    reads: list                      # per thread: [(checksum or None, source line), ...]
    src_bytes: np.ndarray            # per thread: pool bytes its copies consumed
    sink: np.ndarray | None = None   # what bulk (TMA) stores leave in the block's sink slice
    problem: str | None = None       # the reference could not be computed (why)
    hang: str | None = None          # the engine predicts a barrier hang: do not launch
    # source line -> reads (thread slices) whose every byte no write had reached: on the GPU
    # they return the initial fill pattern when the trace equals this reference (AG417)
    unwritten_reads: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    # mbarrier waits the engine found never complete (a deadlock the checker predicts): the
    # skeleton's waits will spin out, so a shorter spin limit shows the hang as well
    stuck_waits: int = 0
    # the most mbarrier waits one thread executes: the launch's work, which scales its time limit
    # (warp-specialized GEMMs of 256 TMA stages ran 86 s on the H200)
    max_waits: int = 0
    # the run met data-dependent truth values (all taken): another block's run is not proved alike
    inputs_met: bool = False
    # cells of iteration choices the run met (engine/loaded_numbers.py `_iteration_choice`) -> a
    # value giving the outcome it took (Inputs.shown): the skeleton loads the cell and evaluates
    # the kernel's condition, so its table must hold these (emit/prepare.py)
    chosen: dict = field(default_factory=dict)


def compute(program, emitted, block: dict | None = None, max_steps: int = 2_000_000,
            sizes: dict | None = None, numbers: dict | None = None, inputs=None) -> Reference:
    """`numbers`: the loaded numbers of the launch ({cell key: value}, engine/inputs.py
    launch_numbers), which the skeleton prints as its table (emit/cuda.py); `inputs`: the run's
    Inputs instead of every truth value taken (a witness's, WitnessInputs)."""
    # every iteration runs: the skeleton executes them all, so loop acceleration (skipping
    # proved-periodic iterations) would leave reads out of the reference
    inputs = inputs or AllTaken(numbers=numbers)
    rec = _Recorder(program, emitted.info, block=block or {}, max_steps=max_steps,
                    sizes=dict(sizes or {}, **{INPUTS: inputs}), accelerate_above=1 << 62)
    res = rec.run()
    T = program.launch.num_threads
    ref = Reference(block or {}, [[] for _ in range(T)], np.zeros(T, dtype=np.int64))
    ref.inputs_met = bool(inputs.names)
    ref.chosen = {c: int(v) for c, v in inputs.shown.items()}
    if res.internal_error or res.limit_hit:
        ref.problem = res.internal_error or res.limit_hit
    if res.notes:
        ref.problem = ref.problem or "; ".join(n.reason for n in res.notes[:3])
    hangs = [b for b in res.barrier_problems if b.kind in HANG_KINDS]
    if hangs:
        b = hangs[0]
        ref.hang = f"named/block barrier {b.barrier_id}: {b.kind} (expected {b.expected} arrivals)"
    ref.stuck_waits = len(res.stuck)
    waits = np.zeros(T, dtype=np.int64)
    size = emitted.smem_bytes
    smem = pattern(INIT_SEED, np.arange(size))
    ucount: dict = {}                # store site of one value in every thread -> per-thread count
    written = _Written(size)   # bytes some write (store, landed copy) has reached
    ref.sink = np.zeros(size, dtype=np.uint8)
    w = np.zeros(T, dtype=np.int64)
    src = ref.src_bytes
    committed = np.zeros(T, dtype=np.int64)
    pend: dict = {}                  # tid -> [[group, lo, data], ...]
    for ev, s, ttids, extra in rec.stream:
        if isinstance(ev, Access):
            inf = emitted.info.get(id(s))
            tids, lo, hi = ev.tids.astype(np.int64), ev.lo.astype(np.int64), ev.hi.astype(np.int64)
            if ev.kind == AccessKind.READ:
                _note_unwritten(ref, written, lo, hi, s.span.line)
                if inf is not None and inf.kind == "ldmatrix":
                    _ldmatrix(ref, smem, ev, ttids, inf, s.span.line)
                else:
                    for t, h in zip(tids.tolist(), _checksums(smem, lo, hi)):
                        ref.reads[t].append((h, s.span.line))
            elif ev.kind == AccessKind.ASYNC_READ and ev.group_kind == "bulk":
                for a, b in zip(lo.tolist(), hi.tolist()):   # a TMA store copies the bytes as they are at issue
                    ref.sink[a:b] = smem[a:b]
            elif ev.kind == AccessKind.ASYNC_READ and inf is not None and inf.kind == "wgmma":
                chunk = -(-(hi - lo) // 128)
                slo = np.minimum(lo + (tids % 128) * chunk, hi)
                shi = np.minimum(slo + chunk, hi)
                _note_unwritten(ref, written, lo, hi, s.span.line)
                for t, h in zip(tids.tolist(), _checksums(smem, slo, shi)):
                    ref.reads[t].append((h, s.span.line))
            elif ev.kind == AccessKind.WRITE and inf is not None and inf.site is not None:
                # one value in every thread (ag_write_uniform): the site's pattern at this
                # thread's count of executions of the site; threads of one instance agree
                written.mark(lo, hi)
                cnt = ucount.setdefault(inf.site, np.zeros(T, dtype=np.int64))
                if _distinct(tids):
                    seeds = useed_array(inf.site, cnt[tids])
                    cnt[tids] += 1
                    if len(np.unique(seeds)) == 1 or _disjoint(lo, hi):   # one value, or no overlap
                        _fill(smem, lo, hi, lambda rows, addrs: pattern_rows(seeds[rows], addrs))
                    else:
                        for a, b, sd in zip(lo.tolist(), hi.tolist(), seeds.tolist()):
                            _put(smem, a, pattern(int(sd), np.arange(a, b)))
                else:
                    for t, a, b in zip(tids.tolist(), lo.tolist(), hi.tolist()):
                        _put(smem, a, pattern(int(useed_array(inf.site, cnt[t:t + 1])[0]), np.arange(a, b)))
                        cnt[t] += 1
            elif ev.kind == AccessKind.WRITE and ev.via == "ptx_cp_async":
                # TVM's predicated cp.async with a false predicate (models/cp_async.py): the
                # skeleton's ag_cp_async_or_zero stores zeros, no pattern and no write count
                written.mark(lo, hi)
                for a, b in zip(lo.tolist(), hi.tolist()):
                    smem[a:b] = 0
            elif ev.kind == AccessKind.WRITE:
                written.mark(lo, hi)
                seeds = seed_array(tids, w[tids])
                if _distinct(tids) and _disjoint(lo, hi):
                    w[tids] += 1
                    _fill(smem, lo, hi, lambda rows, addrs: pattern_rows(seeds[rows], addrs))
                else:                # one thread twice, or overlapping writes: in stream order
                    for t, a, b in zip(tids.tolist(), lo.tolist(), hi.tolist()):
                        _put(smem, a, pattern(seed(t, int(w[t])), np.arange(a, b)))
                        w[t] += 1
            elif ev.kind == AccessKind.ASYNC_WRITE:
                step = np.where(np.full(len(tids), ev.group_kind == "cp.async"), 16, -(-(hi - lo) // 16) * 16)
                if _distinct(tids):
                    offs = src[tids].copy()
                    src[tids] += step
                else:
                    offs = np.zeros(len(tids), dtype=np.int64)
                    for i, t in enumerate(tids.tolist()):
                        offs[i] = src[t]
                        src[t] += step[i]
                ok = np.ones(len(tids), dtype=bool) if extra is None else np.asarray(extra, dtype=bool)
                data = [pool_bytes(t, np.arange(o, o + (b - a))) if k else np.zeros(b - a, np.uint8)
                        for t, o, a, b, k in zip(tids.tolist(), offs.tolist(), lo.tolist(), hi.tolist(), ok.tolist())] \
                    if len(set((hi - lo).tolist())) != 1 else \
                    list(np.where(ok[:, None], pool_rows(tids, offs, int(hi[0] - lo[0])), 0).astype(np.uint8))
                if ev.group_kind == "cp.async":
                    for t, a, d in zip(tids.tolist(), lo.tolist(), data):
                        pend.setdefault(t, []).append([-1, a, d])
                else:
                    written.mark(lo, hi)
                    for a, d in zip(lo.tolist(), data):
                        _put(smem, a, d)
        elif isinstance(ev, MbarWait):
            waits[ev.tids] += 1
        elif isinstance(ev, CommitGroup) and ev.kind == "cp.async":
            for t in ev.tids.tolist():
                for p in pend.get(t, ()):
                    if p[0] == -1:
                        p[0] = int(committed[t])
            committed[ev.tids] += 1
        elif isinstance(ev, (WaitGroup, MbarArrive)) and (
                ev.kind == "cp.async" if isinstance(ev, WaitGroup) else ev.copies):
            # a covering wait_group lands the groups it waits for; cp.async.mbarrier.arrive.noinc
            # every earlier copy of the thread, committed or not, before the phase it joins can
            # complete (at the arrive: the earliest landing the engine allows, as for TMA loads)
            noinc = isinstance(ev, MbarArrive)
            landed_lo, landed_hi = [], []
            for t in ev.tids.tolist():
                keep = []
                for p in pend.get(t, ()):
                    if noinc or p[0] >= 0 and p[0] < committed[t] - ev.n:
                        _put(smem, p[1], p[2])
                        landed_lo.append(p[1])
                        landed_hi.append(p[1] + len(p[2]))
                    else:
                        keep.append(p)
                pend[t] = keep
            if landed_lo:
                written.mark(landed_lo, landed_hi)
    ref.max_waits = int(waits.max()) if T else 0
    return ref


def witness_run(program, emitted, block: dict, sizes: dict, numbers: dict | None,
                pattern: dict) -> WitnessInputs:
    """The inputs of a reference run of a witness that reads every value the witness names as
    the engine's run did (WitnessInputs, its `outcomes` those of the iteration choices), after
    that run: each run corrects the cells it met misread, and a cell met only after a corrected
    one is corrected by a later run. ValueError when no such outcomes come within one run per
    named cell."""
    outcomes: dict = {}
    for _ in range(len(pattern) + 2):
        probe = WitnessInputs(pattern, numbers, outcomes)
        compute(program, emitted, block, sizes=sizes, numbers=numbers, inputs=probe)
        flips = probe.misread()
        if not flips:
            return probe
        outcomes.update(flips)
    raise ValueError(f"the witness's values {pattern} give no outcomes the reference runs consistently")


# ---------------------------------------------------------------- vectorised helpers
# The same functions as `seed`, `pattern`, `pool_bytes` and `fnv`, over many threads at once
# (a block's event touches every thread: one numpy pass instead of one Python loop per thread).

def seed_array(tids: np.ndarray, ws: np.ndarray) -> np.ndarray:
    x = (np.asarray(tids, dtype=np.uint64) * np.uint64(65599) + np.asarray(ws, dtype=np.uint64) * np.uint64(2654435761)
         + np.uint64(12345)) & M32
    return fmix(x)


def useed_array(site: int, counts: np.ndarray) -> np.ndarray:
    """ag_useed(site, k) for every k of `counts`: the seed of a store of one value in every thread."""
    x = (np.uint64(site) * np.uint64(16777619) + np.asarray(counts, dtype=np.uint64) * np.uint64(2654435761)
         + np.uint64(0x5BD1E995)) & M32
    return fmix(x)


def pattern_rows(seeds: np.ndarray, addrs: np.ndarray) -> np.ndarray:
    """pattern(seeds[i], addrs[i, :]) for every row i."""
    a = (np.asarray(addrs, dtype=np.uint64) * np.uint64(0x9E3779B1)) & M32
    return (fmix(np.asarray(seeds, dtype=np.uint64)[:, None] ^ a) & np.uint64(0xFF)).astype(np.uint8)


def pool_rows(tids: np.ndarray, offs: np.ndarray, n: int) -> np.ndarray:
    """pool_bytes(tids[i], offs[i] + arange(n)) for every row i."""
    o = np.asarray(offs, dtype=np.uint64)[:, None] + np.arange(n, dtype=np.uint64)[None, :]
    x = (np.asarray(tids, dtype=np.uint64)[:, None] * np.uint64(0x27D4EB2F) + o * np.uint64(0x9E3779B1)
         + np.uint64(0x51ED270B)) & M32
    return (fmix(x) & np.uint64(0xFF)).astype(np.uint8)


def fnv_rows(data: np.ndarray) -> np.ndarray:
    """fnv(row) of every row of a 2-D uint8 array (FNV-1a runs along a row: vectorised down)."""
    h = np.full(data.shape[0], 2166136261, dtype=np.uint64)
    for j in range(data.shape[1]):
        h = ((h ^ data[:, j].astype(np.uint64)) * np.uint64(16777619)) & M32
    return h


def _checksums(smem: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list:
    """fnv(smem[lo[i]:hi[i]]) for every i (a range past the buffer's end is cut there, as a numpy
    slice is)."""
    lo = np.minimum(lo, len(smem))
    hi = np.minimum(np.maximum(hi, lo), len(smem))
    n = hi - lo
    out = np.empty(len(lo), dtype=np.uint64)
    for k in np.unique(n).tolist():
        rows = np.flatnonzero(n == k)
        idx = lo[rows][:, None] + np.arange(k, dtype=np.int64)[None, :]
        out[rows] = fnv_rows(smem[idx]) if k else np.uint64(2166136261)
    return [int(h) for h in out]


def _put(smem: np.ndarray, a: int, data: np.ndarray) -> None:
    """smem[a:a + len(data)] = data, cut at the buffer's end (the skeleton's write there would
    be the kernel's own out-of-range access; the reference must not raise on it)."""
    end = min(a + len(data), len(smem))
    if end > a >= 0:
        smem[a:end] = data[: end - a]


class _Written:
    """Which shared bytes some write has reached, with prefix sums rebuilt only after a write."""

    def __init__(self, size: int):
        self.bytes = np.zeros(size, dtype=bool)
        self.prefix = None

    def mark(self, lo, hi) -> None:
        # a pass over the whole buffer per call (the first version) was most of the gate's
        # preparation time: 65,000 cp.async landings x 96 KiB in flash-decoding's split kernel.
        # Few ranges: slice assignments; many: their byte indices, O(bytes marked)
        n = len(self.bytes)
        lo = np.clip(np.atleast_1d(np.asarray(lo, dtype=np.int64)), 0, n)
        hi = np.clip(np.atleast_1d(np.asarray(hi, dtype=np.int64)), 0, n)
        lens = np.maximum(hi - lo, 0)
        if len(lo) <= 16:
            for a, b in zip(lo.tolist(), hi.tolist()):
                if b > a:
                    self.bytes[a:b] = True
        elif int(lens.sum()) <= n:
            starts = np.repeat(lo - np.cumsum(lens) + lens, lens)
            self.bytes[starts + np.arange(int(lens.sum()), dtype=np.int64)] = True
        else:
            edges = np.zeros(n + 1, dtype=np.int64)   # +1 where a range starts, -1 past its end
            np.add.at(edges, lo[lens > 0], 1)
            np.add.at(edges, hi[lens > 0], -1)
            self.bytes |= np.cumsum(edges[:-1]) > 0
        self.prefix = None

    def untouched(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        if self.prefix is None:
            self.prefix = np.concatenate(([0], np.cumsum(self.bytes, dtype=np.int64)))
        end = len(self.bytes)
        a, b = np.clip(lo, 0, end), np.clip(hi, 0, end)
        return (self.prefix[b] - self.prefix[a] == 0) & (b > a)


def _note_unwritten(ref: Reference, written: "_Written", lo: np.ndarray, hi: np.ndarray, line: int) -> None:
    """Count the reads of [lo, hi) whose bytes no write has reached yet."""
    none = written.untouched(lo, hi)
    if none.any():
        ref.unwritten_reads[line] = ref.unwritten_reads.get(line, 0) + int(none.sum())


def _distinct(tids: np.ndarray) -> bool:
    return len(np.unique(tids)) == len(tids)


def _disjoint(lo: np.ndarray, hi: np.ndarray) -> bool:
    order = np.argsort(lo, kind="stable")
    return bool(np.all(lo[order][1:] >= hi[order][:-1]))


def _fill(smem: np.ndarray, lo: np.ndarray, hi: np.ndarray, rows_fn) -> None:
    """smem[lo[i]:hi[i]] = rows_fn(rows, addresses) for disjoint ranges, grouped by length."""
    n = hi - lo
    for k in np.unique(n).tolist():
        if k <= 0:
            continue
        rows = np.flatnonzero(n == k)
        idx = lo[rows][:, None] + np.arange(k, dtype=np.int64)[None, :]
        keep = idx < len(smem)
        smem[idx[keep]] = rows_fn(rows, idx)[keep]


def wgmma_slice(tid: int, start: int, end: int) -> tuple[int, int]:
    """The bytes of a wgmma operand [start, end) that thread `tid` reads in the skeleton: its
    warpgroup rank's share of 128 equal contiguous slices (as `ag_wgmma_read` cuts them)."""
    chunk = -(-(end - start) // 128)
    lo = min(start + (tid % 128) * chunk, end)
    return lo, min(lo + chunk, end)


def _ldmatrix(ref: Reference, smem: np.ndarray, ev: Access, ttids: np.ndarray, inf, line: int) -> None:
    """Each thread's fragments (PTX ldmatrix layout: the rows of matrix m are named by lanes
    8m..8m+7 of the warp), for all threads of the task at once; a thread whose rows are not all
    named reads None (not compared)."""
    T = len(ref.reads)
    rowaddr = np.full(T + 32, -1, dtype=np.int64)
    rowaddr[ev.tids.astype(np.int64)] = ev.lo.astype(np.int64)
    t = np.asarray(ttids, dtype=np.int64)
    lane, base = t % 32, t - t % 32
    idx, ok = [], np.ones(len(t), dtype=bool)
    for m in range(inf.num):
        if not inf.trans:
            a = rowaddr[base + m * 8 + lane // 4]
            ok &= a >= 0
            idx.append((a + 4 * (lane % 4))[:, None] + np.arange(4)[None, :])
        else:
            a0 = rowaddr[base + m * 8 + 2 * (lane % 4)]
            a1 = rowaddr[base + m * 8 + 2 * (lane % 4) + 1]
            ok &= (a0 >= 0) & (a1 >= 0)
            c = 2 * (lane // 4)
            idx.append((a0 + c)[:, None] + np.arange(2)[None, :])
            idx.append((a1 + c)[:, None] + np.arange(2)[None, :])
    idx = np.concatenate(idx, axis=1)
    ok &= (idx < len(smem)).all(axis=1)
    hashes = fnv_rows(smem[np.where(ok[:, None], idx, 0)])
    for k, (tt, good) in enumerate(zip(t.tolist(), ok.tolist())):
        ref.reads[tt].append((int(hashes[k]) if good else None, line))
