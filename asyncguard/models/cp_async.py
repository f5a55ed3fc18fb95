"""cp.async (sm_80+): per-thread asynchronous global->shared copies, commit and wait groups.

`T.ptx_cp_async(dst, src, n[, pred])` (TileLang form): n ELEMENTS of dst's dtype; the
predicated form zero-fills when pred is false, so it writes the destination either way.
TVM's builtin 5-argument form `(dst_ptr, dst_off, src_ptr, src_off, bytes)` takes bytes.
The copy's bytes land at the issuer's `wait_group` that completes its group (engine).
`T.ptx_wait_group(0)` is printed as `cp.async.wait_all`, which PTX defines as
`commit_group; wait_group 0`: it also waits for copies not yet committed.
"""
from __future__ import annotations

from ..events import Access, AccessKind, CommitGroup, WaitGroup
from . import NotModelled, ThreadRanges, constant, op


@op("T.ptx_cp_async")
def cp_async(ctx, call):
    args = call.args
    if len(args) in (3, 4):
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
