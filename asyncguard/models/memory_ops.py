"""Shared-memory loads and stores by explicit instructions: ldmatrix / stmatrix, lds / sts.

`ldmatrix.x{1,2,4}`: lanes 0..8n-1 each supply the address of one 16-byte row (PTX ISA,
"ldmatrix"); the warp reads those rows. `stmatrix` writes them. Each lane's row is attributed
to the lane that named it. TileLang 0.1.15 prints `T.ptx_ldmatrix(trans, num, smem_ptr,
local_ptr)`; 0.1.8 printed TVM's builtin with the call's dtype first,
`T.ptx_ldmatrix(dtype, trans, num, ".b16", local, local_off, smem_ptr, smem_off)`, whose shared
address is smem_ptr + smem_off elements of the pointer's type (TVM's codegen_cuda.cc and ptx.cc
PrintLoadMatrixAssembly: `cast_smem_ptr_to_int(smem_ptr + smem_elem_offset)`, each lane's row).
TVM's own pipelines print the same with a per-lane offset (`(tx & 15) * 40 + (tx >> 4) * 8`).

`T.lds32/64/128(ptr)` and `T.sts32/64/128(ptr, value)`: TileLang's explicit-width shared
accesses, printed as `tl::load_shared_N(ptr)` / `tl::store_shared_N(ptr, value)`
(tl_templates/cuda/copy.h: one `*reinterpret_cast<const uintN_t *>(ptr)` dereference), an
ordinary generic-proxy load or store of N/8 bytes at the pointer, by each executing thread. A
store whose value is one value in every thread (as a plain store's, engine/program.py
`same_in_every_thread`) is a same-value store. `ldg*`/`stg*` address global memory only.
"""
from __future__ import annotations

import numpy as np

from .. import ir
from ..events import Access, AccessKind
from . import NotModelled, ThreadRanges, constant, op, per_thread, value_op
from .launch import WARP

ROW_BYTES = 16


def _matrix_op(ctx, call, kind: AccessKind, ptr_index: int, args=None, row_offset=None):
    """`row_offset`: elements added to the pointer's offset in each lane (TVM's smem_off)."""
    args = call.args if args is None else args
    extra_fn = None if row_offset is None or row_offset == ir.Const(0) else ctx.compile(row_offset)
    if len(args) <= ptr_index:
        raise NotModelled(f"{call.name} with {len(args)} arguments")
    num_fn = ctx.compile(args[1])
    ptr = ctx.access_ptr(args[ptr_index])
    if ptr is None and ctx.view_of(args[ptr_index]) is not None:   # TVM's `buf.data`: its element 0
        ptr = ctx.make_ptr(ctx.view_of(args[ptr_index]), None)
    if ptr is None:
        raise NotModelled(f"{call.name}: shared pointer is not a T.tvm_access_ptr")
    if not ptr.view.is_shared:
        return None  # not shared memory: no effect we track

    # the rows of the last few (count, row addresses, threads), by identity: a memoized address
    # is the same read-only array while the names it reads hold the same values, and so are a
    # task's thread ids (the entries hold what they are keyed by, so the ids stay theirs)
    recent: dict = {}

    def run(env, tids):
        num = constant(num_fn(env), "ldmatrix/stmatrix count")
        if num not in (1, 2, 4):
            raise NotModelled(f"matrix count {num}")
        off = ptr.offset(env)
        if extra_fn is not None:
            off = off + extra_fn(env)   # (a new array: not memoized below)
        base = ptr.view.flat_base
        t = type(off)
        key = (num, t is int, off if t is int else id(off), id(tids), base) \
            if t is int or (t is np.ndarray and not off.flags.writeable) else None
        hit = recent.get(key) if key is not None else None
        if hit is not None and hit[1] is tids and (t is int or hit[0] is off):
            active, lo, hi = hit[2:]
        else:
            lanes = tids % WARP
            active = tids[lanes < 8 * num]
            lo = base + per_thread(off, active) * ptr.elem_size
            hi = lo + ROW_BYTES
            if key is not None:
                active.flags.writeable = lo.flags.writeable = hi.flags.writeable = False
                if len(recent) >= 128:
                    recent.clear()
                recent[key] = (off, tids, active, lo, hi)
        return [Access(kind, active, lo, hi, ptr.view.name, base,
                       ptr.elem_size, call.name.removeprefix("T."))]
    return run


@op("T.ptx_ldmatrix")
def ldmatrix(ctx, call):
    args = call.args
    if args and isinstance(args[0], ir.Const) and isinstance(args[0].value, str):
        # TileLang 0.1.8 printed TVM's builtin with the call's dtype first (module doc)
        args = args[1:]
        if len(args) != 7:
            raise NotModelled(f"T.ptx_ldmatrix with a dtype and {len(args)} arguments")
        return _matrix_op(ctx, call, AccessKind.READ, 5, args, row_offset=args[6])
    return _matrix_op(ctx, call, AccessKind.READ, 2)


@op("T.ptx_stmatrix")
def stmatrix(ctx, call):
    return _matrix_op(ctx, call, AccessKind.WRITE, 2)


_WIDTH_BYTES = {"32": 4, "64": 8, "128": 16}


def _explicit_width(ctx, call, kind: AccessKind, nargs: int):
    if len(call.args) != nargs:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    ptr = ctx.access_ptr(call.args[0])
    if ptr is None:
        raise NotModelled(f"{call.name}: shared pointer is not a T.tvm_access_ptr")
    if not ptr.view.is_shared:
        return None  # not shared memory: no effect we track
    width = _WIDTH_BYTES[call.name[-3:].lstrip("sd")]
    base = ptr.view.flat_base
    ranges = ThreadRanges()
    same = kind == AccessKind.WRITE and ctx.same_in_every_thread(call.args[1])
    label = call.name.removeprefix("T.")

    def run(env, tids):
        lo, hi = ranges.get(ptr.offset(env), tids, base, ptr.elem_size, width)
        return [Access(kind, tids, lo, hi, ptr.view.name, base, ptr.elem_size, label,
                       same_value=same)]
    return run


@value_op("T.lds32", "T.lds64", "T.lds128")
def lds(ctx, call):
    return _explicit_width(ctx, call, AccessKind.READ, 1)


@op("T.sts32", "T.sts64", "T.sts128")
def sts(ctx, call):
    return _explicit_width(ctx, call, AccessKind.WRITE, 2)


@op("T.stg32", "T.stg64", "T.stg128", "T.stg256")
def stg(ctx, call):
    """`tl::store_global_N[_conditional](ptr, value[, pred])`: global memory only."""
    ptr = ctx.access_ptr(call.args[0]) if call.args else None
    if ptr is None or ptr.view.is_shared or ptr.view.is_barrier:
        raise NotModelled(f"{call.name} whose pointer is not a global T.tvm_access_ptr")
    return None
