"""mbarrier objects (sm_80+, transaction counts sm_90+). PTX ISA "mbarrier".

A barrier is a word in a `shared.barrier` buffer, named in TIR as `mbarrier_1[k % 3]`.
`init(count)` sets the arrivals each phase needs; `arrive` takes one arrival per executing
thread and releases its prior accesses; `expect_tx(b)` raises the phase's transaction count;
a TMA load naming the barrier lowers it by the bytes it delivers. A phase completes when its
pending arrivals and its tx-count are both 0. `try_wait.parity(p)` returns once the phase with
parity p has completed, i.e. while the current phase's parity is !p (engine/state/mbarrier.py).
"""
from __future__ import annotations

from ..events import MbarArrive, MbarFenceInit, MbarInit, MbarWait
from . import NotModelled, constant, op, per_thread


# Hand-written kernels carve their mbarriers out of ordinary shared memory (a `uint64` view of
# `shared.dyn`, DeepEP's `smem_mbar`); TileLang declares `shared.barrier` buffers. A carved
# barrier is named by its byte address: each run gives the first CARVED_POOL addresses it meets
# one barrier each (engine/program.py `barrier_ref`, engine/state/mbarrier.py `CarvedBarriers`), and no memory other than these is kept per
# barrier. PTX ISA, mbarrier.inval: "An mbarrier object must be invalidated before using its
# memory location for any other purpose" (state/mbarrier.py reports an access of a valid one's
# 8 bytes).
CARVED_POOL = 16
CARVED = "\x00carved-mbarriers"   # env key of the run's CarvedBarriers (engine/machine.py)
CARVED_SCOPE = "carved.barrier"   # the pool's pseudo region: no bytes of the shared layout


def _bar(ctx, call, index=0):
    if len(call.args) <= index:
        raise NotModelled(f"{call.name}: no barrier argument")
    ref = ctx.barrier_ref(call.args[index])
    if ref is None:
        raise NotModelled(f"{call.name}: barrier is not an element of a shared.barrier buffer")
    return ref


@op("T.ptx_init_barrier_thread_count")
def init(ctx, call):
    bar = _bar(ctx, call)
    count_fn = ctx.compile(call.args[1])

    def run(env, tids):
        return [MbarInit(tids, per_thread(bar(env), tids), constant(count_fn(env), "mbarrier count"))]
    return run


@op("T.ptx_fence_barrier_init")
def fence_init(ctx, call):
    return lambda env, tids: [MbarFenceInit(tids)]


@op("T.mbarrier_expect_tx")
def expect_tx(ctx, call):
    bar, n_fn = _bar(ctx, call), ctx.compile(call.args[1])
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids),
                                         constant(n_fn(env), "expect_tx bytes"), arrive=False)]


@op("T.ptx_arrive_barrier")
def arrive(ctx, call):
    if len(call.args) != 1:
        raise NotModelled("T.ptx_arrive_barrier with a cluster / predicate argument")
    bar = _bar(ctx, call)
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids))]


@op("T.ptx_arrive_barrier_expect_tx")
def arrive_expect_tx(ctx, call):
    if len(call.args) != 2:
        raise NotModelled("T.ptx_arrive_barrier_expect_tx with a cluster / predicate argument")
    bar, n_fn = _bar(ctx, call), ctx.compile(call.args[1])
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids),
                                         constant(n_fn(env), "expect_tx bytes"))]


@op("T.ptx_cp_async_barrier_noinc")
def cp_async_arrive_noinc(ctx, call):
    """`cp.async.mbarrier.arrive.noinc` (tl::mbarrier_cp_async_arrive_noinc): the mbarrier tracks
    the thread's prior cp.asyncs; once they complete, the system arrives on it for the thread
    (noinc: the arrival counts against the init count). Modelled as the thread's arrival with
    its pending copies completing on that phase; like an arrive, it releases the thread's
    earlier accesses."""
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bar = _bar(ctx, call)
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids), copies="cp.async")]


@op("T.ptx_cp_async_barrier")
def cp_async_arrive_counting(ctx, call):
    """`cp.async.mbarrier.arrive` without .noinc (tl::mbarrier_cp_async_arrive): the pending count
    of the phase in progress is raised by one at issue, and the system arrives once the thread's
    prior cp.asyncs complete, so the init does not count it. The copies complete on the phase the
    increment joined, which is the phase the thread sees only if that phase's completion is
    ordered after the increment (engine/state/mbarrier.py, AG422)."""
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bar = _bar(ctx, call)
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids), copies="cp.async", counted=False)]


@op("T.ptx_wait_barrier")
def wait_barrier(ctx, call):
    """TVM's builtin `T.ptx_wait_barrier(id)`: codegen_cuda.cc prints a `mbarrier.try_wait.parity`
    loop with the constant parity 0 (`phase_bit = 0`): a wait for the barrier's first phase, which
    every later wait passes at once."""
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bar = _bar(ctx, call)
    return lambda env, tids: [MbarWait(tids, per_thread(bar(env), tids), 0)]


@op("T.mbarrier_wait_parity")
def wait_parity(ctx, call):
    bar, p_fn = _bar(ctx, call), ctx.compile(call.args[1])

    def run(env, tids):
        return [MbarWait(tids, per_thread(bar(env), tids), per_thread(p_fn(env), tids) & 1)]
    return run
