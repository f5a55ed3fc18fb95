"""Shared memory: one `Record` per access instance, live until it happens-before every live
thread; the race check of a new access against the live records whose bytes it overlaps (through
the per-statement interval index `_Group`), the self-overlap check of one instance's threads, and
the shared bytes no write has reached yet. A cp.async record is a write that lands at the
issuer's covering `wait_group` (state/cp_async.py); a TMA record completes with an mbarrier phase
(state/mbarrier.py); the proxy checks of each access are state/proxy.py's.
"""
from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field, replace

import numpy as np

from ... import ir
from ...events import TENSOR_MEMORY, Access, AccessKind, Proxy
from ...models.atomics import reads_destination
from .cluster import cta_stride

PENDING = -1


def thread_table(tids: np.ndarray, T: int) -> np.ndarray:
    """A boolean table over the block's T threads, True at `tids`: `table[r.tids]` is
    np.isin(r.tids, tids), without isin's sorting (~20x slower on a few hundred thread ids,
    and asked for every record at every commit, wait and fence)."""
    table = np.zeros(T, dtype=bool)
    table[tids] = True
    return table


def thread_rows(tids: np.ndarray):
    """`tids` as an index of the vector-clock rows: a slice when they are exactly one ascending run
    of thread ids (a warp, a warpgroup, a CTA: the usual case), else the ids themselves. Both
    select the same rows in the same order; the slice takes a view where the ids copy them
    (`vc[tids].min(axis=0)` over a 384-column clock matrix is 2-3x slower through the ids)."""
    n = len(tids)
    if n == 0:
        return tids
    t0, t1 = int(tids[0]), int(tids[-1])
    if t1 - t0 + 1 != n:
        return tids
    if n > 2:   # one comparison with a view of ascending ids is cheaper than np.diff
        run = (tids == _IDS[t0: t1 + 1]).all() if 0 <= t0 and t1 < len(_IDS) else (np.diff(tids) == 1).all()
        if not run:
            return tids
    return slice(t0, t1 + 1)


def filled(n: int, value: int) -> np.ndarray:
    """`np.full(n, value, dtype=np.int64)` without np.full's Python-level wrapper (a few of
    these per access: completion, group and fence clocks)."""
    out = np.empty(n, dtype=np.int64)
    out.fill(value)
    return out


_IDS = np.arange(1 << 16)   # thread_rows' ascending ids (a cluster has at most 16 x 1024 threads)


# ---------------------------------------------------------------- results the checks read
@dataclass(slots=True)   # ~30k made per kernel, their fields read in every check
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
    # a copy handed to an mbarrier (cp.async.mbarrier.arrive): which of its threads had proxy-fenced
    # it before the handover. The handover's arrival releases the copy, not the thread's fence;
    # the default reading lets a fence before it count for whoever acquires the phase
    # (docs/model.md "What a system-performed arrival releases")
    fenced_at_handover: np.ndarray | None = None
    mbarrier: int = -1                 # TMA load: barrier id; phase it completed on in `phase`
    phase: int = -1
    collective: bool = False           # wgmma: one operation; a wait by any owner completes it
    tainted: bool = False              # issued after its thread's progress came to rest on an unmodelled op
    same_value: bool = False           # a store of one value in every thread (program.same_in_every_thread)
    atomic: bool = False               # an atomic read-modify-write (models/atomics.py)
    value_key: tuple | None = None     # Access.value_key: copies of one source box into one place
    # state/proxy.py: thread sets (Memory.thread_key) no later access of which this record can
    # be reported against, whatever the bytes
    quiet_for: set | None = field(default=None, compare=False, repr=False)
    # Memory.retire: the position of a thread whose completion or clock kept the record live at
    # the last retirement (-1: none yet); checked first, it mostly keeps it live again
    blocker: int = field(default=-1, compare=False, repr=False)
    # ... and, when that thread's clock (not a pending completion) kept it, the clock column and
    # value `known` must reach: a clock once set never changes, nor the owner of a completed copy
    blocked_on: tuple | None = field(default=None, compare=False, repr=False)
    tmin: int = field(default=0, compare=False, repr=False)   # least and greatest thread id
    tmax: int = field(default=0, compare=False, repr=False)
    # Memory._check_pair: thread sets (Memory.thread_key) every thread of which this record was
    # found ordered before, whatever the bytes; it stays so (clocks only grow, a completion
    # once set stays), so their later accesses skip the pair check
    ordered_for: set | None = field(default=None, compare=False, repr=False)
    # meets(): `lo` sorted and the longest interval, computed at the first ask (lo, hi are fixed)
    lo_sorted: np.ndarray | None = field(default=None, compare=False, repr=False)
    tkey: bytes = field(default=b"", compare=False, repr=False)   # Memory.thread_key
    # meets(): the (lo, hi) read-only arrays of later accesses found to meet none of its bytes
    apart: list | None = field(default=None, compare=False, repr=False)
    max_len: int = field(default=0, compare=False, repr=False)
    bytes_id: int = field(default=-1, compare=False, repr=False)   # ByteSets: -1 until asked


def meets(new: Record, old: Record) -> bool:
    """Whether some interval of `new` may meet one of `old` (False: none does), by binary search
    in `old`'s sorted starts instead of the dense new x old overlap matrix: an interval
    [lo, hi) of `old` meeting [a, b) has a < hi <= lo + max_len and lo < b. A loop's cp.async
    or stores into rows of one stage interleave with the previous iteration's within the same
    byte bounds and meet none of them (hundreds of such pairs of 256-thread records per tile)."""
    if apart(new, old):
        return False
    if old.lo_sorted is None:
        old.lo_sorted = np.sort(old.lo)
        old.max_len = max(int((old.hi - old.lo).max()), 0)
    lo = old.lo_sorted
    met = bool((np.searchsorted(lo, new.lo - old.max_len, side="right") <
                np.searchsorted(lo, new.hi, side="left")).any())
    if not met and not new.lo.flags.writeable and not new.hi.flags.writeable:
        if old.apart is None:
            old.apart = []
        elif len(old.apart) >= 4:
            del old.apart[0]
        old.apart.append((new.lo, new.hi))
    return met


class ByteSets:
    """`meets` by content: records with equal (lo, hi) arrays share an id, and `meets` is asked
    once per pair of ids. Each iteration's store to a tile is a record of its own with the same
    bytes as the last; an async-proxy read is checked against every unfenced one whose hull its
    own meets (an MLA decode without TMA: 800k asks, about 20 distinct; 22 s -> 13 s)."""
    MAX_ANSWERS = 1 << 20

    def __init__(self):
        self.by_hash: dict = {}     # hash of (lo, hi) bytes -> [(lo, hi, id)]
        self.answers: dict = {}     # (new id, old id) -> meets
        self.count = 0

    def id_of(self, r: Record) -> int:
        if r.bytes_id < 0:
            bucket = self.by_hash.setdefault(hash((r.lo.tobytes(), r.hi.tobytes())), [])
            for lo, hi, i in bucket:
                if np.array_equal(lo, r.lo) and np.array_equal(hi, r.hi):
                    r.bytes_id = i
                    break
            else:
                r.bytes_id = self.count
                self.count += 1
                bucket.append((r.lo, r.hi, r.bytes_id))
        return r.bytes_id

    def meets(self, new: Record, old: Record) -> bool:
        key = (self.id_of(new), self.id_of(old))
        met = self.answers.get(key)
        if met is None:
            if len(self.answers) >= self.MAX_ANSWERS:
                self.answers.clear()
            met = self.answers[key] = meets(new, old)
        return met


