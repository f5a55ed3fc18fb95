"""Plain shared-memory races: two threads, same bytes, at least one store, no ordering."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult
from .classify import READS, family
from .witness import access, byte_text, where

SHARED_RACE = rule("AG201", "shared-memory-race", "race", "error",
                   "two threads access the same shared bytes, one writes, nothing orders them", """
## What it does
Flags a read-after-write, write-after-read or write-after-write on the same shared-memory
bytes by two different threads with no barrier (or other synchronization) ordering them.
Lanes of one warp are not ordered either: they need `__syncwarp()` or a barrier.

## Why is this bad?
Without a happens-before edge the hardware may run the two accesses in either order, so the
reader sees old or new data at random, or the final value depends on which write lands last.

## Example
```python
S_1[tx] = x
y = S_1[(tx + 1) % 128]
```

## Use instead
```python
S_1[tx] = x
T.tvm_storage_sync("shared")
y = S_1[(tx + 1) % 128]
```

## Witness
Both accesses: line, thread, loop values, buffer and bytes; the barrier that is missing.
""")


def _system_arrival(result: RunResult, thread: int, after_line: int):
    """(line, record) of a tcgen05.commit / cp.async.mbarrier.arrive that `thread` issues, or
    None: the first one below `after_line` (the access it was taken to release), else the first."""
    mine = [(line, rec) for line, rec in sorted(result.system_arrivals.items()) if (rec[2] == thread).any()]
    return next((m for m in mine if m[0] > after_line), mine[0] if mine else None)


def check(result: RunResult, path: str) -> list[Finding]:
    out = []
    for race in result.races:
        a, b = race.first, race.second
        if family(race) != "AG201":
            continue
        pattern = ("write-after-write" if a.kind not in READS and b.kind not in READS else
                   "read-after-write" if b.kind in READS else "write-after-read")
        what = byte_text(b.buffer, race.lo, race.hi, b.region_base, max(b.elem_size, 1))
        wit = {"first": access(a, race.t_first, race.lo, race.hi),
               "second": access(b, race.t_second, race.lo, race.hi), "pattern": pattern}
        if a is b:
            wit["missing"] = "the two threads write the same bytes in one statement instance"
            msg = (f"threads {race.t_first} and {race.t_second} both write {what} at {where(b)} "
                   "(write-after-write in one statement)")
        else:
            wit["missing"] = (f"a barrier between line {a.span.line} (thread {race.t_first}) and "
                              f"line {b.span.line} (thread {race.t_second})")
            msg = (f"{pattern} race on {what}: thread {race.t_first} at {where(a)} and thread "
                   f"{race.t_second} at {where(b)}, with no barrier in between")
            system = _system_arrival(result, race.t_first, a.span.line)
            if system is not None:
                line, (bar, via, _) = system
                wit["system_arrival"] = {"line": line, "mbarrier": bar, "op": via}
                wit["missing"] = (f"a release by thread {race.t_first} after line {a.span.line} that thread "
                                  f"{race.t_second} acquires (an mbarrier.arrive on {bar} counted in its "
                                  "init, or a barrier)")
                msg += (f" (the {via} on {bar} at line {line} that thread {race.t_first} issues "
                        "releases only its asynchronous copies, not its other accesses: PTX ISA)")
        out.append(Finding(SHARED_RACE, b.span.line, b.span.col, msg, wit, path))
    return out
