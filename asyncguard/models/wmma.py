"""TVM's wmma intrinsics (`nvcuda::wmma`, sm_70+), as dlight's tensor-core matmul prints them.

`T.tvm_load_matrix_sync(frag, m, n, k, index, ptr, stride, layout)` is `wmma::load_matrix_sync(frag[index],
ptr, stride)` (TVM's codegen_cuda.cc), `T.tvm_store_matrix_sync(frag, m, n, k, index, ptr, stride, layout)`
is `wmma::store_matrix_sync(ptr, frag[index], stride, mem_row_major | mem_col_major)`. Both are
warp-collective (`wmma.load` / `wmma.store` `.sync.aligned`, PTX ISA): the warp reads or writes the
whole tile, a fragment of `frag`'s kind, whose rows are `stride` elements apart:

- `wmma.matrix_a`: m x k, `wmma.matrix_b`: k x n, `wmma.accumulator`: m x n (the fragment buffer's
  scope names the kind); `"col_major"` swaps rows and columns.

Which lane moves which element is unspecified (the fragment layout is opaque), so a load is modelled
as a read of the whole tile by every lane of the warp (any lane may read any element), and a store as a
write of each row by one lane (row r by lane r % 32 of the warp): every byte is written once, and a
race with another warp's access, or with a later access of the warp not ordered after the store (no
barrier, no `__syncwarp`), is seen on the row's lane. A read-back by the very lane the model picks
is the one case it does not see; TVM's kernels store and then pass a block barrier.
`T.tvm_fill_fragment` and `T.tvm_mma_sync` touch registers only.
"""
from __future__ import annotations

import numpy as np

from ..events import Access, AccessKind
from . import NotModelled, constant, op, per_thread
from .launch import WARP

KINDS = ("wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator")


@op("T.tvm_fill_fragment", "T.tvm_mma_sync")
def registers_only(ctx, call):
    return None


def _tile(ctx, call, kind: AccessKind):
    if len(call.args) != 8:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    frag = ctx.view_of(call.args[0])   # its scope names the kind (Elaborator._declare: T.handle)
    scope = frag.scope if frag is not None else None
    if scope not in KINDS:
        raise NotModelled(f"{call.name} on a fragment of scope {scope!r:.40}")
    ptr = ctx.access_ptr(call.args[5])
    if ptr is None:
        raise NotModelled(f"{call.name}: the pointer is not a T.tvm_access_ptr or T.address_of")
    if not ptr.view.is_shared:
        return None   # global memory: no shared effect
    layout = ctx.literal(call.args[7])
    if layout not in ("row_major", "col_major"):
        raise NotModelled(f"{call.name} with layout {layout!r:.40}")
    m, n, k = (ctx.compile(a) for a in call.args[1:4])
    stride_fn = ctx.compile(call.args[6])
    base, es = ptr.view.flat_base, ptr.elem_size
    label = call.name.removeprefix("T.")

    def run(env, tids):
        dims = {"wmma.matrix_a": (m, k), "wmma.matrix_b": (k, n), "wmma.accumulator": (m, n)}[scope]
        rows, cols = (constant(d(env), "wmma tile shape") for d in dims)
        if layout == "col_major":
            rows, cols = cols, rows
        stride = constant(stride_fn(env), "wmma stride")
        first = base + per_thread(ptr.offset(env), tids) * es          # the tile's first element, per lane
        row_at = np.arange(rows, dtype=np.int64) * stride * es
        if kind == AccessKind.READ:   # every lane, every row
            lo = (first[:, None] + row_at[None, :]).ravel()
            who = np.repeat(tids, rows)
        else:                         # row r by lane r % 32
            lanes = tids % WARP
            mine = lanes[:, None] == (np.arange(rows) % WARP)[None, :]
            t_idx, r_idx = np.nonzero(mine)
            lo, who = first[t_idx] + row_at[r_idx], tids[t_idx]
        return [Access(kind, who.astype(np.int64), lo, lo + cols * es, ptr.view.name, base, es, label)]
    return run


@op("T.tvm_load_matrix_sync")
def load_matrix_sync(ctx, call):
    return _tile(ctx, call, AccessKind.READ)


@op("T.tvm_store_matrix_sync")
def store_matrix_sync(ctx, call):
    return _tile(ctx, call, AccessKind.WRITE)
