"""Shared-memory loads and stores by explicit instructions: ldmatrix / stmatrix.

`ldmatrix.x{1,2,4}`: lanes 0..8n-1 each supply the address of one 16-byte row (PTX ISA,
"ldmatrix"); the warp reads those rows. `stmatrix` writes them. Each lane's row is attributed
to the lane that named it.
"""
from __future__ import annotations

from ..events import Access, AccessKind
from . import NotModelled, constant, op, per_thread
from .launch import WARP

ROW_BYTES = 16


def _matrix_op(ctx, call, kind: AccessKind, ptr_index: int):
    if len(call.args) <= ptr_index:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    num_fn = ctx.compile(call.args[1])
    ptr = ctx.access_ptr(call.args[ptr_index])
    if ptr is None:
        raise NotModelled(f"{call.name}: shared pointer is not a T.tvm_access_ptr")
    if not ptr.view.is_shared:
        return None  # not shared memory: no effect we track

    def run(env, tids):
        num = constant(num_fn(env), "ldmatrix/stmatrix count")
        if num not in (1, 2, 4):
            raise NotModelled(f"matrix count {num}")
        lanes = tids % WARP
        active = tids[lanes < 8 * num]
        lo = ptr.view.flat_base + per_thread(ptr.offset(env), active) * ptr.elem_size
        return [Access(kind, active, lo, lo + ROW_BYTES, ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, call.name.removeprefix("T."))]
    return run


@op("T.ptx_ldmatrix")
def ldmatrix(ctx, call):
    return _matrix_op(ctx, call, AccessKind.READ, 2)


@op("T.ptx_stmatrix")
def stmatrix(ctx, call):
    return _matrix_op(ctx, call, AccessKind.WRITE, 2)
