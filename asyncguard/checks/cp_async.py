"""cp.async races: reads before the covering wait, missing barrier after it, overwrites of live
bytes, copies still in flight at exit."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import Race, RunResult
from ..events import AccessKind
from .classify import READS, async_copy_name, exited, family, is_tma
from .witness import access, byte_text, where

READ_BEFORE_WAIT = rule("AG101", "cp-async-read-before-wait", "race", "error",
                        "shared bytes read before the cp.async that writes them has landed", """
## What it does
Flags an access to shared-memory bytes that a `cp.async` is still writing: the issuing thread
has not yet executed a `cp.async.wait_group` (`T.ptx_wait_group(n)`) that completes the copy's
group, or the copy was never committed into a group at all. Also when another thread's access
is ordered after the copy's issue by a release (an mbarrier arrive, a barrier) that the issuer
reaches before any wait completing the copy (a producer publishing a stage too early), whether
or not a later wait happened to land the copy before the access in the schedule checked; and
when the accessing thread issued part of the same copy itself and no wait of its own had
completed that part.

## Why is this bad?
A cp.async writes its destination at an unknown time after it is issued. Only the issuer's
`wait_group(n)` guarantees the bytes have landed, and only for groups older than the `n`
newest. A read before that sees stale or partial data; a wait count one too large, a missing
`commit_group`, a commit placed after the wait, or a release (arrive, barrier) placed before the
covering wait all leave the read uncovered.

## Example
```python
T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), A_shared, tx * 8, 8, 2), src, 8)
T.ptx_commit_group()
T.ptx_wait_group(1)          # leaves the newest group -- this one -- pending
T.tvm_storage_sync("shared")
x = A_shared_1[tx * 8]
```

## Use instead
```python
T.ptx_commit_group()
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
x = A_shared_1[tx * 8]
```

## Witness
The copy (line, issuing thread, loop values, group number) and the read (line, thread, loop
values, bytes); the issuer's committed group count and its last `wait_group` at the time. For a
copy that had landed in the schedule checked: the issuer's last `wait_group` ordered before the
read (its count and the groups committed then) and the later wait that landed the copy.
""")

MISSING_BARRIER = rule("AG102", "cp-async-missing-barrier", "race", "error",
                       "cp.async bytes read by another thread with no barrier after the issuer's wait", """
## What it does
Flags a thread reading (or writing) bytes that another thread's `cp.async` wrote, when the
issuer did wait for the copy but no barrier orders that wait before the other thread's access.
A thread that issued part of the same copy and whose own wait completed its part is in this
case whichever thread's wait ran first; a copy the issuer publishes (an mbarrier arrive) before
the wait that completes it is AG101.

## Why is this bad?
`cp.async.wait_group` makes the copied bytes visible to the waiting thread only. Another thread
may read them only after the issuer's wait *and* a barrier both have passed (issuer: wait, then
barrier; reader: barrier, then read). Without the barrier the reader may run ahead of the
issuer's wait and read stale data.

## Example
```python
T.ptx_wait_group(0)
x = A_shared_1[(tx + 1) % 128]   # another thread's bytes
```

## Use instead
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
x = A_shared_1[(tx + 1) % 128]
```

## Witness
The copy (line, issuer, loop values), the wait that landed it, and the other thread's access;
no barrier lies between the wait and the access.
""")

OVERWRITE_LIVE = rule("AG103", "async-overwrite-in-use", "race", "error",
                      "a write or cp.async over shared bytes another thread may still access", """
## What it does
Flags a `cp.async` issued over bytes that another thread may still be reading or writing
(write-after-read / write-after-write), and any store over bytes a cp.async is still writing.
Typical causes: a pipeline stage refilled before every reader has passed a barrier, a ring
filled past its depth, two buffers placed at overlapping offsets.

## Why is this bad?
A cp.async may land at any moment after it is issued, so every earlier access to its bytes
must happen-before the *issue* (a barrier between the last read and the copy). Otherwise the
reader sees the next tile's data, or two writers race.

## Example
```python
for k in T.serial(16):
    T.ptx_cp_async(ptr_to_stage(k % 2), src, 8)     # no barrier since stage k % 2 was read
    T.ptx_commit_group()
    ...
    x = stage_buffer[(k + 1) % 2 * 512 + tx]
