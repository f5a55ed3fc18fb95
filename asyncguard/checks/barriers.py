"""Barrier protocol: divergence of block barriers, named-barrier thread counts, `bar.arrive`
running a phase ahead."""
from __future__ import annotations

import numpy as np

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult

DIVERGENCE = rule("AG301", "barrier-divergence", "hang", "error",
                  "a block barrier that some threads reach and others do not (or not as often)", """
## What it does
Flags a `__syncthreads()` (`T.tvm_storage_sync("shared")`) that not every thread of the block
reaches the same number of times: a barrier under a thread-dependent branch, or threads that
wait at different barrier statements.

## Why is this bad?
Every thread of the block must arrive at the same barrier. If some never do, the others wait
forever (a hang); if threads meet at different barrier statements the behaviour is undefined.
When the absent threads have exited, the hardware does not wait for them (PTX ISA, `barrier`:
it waits for the non-exited threads), so the block need not hang; the program is still outside
CUDA's rules (`__syncthreads` in code not every thread runs), and whatever the barrier was to
do with those threads does not happen (cooperative groups' grid sync, for one, has thread 0 of
the block perform the grid-wide handshake). The message says which case it is.

## Example
```python
if tx < 64:
    T.tvm_storage_sync("shared")
```

## Use instead
```python
T.tvm_storage_sync("shared")     # hoisted out of the thread-dependent branch
```

## Witness
Where each group of threads is: which arrived (lines) and which never arrived.
""")

NAMED_COUNT = rule("AG302", "named-barrier-count", "hang", "error",
                   "a named barrier whose thread count differs from the threads that reach it", """
## What it does
Flags `bar.sync id, n` (`T.tvm_storage_sync("shared", id, n)`) and `bar.arrive id, n` where the
threads that reach the barrier do not add up to `n`, or `n` is not a multiple of the warp size.

## Why is this bad?
A named barrier completes when `n` threads have arrived. Fewer arrivals hang the waiters; more
arrivals complete it early, so threads pass before their partners arrived (a race), and the
surplus starts a new phase of the barrier that nobody expects.

## Example
```python
if tx < 128:
    T.tvm_storage_sync("shared", 1, 256)   # only 128 threads arrive
```

## Use instead
```python
if tx < 128:
    T.tvm_storage_sync("shared", 1, 128)
```

## Witness
The barrier id, the count it expects, the threads that arrived (and where) and those missing.
""")

NAMED_RUN_AHEAD = rule("AG303", "named-barrier-arrival-runs-ahead", "hang", "error",
                       "a thread arrives on a named barrier again before it can know the phase its bar.arrive joined completed", """
## What it does
Flags an arrival (`bar.arrive` or `bar.sync`) on a named barrier by a thread whose previous
arrival on it was a `bar.arrive` (`T.named_barrier_arrive`), when between the two the thread
synchronized with none of the threads that waited for that phase after they were released.

## Why is this bad?
`bar.arrive` does not wait. Nothing then stops the thread from reaching its next arrival before
the phase its first one joined has completed, and the hardware counts both in that phase: it
completes once `n` arrivals are in, without threads the waiters expect (they pass before their
partners), and a later phase is short of them, so its waiters hang. The mbarrier form of this
bug is AG412. vLLM's CUTLASS MLA kernel hung this way (vllm-project/vllm#26026).

## Example
```python
for tile in range(4):
    if tx < 128:
        T.named_barrier_arrive(1, 160)              # compute warps: no wait
    elif tx >= 160 and tx < 192:
        T.tvm_storage_sync("shared", 1, 160)        # load warp
```

## Use instead
```python
for tile in range(4):
    if tx < 128:
        T.tvm_storage_sync("shared", 1, 160)        # bar.sync: one arrival per phase
    elif tx >= 160 and tx < 192:
        T.tvm_storage_sync("shared", 1, 160)
```

## Witness
The barrier id and count, the `bar.arrive` and the next arrival (lines, threads), and the
threads that waited for the first phase, none of which the arriving threads synchronized with.
""")


def _groups(tids) -> str:
    tids = sorted(int(t) for t in tids)
    if not tids:
        return "none"
    runs, start, prev = [], tids[0], tids[0]
    for t in tids[1:]:
        if t != prev + 1:
            runs.append((start, prev))
            start = t
        prev = t
    runs.append((start, prev))
    text = ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in runs[:6])
    return text + (", ..." if len(runs) > 6 else "")


