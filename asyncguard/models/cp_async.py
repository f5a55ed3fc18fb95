"""cp.async (sm_80+): per-thread asynchronous global->shared copies, commit and wait groups.

`T.ptx_cp_async(dst, src, n[, pred])` (TileLang form): n ELEMENTS of dst's dtype; the
predicated form zero-fills when pred is false, so it writes the destination either way.
TVM's builtin 5-argument form `(dst_ptr, dst_off, src_ptr, src_off, bytes)` takes bytes, its
offsets in elements of the pointers' types (codegen_cuda.cc: `dst + dst_offset`). TVM itself prints
the call's dtype first, `T.ptx_cp_async("float16", A_shared.data, off, A, src_off, 8[, pred])`; with
the sixth operand codegen_cuda.cc's PrintPredicatedCpAsyncAssembly (ptx.cc) issues
`@p cp.async` and `@!p st.shared` of zeros: where the predicate is false the thread's write is a
plain synchronous store, not a copy.
TileLang 0.1.8 printed the call's dtype first, `T.ptx_cp_async("float16", dst, src, n[, pred])`,
and there n is BYTES: its inject_ptx_async_copy.cc builds `(dst_ptr, src_ptr, bytes[, pred])` with
the store buffer's dtype as the call's type, and codegen_cuda.cc prints `cp_async_gs<n>`.
The copy's bytes land at the issuer's `wait_group` that completes its group (engine).
`T.ptx_wait_group(0)` is printed by TileLang's codegen as `cp.async.wait_all` (`tl::cp_async_wait<0>`),
which PTX defines as `commit_group; wait_group 0`: it also waits for copies not yet committed. TVM's
own codegen prints `cp.async.wait_group 0;`, which does not (`Elaborator.printed_by_tvm` tells TVM's
output apart: docs/model.md "TVM's own pipelines").

TileLang 0.1.8 left TVM's software-pipeline annotations in the device TIR, and its
codegen_cuda.cc (`VisitStmt_(AttrStmtNode)`) prints them as the group calls:
`T.attr(0, "async_commit_queue_scope", 0)` is its body (the `with` block, or the rest of the
enclosing block when printed as a statement) followed by `commit_group`;
`T.attr(0, "async_wait_queue_scope", 0)` whose body opens with
`T.attr(0, "async_wait_inflight_count", n)` is `wait_group(n)` followed by that body. The queue
(the attr's value, which codegen_cuda.cc reads as `op->value`; the node operand means nothing)
must be 0 (codegen refuses any other). The engine rewrites them into these calls
(engine/program.py `_async_queue`).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..events import Access, AccessKind, CommitGroup, WaitGroup
from . import NotModelled, ThreadRanges, constant, frozen, op, per_thread


@dataclass(frozen=True)
class Operands:
    """What a `T.ptx_cp_async` call's operands mean, in each printed form (module doc). `offset`:
    None where `dst` is a `T.tvm_access_ptr`, else the element offset into the buffer `dst` names
    (TVM's builtin); `size_in_elements`: `size` counts dst's elements, else bytes; `pred`: the
    predicate, or None; `zero_store`: where it is false the thread stores zeros synchronously (TVM's
    builtin) rather than a zero-filling copy (TileLang's)."""
    dst: object
    offset: object
    size: object
    size_in_elements: bool
    pred: object = None
    zero_store: bool = False


def operands(call) -> Operands:
    """The operands of a `T.ptx_cp_async` call; NotModelled for a form none of them has."""
    args = list(call.args)
    typed = bool(args) and isinstance(args[0], ir.Const) and isinstance(args[0].value, str)
    if typed:
        args = args[1:]   # the call's dtype first (module doc)
    if len(args) in (5, 6):   # TVM builtin: (dst_data, dst_elem_offset, src_data, src_offset, bytes[, pred])
        return Operands(args[0], args[1], args[4], False, args[5] if len(args) == 6 else None, True)
    if len(args) in (3, 4):   # (dst, src, n[, pred]): n bytes in TileLang 0.1.8's typed form
        return Operands(args[0], None, args[2], not typed, args[3] if len(args) == 4 else None)
    raise NotModelled(f"T.ptx_cp_async with {'a dtype and ' if typed else ''}{len(args)} arguments")


def global_operand_indices(call) -> set:
    """The positions in `call.args` of the `T.ptx_cp_async` operands that touch global memory
    only: the source pointer and offset, and TileLang's predicate (its copy writes the
    destination either way). Not TVM's predicate, which decides whether the thread copies or
    stores zeros (`Operands.zero_store`)."""
    args = call.args
    typed = int(bool(args) and isinstance(args[0], ir.Const) and isinstance(args[0].value, str))
    n = len(args) - typed
    if n in (5, 6):   # (dst, dst_off, src, src_off, bytes[, pred])
        return {typed + 2, typed + 3}
    return {typed + 1, typed + 3} if n in (3, 4) else set()   # (dst, src, n[, pred])


@op("T.ptx_cp_async")
def cp_async(ctx, call):
    ops = operands(call)
    if ops.offset is None:
        ptr = ctx.access_ptr(ops.dst)
        if ptr is None:
            raise NotModelled("cp.async destination is not a T.tvm_access_ptr")
    else:
        view = ctx.view_of(ops.dst)
        if view is None:
            raise NotModelled("cp.async destination is not a known buffer")
        ptr = ctx.make_ptr(view, ops.offset)
    count_fn, offset_fn = ctx.compile(ops.size), ptr.offset
    to_bytes = ptr.count_bytes if ops.size_in_elements else int   # elements (int4: 32 = 16 B)
    # (TileLang's predicated copy zero-fills asynchronously: a copy either way)
    pred_fn = ctx.compile(ops.pred) if ops.zero_store and ops.pred is not None else None
    if not ptr.view.is_shared:
        raise NotModelled("cp.async destination is not in shared memory")
    ranges = ThreadRanges()

    def run(env, tids):
        nbytes = to_bytes(constant(count_fn(env), "cp.async size"))
        if nbytes not in (4, 8, 16):
            raise NotModelled(f"cp.async of {nbytes} bytes (PTX allows 4, 8 or 16)")
        lo, hi = ranges.get(offset_fn(env), tids, ptr.view.flat_base, ptr.elem_size, nbytes)
        if pred_fn is None:
            return [Access(AccessKind.ASYNC_WRITE, tids, lo, hi, ptr.view.name,
                           ptr.view.flat_base, ptr.elem_size, "ptx_cp_async")]
        copies = per_thread(pred_fn(env), tids).astype(bool)
        out = []
        for kind, sel in ((AccessKind.WRITE, ~copies), (AccessKind.ASYNC_WRITE, copies)):
            if sel.all():
                out.append(Access(kind, tids, lo, hi, ptr.view.name, ptr.view.flat_base, ptr.elem_size,
                                  "ptx_cp_async"))
            elif sel.any():
                out.append(Access(kind, frozen(tids[sel]), frozen(lo[sel]), frozen(hi[sel]), ptr.view.name,
                                  ptr.view.flat_base, ptr.elem_size, "ptx_cp_async"))
        return out
    return run


COMMIT_SCOPE = "async_commit_queue_scope"
WAIT_SCOPE = "async_wait_queue_scope"
INFLIGHT_COUNT = "async_wait_inflight_count"
QUEUE_ATTRS = (COMMIT_SCOPE, WAIT_SCOPE, INFLIGHT_COUNT)


@op("T.ptx_commit_group")
def commit_group(ctx, call):
    return lambda env, tids: [CommitGroup(tids)]


@op("T.ptx_wait_group")
def wait_group(ctx, call):
    if len(call.args) != 1:
        raise NotModelled("T.ptx_wait_group needs one argument")
    n_fn = ctx.compile(call.args[0])
    wait_all = not ctx.printed_by_tvm()

    def run(env, tids):
        n = constant(n_fn(env), "wait_group count")
        if n < 0:
            raise NotModelled(f"wait_group({n}): negative count")
        if n == 0 and wait_all:  # TileLang's codegen: cp.async.wait_all = commit_group; wait_group 0
            return [CommitGroup(tids), WaitGroup(tids, 0)]
        return [WaitGroup(tids, n)]
    return run
