"""TileLang 0.1.8's sparse GEMM template call, modelled from its source (tilelang 0.1.8's
src/tl_templates/cuda/gemm_sp.h, gemm_sp_sm80.h, gemm_sp_sm90.h):
`T.tl_gemm_sp("tl::gemm_sp_ss<M, N, K, num_warp_m, num_warp_n, trans_A, trans_B, clear_accum[,
use_wgmma[, wg_wait]]>", A, B, C, E)`, A (2:4-compressed), B and the metadata E pointers into
shared memory, C the accumulator registers. gemm_sp.h includes the sm_90 header for targets from
sm_90 on and the sm_80 one below (TileLang 0.1.15 lowers the same example to explicit ldmatrix and
mma.sp instead, which the other models read).

- sm_80 (`GemmTensorOp::body`, CUTLASS's SparseMmaTensorOp): each warp of the call loads its A rows
  (its warp_m slice, all of K), its E slice and its B columns (its warp_n slice) from shared memory
  through the warp iterators (ldmatrix / ld.shared: the generic proxy), and runs mma.sp on
  registers: synchronous reads by the calling threads, no barrier, no asynchronous state.
- sm_90 (`tl_wgmma_sp::GemmTensorOp::body`; `use_wgmma` false is a static_assert): the threads copy
  their E fragment from shared memory to registers (generic proxy), `warpgroup_arrive`, issue the
  sparse wgmma over A and B in shared memory (the async proxy, one operation per warpgroup as in
  models/wgmma.py), `warpgroup_commit_batch`, and with `wg_wait` >= 0 (0 by default)
  `warpgroup_wait<wg_wait>`: the same events as the explicit calls.

Footprint: which bytes each thread's fragment holds (CUTLASS and CuTe layouts) is not modelled.
Every thread of the call reads the whole A, B and E tiles its `T.tvm_access_ptr` extents name, and
every byte of those tiles is read by some thread of the call, so the approximation stays inside
the tiles the call names (as the wgmma model's contiguous runs stay inside their stage).
"""
from __future__ import annotations

import re

from ..events import Access, AccessKind, CommitGroup, Proxy, WaitGroup
from . import NotModelled, constant, op, per_thread
from .arch import target_name
from .wgmma import by_warpgroup

TEMPLATE = re.compile(r"tl::gemm_sp_ss<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,"
                      r"\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*(?:,\s*(\w+)\s*(?:,\s*(-?\d+)\s*)?)?>")


def _wgmma_target(ctx) -> bool:
    """gemm_sp.h's choice: the sm_90 header where the target is sm_90 or later."""
    name = target_name(ctx.attrs.get("target"))
    if name is None:
        raise NotModelled("T.tl_gemm_sp: no target architecture says which template is compiled")
    return int(re.sub(r"\D", "", name)) >= 90


@op("T.tl_gemm_sp")
def gemm_sp(ctx, call):
    if len(call.args) != 5:
        raise NotModelled(f"T.tl_gemm_sp with {len(call.args)} arguments")
    m = TEMPLATE.fullmatch(str(ctx.literal(call.args[0])).strip())
    if m is None:
        raise NotModelled(f"T.tl_gemm_sp template {ctx.literal(call.args[0])!r:.60}")
    use_wgmma = m.group(9) not in ("false", "0")
    wg_wait = int(m.group(10)) if m.group(10) is not None else 0
    wgmma = _wgmma_target(ctx)
    if wgmma and not use_wgmma:
        raise NotModelled("tl::gemm_sp_ss without wgmma on sm_90: the template refuses it")
    tiles = {}
    for name, arg in (("A", call.args[1]), ("B", call.args[2]), ("E", call.args[4])):
        ptr = ctx.access_ptr(arg)
        if ptr is None or not ptr.view.is_shared:
            raise NotModelled(f"T.tl_gemm_sp: operand {name} is not a shared T.tvm_access_ptr")
        tiles[name] = ptr
    cta_threads = ctx.launch.num_threads

    def tile(name, env, tids):
        ptr = tiles[name]
        lo = ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size
        return lo, lo + ptr.count_bytes(constant(ptr.extent(env), f"gemm_sp {name} extent"))

    def access(kind, name, who, lo, hi, **kw):
        ptr = tiles[name]
        return Access(kind, who, lo, hi, ptr.view.name, ptr.view.flat_base, ptr.elem_size, "tl_gemm_sp", **kw)

    def run(env, tids):
        lo, hi = tile("E", env, tids)
        out = [access(AccessKind.READ, "E", tids, lo, hi)]
        if not wgmma:
            for name in ("A", "B"):
                lo, hi = tile(name, env, tids)
                out.append(access(AccessKind.READ, name, tids, lo, hi))
            return out
        for name in ("A", "B"):
            lo, hi = tile(name, env, tids)
            for sel in by_warpgroup(tids, cta_threads):
                who, a, b = (tids, lo, hi) if sel is None else (tids[sel], lo[sel], hi[sel])
                out.append(access(AccessKind.ASYNC_READ, name, who, a, b, group_kind="wgmma",
                                  proxy=Proxy.ASYNC, collective=True))
        out.append(CommitGroup(tids, "wgmma"))
        if wg_wait >= 0:
            out.append(WaitGroup(tids, wg_wait, "wgmma"))
        return out
    return run
