"""The sequential reference: what every traced read of the skeleton must see, computed with numpy.

The concrete engine runs one block of the Program under its scheduler (a schedule the kernel's
synchronization allows); a recorder subclass sees every event in the order the engine processes
it. Replaying that stream over a byte array gives the reference:

* shared memory starts with a fixed pattern (the skeleton writes it before its first barrier);
* a store writes `pat(seed(tid, w), addr)` (w: the thread's count of writes so far);
* a cp.async lands at its issuer's covering `wait_group` (the engine's model); a TMA / bulk load
  at issue (the earliest landing the engine allows). The bytes come from a global pool whose
  content is a fixed function of (thread, byte offset); each copy takes the next 16-byte-rounded
  slot of its thread's pool. A false cp.async predicate delivers zeros;
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

from ..engine.machine import Machine
from ..events import Access, AccessKind, CommitGroup, WaitGroup

M32 = np.uint64(0xFFFFFFFF)
INIT_SEED = 0xC0FFEE11
HANG_KINDS = ("stuck", "count", "warp-multiple")


def fmix(h: np.ndarray) -> np.ndarray:
    h = np.asarray(h, dtype=np.uint64) & M32
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & M32
    h ^= h >> np.uint64(16)
    return h


def seed(tid: int, w: int) -> int:
    return int(fmix(np.uint64((tid * 65599 + w * 2654435761 + 12345) & 0xFFFFFFFF)))


def pattern(s: int, addrs: np.ndarray) -> np.ndarray:
    a = (np.asarray(addrs, dtype=np.uint64) * np.uint64(0x9E3779B1)) & M32
    return (fmix(np.uint64(s) ^ a) & np.uint64(0xFF)).astype(np.uint8)


def pool_bytes(tid: int, offs: np.ndarray) -> np.ndarray:
    x = (np.uint64(tid) * np.uint64(0x27D4EB2F) + np.asarray(offs, dtype=np.uint64) * np.uint64(0x9E3779B1)
         + np.uint64(0x51ED270B)) & M32
    return (fmix(x) & np.uint64(0xFF)).astype(np.uint8)


def make_pool(threads: int, per: int) -> np.ndarray:
    offs = np.arange(per, dtype=np.uint64)
    return np.concatenate([pool_bytes(t, offs) for t in range(threads)]) if per else np.zeros(16, np.uint8)


def fnv(data: np.ndarray) -> int:
    h = 2166136261
    for b in data.tolist():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


class _Recorder(Machine):
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
    notes: list = field(default_factory=list)


def compute(program, emitted, block: dict | None = None, max_steps: int = 2_000_000,
            sizes: dict | None = None) -> Reference:
    # every iteration runs: the skeleton executes them all, so loop acceleration (skipping
    # proved-periodic iterations) would leave reads out of the reference
    rec = _Recorder(program, emitted.info, block=block or {}, max_steps=max_steps, sizes=sizes or {},
                    accelerate_above=1 << 62)
    res = rec.run()
    T = program.launch.num_threads
    ref = Reference(block or {}, [[] for _ in range(T)], np.zeros(T, dtype=np.int64))
    if res.internal_error or res.limit_hit:
        ref.problem = res.internal_error or res.limit_hit
    if res.notes:
        ref.problem = ref.problem or "; ".join(n.reason for n in res.notes[:3])
    hangs = [b for b in res.barrier_problems if b.kind in HANG_KINDS]
    if hangs:
        b = hangs[0]
        ref.hang = f"named/block barrier {b.barrier_id}: {b.kind} (expected {b.expected} arrivals)"
    size = emitted.smem_bytes
    smem = pattern(INIT_SEED, np.arange(size))
    ref.sink = np.zeros(size, dtype=np.uint8)
    w = np.zeros(T, dtype=np.int64)
    src = ref.src_bytes
    committed = np.zeros(T, dtype=np.int64)
    pend: dict = {}                  # tid -> [[group, lo, data], ...]
    for ev, s, ttids, extra in rec.stream:
        if isinstance(ev, Access):
            inf = emitted.info.get(id(s))
            lo, hi = ev.lo.tolist(), ev.hi.tolist()
            tids = ev.tids.tolist()
            if ev.kind == AccessKind.READ:
                if inf is not None and inf.kind == "ldmatrix":
                    _ldmatrix(ref, smem, ev, ttids, inf, s.span.line)
                else:
                    for t, a, b in zip(tids, lo, hi):
                        ref.reads[t].append((fnv(smem[a:b]), s.span.line))
            elif ev.kind == AccessKind.ASYNC_READ and ev.group_kind == "bulk":
                for a, b in zip(lo, hi):   # a TMA store copies the bytes as they are at issue
                    ref.sink[a:b] = smem[a:b]
            elif ev.kind == AccessKind.ASYNC_READ and inf is not None and inf.kind == "wgmma":
                for t, a, b in zip(tids, lo, hi):
                    lo_t, hi_t = wgmma_slice(t, a, b)
                    ref.reads[t].append((fnv(smem[lo_t:hi_t]), s.span.line))
            elif ev.kind == AccessKind.WRITE:
                for t, a, b in zip(tids, lo, hi):
                    smem[a:b] = pattern(seed(t, int(w[t])), np.arange(a, b))
                    w[t] += 1
            elif ev.kind == AccessKind.ASYNC_WRITE:
                for i, (t, a, b) in enumerate(zip(tids, lo, hi)):
                    n = b - a
                    off = int(src[t])
                    src[t] += 16 if ev.group_kind == "cp.async" else -(-n // 16) * 16
                    ok = True if extra is None else bool(extra[i])
                    data = pool_bytes(t, np.arange(off, off + n)) if ok else np.zeros(n, np.uint8)
                    if ev.group_kind == "cp.async":
                        pend.setdefault(t, []).append([-1, a, data])
                    else:
                        smem[a:b] = data
        elif isinstance(ev, CommitGroup) and ev.kind == "cp.async":
            for t in ev.tids.tolist():
                for p in pend.get(t, ()):
                    if p[0] == -1:
                        p[0] = int(committed[t])
            committed[ev.tids] += 1
        elif isinstance(ev, WaitGroup) and ev.kind == "cp.async":
            for t in ev.tids.tolist():
                keep = []
                for p in pend.get(t, ()):
                    if p[0] >= 0 and p[0] < committed[t] - ev.n:
                        smem[p[1]:p[1] + len(p[2])] = p[2]
                    else:
                        keep.append(p)
                pend[t] = keep
    return ref


def wgmma_slice(tid: int, start: int, end: int) -> tuple[int, int]:
    """The bytes of a wgmma operand [start, end) that thread `tid` reads in the skeleton: its
    warpgroup rank's share of 128 equal contiguous slices (as `ag_wgmma_read` cuts them)."""
    chunk = -(-(end - start) // 128)
    lo = min(start + (tid % 128) * chunk, end)
    return lo, min(lo + chunk, end)


def _ldmatrix(ref: Reference, smem: np.ndarray, ev: Access, ttids: np.ndarray, inf, line: int) -> None:
    rows = dict(zip(ev.tids.tolist(), ev.lo.tolist()))
    for t in ttids.tolist():
        lane, base = t % 32, t - t % 32
        parts = []
        ok = True
        for m in range(inf.num):
            if not inf.trans:
                a = rows.get(base + m * 8 + lane // 4)
                if a is None:
                    ok = False
                    break
                parts.append(smem[a + 4 * (lane % 4): a + 4 * (lane % 4) + 4])
            else:
                a0 = rows.get(base + m * 8 + 2 * (lane % 4))
                a1 = rows.get(base + m * 8 + 2 * (lane % 4) + 1)
                if a0 is None or a1 is None:
                    ok = False
                    break
                c = 2 * (lane // 4)
                parts.append(smem[a0 + c: a0 + c + 2])
                parts.append(smem[a1 + c: a1 + c + 2])
        ref.reads[t].append((fnv(np.concatenate(parts)) if ok else None, line))