```

## Use instead
```python
for k in T.serial(16):
    T.tvm_storage_sync("shared")                 # every read of the stage is done
    T.ptx_cp_async(ptr_to_stage(k % 2), src, 8)
```

## Witness
The earlier access (line, thread, loop values, bytes) and the overwriting one; the missing
barrier between them.
""")

PENDING_AT_EXIT = rule("AG104", "cp-async-pending-at-exit", "race", "error",
                       "cp.async copies still in flight when the kernel ends", """
## What it does
Flags cp.async copies whose group no `wait_group` completed before the issuing thread exits.

## Why is this bad?
The block's shared memory is released when the block ends; a copy still in flight writes
into memory that may already belong to the next block on the SM.

## Example
```python
T.ptx_cp_async(dst, src, 8)
T.ptx_commit_group()
# kernel ends
```

## Use instead
```python
T.ptx_cp_async(dst, src, 8)
T.ptx_commit_group()
T.ptx_wait_group(0)
```

## Witness
The copy (line, threads, loop values) that no wait covered.
""")


def _group_facts(race: Race) -> dict:
    """The issuer's group state when the second access happened, as witness fields: the copy's
    group (None: never committed), the groups committed, and the last wait_group (line, n)."""
    first = race.first
    idx = list(first.tids).index(race.t_first) if race.t_first in set(first.tids.tolist()) else 0
    group = int(first.group[idx]) if first.group is not None else -1
    out = {"group": group if group >= 0 else None, "committed": int(race.groups_committed)}
    if race.last_wait:
        span, n = race.last_wait
        out.update(last_wait_line=int(span.line), last_wait_n=int(n))
    return out


def _missing_wait_text(race: Race) -> str:
    first, g = race.first, _group_facts(race)
    if g["group"] is None:
        return (f"thread {race.t_first}'s copy at line {first.span.line} was never committed "
                "(no ptx_commit_group between the copy and the access), so no wait_group covers it")
    text = (f"thread {race.t_first}'s copy at line {first.span.line} is in group {g['group']}; "
            f"the thread had committed {g['committed']} group(s)")
    if g.get("last_wait_n") == 0:   # else the count looks larger than the commit_group calls
        text += " (each ptx_wait_group(0), printed as cp.async.wait_all, commits one too)"
    if "last_wait_n" in g and g["committed"] - g["last_wait_n"] > g["group"]:
        # `committed` counts the thread's commits up to the second access; the copy being still in
        # flight, the last wait ran before some of them (a wait placed before its commit)
        n = g["last_wait_n"]
        text += (f" and its last ptx_wait_group({n}) at line {g['last_wait_line']} ran before its latest "
                 f"commits (with at most {g['group'] + n} group(s) committed), so it left group "
                 f"{g['group']} pending")
    elif "last_wait_n" in g:
        n = g["last_wait_n"]
        text += (f" and its last ptx_wait_group({n}) at line {g['last_wait_line']} leaves the {n} "
                 f"newest pending (groups >= {g['committed'] - n})")
    else:
        text += " and has not executed any ptx_wait_group"
    return text


def _late_wait_facts(race: Race) -> dict:
    """`_group_facts` of a copy that had landed by a wait not ordered before the access (its issue
    is, `Race.issue_seen`): the issuer's last wait_group ordered before the access and the groups
    it had committed then, in place of those at the access (a later wait, in the executed schedule
    only, landed the copy), and the wait that landed it."""
    out = _group_facts(race)
    out.pop("last_wait_line", None)
    out.pop("last_wait_n", None)
    out["committed"] = None
    if race.seen_wait:
        span, n, c = race.seen_wait
        out.update(committed=int(c), last_wait_line=int(span.line), last_wait_n=int(n))
    out["landed_wait_line"] = race.first.wait_span.line if race.first.wait_span else None
    return out


def _late_wait_text(race: Race, g: dict) -> str:
    t, line = race.t_first, race.first.span.line
    text = f"thread {t}'s copy at line {line} is in group {g['group']}; "
    if g.get("last_wait_line") and g["committed"] > g["group"]:
        n, c = g["last_wait_n"], g["committed"]
        text += (f"its last ptx_wait_group({n}) ordered before the access, at line {g['last_wait_line']}, "
                 f"leaves the {n} newest of its {c} committed group(s) pending (groups >= {c - n}), "
                 f"group {g['group']} among them")
    elif g.get("last_wait_line"):
        text += (f"its last ptx_wait_group({g['last_wait_n']}) ordered before the access, at line "
                 f"{g['last_wait_line']}, ran before the copy's group was committed")
    else:
        text += "none of its ptx_wait_groups is ordered before the access"
    landed = g["landed_wait_line"] if g["landed_wait_line"] is not None else "?"
    return (text + f"; the copy landed at a ptx_wait_group at line {landed} that nothing orders "
            "before the access")


def _late_wait_missing(race: Race, g: dict) -> str:
    b = race.second
    landed = g["landed_wait_line"] if g["landed_wait_line"] is not None else "?"
    return (f"a ptx_wait_group by thread {race.t_first} that completes group {g['group']} (its copy at "
            f"line {race.first.span.line}) before the release (mbarrier arrive or barrier) that orders "
            f"the copy's issue before thread {race.t_second}'s access at {where(b)}, or a release after "
            f"the wait at line {landed} that the access acquires")


def check(result: RunResult, path: str) -> list[Finding]:
    out = []
    for race in result.races:
        code = family(race)
        if code not in ("AG101", "AG102", "AG103"):
            continue
        a, b = race.first, race.second
        wit = {"first": access(a, race.t_first, race.lo, race.hi),
               "second": access(b, race.t_second, race.lo, race.hi)}
        what = byte_text(b.buffer, race.lo, race.hi, b.region_base, max(b.elem_size, 1))
        verb_a = "reads" if a.kind in READS else "writes"
        verb_b = "reads" if b.kind in READS else "writes"
        copy_b = async_copy_name(b)
        wait = a.wait_span.line if a.wait_span else "?"   # the wait_group that landed the copy, if any
        if code == "AG103" and b.kind == AccessKind.ASYNC_WRITE and not race.first_pending:
            wit["missing"] = (f"a barrier (or a release/acquire) between thread {race.t_first}'s access "
                              f"at {where(a)} and thread {race.t_second}'s {copy_b} issue at {where(b)}")
            msg = (f"{copy_b} by thread {race.t_second} at {where(b)} overwrites {what}, which thread "
                   f"{race.t_first} {verb_a} at {where(a)} with nothing ordering the two")
            out.append(Finding(OVERWRITE_LIVE, b.span.line, b.span.col, msg, wit, path))
        elif code in ("AG101", "AG103") and race.issue_seen:
            # landed in this schedule, by a wait no synchronization orders before the access; the
            # access is ordered after the issue, so another schedule reaches it before the copy lands
            g = _late_wait_facts(race)
            wit["missing"] = _late_wait_missing(race, g)
            wit.update(g)
            if code == "AG103":
                rule, what_happens = OVERWRITE_LIVE, (f"while thread {race.t_first}'s cp.async at {where(a)} "
                                                      f"may still be writing it (its issue is ordered before "
                                                      f"the write, no wait that lands it is)")
            else:
                rule, what_happens = READ_BEFORE_WAIT, (f"with no wait that lands thread {race.t_first}'s "
                                                        f"cp.async at {where(a)} ordered before it (only the "
                                                        f"copy's issue is)")
            msg = f"thread {race.t_second} {verb_b} {what} at {where(b)} {what_happens}: {_late_wait_text(race, g)}"
            out.append(Finding(rule, b.span.line, b.span.col, msg, wit, path))
        elif code == "AG103":
            wit["missing"] = _missing_wait_text(race) if not is_tma(a) else \
                f"the TMA load at line {a.span.line} has not landed (its mbarrier phase is not complete)"
            msg = (f"thread {race.t_second} {verb_b} {what} at {where(b)} while "
                   f"{'thread ' + str(race.t_first) + chr(39) + 's' if not is_tma(a) else 'the'} "
                   f"{async_copy_name(a)} at {where(a)} is still writing it")
            out.append(Finding(OVERWRITE_LIVE, b.span.line, b.span.col, msg, wit, path))
        elif code == "AG101" and not race.first_pending and race.own_landed is False:
            # the issuer's part had landed (a wait not ordered before the access); the accessing
            # thread's own part of the same copy had not: no wait of its own covered the group
            wit.update(_group_facts(race))
            wit["own_part_landed"] = False
            wit["missing"] = (f"a ptx_wait_group in thread {race.t_second} completing the copy at line "
                              f"{a.span.line} before its access at {where(b)}, and a barrier after the waits "
                              f"that publishes thread {race.t_first}'s part")
            msg = (f"thread {race.t_second} {verb_b} {what} at {where(b)}, written by thread {race.t_first}'s "
                   f"cp.async at {where(a)}, before that copy is known to have landed: thread "
                   f"{race.t_second}'s own part of the same copy had not landed at the access (no "
                   f"ptx_wait_group of its own completed it), and nothing orders thread {race.t_first}'s "
                   f"wait_group at line {wait} before the access")
            out.append(Finding(READ_BEFORE_WAIT, b.span.line, b.span.col, msg, wit, path))
        elif code == "AG101":
            wit["missing"] = _missing_wait_text(race)
            wit.update(_group_facts(race))
            who = ("its own" if race.t_first == race.t_second else f"thread {race.t_first}'s")
            msg = (f"thread {race.t_second} {verb_b} {what} at {where(b)} before {who} cp.async at "
                   f"{where(a)} has landed: {wit['missing']}")
            out.append(Finding(READ_BEFORE_WAIT, b.span.line, b.span.col, msg, wit, path))
        elif race.first_pending:
            # AG102 of a copy whose issuer's part had not landed yet, in this schedule: the accessing
            # thread's own wait_group landed its own part of the same copy (Race.own_landed)
            wit["wait_line"] = a.wait_span.line if a.wait_span else None
            wit["own_part_landed"] = True
            wit["missing"] = (f"a barrier after the wait_groups that complete the copy at line {a.span.line} "
                              f"and before thread {race.t_second}'s access at {where(b)}")
            msg = (f"thread {race.t_second} {verb_b} {what} at {where(b)}, written by thread {race.t_first}'s "
                   f"cp.async at {where(a)}, with no barrier after the wait_groups that complete it: thread "
                   f"{race.t_second}'s own part of the copy had landed (the first wait_group to complete "
                   f"part of it: line {wait}), and nothing orders thread {race.t_first}'s wait before the "
                   f"access")
            out.append(Finding(MISSING_BARRIER, b.span.line, b.span.col, msg, wit, path))
        else:
            wit["wait_line"] = a.wait_span.line if a.wait_span else None
            wit["missing"] = (f"a barrier after thread {race.t_first}'s wait_group at line {wait} "
                              f"and before thread {race.t_second}'s access at {where(b)}")
            msg = (f"thread {race.t_second} {verb_b} {what} at {where(b)}, written by thread "
                   f"{race.t_first}'s cp.async at {where(a)}, with no barrier after the issuer's "
                   f"wait_group at line {wait}")
            out.append(Finding(MISSING_BARRIER, b.span.line, b.span.col, msg, wit, path))
    for p in result.pending:
        r = p.record
        tids = exited(result, p.tids)
        if r.group_kind != "cp.async" or not len(tids):
            continue
        wit = {"copy": access(r, int(tids[0]), int(r.lo[0]), int(r.hi[0])),
               "threads": [int(t) for t in tids[:8]], "count": int(len(tids))}
        msg = (f"{len(tids)} thread(s) exit with the cp.async at {where(r)} still in flight "
               f"(no ptx_wait_group completes its group)")
        out.append(Finding(PENDING_AT_EXIT, r.span.line, r.span.col, msg, wit, path))
    return out