def check(result: RunResult, path: str) -> list[Finding]:
    out = []
    for p in result.barrier_problems:
        arrivals = [{"line": sp.line, "col": sp.col, "threads": _groups(t), "count": int(len(t))}
                    for sp, t in p.arrivals]
        wit = {"barrier_id": p.barrier_id, "expected": p.expected, "arrivals": arrivals}
        first = p.arrivals[0][0] if p.arrivals else None
        line, col = (first.line, first.col) if first else (1, 1)
        if p.kind == "divergence":
            lines = sorted({a["line"] for a in arrivals})
            msg = (f"block barrier reached at different statements (lines {', '.join(map(str, lines))}) "
                   "by different threads")
            out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
        elif p.kind == "stuck":
            wit["missing"] = _groups(p.missing)
            wit["missing_at"] = [{"line": sp.line if sp else None, "threads": _groups(t)}
                                 for sp, t in p.where_missing]
            arrived = sum(a["count"] for a in arrivals)
            if p.grid_master_missing:
                wit["grid_sync_without_master"] = True
                how = "exited before it" if len(p.exited) == len(p.missing) else "never reaches it"
                msg = (f"grid sync at line {line} is reached by {arrived} of {result.num_threads} "
                       f"threads; thread 0 of the block {how} (threads {wit['missing']} are absent): "
                       "that thread performs the grid-wide handshake (cooperative groups' "
                       "sync_grids), so this block never arrives at the grid barrier and the sync "
                       "orders nothing across blocks; a block whose thread 0 does reach it waits "
                       "for this one forever")
                out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
            elif p.barrier_id != 0 and p.all_threads and len(p.exited) and len(p.exited) == len(p.missing):
                # `bar.sync id, 0` (T.sync_threads(id)): every thread of the CTA, like bar.sync 0
                wit["exited"] = wit["missing"]
                msg = (f"barrier {p.barrier_id} at line {line} (bar.sync {p.barrier_id}, 0: every "
                       f"thread of the block) is reached by {arrived} of {result.num_threads} "
                       f"threads; threads {wit['missing']} exited without reaching it: bar.sync is "
                       "barrier.sync.aligned, undefined where not every thread of the CTA runs it "
                       "(PTX ISA); the hardware does not wait for exited threads, so it need not "
                       "hang, but the exited threads are not synchronized with")
                out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
            elif p.barrier_id == 0 and len(p.exited) and len(p.exited) == len(p.missing):
                # every absent thread exited: the hardware waits only for threads that have not
                # exited (PTX ISA, barrier), but the program is outside CUDA's rules all the same
                wit["exited"] = wit["missing"]
                msg = (f"block barrier at line {line} is reached by {arrived} of "
                       f"{result.num_threads} threads; threads {wit['missing']} exited without "
                       "reaching it: __syncthreads where not every thread of the block runs it is "
                       "undefined (CUDA C++ Programming Guide; bar.sync 0 is .aligned); the hardware "
                       "does not wait for exited threads, so it need not hang, but whatever the "
                       "block relies on those threads for at the barrier does not happen")
                out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
            elif p.barrier_id == 0:
                msg = (f"block barrier at line {line} is reached by {arrived} of "
                       f"{result.num_threads} threads; threads {wit['missing']} never arrive (hang)")
                out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
            else:
                expects = f" expects {p.expected} threads:" if p.expected else ":"
                msg = (f"named barrier {p.barrier_id} at line {line}{expects} {arrived} thread(s) arrive and "
                       f"wait for partners that never come (hang)")
                out.append(Finding(NAMED_COUNT, line, col, msg, wit, path))
        elif p.kind == "count":
            arrived = sum(a["count"] for a in arrivals)
            msg = (f"named barrier {p.barrier_id} expects {p.expected} threads but {arrived} arrive "
                   f"in one phase: it completes once {p.expected} have arrived and the rest start its "
                   "next phase (PTX ISA: a completed barrier is reinitialized), so threads can pass "
                   "before their partners arrive")
            out.append(Finding(NAMED_COUNT, line, col, msg, wit, path))
        elif p.kind == "warp-ids":
            warps = sorted(p.warp_ids)
            wit["warps"] = [{"warp": w, "ids": {str(b): _groups(t) for b, t in p.warp_ids[w].items()}}
                            for w in warps[:8]]
            w0 = p.warp_ids[warps[0]]
            want = result.num_threads if p.expected is None else p.expected
            per_id = {int(b): int(n) for b, n in zip(*np.unique(p.lane_ids, return_counts=True))}
            wit["threads_per_id"] = {str(b): n for b, n in per_id.items()}
            short = ""
            if all(n < want for n in per_id.values()):
                short = ("; read lane by lane, this statement brings " + ", ".join(
                    f"{n} thread(s) to barrier {b}" for b, n in per_id.items()) +
                    f", where each expects {want} (a hang)")
            msg = (f"barrier id differs between the lanes of one warp at line {line}: "
                   f"{len(warps)} warp(s) split their lanes over barriers "
                   f"{', '.join(map(str, sorted({b for w in warps for b in p.warp_ids[w]})))} "
                   f"(warp {warps[0]}: " + "; ".join(f"barrier {b}: threads {_groups(t)}"
                                                       for b, t in sorted(w0.items())) + "). "
                   "bar.sync marks a warp's arrival at one barrier (PTX ISA, barrier), so a warp "
                   "whose lanes name several has no defined behaviour (on an H200 the kernel stopped "
                   f"with an illegal instruction){short}. The analysis stops here")
            out.append(Finding(DIVERGENCE, line, col, msg, wit, path))
        elif p.kind == "run-ahead":
            (first, tids), (again, _) = p.arrivals
            wit["waiters"] = _groups(p.missing)
            line, col = again.line, again.col
            msg = (f"threads {_groups(tids)} arrive on named barrier {p.barrier_id} at line {again.line} "
                   f"without knowing that the phase their bar.arrive at line {first.line} joined has "
                   f"completed: bar.arrive does not wait, and they synchronize with none of that phase's "
                   f"waiters (threads {wit['waiters']}) in between, so both arrivals can fall in one "
                   f"phase of {p.expected}: it completes without partners its waiters expect, and a "
                   "later phase is short of them (hang)")
            out.append(Finding(NAMED_RUN_AHEAD, line, col, msg, wit, path))
        elif p.kind == "warp-multiple":
            msg = (f"named barrier {p.barrier_id} count {p.expected} is not a positive multiple of "
                   "the warp size (32)")
            out.append(Finding(NAMED_COUNT, line, col, msg, wit, path))
    return out
