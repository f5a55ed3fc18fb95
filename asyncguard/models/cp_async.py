"""cp.async (sm_80+): per-thread asynchronous global->shared copies, commit and wait groups.

`T.ptx_cp_async(dst, src, n[, pred])` (TileLang form): n ELEMENTS of dst's dtype; the
predicated form zero-fills when pred is false, so it writes the destination either way.
TVM's builtin 5-argument form `(dst_ptr, dst_off, src_ptr, src_off, bytes)` takes bytes.
TileLang 0.1.8 printed the call's dtype first, `T.ptx_cp_async("float16", dst, src, n[, pred])`,
and there n is BYTES: its inject_ptx_async_copy.cc builds `(dst_ptr, src_ptr, bytes[, pred])` with
the store buffer's dtype as the call's type, and codegen_cuda.cc prints `cp_async_gs<n>`.
The copy's bytes land at the issuer's `wait_group` that completes its group (engine).
`T.ptx_wait_group(0)` is printed as `cp.async.wait_all`, which PTX defines as
`commit_group; wait_group 0`: it also waits for copies not yet committed.

TileLang 0.1.8 left TVM's software-pipeline annotations in the device TIR, and its
codegen_cuda.cc (`VisitStmt_(AttrStmtNode)`) prints them as the group calls:
`T.attr(0, "async_commit_queue_scope", 0)` is its body (the `with` block, or the rest of the
enclosing block when printed as a statement) followed by `commit_group`;
`T.attr(0, "async_wait_queue_scope", 0)` whose body opens with
`T.attr(0, "async_wait_inflight_count", n)` is `wait_group(n)` followed by that body. The queue
must be 0 (codegen refuses any other). The engine rewrites them into these calls
(engine/program.py `_async_queue`).
"""
from __future__ import annotations

from .. import ir
from ..events import Access, AccessKind, CommitGroup, WaitGroup
from . import NotModelled, ThreadRanges, constant, op


@op("T.ptx_cp_async")
def cp_async(ctx, call):
    args = call.args
    if args and isinstance(args[0], ir.Const) and isinstance(args[0].value, str):
        args = args[1:]   # TileLang 0.1.8: the call's dtype first, then bytes (module doc)
        if len(args) not in (3, 4):
            raise NotModelled(f"T.ptx_cp_async with a dtype and {len(args)} arguments")
        ptr = ctx.access_ptr(args[0])
        if ptr is None:
            raise NotModelled("cp.async destination is not a T.tvm_access_ptr")
        count_fn, to_bytes, offset_fn = ctx.compile(args[2]), int, ptr.offset
    elif len(args) in (3, 4):
        ptr = ctx.access_ptr(args[0])
        if ptr is None:
            raise NotModelled("cp.async destination is not a T.tvm_access_ptr")
        count_fn, to_bytes = ctx.compile(args[2]), ptr.count_bytes   # elements (int4: 32 = 16 B)
        offset_fn = ptr.offset
    elif len(args) == 5:  # TVM builtin: (dst_data, dst_elem_offset, src_data, src_offset, bytes)
        view = ctx.view_of(args[0])
        if view is None:
            raise NotModelled("cp.async destination is not a known buffer")
        ptr = ctx.make_ptr(view, args[1])
        count_fn, offset_fn = ctx.compile(args[4]), ptr.offset
        to_bytes = int   # the builtin's last operand is bytes
    else:
        raise NotModelled(f"T.ptx_cp_async with {len(args)} arguments")
    if not ptr.view.is_shared:
        raise NotModelled("cp.async destination is not in shared memory")
    ranges = ThreadRanges()

    def run(env, tids):
        nbytes = to_bytes(constant(count_fn(env), "cp.async size"))
        if nbytes not in (4, 8, 16):
            raise NotModelled(f"cp.async of {nbytes} bytes (PTX allows 4, 8 or 16)")
        lo, hi = ranges.get(offset_fn(env), tids, ptr.view.flat_base, ptr.elem_size, nbytes)
        return [Access(AccessKind.ASYNC_WRITE, tids, lo, hi, ptr.view.name,
                       ptr.view.flat_base, ptr.elem_size, "ptx_cp_async")]
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

    def run(env, tids):
        n = constant(n_fn(env), "wait_group count")
        if n < 0:
            raise NotModelled(f"wait_group({n}): negative count")
        if n == 0:  # codegen emits cp.async.wait_all = commit_group; wait_group 0 (PTX ISA)
            return [CommitGroup(tids), WaitGroup(tids, 0)]
        return [WaitGroup(tids, n)]
    return run
