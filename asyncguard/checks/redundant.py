"""Redundant synchronization (opt-in: `asyncguard check --redundant`, `asyncguard fix
--remove-redundant`): a barrier or wait whose removal leaves the kernel clean, or a wait whose
count can grow. Each candidate costs one more run of the checker, so it is never part of the
default `check`.

Only kernels the checker proves clean are linted: "redundant" means the checker still proves
the kernel race-free without the sync, for the launch the file states.

This module holds the rules and the calls they look at; the lint itself re-runs the checker on
edited texts, so it lives with the repair search: `asyncguard.repair.redundant`.
"""
from __future__ import annotations

from ..diagnostics import rule

_KIND = "resource"     # a redundant sync costs time (serialization), like AG505 costs occupancy

REDUNDANT_BARRIER = rule("AG601", "redundant-barrier", _KIND, "warning",
                         "a barrier whose removal leaves the kernel provably race-free", """
## What it does
For a kernel the checker proves clean, removes each `T.tvm_storage_sync("shared")` (and
`"shared.dyn"`) in turn and re-runs the checker; a barrier whose removal still leaves the
kernel clean is reported. Opt-in: `asyncguard check --redundant`.

## Why is this bad?
Every block barrier makes all warps wait for the slowest one: it serializes the pipeline it
sits in. Compilers insert them conservatively (TileLang puts one after every wait); one that
orders nothing the kernel depends on is pure cost.

## Example
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
x = S_1[tx]          # each thread reads only the bytes its own cp.async wrote
```

## Use instead
```python
T.ptx_wait_group(0)
x = S_1[tx]          # the issuer's own wait is enough for its own bytes
```

## Witness
The statement's line; the proof is the checker's clean verdict on the kernel without it
(valid for the launch as written: thread count, trip counts). Removing two redundant syncs
at once may not be safe: `fix --remove-redundant` removes them one at a time, re-checking.
""")

REDUNDANT_WAIT = rule("AG602", "redundant-wait", _KIND, "warning",
                      "a wait whose removal leaves the kernel provably race-free", """
## What it does
For a kernel the checker proves clean, removes each wait (`T.ptx_wait_group`,
`T.warpgroup_wait`, `T.tma_store_wait`, `T.mbarrier_wait_parity`) in turn and re-runs the
checker; a wait whose removal still leaves the kernel clean is reported.

## Why is this bad?
A wait stalls the thread until the async operations it covers complete; one that protects no
access only removes overlap between copies, tensor-core work and computation.

## Example
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
T.ptx_wait_group(0)      # nothing was issued since the last wait
```

## Use instead
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
```

## Witness
The statement's line; the checker's clean verdict on the kernel without it.
""")

WAIT_CAN_GROW = rule("AG603", "wait-count-can-grow", _KIND, "warning",
                     "a wait count that can be raised and keep every read safe", """
## What it does
For a kernel the checker proves clean, raises the count of each `T.ptx_wait_group(n)` /
`T.warpgroup_wait(n)` one at a time while the checker stays clean and reports the largest
safe count.

## Why is this bad?
`wait_group(n)` leaves the `n` newest groups in flight; a count smaller than needed waits for
copies nobody reads yet, shortening the pipeline's overlap.

## Example
```python
T.ptx_commit_group()     # stage k + 1
T.ptx_wait_group(0)      # also waits for stage k + 1, read only in the next iteration
```

## Use instead
```python
T.ptx_commit_group()
T.ptx_wait_group(1)      # stage k has landed; stage k + 1 keeps loading
```

## Witness
The statement's line, its count and the largest count the checker still proves safe.
""")

SYNC_CALLS = ("T.tvm_storage_sync",)
WAIT_CALLS = ("T.ptx_wait_group", "T.warpgroup_wait", "T.tma_store_wait", "T.mbarrier_wait_parity")
GROW_CALLS = ("T.ptx_wait_group", "T.warpgroup_wait")
