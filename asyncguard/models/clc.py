"""Cluster launch control (CLC, sm_100a), as TileLang 0.1.15 prints it and its templates
(`tl_templates/cuda/cluster.h`) emit it.

- `T.clc_try_cancel(result, mbar)` is `tl::clc_try_cancel`:
  `clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [result],
  [mbar]`, executed by each thread that reaches it (the template elects no lane).
- `T.clc_try_cancel_multicast(result, mbar)` is `tl::clc_try_cancel_multicast`: the same with
  `.multicast::cluster::all`.
- `T.clc_is_canceled(result)` and `T.clc_get_first_ctaid_{x,y,z}(result)` are values
  (`tl::clc_decode_response`): `ld.shared.b128` of the 16-byte response,
  `clusterlaunchcontrol.query_cancel.is_canceled` / `.get_first_ctaid`, then
  `fence.proxy.async.shared::cta` ("decode from shared first, then issue the async proxy fence
  before subsequent shared-memory consumers").

PTX ISA 9.7.13.17 (`clusterlaunchcontrol.try_cancel`): the instruction "asynchronously writes an
opaque response to shared memory"; "upon completion of the asynchronous operation, complete-tx
operation, with completeCount argument equal to amount of data stored in bytes, will be
performed on the mbarrier object specified by the operand mbar"; "No other synchronization
mechanisms ... can be used to guarantee the completion"; "Operand addr specifies the naturally
aligned address of the 16-byte wide shared memory location where the request's response is
written"; "The .multicast::cluster::all qualifier indicates that the response is asynchronously
written using weak async-proxy writes to the corresponding local shared memory addr of each CTA
in the requesting cluster. The completion of the writes to addr of a particular CTA is signaled
via a complete-tx operation to the mbarrier object on the shared memory of that CTA"; "The
behavior of instruction with .multicast::cluster::all qualifier is undefined if any CTA in the
cluster is exited". The ISA's own example calls the (multicast) response write an "async-proxy
write" and orders a "generic-proxy weak read" of the response before the next try_cancel with a
generic->async proxy fence; the non-multicast text says only "asynchronously writes", and its
completion mechanism is the bulk copies' (complete-tx on an mbarrier), so both forms are
modelled as async-proxy writes.

So, as a 1-D bulk copy of 16 bytes (models/tma.py): an async-proxy write of 16 bytes at
`result` that lowers its mbarrier's tx-count by 16 and lands when that phase completes; the
instruction performs *no* arrival and *no* expect-tx of its own (the kernel must
`arrive.expect_tx(16)`: TileLang's example does, the ISA's example too). The multicast form
writes the 16 bytes at `result` in every CTA of the cluster, each completing on the barrier at
`mbar`'s offset in that CTA (like `tma_load_multicast` with every rank in the mask). The
queries are plain (generic) reads of the 16 bytes, followed by a proxy fence of the reading
thread.

What a response says (cancelled or not, which cluster) is data the hardware decides: the query
values are not computed (engine/program.py reports where one decides something). CLC needs an
architecture-specific or family target from sm_100 on: the ISA requires `sm_100` or higher
(`.multicast::cluster::all`: sm_100a/f, sm_110a/f, sm_120a/f), and TileLang's templates
`static_assert` unless CUTLASS defines `CUTLASS_ARCH_CLC_ENABLED` (sm_100a/f, 101, 103, 110,
120, 121 `a`/`f`): on any other target the calls stay unmodelled.
"""
from __future__ import annotations

import re

import numpy as np

from ..events import Access, AccessKind, Proxy, ProxyFence
from . import NotModelled, op, per_thread, value_op
from .arch import PROBED
from .launch import CLUSTER_RANK

RESPONSE_BYTES = 16   # "16-byte wide shared memory location" (PTX ISA 9.7.13.17)
# environment key of the run's ClcState (never a TIR name), shared by every task of a run
CLC_STATE = "\x00clc"
# the symbolic size of a CLC kernel (engine/loop_sizes.py `_clc_sizes`): how many clusters this
# cluster's requests cancel before the first that does not; its k-th response (k from 0) says
# "cancelled" exactly when k < it
CANCELLED = "cancelled(clc)"


class ClcState:
    """What a run's requests did. `issued`: requests so far (one sequence per run: the multicast
    form's, or a one-CTA cluster's); `slots`: (CTA rank, flat byte of a response) -> the index
    of the request whose response was written there last (None: one this model does not number);
    `cells`: (rank, shared region, byte) -> the value a thread stored there from a query
    (`schedule_valid[0] = T.clc_is_canceled(...)`), for the threads that load it."""

    def __init__(self):
        self.issued = 0
        self.slots: dict = {}
        self.cells: dict = {}