def apart(new: Record, old: Record) -> bool:
    """`meets(new, old)` was False for these very (read-only) byte arrays of `new` before: a
    tcgen05.mma's accumulator columns, the same arrays each time the loop comes back to them
    (models.frozen), checked against the other half's tcgen05.ld records again and again."""
    if old.apart is None:
        return False
    lo, hi = new.lo, new.hi
    for a, b in old.apart:
        if a is lo and b is hi:
            return True
    return False


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
    # a cp.async that had landed: the second access (another thread's) is ordered after its
    # issue though not after the wait that completed it (a release after the issue, before
    # the covering wait); and then the issuer's last cp.async wait_group ordered before the
    # second access, (span, n, groups committed) or None (checks/classify.copy_in_flight, cp_async.py)
    issue_seen: bool = False
    seen_wait: tuple | None = None
    # a cp.async of which the second access's thread (another than `t_first`) issued a part
    # itself: whether that part had landed at the access (its own wait_group covered it), else
    # None (checks/classify.copy_in_flight)
    own_landed: bool | None = None
    # whether the witness involves a thread whose progress is uncertain (engine/taint.py): judged
    # per thread, so that a record one tainted thread shares keeps its other threads' races
    tainted: bool = False


@dataclass
class UnwrittenRead:
    """A read of shared bytes that no write reached before it: no write happens-before it, and
    none ran earlier in the executed schedule (an earlier unordered one is a race instead)."""
    record: Record
    thread: int
    lo: int
    hi: int


_READS = (AccessKind.READ, AccessKind.ASYNC_READ)


def _same_ranges(a: Record, b: Record) -> bool:
    """The same threads and byte ranges, in the same order, given equal byte bounds (an alike key:
    one interval each is then known from the bounds)."""
    if len(a.tids) != len(b.tids):
        return False
    if len(a.tids) == 1:
        return a.tmin == b.tmin
    return (a.tids is b.tids or bool((a.tids == b.tids).all())) and \
        (a.lo is b.lo or bool((a.lo == b.lo).all())) and (a.hi is b.hi or bool((a.hi == b.hi).all()))


