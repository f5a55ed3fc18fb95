"""TMA (cp.async.bulk.tensor) and bulk copies, sm_90+. Issued by the executing thread(s).

Loads write a box of shared bytes through the async proxy and complete on an mbarrier (the
bytes count against its tx-count). The destination is a `T.tvm_access_ptr` whose extent is
the element count (TileLang TIR), so bytes = extent * sizeof(dtype). Stores READ shared memory
asynchronously until `tma_store_wait` (cp.async.bulk.wait_group.read) covers their bulk group,
committed by `tma_store_arrive` (cp.async.bulk.commit_group).
`tma_load_gather4(desc, mbar, smem, col, r0..r3, hint)` and `tma_store_scatter4(desc, smem,
col, r0..r3, hint)` (sm_100, tile::gather4/scatter4) have the same operands; TileLang's
pointer spans the 4 rows it moves (src/cuda/op/copy.cc: extent 4 * K_box).
`ptx_st_bulk_shared(smem, bytes, 0)` is `st.bulk.weak.shared::cta`: the executing thread
stores `bytes` zero bytes from `smem`, a weak (generic) store.
"""
from __future__ import annotations

from .. import ir
from ..events import Access, AccessKind, CommitGroup, Proxy, WaitGroup
from . import NotModelled, constant, frozen, op, per_thread
from .launch import leader_rank, two_cta_leader


# Element types whose shared footprint differs from what the copy moves: TileLang's unpacked
# fp4 (one 4-bit value per 8-bit shared slot, TMA's 16U4_ALIGN16B) fills a byte of shared memory
# per element while the copy's transaction bytes count the packed 4-bit payload read from global
# memory (TileLang src/cuda/op/copy.cc `TMAPayloadElementBits`; CUTLASS's sm100 block-scaled
# collectives count `sizeof_bits<float_e2m1_unpacksmem_t>` = 4; DeepGEMM halves the fp4 stage's
# bytes; docs/model.md "Unpacked fp4"): payload bits per element, by dtype.
PAYLOAD_BITS = {"custom[float4_e2m1_unpacked]": 4}


def tensor_box(ctx, call, ptr_arg):
    """The shared destination (or source) of a TMA copy, and the payload bits of one of its
    elements when they differ from its shared size (PAYLOAD_BITS; else None)."""
    arg = call.args[ptr_arg] if len(call.args) > ptr_arg else None
    ptr = ctx.access_ptr(arg) if arg is not None else None
    if ptr is None or not ptr.view.is_shared:
        raise NotModelled(f"{call.name}: shared destination is not a T.tvm_access_ptr")
    ann = arg.args[0]
    dtype = ctx.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else ptr.view.dtype
    return ptr, PAYLOAD_BITS.get(str(dtype))


def transaction_bytes(nbytes: int, ptr, payload_bits: int | None) -> int | None:
    """What a tensor copy filling `nbytes` shared bytes counts on its mbarrier, when that differs
    from `nbytes` (unpacked fp4: half); None when it does not (Access.tx_bytes)."""
    return None if payload_bits is None else nbytes * payload_bits // (8 * ptr.elem_size)


def is_bulk_load(call: ir.Call) -> bool:
    """Whether a `T.tma_load` is the 1-D bulk form `(smem access ptr, gmem ptr, mbar, bytes[,
    policy])`; the tensor form is `(descriptor, mbar, smem ptr, coords...)`."""
    a = call.args
    return len(a) >= 4 and isinstance(a[0], ir.Call) and a[0].name == "T.tvm_access_ptr"


def load_operands(call: ir.Call) -> tuple[ir.Expr, ir.Expr]:
    """(completion mbarrier, shared destination) of a TMA load in either form. The one place
    that knows where they sit: the model, the gate's emitter and repair's candidates read it."""
    a = call.args
    return (a[2], a[0]) if is_bulk_load(call) else (a[1], a[2])


def bulk_box(ctx, call, ptr_arg):
    """`tensor_box` of a 1-D bulk copy (no tensor map: bytes are copied as they are, nothing
    unpacked): the pointer alone."""
    ptr, payload = tensor_box(ctx, call, ptr_arg)
    if payload is not None:
        raise NotModelled(f"{call.name} (a 1-D bulk copy) of an unpacked fp4 buffer: which bytes "
                          f"it fills is not modelled")
    return ptr


@op("T.tma_load", "T.tma_load_im2col", "T.tma_load_gather4")
def tma_load(ctx, call):
    bar_arg, _ = load_operands(call)
    if is_bulk_load(call):
        ptr, bar, n_fn, unit = bulk_box(ctx, call, 0), ctx.barrier_ref(bar_arg), ctx.compile(call.args[3]), 1
        payload = None
    else:
        ptr, payload = tensor_box(ctx, call, 2)
        bar, n_fn, unit = ctx.barrier_ref(bar_arg), ptr.extent, ptr.elem_size
    invalid = None
    if bar is None:
        invalid = _not_a_barrier(ctx, bar_arg)
        if invalid is None:
            raise NotModelled(f"{call.name}: completion barrier is not a shared.barrier element")
    name = call.name.removeprefix("T.")
    pair = two_cta_leader(call)   # cta_group::2: completes on the leader CTA's mbarrier (models/cluster.py)
    desc = call.args[0].name if payload is None and isinstance(call.args[0], ir.Var) else None
    coords = [ctx.value_term(a) for a in call.args[3:]] if desc is not None else []
    if None in coords:
        desc = None

    def run(env, tids):
        nbytes = constant(n_fn(env), "TMA box size") * unit
        # read-only, one array per content (models.frozen): a ring's stages come round again
        lo = frozen(ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size)
        return [Access(AccessKind.ASYNC_WRITE, tids, lo, frozen(lo + nbytes), ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, name, group_kind="mbarrier",
                       mbarrier=invalid if invalid is not None else per_thread(bar(env), tids),
                       proxy=Proxy.ASYNC, mbarrier_cta=leader_rank(env) if pair else None,
                       tx_bytes=transaction_bytes(nbytes, ptr, payload),
                       value_key=_value_key(ctx, name, desc, coords, env, tids, lo, nbytes))]
    return run


