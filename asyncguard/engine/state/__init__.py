"""The machine's state, one module per hardware feature (as `asyncguard/models/` is per feature).

`engine/machine.py` is the scheduler: tasks, frames, branches, joins, loops, the vector clocks
`vc` (happens-before) and the run's end. Everything a hardware feature adds -- its state, its
event handlers, the raw facts its checks read (the *Problem* dataclasses) -- lives in one module
here, as one class built with the machine (`Feature(machine)`):

- `memory.py`: shared-memory access records, the per-statement race index, the race and
  self-overlap checks, the bytes no write has reached.
- `cp_async.py`: cp.async / bulk / wgmma groups (`commit_group`, `wait_group`), copies in flight.
- `barriers.py`: block and named barriers (`bar.sync`, `bar.arrive`), warp syncs.
- `mbarrier.py`: mbarriers (init, arrive, expect_tx, phases, parity waits, lapped waiters,
  run-ahead) and the TMA bytes that complete on them.
- `proxy.py`: the generic and async proxies, `fence.proxy.async` and its checks.
- `cluster.py`: the CTAs of a thread-block cluster run together: where each CTA's shared memory
  and mbarriers lie, the cluster barrier (`barrier.cluster.arrive` / `wait`), and the remote uses
  a CTA's exit must follow.
- `tcgen05.py`: the tcgen05 fences (`tcgen05.fence::before_thread_sync` / `after_thread_sync`) that
  two threads' tensor-memory operations need around the synchronization ordering them.

A feature class has:
- `EVENTS`: {event class (asyncguard/events.py): name of its handler method}; each handler is
  called as `handler(task, event, statement)` by `Machine._event`;
- `finish(result)`: what it reports once the kernel has ended (stuck waits, copies never
  waited for), only when the run reached its end;
- `signature()`: its part of the synchronization state compared at loop period boundaries
  (engine/accelerate.py), or None when it holds none that loops repeat.

To add a feature (tensor memory, clusters, ...): write its event classes in events.py and its
operations in models/, a state module here with one such class, and add `(attribute, class)` to
`machine.FEATURES`. Its handlers reach the scheduler through the machine they were built with,
`self.machine`: `vc`, `T`, `tasks`, `result`, `seen_pairs`, `taint`, and `note`, `fork`, `sync`,
`retire`, `release`; and the other features by attribute (`self.machine.mbarrier`, ...).
"""