def _union(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of the byte ranges [lo, hi): sorted, disjoint segments as (starts, ends)."""
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    if lo.size == 0:
        return lo, hi
    order = np.argsort(lo, kind="stable")
    lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)
    starts = np.flatnonzero(np.concatenate(([True], lo[1:] > reach[:-1])))
    return lo[starts], np.maximum.reduceat(hi, starts)


def _covered(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Every byte of the disjoint segments [starts, ends), as one index array."""
    lens = ends - starts
    before = np.cumsum(lens) - lens
    return np.repeat(starts - before, lens) + np.arange(int(lens.sum()))


def tcgen05_pipeline(via: str) -> bool:
    """Whether an access is a tcgen05.mma's or a tcgen05.cp's: two of them issued by one thread
    run in issue order. PTX ISA 9.7.16.6.2 lists mma -> mma and cp -> mma as pipelines; mma -> cp
    and cp -> cp are not in its list but CUTLASS's and Triton's block-scaled mainloops rely on
    them (one scale-factor buffer in tensor memory, refilled by tcgen05.cp right after the
    previous k-block's MMAs, with no wait): docs/model.md "Block-scaled MMA and its scale
    factors"."""
    return via.startswith("ptx_tcgen05_mma") or via.startswith("ptx_tcgen05_cp")


def _alike_key(r: Record) -> tuple:
    """What `Memory._supersede` needs equal first: statement, operation, kind and byte bounds."""
    return (r.span.start, r.via, r.kind, r.lo_min, r.hi_max)


class _AlikeBytes:
    """The `Memory.alike` keys of one statement (span start, via, kind), sorted by first byte,
    so an access finds the keys whose bytes [lo_min, hi_max) meet its own by binary search
    instead of visiting every key (a pipelined kernel keeps a dozen stages of copies and wgmma
    operand reads live, each stage its own key)."""
    __slots__ = ("lo_min", "hi_max", "max_len", "keys")

    def __init__(self):
        self.lo_min, self.hi_max, self.max_len = None, None, 0
        self.keys: list = []   # (lo_min, hi_max, key), sorted; (lo_min, hi_max) differ by key

    def add(self, key: tuple) -> None:
        lo, hi = key[3], key[4]
        bisect.insort(self.keys, (lo, hi, key))   # (lo, hi) decide: never a tie
        if self.lo_min is None:
            self.lo_min, self.hi_max = lo, hi
        else:   # bounds only widen: a loose bound only lets a few more keys be tested
            self.lo_min, self.hi_max = min(self.lo_min, lo), max(self.hi_max, hi)
        self.max_len = max(self.max_len, hi - lo)

    def remove(self, key: tuple) -> None:
        lo, hi = key[3], key[4]
        k = bisect.bisect_left(self.keys, (lo, hi))
        del self.keys[k]

    def meeting(self, lo: int, hi: int) -> list:
        """The keys whose bytes meet [lo, hi): their first byte is in (lo - max_len, hi)."""
        if self.hi_max <= lo or hi <= self.lo_min:
            return []
        keys = self.keys
        i = bisect.bisect_left(keys, (lo - self.max_len + 1,))
        j = bisect.bisect_left(keys, (hi,), lo=i)
        return [e[2] for e in keys[i:j] if e[1] > lo]


# bits of one interval's (thread, clock, first byte, length) packed into one int64 key
_TID_BITS, _CLK_BITS, _LO_BITS, _LEN_BITS = 14, 13, 24, 12


def _interval_keys(rec: Record) -> np.ndarray | None:
    """`rec`'s intervals as int64 keys, equal exactly when (thread, first byte, end byte, clock)
    are (`_Group`'s dedupe, without a Python tuple per interval: the four fields are packed into
    disjoint bits), or None when some field does not fit its bits (then tuples are the keys)."""
    tids, lo, clk = rec.tids, rec.lo, rec.clk
    width = rec.hi - lo
    for x, bits in ((tids, _TID_BITS), (clk, _CLK_BITS), (lo, _LO_BITS), (width, _LEN_BITS)):
        if int(x.min()) < 0 or int(x.max()) >> bits:
            return None
    key = tids << _CLK_BITS
    key |= clk
    key <<= _LO_BITS
    key |= lo
    key <<= _LEN_BITS
    key |= width
    return key


def _known_past(known: np.ndarray, r: Record) -> bool:
    """Every access of plain record `r` happens-before threads that know `known` of each clock
    column (`(known[r.owner] >= r.clk).all()`; one owner, an elected thread's, as scalars)."""
    owner = r.owner
    if len(owner) == 1:
        return known.item(owner.item(0)) >= r.clk.item(0)
    return bool((known[owner] >= r.clk).all())


class _KnownColumns:
    """`vc[rows].min(axis=0)` (what every live thread knows, `Memory.retire`), computed only at
    the columns asked for: a retirement after an mbarrier phase reads a few dozen of ~T + NB
    columns (the clock columns its waiting records are blocked on, the owners of the records it
    asks), and the least of 512 whole rows costs ~100 us. `values[c]` is exact at every column
    asked so far (`need`); `need` returns the array once the columns are there (all of them, as
    the whole reduction, when more than an eighth are asked: gathering a column costs about
    six times its share of the whole reduction)."""
    __slots__ = ("vc", "rows", "values", "have", "full")

    def __init__(self, vc: np.ndarray, rows):
        self.vc, self.rows = vc, rows
        self.values = np.zeros(vc.shape[1], dtype=vc.dtype)
        self.have = np.zeros(vc.shape[1], dtype=bool)
        self.full = False

    def need(self, cols) -> np.ndarray:
        if self.full:
            return self.values
        cols = np.asarray(cols, dtype=np.int64)
        missing = cols[~self.have[cols]]
        if missing.size == 0:
            return self.values
        if missing.size > 1:   # each column once (a record's owners repeat one column per lane)
            mark = np.zeros(len(self.have), dtype=bool)
            mark[missing] = True
            missing = np.flatnonzero(mark)
        if 8 * missing.size > len(self.have):
            self.values[:] = self.vc[self.rows].min(axis=0)
            self.full = True
            return self.values
        rows = self.rows
        if isinstance(rows, slice):
            self.values[missing] = self.vc[rows, missing].min(axis=0)
        else:
            self.values[missing] = self.vc[np.ix_(rows, missing)].min(axis=0)
        self.have[missing] = True
        return self.values


def _last_keys(r: Record) -> tuple:
    """The keys of `_Group.last` (Memory._supersede_plain) a record stands at: its threads and byte
    bounds, and, when its range arrays are read-only (models.frozen), those arrays too: the last
    record of exactly these ranges, though records of other ranges with the same bounds came
    between (the butterfly levels of an AllReduce read lane ^ 64, lane ^ 32, ... of one
    workspace, every call). The table holds the arrays, so their ids are not reused meanwhile."""
    key = (r.tkey, r.lo_min, r.hi_max)
    if r.lo.flags.writeable or r.hi.flags.writeable:
        return (key,)
    return key, (key, id(r.lo), id(r.hi))


def _take_out(recs: list, rids: list, gone: set) -> list:
    """Take the records `rids` (`gone` as a set) out of `recs`, a list in id order, in place;
    the records taken. One id (a superseded record, at every access of a loop) by bisection."""
    if len(rids) == 1:
        k = bisect.bisect_left(recs, rids[0], key=lambda r: r.id)
        return [recs.pop(k)] if k < len(recs) and recs[k].id == rids[0] else []
    taken = [r for r in recs if r.id in gone]
    if taken:
        recs[:] = [r for r in recs if r.id not in gone]
    return taken


class _Group:
    """The live plain (not async, not collective) records of one statement and kind, as per-thread
    byte intervals indexed by address, so an access finds what it overlaps without scanning
    every live record (kernels without barriers never retire records).

    An interval is left out when an earlier live record of the group has the same thread, the
    same bytes and the same clock: whatever races with it races with that one too, and the
    earlier record is checked first, so the left-out interval can never be the reported one
    (`Memory.access`). Left-out intervals stay in their records, which stay in `Memory.live`.

    `runs` partition the intervals by record id (a run holds only ids above the previous run's),
    each sorted by `lo`; adjacent runs merge when of similar size (a log-structured index).
    Records enter the index only when an access asks for it (`pending` until then): most groups
    are never asked (their statement pairs were reported, or no later access reaches their
    bytes). Built late, it may leave out fewer intervals (the dedupe drops only copies of
    intervals of earlier records still live); the oldest racing record is the same.
    An access that overlaps at most `few` records of a group of at most `small` (the usual
    case: barriers retire them) checks them one by one; the index pays off past that (a
    warp-specialized kernel's softmax warp keeps a dozen records of each statement live
    between its barriers)."""
    __slots__ = ("kind", "span_start", "via", "recs", "small", "runs", "seen", "kept",
                 "lo_min", "hi_max", "pending", "ordered_upto", "last", "atomic")
    few = 2

    # `small` 256: an mma.sync flash attention's K and V ldmatrix statements keep 128 records
    # live each (two stages of 64), and the TMA load refilling a stage meets 32 of them, all
    # ordered before it: filtered one by one in microseconds, where indexing each new record
    # cost the sm_100a GQA varlen forward half its 16 s
    def __init__(self, kind, span_start: int, via: str, small: int = 256, atomic: bool = False):
        self.kind, self.span_start, self.via, self.small = kind, span_start, via, small
        self.atomic = atomic
        self.recs: list = []     # the live records, by id
        self.lo_min, self.hi_max = 0, 0   # bounds of their bytes
        self.runs: list = []     # [lo, hi, tid, clk, rid, maxlen]
        self.seen: set = set()   # keys (_interval_keys) of the intervals indexed
        self.kept: dict = {}     # rid -> the keys it put in `seen`
        self.pending: list = []  # live records not indexed yet, by id
        # thread key (Memory.thread_key) -> a record id: every record up to it is ordered before
        # every one of those threads, for good
        self.ordered_upto: dict = {}
        # (thread key, first byte, end byte) -> the latest record of those threads and bounds
        # (Memory._supersede_plain; `remove` drops the entry of a record that leaves)
        self.last: dict = {}

    def add(self, rec: Record) -> None:
        if self.recs:
            self.lo_min, self.hi_max = min(self.lo_min, rec.lo_min), max(self.hi_max, rec.hi_max)
        else:
            self.lo_min, self.hi_max = rec.lo_min, rec.hi_max
        self.recs.append(rec)
        self.pending.append(rec)

    def candidates(self, rec: Record, vc: np.ndarray, floor, threads: bytes) -> list:
        """The records of the group `Memory._check_pair` must see, for an access `rec`: every
        record whose bytes meet it, or, through the index, only the oldest that races with it
        (the pair is reported on that one, and the later ones are skipped as reported).
        `floor(rec)`: Memory.floor; `threads`: Memory.thread_key(rec)."""
        recs = self.recs
        if len(recs) > self.few and not tcgen05_pipeline(self.via):
            # the oldest records, ordered before every thread of `rec`, cannot race with it
            # (_check_pair's first test), nor with a later access of the same threads (clocks only
            # grow): skipped from here on (a persistent kernel's epilogue keeps its stores live
            # for tiles, for producer threads that never synchronize with it, while the
            # epilogue's own threads have long synchronized past them)
            start = 0
            cut = self.ordered_upto.get(threads)
            if cut is not None:
                start = bisect.bisect_right(recs, cut, key=lambda r: r.id)
            if start < len(recs):
                known = floor(rec)
                moved = start
                while start < len(recs):
                    r = recs[start]
                    if not (r.ordered_for is not None and threads in r.ordered_for or _known_past(known, r)):
                        break
                    start += 1
                if start > moved:
                    self.ordered_upto[threads] = recs[start - 1].id
            if start:
                if start == len(recs):
                    return []
                recs = recs[start:]
        if len(recs) <= self.small:
            # (a record found ordered before these threads stays so: Record.ordered_for)
            near = [r for r in recs if r.hi_max > rec.lo_min and rec.hi_max > r.lo_min
                    and (r.ordered_for is None or threads not in r.ordered_for)]
            # a tcgen05.mma or .cp pair is ordered in issue order per thread (Memory._check_pair), which
            # the index does not know
            if len(near) <= self.few or tcgen05_pipeline(self.via):
                return near
            # those ordered before every thread of `rec` cannot race with it (_check_pair's
            # first test): when they are most, the rest is checked one by one
            known = floor(rec)
            near = [r for r in near if not _known_past(known, r)]
            if len(near) <= self.few or recs is not self.recs:
                # (past the ordered records, checked one by one: the index holds them all)
                return near
        rid = self.first_bad(rec, vc)
        if rid is None:
            return []
        k = bisect.bisect_left(self.recs, rid, key=lambda r: r.id)
        return [self.recs[k]]

    def _index(self, rec: Record) -> None:
        packed = _interval_keys(rec)
        keys = packed.tolist() if packed is not None else \
            list(zip(rec.tids.tolist(), rec.lo.tolist(), rec.hi.tolist(), rec.clk.tolist()))
        seen = self.seen
        if seen.isdisjoint(keys):
            sel, mine = slice(None), keys
        else:
            sel = np.flatnonzero(~np.fromiter(map(seen.__contains__, keys), dtype=bool, count=len(keys)))
            mine = [keys[i] for i in sel.tolist()]
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

    def remove(self, rids: list, reindex: bool = True, bounds_kept: bool = False) -> None:
        """`rids` leave the group. `reindex` False: a small group's index is kept (filtered) rather
        than dropped for a rebuild at the next ask: a record superseded by the statement's next
        instance (Memory._supersede_plain) leaves at every access, and the next access asks.
        `bounds_kept`: a record of the same first and end byte stays (the superseding one), so
        the group's bounds do not move."""
        gone = set(rids)
        left = _take_out(self.recs, rids, gone)
        last = self.last
        if last:   # no entry keeps a record that left (a loop over ever new bytes would pile them up)
            for r in left:
                for k in _last_keys(r):
                    if last.get(k) is r:
                        del last[k]
        if self.recs and not bounds_kept and any(
                r.lo_min <= self.lo_min or r.hi_max >= self.hi_max for r in left):
            self.lo_min = min(r.lo_min for r in self.recs)
            self.hi_max = max(r.hi_max for r in self.recs)
        if not self.kept:
            _take_out(self.pending, rids, gone)
            return
        if reindex and len(self.recs) <= self.small:   # cheaper to index again, if asked, than to filter
            self.runs, self.seen, self.kept, self.pending = [], set(), {}, list(self.recs)
            return
        _take_out(self.pending, rids, gone)
        for rid in rids:
            self.seen.difference_update(self.kept.pop(rid, ()))
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
        access `rec`'s thread has not synchronized with (Memory._check_pair's test), or None."""
        for r in self.pending:
            self._index(r)
        self.pending = []
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


def _copy_bytes(copy) -> tuple:
    """(first byte, end byte, span starts, words) of a shared parameter copy (Program.shared_copies)."""
    view, param, copy_lines, read_lines, starts = copy
    size = int(np.prod(view.shape)) * view.elem_size if view.shape and \
        all(isinstance(d, int) for d in view.shape) else None
    end = view.flat_base + size if size is not None else view.region.base + view.region.nbytes
    return (view.flat_base, end, starts,
            f"{view.name} is read as {param} (line(s) {', '.join(map(str, sorted(set(read_lines))))}: "
            f"its stores copy {param}, line(s) {', '.join(map(str, copy_lines))})")


class Memory:
    """The live access records and the shared bytes written so far."""
    EVENTS = {Access: "access"}
    # `_mark_written` marks an access's bytes through a difference array over its whole span up to
    # DENSE_SPAN bytes; a wider one through the index of every byte its ranges cover
    DENSE_SPAN = 1 << 12
    # `_read_key`'s shortcut (off: every read is checked in full; tests compare the two)
    skip_repeated_reads = True

    def __init__(self, machine):
        self.machine = machine
        self.next_id = 0
        # per fenced arm (program.fenced_arms): [hulls of the accesses outside it, inside it]
        self.fenced = [[[], []] for _ in machine.p.fenced_arms] or None
        # shared parameter copies read as the parameter (program.shared_copies): (first byte, end
        # byte, the copies' span starts, what) of each; a write there by anything else is a note
        self.forwarded = [_copy_bytes(c) for c in machine.p.shared_copies] or None
        self.live: dict = {}            # record id -> Record, in issue order
        # plain records superseded in the race check (_supersede_plain) that the proxy check still
        # tracks (state/proxy.py): record id -> Record, retired as if live, never in the signature
        self.shadow: dict = {}
        # `live` again, split for the race check: plain records indexed per statement (_Group),
        # the rest (async, collective) scanned one by one
        self.groups: dict = {}          # (span start, via, kind) -> _Group
        self.plain: dict = {}           # record id -> its _Group
        self.other_live: dict = {}      # record id -> Record, in issue order
        # other_live again by (statement, via, kind, first byte, end byte): _supersede's candidates
        self.alike: dict = {}
        # its keys by statement (span start, via, kind) -> _AlikeBytes, and those of write kinds:
        # all that a read's race check visits
        self.alike_stmts: dict = {}
        self.alike_write_stmts: dict = {}
        # shared bytes some write (store, cp.async, TMA, any thread) has reached so far
        self.written = np.zeros(0, dtype=bool)
        self.written_prefix = None      # cumulative count of `written`, rebuilt after a write
        self._floor_of, self._floor = -1, None   # Memory.floor's record id and its value
        self.byte_sets = ByteSets()
        self._key_of, self._key = -1, b""        # Memory.thread_key's
        # what is known of a (lo, hi) pair of read-only byte arrays (the models reuse them while a
        # statement's memoized address and threads are the same): id pair -> [lo, hi, lo_min,
        # hi_max, facts], facts a set of: "no self clash" (for same_value False / True), "marked"
        # (every range is in `written`, which only grows), "read ok" (no range unwritten)
        self._ranges: dict = {}
        # retire's live records by what kept them live: a clock column -> heap of (the clock that
        # column must reach, record id) (Record.blocked_on; entries of records dropped meanwhile
        # stay until popped or rebuilt, counted in `_stale`), and the rest by id
        self._waiting: dict = {}
        self._tids_facts: dict = {}   # id(tids) -> _thread_facts(tids)
        # plain reads checked since the machine's state last changed (Machine.epoch): `_read_key`
        # -> (epoch, statement, tids, lo, hi)
        self._reads_seen: dict = {}
        self._alive_key, self._alive_rows = None, None   # retire's: machine.alive, its rows
        self._unblocked: dict = {}
        self._stale = 0
        # bytes past every CTA's shared memory and tensor memory (state/cluster.py), with room to
        # spare: an access beyond them (an index off by orders of magnitude, in a corrupted or
        # mistyped kernel) is not tracked byte by byte, which would take gigabytes
        self.flat_bytes = cta_stride(machine.p.layout) * machine.p.launch.cluster_size
        self.byte_cap = 4 * self.flat_bytes + (1 << 20)

    def signature(self):
        return tuple(sorted((r.kind.value, r.span.start, r.lo_min, r.hi_max) for r in self.live.values()))

    def finish(self, result) -> None:
        pass

    # ------------------------------------------------------------ retirement
    def retire(self, known: np.ndarray | None = None) -> None:
        """Drop records that happen-before every live thread: nothing can race with them now.
        `known`: what every live thread knows (`vc[alive].min(axis=0)`), when the caller has it."""
        machine = self.machine
        if known is None:
            key = machine.alive.tobytes()   # the live threads change only when some exit
            if key != self._alive_key:
                alive = np.flatnonzero(machine.alive)
                self._alive_key, self._alive_rows = key, thread_rows(alive) if alive.size else None
            if self._alive_rows is None:
                self._drop([r for r in self.live.values() if r.done is None or not (r.done == PENDING).any()]
                           + list(self.shadow.values()))
                return
            # only the columns read below: those the waiting records are blocked on, then the
            # owners of the records asked (_KnownColumns), not all ~T of them
            known = _KnownColumns(machine.vc, self._alive_rows)
            known.need(list(self._waiting))
            known_at = known.values
        else:
            known_at = known.tolist()
        known_all = known   # (the columns object, for `publish`: `known` below may become its array)
        asked = []
        # the records a thread's clock kept live last time, by that clock column: only those
        # whose clock `known` reaches now are asked again (popped here; pushed again below when
        # still live), without visiting the others
        waiting, live = self._waiting, self.live
        for col in list(waiting):
            heap, reach = waiting[col], known_at[col]
            while heap and heap[0][0] <= reach:
                need, rid = heapq.heappop(heap)
                r = live.get(rid)
                if r is None:
                    r = self.shadow.get(rid)
                if r is not None and r.blocked_on == (col, need):
                    r.blocked_on = None   # set again below if it stays live
                    asked.append(r)
            if not heap:
                del waiting[col]
        for r in self._unblocked.values():
            # a completion once set stays: a record kept live by a pending completion waits for it
            b = r.blocker
            if b >= 0 and (r.done if r.done is not None else r.clk).item(b) == PENDING:
                continue
            asked.append(r)
        if asked:
            self._retire_asked(asked, known)
        if machine.proxy.awaiting:   # (kept fenced records: each live thread may know the fences now)
            machine.proxy.publish(known_all)

    def _retire_asked(self, asked: list, known) -> None:
        """Drop the records of `asked` whose every thread's access (or completion) every live
        thread knows (`known`: an array, or _KnownColumns); block the others on their first late
        thread's column."""
        machine = self.machine
        if len(asked) > 1:
            asked.sort(key=lambda r: r.id)   # issue order, as `live` lists them
        whens = [r.done if r.done is not None else r.clk for r in asked]
        if isinstance(known, _KnownColumns):
            owners = np.concatenate([r.owner for r in asked]) if len(asked) > 1 else asked[0].owner
            known = known.need(owners)
        # late: threads whose completion is pending or not yet known to every live thread; of
        # more than a few records, every thread at once (a dozen numpy calls, not five a record)
        if len(asked) <= 3:
            lates = [(w == PENDING) | (known[r.owner] < w) for r, w in zip(asked, whens)]
        else:
            sizes = [len(w) for w in whens]
            when_all = np.concatenate(whens)
            late = (when_all == PENDING) | (known[np.concatenate([r.owner for r in asked])] < when_all)
            ends = np.cumsum(sizes).tolist()
            lates = [late[e - n:e] for n, e in zip(sizes, ends)]
            if min(sizes) > 0:   # which records have a late thread, in one call
                flags = np.logical_or.reduceat(late, [e - n for n, e in zip(sizes, ends)]).tolist()
                lates = [x if f else None for x, f in zip(lates, flags)]
        gone = []
        for r, when, mine in zip(asked, whens, lates):
            if mine is not None and mine.any():
                b = r.blocker = int(mine.argmax())
                w = int(when[b])
                if w == PENDING:
                    r.blocked_on = None
                    self._unblocked[r.id] = r
                else:
                    self._block(r, int(r.owner[b]), w)
                continue
            if r.fence_clk is not None:
                machine.proxy.retired(r)
            gone.append(r)
        self._drop(gone)

    def _block(self, r: Record, col: int, need: int) -> None:
        """`r` stays live until what every live thread knows of clock column `col` reaches `need`."""
        r.blocked_on = (col, need)
        self._unblocked.pop(r.id, None)
        heap = self._waiting.get(col)
        if heap is None:
            self._waiting[col] = [(need, r.id)]
        else:
            heapq.heappush(heap, (need, r.id))

    def _drop(self, gone: list, keep: tuple | None = None) -> None:
        """`gone` (live records) leave `live` and the race-check index. `keep`: an alike key kept
        even when it empties (the access being checked joins it)."""
        if not gone:
            return
        by_group: dict = {}
        unblocked = self._unblocked
        for r in gone:
            if self.shadow.pop(r.id, None) is not None:   # left the race check already
                if r.blocked_on is not None:
                    self._stale += 1
                else:
                    unblocked.pop(r.id, None)
                self.machine.proxy.left_live(r)
                continue
            del self.live[r.id]
            if r.blocked_on is not None:
                self._stale += 1
            else:
                unblocked.pop(r.id, None)
            if r.fence_clk is not None:
                self.machine.proxy.left_live(r)
            g = self.plain.pop(r.id, None)
            if g is not None:
                by_group.setdefault(g, []).append(r.id)
            elif self.other_live.pop(r.id, None) is not None:
                key = _alike_key(r)
                same = self.alike[key]
                del same[r.id]
                if not same and key != keep:
                    del self.alike[key]
                    stmt = self.alike_stmts[key[:3]]
                    stmt.remove(key)
                    if not stmt.keys:
                        del self.alike_stmts[key[:3]]
                        self.alike_write_stmts.pop(key[:3], None)
        for g, rids in by_group.items():
            g.remove(rids)
            if not g.recs:
                del self.groups[(g.span_start, g.via, g.kind)]
        if self._stale > 2 * (len(self.live) + len(self.shadow)) + 256:   # the heaps hold mostly records gone: rebuild
            self._waiting, self._stale = {}, 0
            for r in list(self.live.values()) + list(self.shadow.values()):
                if r.blocked_on is not None:
                    self._waiting.setdefault(r.blocked_on[0], []).append((r.blocked_on[1], r.id))
            for heap in self._waiting.values():
                heapq.heapify(heap)

    # ------------------------------------------------------------ the race check
    def access(self, task, ev: Access, s) -> None:
        if ev.tids.size == 0:
            return
        machine = self.machine
        repeatable = None   # a plain read's `_reads_seen` key, when its arrays are read-only
        if ev.kind is not AccessKind.READ or ev.mbarrier is not None or ev.cta is not None \
                or ev.atomic or ev.collective:
            machine.epoch += 1
        elif self.skip_repeated_reads:
            repeatable = self._read_key(ev, s)
            seen = self._reads_seen.get(repeatable) if repeatable is not None else None
            if seen is not None and seen[0] == machine.epoch and seen[1] is s and seen[2] is ev.tids \
                    and seen[3] is ev.lo and seen[4] is ev.hi:
                # the repeated read: the first's record stands for it (a race found later on
                # it names the first's loop values; a finding may already name its record)
                machine.mbarrier.acts(ev.tids)
                return
        if ev.mbarrier is not None and np.ndim(ev.mbarrier) and len(np.unique(ev.mbarrier)) > 1:
            # TMA loads of one statement completing on different mbarriers (one per warp or
            # thread): one record per barrier, each completing with its own barrier's phase
            bars = np.asarray(ev.mbarrier)
            for b in np.unique(bars).tolist():
                sel = bars == b
                self.access(task, replace(ev, tids=ev.tids[sel], lo=ev.lo[sel], hi=ev.hi[sel],
                                          mbarrier=bars[sel]), s)
            return
        tids = ev.tids.astype(np.int64, copy=False)
        known = self._known_ranges(ev.lo, ev.hi)
        lo_min, hi_max = (int(ev.lo.min()), int(ev.hi.max())) if known is None else (known[2], known[3])
        if known is None or "in bounds" not in known[4]:
            if lo_min < 0 or hi_max > self.byte_cap or (ev.hi < ev.lo).any():
                machine.note(f"{ev.via or 'an access'} to {ev.buffer} at flat shared bytes [{lo_min:,}, "
                             f"{hi_max:,}): outside the kernel's shared memory ({self.flat_bytes:,} "
                             "bytes), or of a negative length; not tracked", s.span)
                machine.taint.threads(machine, tids)
                return
            if known is not None:
                known[4].add("in bounds")
        vc = machine.vc
        machine.mbarrier.acts(tids)
        _, tmin, tmax, threads, rows = self._thread_facts(tids)
        rec = Record(self.next_id, ev.kind, tids, ev.lo.astype(np.int64, copy=False),
                     ev.hi.astype(np.int64, copy=False),
                     vc.diagonal()[tids], s.span, ev.via, ev.buffer, ev.region_base,
                     ev.elem_size, task.loops(), owner=tids, group_kind=ev.group_kind, proxy=ev.proxy,
                     collective=ev.collective, tainted=bool(vc[rows, machine.taint.column].any()),
                     same_value=ev.same_value, atomic=ev.atomic, value_key=ev.value_key)
        if ev.cta is not None:   # placed in a cluster (state/cluster.py): remote uses are judged at exit
            self.machine.cluster.note_record(rec, task.cta, ev.cta, ev.mbarrier_cta)
        self.next_id += 1
        if known is not None and (known[0] is not rec.lo or known[1] is not rec.hi):
            known = None   # (astype made int64 copies: nothing is remembered of those)
        rec.lo_min, rec.hi_max = lo_min, hi_max
        if self.fenced is not None:
            self._fenced_bytes(rec)
        if self.forwarded is not None and ev.kind in (AccessKind.WRITE, AccessKind.ASYNC_WRITE):
            self._forwarded_bytes(rec)
        rec.tmin, rec.tmax, rec.tkey = tmin, tmax, threads
        self._key_of, self._key = rec.id, threads   # thread_key(rec)
        writes = ev.kind in (AccessKind.WRITE, AccessKind.ASYNC_WRITE)
        # The race check of every live record against `rec`, in record order: a pair of
        # statements is reported once, on the first record (oldest) that races. Async and
        # collective records are checked one by one; of each statement's plain records only the
        # oldest that races (found through the index) can be the one reported.
        first = []
        # kind (a read races only with writes) and bytes first
        alike = self.alike
        for stmt in (self.alike_stmts if writes else self.alike_write_stmts).values():
            for key in stmt.meeting(rec.lo_min, rec.hi_max):
                for old in alike[key].values():
                    if old.ordered_for is not None and threads in old.ordered_for:
                        continue
                    first.append(old)
        seen_pairs = machine.seen_pairs
        for g in self.groups.values():
            if not writes and g.kind in _READS:
                continue
            if g.hi_max <= rec.lo_min or rec.hi_max <= g.lo_min:
                continue
            if (g.span_start, rec.span.start, g.via, rec.via) in seen_pairs:
                continue
            if rec.atomic and g.atomic:
                continue   # two atomic read-modify-writes never race (models/atomics.py)
            first.extend(g.candidates(rec, vc, self.floor, threads))
        if len(first) > 1:
            first.sort(key=lambda r: r.id)
        for old in first:
            self._check_pair(old, rec)
        machine.proxy.check_access(rec, ev, writes)
        if machine.mbarrier.carved_at:
            machine.mbarrier.check_carved(rec, s)
        if ev.buffer == TENSOR_MEMORY:
            machine.tcgen05.check_access(rec)
        self._floor_of = -1   # the clocks may move from here on
        facts = known[4] if known is not None else set()
        if rec.atomic and reads_destination(rec.via) and "read ok" not in facts and \
                self._check_written(rec):
            facts.add("read ok")   # (a read-modify-write reads the bytes first)
        if writes:
            if rec.atomic:
                pass   # threads of one atomic statement meeting on an element: serialized, no clash
            elif ("no self clash", rec.same_value) not in facts and self._check_self(rec):
                facts.add(("no self clash", rec.same_value))
            if "marked" not in facts:
                self._mark_written(rec)
                facts.add("marked")
        elif "read ok" not in facts and self._check_written(rec):
            facts.add("read ok")
        machine.proxy.track(rec, ev, writes)
        if rec.kind in (AccessKind.ASYNC_WRITE, AccessKind.ASYNC_READ) and not rec.collective:
            self._supersede(rec)
        if ev.kind in (AccessKind.ASYNC_WRITE, AccessKind.ASYNC_READ):
            rec.done = filled(len(tids), PENDING)
            rec.group = filled(len(tids), -1)
            if ev.mbarrier is not None:
                machine.mbarrier.tma_deliver(task, rec, ev, s)
            else:
                machine.cp_async.issue(rec)
        self.live[rec.id] = rec
        self._unblocked[rec.id] = rec
        if repeatable is not None:
            if len(self._reads_seen) >= 4096:
                self._reads_seen.clear()
            self._reads_seen[repeatable] = (machine.epoch, s, ev.tids, ev.lo, ev.hi)
        if rec.done is None and not rec.collective:
            gk = (rec.span.start, rec.via, rec.kind)
            g = self.groups.get(gk)
            if g is None:
                # (a statement's records are all atomic or none)
                g = self.groups[gk] = _Group(rec.kind, rec.span.start, rec.via, atomic=rec.atomic)
            g.add(rec)
            self.plain[rec.id] = g
            self._supersede_plain(g, rec)
        else:
            self.other_live[rec.id] = rec
            key = _alike_key(rec)
            same = self.alike.get(key)
            if same is None:
                same = self.alike[key] = {}
                stmt = self.alike_stmts.get(key[:3])
                if stmt is None:
                    stmt = self.alike_stmts[key[:3]] = _AlikeBytes()
                    if rec.kind not in _READS:
                        self.alike_write_stmts[key[:3]] = stmt
                stmt.add(key)
            same[rec.id] = rec

    @staticmethod
    def _read_key(ev: Access, s) -> tuple | None:
        """The `_reads_seen` key of a plain read whose threads and byte ranges are read-only
        arrays (the models' memoized addresses: the same arrays while the address is), else None.

        A plain read that repeats one checked at the same Machine.epoch (which every event but a
        plain read, every sync, retirement, taint and loop skip moves), by the same statement,
        threads and ranges, is not checked again: its race, unwritten-byte and proxy checks would
        meet exactly what the first one met, with the same clocks, and report nothing new (a
        statement pair is reported once), and its record would replace the first's, which it
        equals but for its loop values: a race found later names the first read's iteration,
        which races as well. A SIMT GEMM's inner `k, i, j`
        loops read each A element for every j: 7 of 8 reads repeat."""
        if ev.tids.flags.writeable or ev.lo.flags.writeable or ev.hi.flags.writeable:
            return None
        return (id(s), ev.via, id(ev.tids), id(ev.lo), id(ev.hi))

    def _forwarded_bytes(self, rec: Record) -> None:
        """A shared buffer whose loads are read as the parameter it copies (program.py
        `_forward_copies`) must hold nothing but those copies: a write of its bytes by another
        statement (through another view, a TMA, anything) makes the reading a note, and taints
        the writers, so nothing definite rests on a value the copy no longer holds."""
        cluster = self.machine.cluster
        stride = cluster.stride if cluster.active else None
        lo_all, hi_all = (rec.lo % stride, rec.lo % stride + (rec.hi - rec.lo)) if stride else (rec.lo, rec.hi)
        for k, (lo, hi, copies, what) in enumerate(self.forwarded):
            if rec.span.start in copies or not ((lo_all < hi) & (hi_all > lo)).any():
                continue
            self.machine.note(f"{what}, but line {rec.span.line} ({rec.via or 'a write'}) writes its bytes "
                              "too: its value there is not the parameter's", rec.span)
            self.machine.taint.threads(self.machine, rec.tids)

    def _fenced_bytes(self, rec: Record) -> None:
        """A branch checked taken every time because its arm is fenced (loaded_numbers.py
        `_fenced_branch`) needs its arm's shared bytes to be its own: an access outside the arm
        that meets them (or one inside that meets an outside access's) makes it a note."""
        lo, hi = rec.lo_min, rec.hi_max
        for k, (span, a, b) in enumerate(self.machine.p.fenced_arms):
            inside = a <= rec.span.start <= b
            mine, theirs = self.fenced[k][inside], self.fenced[k][not inside]
            if any(x < hi and lo < y and ((rec.lo < y) & (rec.hi > x)).any() for x, y in theirs):
                where, other = ("inside", "outside") if inside else ("outside", "inside")
                self.machine.note(f"a branch on a loaded number checked taken every time (its arm is "
                                  f"fenced), but line {rec.span.line}, {where} its arm, touches shared "
                                  f"bytes an access {other} it touches too", span)
            for i, (x, y) in enumerate(mine):   # the hulls of each side, merged where they meet
                if x <= hi and lo <= y:
                    mine[i] = (min(x, lo), max(y, hi))
                    break
            else:
                mine.append((lo, hi))

    def _known_ranges(self, lo: np.ndarray, hi: np.ndarray) -> list | None:
        """The `_ranges` entry of these two arrays (made on first sight), or None when either can
        change (writeable): then nothing is remembered."""
        if lo.flags.writeable or hi.flags.writeable:
            return None
        key = (id(lo), id(hi))
        entry = self._ranges.get(key)
        if entry is None or entry[0] is not lo or entry[1] is not hi:
            if len(self._ranges) >= 4096:
                self._ranges.clear()
            entry = self._ranges[key] = [lo, hi, int(lo.min()), int(hi.max()), set()]
        return entry

    def _thread_facts(self, tids: np.ndarray) -> tuple:
        """(tids, least id, greatest id, Memory.thread_key, thread_rows) of a thread-id array,
        remembered while it is the same read-only array (the interned ids of a task: every
        access of a warpgroup asks the same)."""
        entry = self._tids_facts.get(id(tids))
        if entry is not None and entry[0] is tids:
            return entry
        lo, hi = int(tids.min()), int(tids.max())
        # one thread named many times (a tcgen05.mma's 128 accumulator lanes, all its issuer's):
        # its one row, which every row of the ids repeats
        entry = (tids, lo, hi, tids.tobytes(), slice(lo, lo + 1) if lo == hi else thread_rows(tids))
        if not tids.flags.writeable:
            if len(self._tids_facts) >= 4096:
                self._tids_facts.clear()
            self._tids_facts[id(tids)] = entry
        return entry

    def floor(self, rec: Record) -> np.ndarray:
        """For each vector-clock column, the least that any of `rec`'s threads knows of it
        (`vc[rec.tids].min(axis=0)`): an old access whose clock is at most that is ordered before
        every thread of `rec`, so the pair checks can leave its intervals out without looking at
        their bytes. Computed once per new access (the clocks do not move during its checks)."""
        if self._floor_of != rec.id:
            rows = self._thread_facts(rec.tids)[4]
            vc = self.machine.vc
            # one thread (an elected issuer): its row, without a reduction over it
            self._floor = vc[rows.start].copy() if isinstance(rows, slice) and rows.stop - rows.start == 1 \
                else vc[rows].min(axis=0)
            self._floor_of = rec.id
        return self._floor

    def floor_at(self, rec: Record, cols: np.ndarray) -> np.ndarray:
        """`floor(rec)[cols]`; of a few columns not asked of this access yet, without the whole
        row (a warp's stores checked against a warpgroup's load: 32 of ~400 columns)."""
        if self._floor_of == rec.id or 4 * len(cols) > self.machine.vc.shape[1]:
            return self.floor(rec)[cols]
        return self.machine.vc[self._thread_facts(rec.tids)[4]][:, cols].min(axis=0)

    def _floor_one(self, rec: Record, col: int) -> int:
        """`floor(rec)[col]`."""
        if self._floor_of == rec.id:
            return self._floor.item(col)
        rows = self._thread_facts(rec.tids)[4]
        if isinstance(rows, slice) and rows.stop - rows.start == 1:
            return self.machine.vc.item(rows.start, col)
        return int(self.machine.vc[rows, col].min())

    def thread_key(self, rec: Record) -> bytes:
        """`rec`'s thread ids as a hashable key, once per new access."""
        if self._key_of != rec.id:
            self._key_of, self._key = rec.id, rec.tids.tobytes()
        return self._key

    def _ordered(self, old: Record, new: Record) -> None:
        """`old` is ordered before every thread of `new`: for good (see Record.ordered_for)."""
        if old.ordered_for is None:
            old.ordered_for = set()
        old.ordered_for.add(self.thread_key(new))

    def _check_pair(self, old: Record, new: Record) -> None:
        key = (old.span.start, new.span.start, old.via, new.via)
        if key in self.machine.seen_pairs:
            return   # reported already: nothing below has another effect
        if old.atomic and new.atomic:
            return   # two atomic read-modify-writes never race (models/atomics.py)
        if old.value_key is not None and old.value_key == new.value_key:
            return   # the same box of unchanging memory copied to the same place (models/tma.py)
        if tcgen05_pipeline(old.via) and tcgen05_pipeline(new.via) \
                and old.tmin == old.tmax == new.tmin == new.tmax:
            return   # one thread's tcgen05.mma / .cp run in issue order (below): every pair is ordered
        if apart(new, old):
            return   # (below: no interval meets)
        vc = self.machine.vc
        # Leave out first what is ordered whatever the bytes (the dense overlap matrix of two
        # wide records is most of the cost): old intervals every new thread has synchronized
        # with, and (a collective) new threads that have seen it complete. What stays keeps its
        # order, so the witness below is the one the whole matrices would give.
        rsel = csel = None
        if old.collective:
            # one operation: ordered once ANY of its threads' waits happens-before the access;
            # one wait known to every thread of `new` (Memory.floor) answers for all of them
            landed = old.done != PENDING
            if (landed & (self.floor_at(new, old.owner) >= old.done)).any():
                self._ordered(old, new)
                return
            seen = (vc[np.ix_(new.tids, old.owner)] >= old.done[None, :]) | \
                (new.tids[:, None] == old.owner[None, :])
            ok_thread = (seen & landed[None, :]).any(axis=1)
            if ok_thread.all():
                self._ordered(old, new)
                return
            if ok_thread.any():
                rsel = np.flatnonzero(~ok_thread)
        else:
            when = old.clk if old.done is None else old.done
            if len(when) == 1:   # one interval (a TMA copy, an elected thread's operand): scalars
                w = when.item(0)
                if (old.done is None or w != PENDING) and self._floor_one(new, old.owner.item(0)) >= w:
                    self._ordered(old, new)
                    return
            ordered_all = self.floor_at(new, old.owner) >= when
            if old.done is not None:
                ordered_all &= when != PENDING
            if ordered_all.all():
                self._ordered(old, new)
                return
            if ordered_all.any():
                csel = np.flatnonzero(~ordered_all)
        if not meets(new, old):
            return
        n_lo, n_hi, n_tids = (new.lo, new.hi, new.tids) if rsel is None else \
            (new.lo[rsel], new.hi[rsel], new.tids[rsel])
        o_lo, o_hi = (old.lo, old.hi) if csel is None else (old.lo[csel], old.hi[csel])
        ov = (n_lo[:, None] < o_hi[None, :]) & (o_lo[None, :] < n_hi[:, None])
        if not ov.any():
            return
        rows, cols = np.nonzero(ov)
        if rsel is not None:
            rows = rsel[rows]
        if csel is not None:
            cols = csel[cols]
        t_new, t_old = new.tids[rows], old.owner[cols]
        if old.collective:
            ok = ok_thread[rows]
            pending = ~landed[cols] & ~ok
            ordered = ok
        elif old.done is not None:
            known = vc[t_new, t_old]
            done = old.done[cols]
            pending = done == PENDING
            ordered = ~pending & ((t_new == t_old) | (known >= done))
        else:
            known = vc[t_new, t_old]
            pending = np.zeros(len(rows), dtype=bool)
            ordered = (t_new == t_old) | (known >= old.clk[cols])
        if tcgen05_pipeline(old.via) and tcgen05_pipeline(new.via):
            ordered = ordered | (t_new == old.tids[cols])   # one thread's tcgen05.mma / .cp run in issue order
        bad = np.flatnonzero(~ordered)
        if bad.size == 0:
            return
        tainted = False
        if old.tainted or new.tainted:
            column = vc[:, self.machine.taint.column]   # (now: at least as tainted as then)
            olds = t_old[bad]   # an id past the threads is an asynchronous unit: the record's own taint
            old_bad = np.where(olds < len(column), column[np.minimum(olds, len(column) - 1)] > 0, old.tainted)
            clear = bad[(column[t_new[bad]] == 0) & ~old_bad]
            if clear.size:   # the pair races between threads the taint never reached
                bad = clear
            else:
                # dropped at the end (engine/taint.py): it must not hide the same statements'
                # race between untainted threads later
                tainted, key = True, key + ("tainted",)
                if key in self.machine.seen_pairs:
                    return
        self.machine.seen_pairs.add(key)
        # prefer a witness on two different threads unless the issuer itself read too early, and
        # on two different warps where there is one: the gate's replay delays a warp, which
        # cannot reorder two threads of one warp
        cross = bad[t_new[bad] != t_old[bad]]
        warps = cross[t_new[cross] // 32 != t_old[cross] // 32]
        k = warps[0] if warps.size else cross[0] if cross.size else bad[0]
        i, j = rows[k], cols[k]
        lo, hi = max(new.lo[i], old.lo[j]), min(new.hi[i], old.hi[j])
        issuer = int(old.tids[cols[k]])
        cp_async = self.machine.cp_async
        issue_seen, seen_wait, own_landed = False, None, None
        if old.group_kind == "cp.async" and old.done is not None and not old.collective \
                and t_new[k] != t_old[k]:
            if not pending[k] and known[k] >= old.clk[cols[k]]:
                # landed, but only the issue is ordered before `new`: a release between the issue
                # and the covering wait (a wait count one too large, an arrive before the wait)
                issue_seen = True
                seen_wait = cp_async.wait_before(issuer, int(known[k]))
            own = np.flatnonzero(old.tids == t_new[k])
            if own.size:   # the accessing thread's own part of the same copy
                own_landed = bool((old.done[own] != PENDING).all())
        self.machine.result.races.append(Race(old, new, issuer, int(t_new[k]), int(lo), int(hi),
                                      bool(pending[k]), int(cp_async.committed["cp.async"][issuer]),
                                      cp_async.last_wait.get(issuer), issue_seen, seen_wait, own_landed,
                                      tainted))

    def _check_self(self, rec: Record) -> None:
        """Two threads of one statement instance writing the same bytes. Not when every thread
        stores the same value: whichever write lands last, the bytes hold that value (racecheck
        classes such a write-write overlap as harmless too). True when no two of its ranges
        meet (whatever the threads: the same ranges never clash again)."""
        if len(rec.tids) < 2:
            return True
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
            return True
        k = clash[0] + 1
        j = int(np.flatnonzero(hi[:k] > lo[k])[0])
        key = (rec.span.start, rec.span.start, rec.via, rec.via)
        if key in self.machine.seen_pairs:
            return False
        self.machine.seen_pairs.add(key)
        a, b = idx[order[j]], idx[order[k]]
        self.machine.result.races.append(Race(rec, rec, int(rec.tids[a]), int(rec.tids[b]),
                                      int(max(lo[j], lo[k])), int(min(hi[j], hi[k])), False,
                                      tainted=rec.tainted))
        return False

    def _supersede(self, rec: Record) -> None:
        """An earlier asynchronous access of the same statement, by the same threads, to the same
        bytes, of the same kind, leaves the race check when `rec` completes after it in every
        schedule: a thread's tcgen05.mma and tcgen05.cp operations complete in issue order
        (`tcgen05_pipeline`; `_check_pair` orders them already), and any other copy whose completion
        its issuer had acquired before issuing `rec` (a pipeline's refill of its stage: the
        producer waited for the stage's release, which came after the fill's phase). Whatever is
        not ordered after the earlier one is then not ordered after `rec` either (a phase a copy
        completes carries its issuer's knowledge of phases, docs/model.md "Thread-block
        clusters"), and races with `rec` on the same statement pair. Its completion is still
        tracked where it is pending. Without this, a persistent kernel's K loops pile up one
        record per stage fill for threads that synchronize once per tile, each new access
        checked against all of them. A generic-proxy copy (cp.async) still waiting for a proxy
        fence stays: the proxy check reads it (state/proxy.py)."""
        vc = self.machine.vc
        ordered_mma = tcgen05_pipeline(rec.via)
        gone = []
        for r in self.alike.get(_alike_key(rec), {}).values():
            if r.lo_min != rec.lo_min or r.hi_max != rec.hi_max or r.span.start != rec.span.start \
                    or r.kind != rec.kind or r.via != rec.via or r.collective or r.fence_clk is not None \
                    or (rec.tainted and not r.tainted) \
                    or not _same_ranges(r, rec):
                continue
            if not ordered_mma:
                done = r.done
                if done is None or (done == PENDING).any() or not (vc[r.tids, r.owner] >= done).all():
                    continue
            gone.append(r)
        if gone:
            self._drop(gone, keep=_alike_key(rec))   # `rec` joins the same key next

    def _supersede_plain(self, g: _Group, rec: Record) -> None:
        """The earlier plain record of the same statement, operation and kind, by the same threads
        to the same byte ranges, leaves the race check now that `rec` is live: each of its
        threads issued it before `rec` (program order), so an access not ordered after it is not
        ordered after `rec` either, and races with `rec` on the same statement pair, the same bytes
        (reported on `rec`, with its loop values). Without this, a warp that synchronizes with the
        others once per tile keeps one record per K iteration live (the block-scaled GEMM's
        scale-factor transposes, its MMAs' address-word reads) and the machine state never
        repeats (docs/model.md "Plain records superseded"). Not an untainted record for a tainted
        one (a finding on the tainted one is dropped). A generic record the proxy check still
        tracks stays there (`shadow`) and is retired as before: a later async-proxy access
        ordered after it but not after `rec` is both a race on `rec` and a proxy finding on it."""
        key, *same = _last_keys(rec)
        old = g.last.get(key)
        g.last[key] = rec
        for k in same:   # the last record of exactly these read-only ranges (_last_keys)
            if old is None or not _same_ranges(old, rec):
                old = g.last.get(k)
            g.last[k] = rec
        if old is None or self.plain.get(old.id) is not g or (rec.tainted and not old.tainted) \
                or not _same_ranges(old, rec):
            return
        del self.live[old.id]
        del self.plain[old.id]
        g.remove([old.id], reindex=False, bounds_kept=True)
        if old.fence_clk is not None:
            self.shadow[old.id] = old
        elif old.blocked_on is not None:
            self._stale += 1
        else:
            self._unblocked.pop(old.id, None)

    # ------------------------------------------------------------ shared bytes no write reached
    def _mark_written(self, rec: Record) -> None:
        if rec.hi_max <= len(self.written) and self.written[rec.lo_min: rec.hi_max].all():
            return   # the usual case after the first fill: nothing new
        if rec.hi_max > len(self.written):
            grown = np.zeros(max(rec.hi_max, 2 * len(self.written)), dtype=bool)
            grown[: len(self.written)] = self.written
            self.written = grown
            self.written_prefix = None
        base = rec.lo_min
        if rec.hi_max - base > self.DENSE_SPAN:
            # a wide span (a 2-CTA access over both CTAs' shared memory, 1 MiB apart; strided
            # stores over a whole tile): the bytes the ranges cover, not a difference array over it all
            covered = _covered(*_union(rec.lo, rec.hi))
            if not self.written[covered].all():
                self.written[covered] = True
                self.written_prefix = None
            return
        diff = np.zeros(rec.hi_max - base + 1, dtype=np.int64)
        np.add.at(diff, rec.lo - base, 1)
        np.add.at(diff, rec.hi - base, -1)
        reached = np.cumsum(diff[:-1]) > 0
        seg = self.written[base: rec.hi_max]
        if (reached & ~seg).any():   # the prefix (a cumsum over the whole space) only when it changes:
            seg |= reached           # ranges with holes between them (a warp's strided stores, a
            self.written_prefix = None   # 2-CTA access over both CTAs) come here every time

    def _check_written(self, rec: Record) -> None:
        """A read some thread of which touches only bytes no write has reached yet. Only whole
        ranges count: an operand footprint that is approximated (wgmma) may include bytes the
        operation does not really read, but not a range of which it reads none. True when
        every range has a written byte (`written` only grows: it stays so)."""
        if rec.hi_max <= len(self.written) and self.written[rec.lo_min: rec.hi_max].all():
            return True
        if self.written_prefix is None:
            self.written_prefix = np.concatenate(([0], np.cumsum(self.written, dtype=np.int64)))
        pre = self.written_prefix
        n = len(pre) - 1
        lo, hi = np.minimum(rec.lo, n), np.minimum(rec.hi, n)
        none = (pre[hi] - pre[lo] == 0) & (rec.hi > rec.lo)
        if not none.any():
            return True
        key = ("unwritten", rec.span.start, rec.via)
        if key in self.machine.seen_pairs:
            return False
        self.machine.seen_pairs.add(key)
        k = int(np.flatnonzero(none)[0])
        self.machine.result.unwritten_reads.append(
            UnwrittenRead(rec, int(rec.tids[k]), int(rec.lo[k]), int(rec.hi[k])))
        return False

