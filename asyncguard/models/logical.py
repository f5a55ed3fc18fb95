"""`T.any_of(ptr, n)` / `T.all_of(ptr, n)`: tl::Any / tl::All (tl_templates/cuda/common.h),
values computed by the executing thread alone, reading a[0], a[1], ... until the answer is
known. For some contents of the buffer (all false for Any, all true for All) every one of the
n elements is read, so the model reads all n: a race on any of them is a race for that input.
"""
from __future__ import annotations

from ..events import Access, AccessKind
from . import NotModelled, constant, per_thread, value_op


@value_op("T.any_of", "T.all_of")
def any_all(ctx, call):
    if len(call.args) != 2:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    ptr = ctx.access_ptr(call.args[0])
    if ptr is None:
        raise NotModelled(f"{call.name}: buffer is not a T.tvm_access_ptr")
    if not ptr.view.is_shared:
        return None
    n_fn = ctx.compile(call.args[1])

    def run(env, tids):
        n = constant(n_fn(env), f"{call.name} size")
        lo = ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size
        return [Access(AccessKind.READ, tids, lo, lo + n * ptr.elem_size, ptr.view.name,
                       ptr.view.flat_base, ptr.elem_size, call.name.removeprefix("T."))]
    return run