QUERIES = ("T.clc_is_canceled", "T.clc_get_first_ctaid_x", "T.clc_get_first_ctaid_y",
           "T.clc_get_first_ctaid_z")
# cutlass/arch/config.h: CUTLASS_ARCH_CLC_ENABLED for these, architecture- or family-specific
CLC_ARCHS = {100, 101, 103, 110, 120, 121}


def response_address(ctx, call):
    """fn(env) -> the flat byte of the response a query reads (None when its threads read
    different ones)."""
    ptr = _response(ctx, call)

    def address(env):
        offs = np.unique(np.asarray(ptr.offset(env)))
        return ptr.view.flat_base + int(offs[0]) * ptr.elem_size if offs.size == 1 else None
    return address


def _check_target(ctx, call) -> None:
    target = ctx.attrs.get("target")
    arch = target.get("arch") if isinstance(target, dict) else target
    if not isinstance(arch, str):
        return   # no target printed: nothing says the calls do not compile
    m = re.fullmatch(r"sm_(\d+)([af]?)", arch.strip().lower())
    if m is not None and int(m.group(1)) < 100 and f"sm_{m.group(1)}{m.group(2)}" in PROBED:
        # below sm_100 ptxas rejects the instructions themselves: AG510 says the build fails
        # (models/arch.py TARGET_FEATURES), and the run reads them as PTX defines them, as it
        # reads wgmma on a target without it
        return
    if m is None or int(m.group(1)) not in CLC_ARCHS or not m.group(2):
        raise NotModelled(f"{call.name}: cluster launch control on target {arch}: it needs an "
                          f"architecture- or family-specific sm_100+ target (PTX ISA "
                          f"clusterlaunchcontrol; TileLang's tl::clc_* static_assert without "
                          f"CUTLASS_ARCH_CLC_ENABLED)")


def _response(ctx, call):
    ptr = ctx.access_ptr(call.args[0]) if call.args else None
    if ptr is None or not ptr.view.is_shared:
        raise NotModelled(f"{call.name}: the response is not a shared T.tvm_access_ptr")
    return ptr


def _lo(ptr, env, tids, what):
    lo = ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size
    if (lo % RESPONSE_BYTES).any():
        raise NotModelled(f"{what}: the response is not 16-byte aligned (PTX: naturally aligned)")
    return lo


@op("T.clc_try_cancel", "T.clc_try_cancel_multicast")
def try_cancel(ctx, call):
    if len(call.args) != 2:
        raise NotModelled(f"{call.name} (cluster launch control) with {len(call.args)} arguments")
    _check_target(ctx, call)
    ptr = _response(ctx, call)
    bar = ctx.barrier_ref(call.args[1])
    if bar is None:
        raise NotModelled(f"{call.name}: completion barrier is not a shared.barrier element")
    multicast = call.name.endswith("_multicast")
    name = call.name.removeprefix("T.")
    size = ctx.launch.cluster_size

    def run(env, tids):
        lo = _lo(ptr, env, tids, call.name)
        bars = per_thread(bar(env), tids)
        state = env.get(CLC_STATE)
        if state is not None:
            # one request per issuing thread; the response slot holds the last one's answer. A
            # one-CTA request in a cluster of several is its CTA's own sequence: not numbered
            numbered = (multicast or size == 1) and len(set(lo.tolist())) == 1
            if numbered:
                state.issued += len(tids)
            for r in (range(size) if multicast else (int(env.get(CLUSTER_RANK, 0)),)):
                for b in set(lo.tolist()):
                    state.slots[(r, int(b))] = state.issued - 1 if numbered else None
        return [Access(AccessKind.ASYNC_WRITE, tids, lo, lo + RESPONSE_BYTES, ptr.view.name,
                       ptr.view.flat_base, ptr.elem_size, name, group_kind="mbarrier",
                       mbarrier=bars, proxy=Proxy.ASYNC, cta=r if multicast else None)
                for r in (range(size) if multicast else (None,))]
    return run


@value_op(*QUERIES)
def query(ctx, call):
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} (cluster launch control) with {len(call.args)} arguments")
    _check_target(ctx, call)
    ptr = _response(ctx, call)
    name = call.name.removeprefix("T.")

    def run(env, tids):
        lo = _lo(ptr, env, tids, call.name)
        return [Access(AccessKind.READ, tids, lo, lo + RESPONSE_BYTES, ptr.view.name,
                       ptr.view.flat_base, ptr.elem_size, name),
                ProxyFence(tids)]
    return run
