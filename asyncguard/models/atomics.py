"""Atomic read-modify-writes on shared memory (`T.atomic_add_elem_op(ptr, value)` and its x2 / x4
and other forms, with `ptr` a `T.tvm_access_ptr` into a shared buffer: TileLang's split-K GEMV
reduces into `C_shared` this way).

One atomic operation on some bytes never races with another on the same bytes: the hardware
performs each read-modify-write whole, in some order (PTX ISA, "Memory Consistency Model":
atomic operations on the same location are morally strong and never form a data race). Against a
plain load or store, or an async copy, it is a write like any other (engine/state/memory.py
`_check_pair` leaves out only atomic-atomic pairs), and the bytes it adds to must have been
written first (a read of unwritten bytes otherwise), except for an atomic store, which reads
nothing. Atomics on global memory touch no shared byte (models/pure.py), except where the value
operand is a pointer: `T.atomic_addx4_elem_op(&dKV[...], T.tvm_access_ptr(.., acc_shared, ..))`
reads its `count` addends there (tl_templates/cuda/atomic.h: `AtomicAddx4(ref, val)` takes
`ToFloat4(val)`, one `*reinterpret_cast<const float4 *>(val)` load by the thread; x2: `ToFloat2`),
a plain generic-proxy read of `count` elements of the pointer's type (`shared_source`).
"""
from __future__ import annotations

from ..events import Access, AccessKind
from . import NotModelled, frozen, per_thread

# the forms whose first operand is the destination; the count of elements each updates
SHARED_ATOMICS = {"T.atomic_add_elem_op": 1, "T.atomic_addx2_elem_op": 2, "T.atomic_addx4_elem_op": 4,
                  "T.atomic_max_elem_op": 1, "T.atomic_min_elem_op": 1, "T.atomic_store_elem_op": 1}
# the one form that only writes: an atomic store reads nothing, so its bytes need no earlier write
STORE_ONLY = {"atomic_store_elem_op"}


def reads_destination(via: str) -> bool:
    """Whether the atomic named `via` (an Access's `via`) reads its bytes before writing them."""
    return via not in STORE_ONLY


def shared_destination(ctx, call):
    """The shared AccessPtr an atomic's first operand names, or None (a global destination)."""
    if call.name not in SHARED_ATOMICS or not call.args:
        return None
    ptr = ctx.access_ptr_or_none(call.args[0])
    return ptr if ptr is not None and ptr.view.is_shared else None


def shared_source(ctx, call):
    """The shared AccessPtr an atomic's value operand points to, or None (a value, or a pointer
    outside shared memory)."""
    if call.name not in SHARED_ATOMICS or len(call.args) < 2:
        return None
    ptr = ctx.access_ptr_or_none(call.args[1])
    return ptr if ptr is not None and ptr.view.is_shared else None


def source_read(ctx, call, ptr):
    """run(env, tids) -> the read of the atomic's addends at `ptr`, per thread."""
    nbytes = ptr.count_bytes(SHARED_ATOMICS[call.name])
    name = call.name.removeprefix("T.")

    def run(env, tids):
        lo = frozen(ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size)
        return [Access(AccessKind.READ, tids, lo, frozen(lo + nbytes), ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, name)]
    return run


def shared_atomic(ctx, call, ptr):
    """run(env, tids) -> the atomic's write of its elements at `ptr`, per thread."""
    count = SHARED_ATOMICS[call.name]
    nbytes = ptr.count_bytes(count)
    if nbytes <= 0:
        raise NotModelled(f"{call.name} of {nbytes} bytes")
    name = call.name.removeprefix("T.")

    def run(env, tids):
        lo = frozen(ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size)
        return [Access(AccessKind.WRITE, tids, lo, frozen(lo + nbytes), ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, name, atomic=True)]
    return run