@op("T.ptx_cp_async_bulk")
def cp_async_bulk(ctx, call):
    """TVM's builtin `T.ptx_cp_async_bulk(dtype, dst.data, dst_off, src, src_off, bytes, barrier_id)`:
    codegen_cuda.cc / ptx.cc print `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
    [dst + dst_off], [src + src_off], bytes, [&barrier[barrier_id]]` (offsets in elements of the
    pointers' types), issued by every thread that runs it: a 1-D bulk load completing on that
    barrier of `T.create_barriers` (engine/program.py `barrier_view`)."""
    args = call.args
    if args and isinstance(args[0], ir.Const) and isinstance(args[0].value, str):
        args = args[1:]
    if len(args) != 6:
        raise NotModelled(f"{call.name} with {len(args)} operands")
    view = ctx.view_of(args[0])
    if view is None or not view.is_shared:
        raise NotModelled(f"{call.name}: destination is not a shared buffer")
    ptr, bar, n_fn = ctx.make_ptr(view, args[1]), ctx.barrier_ref(args[5]), ctx.compile(args[4])
    if bar is None:
        raise NotModelled(f"{call.name}: its barrier is not one of T.create_barriers' array")

    def run(env, tids):
        nbytes = constant(n_fn(env), "bulk copy size")
        lo = frozen(view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size)
        return [Access(AccessKind.ASYNC_WRITE, tids, lo, frozen(lo + nbytes), view.name, view.flat_base,
                       ptr.elem_size, "ptx_cp_async_bulk", group_kind="mbarrier",
                       mbarrier=per_thread(bar(env), tids), proxy=Proxy.ASYNC,
                       tx_bytes=transaction_bytes(nbytes, ptr, None))]
    return run


def _value_key(ctx, name, desc, coords, env, tids, lo, nbytes) -> tuple | None:
    """What one thread's tensor load copies where, when its source never changes: two loads
    with one key write the same values into the same bytes, so their overlap is no race (as
    threads storing one value, docs/model.md "One value stored by every thread"). TileLang 0.1.8
    issues the same box several times into one stage (Mamba's chunk_state: four `tma_load(x_desc,
    ...)` per stage, one expect_tx each)."""
    if desc is None or len(tids) != 1 or not ctx.read_only_descriptor(desc):
        return None
    tid = int(tids[0])
    at = tuple(term(env, tid) for term in coords)   # (Elaborator.value_term: equal terms, equal values)
    if None in at:
        return None
    return (name, desc, at, int(lo[0]), nbytes)


def _not_a_barrier(ctx, e) -> str | None:
    """Why a completion operand certainly names no mbarrier: an element of an undeclared buffer,
    or of a declared buffer outside shared.barrier (the machine reports it invalid). None when
    the operand is some other expression the model does not follow (then: unsupported)."""
    if isinstance(e, ir.Subscript):
        target = e.value
    elif isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
        target = e.args[1]
    else:
        return None
    while isinstance(target, ir.Attr) and target.name == "data":
        target = target.value
    if not isinstance(target, ir.Var):
        return None
    view = ctx.view_of(target)
    if view is None:
        return f"{target.name} (not declared)"
    if view.is_shared and view.dtype in ("uint64", "int64"):
        return None   # a word that may be a carved mbarrier the model does not follow here (a cluster)
    return f"{target.name} (a {view.scope} buffer, not shared.barrier)"


@op("T.tma_store", "T.tma_store_scatter4")
def tma_store(ctx, call):
    first_is_ptr = ctx.access_ptr_or_none(call.args[0]) is not None
    if first_is_ptr:
        ptr = bulk_box(ctx, call, 1)
        n_fn, unit = ctx.compile(call.args[2]), 1
    else:   # a store moves no transaction bytes: only its shared footprint matters
        ptr, _ = tensor_box(ctx, call, 1)
        n_fn, unit = ptr.extent, ptr.elem_size

    def run(env, tids):
        nbytes = constant(n_fn(env), "TMA store size") * unit
        lo = frozen(ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size)
        return [Access(AccessKind.ASYNC_READ, tids, lo, frozen(lo + nbytes), ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, "tma_store", group_kind="bulk", proxy=Proxy.ASYNC)]
    return run


@op("T.ptx_st_bulk_shared")
def st_bulk_shared(ctx, call):
    if len(call.args) != 3:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    addr = ctx.address(call.args[0])
    if addr is None or not addr[0].is_shared:
        raise NotModelled(f"{call.name}: destination is not a shared buffer")
    view, start = addr
    n_fn = ctx.compile(call.args[1])

    def run(env, tids):
        nbytes = constant(n_fn(env), "st.bulk size")
        lo = per_thread(start(env), tids)
        return [Access(AccessKind.WRITE, tids, lo, lo + nbytes, view.name, view.flat_base, 1, "st_bulk")]
    return run


@op("T.tma_store_arrive")
def tma_store_arrive(ctx, call):
    return lambda env, tids: [CommitGroup(tids, "bulk")]


@op("T.tma_store_wait")
def tma_store_wait(ctx, call):
    n_fn = ctx.compile(call.args[0]) if call.args else (lambda env: 0)
    return lambda env, tids: [WaitGroup(tids, constant(n_fn(env), "tma_store_wait count"), "bulk")]
