"""`T.call_extern` into TileLang's device templates (installed tilelang 0.1.15,
src/tl_templates/cuda/reduce.h and scan.h), modelled from their source.

`tl::AllReduce<Op, threads, scale, thread_offset, Barrier[, batch, stride]>::run(x, red_buf)`
(and `::run_batch(x_ptr, red_buf)`) reduces over `threads` lanes in butterfly levels
offset = threads/2, threads/4, ... down to `scale`. A level with offset < 32 is a warp shuffle
(no shared memory). A level with offset >= 32 does: barrier #1; store x[i] to
red_buf[tid - thread_offset + i * stride] for every i < batch; barrier #2; load
red_buf[((tid - thread_offset) ^ offset) + i * stride]. `tl::NamedBarrier<N>` is
`bar.sync 1, N` / `bar.sync 2, N`; `tl::SyncThreadsBarrier` is `__syncthreads()` and is the
template's default, which TileLang 0.1.8 printed by leaving the argument out
(`tl::AllReduce<tl::MaxOp, 4, 1, 0>`). There is no barrier after the last load.

`tl::CumSum1D<threads, reverse>::run(src, dst, N)` (and CumMax1D): only threads with
threadIdx.x < 32 take part; lane l handles elements seg * 32 + l < N, segment after segment
(reversed order when `reverse`), reading src[idx] and then writing dst[idx]; the carry between
segments moves through warp shuffles. `tl::CumSum2D<threads, axis, reverse>::run(src, dst, H,
W, src_stride, dst_stride)`: warp `item = threadIdx.x / 32` of threads/32 scans lines
item, item + threads/32, ... (rows of W when axis is 1, columns of H when axis is 0; a warp
whose line is out of range returns). TileLang 0.1.11 printed `run(src, dst, H, W)`, its
template's only form then: both strides W (v0.1.11 tl_templates/cuda/scan.h InclusiveScan2D).

`DP4A(a, b, c)` (common.h) reads 4 bytes at a and at b, reads 4 bytes at c and writes the
`__dp4a` result back to c, in the executing thread.

`TL_IKET_EVENT(id, tag)`, `TL_IKET_EVENT_PAYLOAD_U32/F32(id, value, tag)`: TileLang's IKET
event markers, macros that `tilelang/tools/cuda/iket/codegen.py` injects into the CUDA source.
Each is inline PTX: read `%globaltimer_lo` (and `%cluster_ctarank`), store that word (and the
payload) with `st.shared` to the fixed window offsets 0x20 / 0x24, then `pmevent`. Offset 0x20
lies in the block's system-reserved shared memory (`%reserved_smem_offset_begin/end`: the
region belongs to system software; CUDA reserves 1 KB per block from sm_80 and places the
kernel's own shared memory after it), so no kernel buffer, barrier or async state is touched; the
payload `value` is an ordinary argument (a shared load there is a read like any other). The
"memory" clobber orders the compiler only.

`debug_print_var(msg, v)`, `debug_print_buffer_value(msg, buf_name, index, v)` and
`debug_print_msg(msg)` (debug.h, what `T.print` lowers to): a `printf` of arguments passed
by value (a pointer argument is printed as an address, `%p`). The element printed is read
where the argument is evaluated, as any load; the call itself touches no shared memory and
has no barrier.

`tl::prefetch_tma_descriptor(desc)` (copy_sm90.h) is `prefetch.tensormap` of a descriptor in
kernel parameter or global memory: no shared memory, no barrier. TileLang 0.1.8 printed it as
this extern (lower_hopper_intrin.cc); 0.1.15 prints the builtin `T.prefetch_tma_descriptor`,
which `pure` lists. Other externs are `unsupported`.
"""
from __future__ import annotations

import re

import numpy as np

from .. import ir
from ..events import Access, AccessKind, Barrier
from . import NotModelled, constant
from .tcgen05 import tmem_load

ALLREDUCE = re.compile(r"tl::AllReduce<\s*[\w:]+\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*"
                        r"(?:,\s*tl::(NamedBarrier<\s*(\d+)\s*>|SyncThreadsBarrier)\s*"
                        r"(?:,\s*(\d+)\s*(?:,\s*(\d+)\s*)?)?)?>::(run|run_batch)$")
_SCAN = re.compile(r"tl::(?:CumSum|CumMax)(1D|2D)<\s*(\d+)\s*(?:,\s*(\d+)\s*)?"
                   r"(?:,\s*(true|false)\s*)?>::run$")
# TileLang's dequantization examples ship these device functions as CUDA source
# (examples/dequantize_gemm/quantize/lop3.py, mxfp.py; bitnet-1.58b): bit manipulation in
# registers (lop3, prmt, f16x2 arithmetic) through their pointer arguments only, no shared
# memory of their own, no barrier, no shuffle.
_IKET_EVENT = re.compile(r"TL_IKET_EVENT(?:_PAYLOAD_(?:U32|F32))?$")
_DECODE = re.compile(r"decode_(?:i[124][sub]|fp4)_to_(?:f16|bf16|i8s|i4s)\w*$")
_PRINTS = {"debug_print_var", "debug_print_buffer_value", "debug_print_msg"}
_TMEM_LOAD = re.compile(r"tl::tcgen05_ld_32dp(32|64|128|256)bNx<\s*(\d+)\s*,\s*(true|false)\s*>$")
SEG = 32              # InclusiveScanLine's segment: one warp
MAX_STEPS = 1 << 14   # scan steps one call may take before the model gives up (AG001)


def extern_effect(ctx, call):
    """None when the call has no shared/sync effect, else `run(env, tids) -> events`."""
    if len(call.args) < 2:
        raise NotModelled("T.call_extern without a function name")
    name = ctx.literal(call.args[1])
    if not isinstance(name, str):
        raise NotModelled("T.call_extern with a computed function name")
    m = ALLREDUCE.match(name)
    if m is not None:
        return _all_reduce(ctx, call, name, m)
    m = _SCAN.match(name)
    if m is not None:
        return _scan(ctx, call, name, m)
    if _IKET_EVENT.match(name):
        return None   # a profiler's marker in the reserved shared window (module doc)
    if name in _PRINTS:
        return None   # printf of by-value arguments (module doc)
    if name == "tl::prefetch_tma_descriptor":
        return None   # TileLang 0.1.8's spelling of T.prefetch_tma_descriptor (module doc)
    if name == "DP4A":
        return _dp4a(ctx, call)
    m = _TMEM_LOAD.match(name)
    if m is not None:
        return _tmem_load(ctx, call, name, m)
    if _DECODE.match(name):
        return _register_decode(ctx, call, name)
    raise NotModelled(f"extern call {name} (may use shared memory or barriers internally)")


def _tmem_load(ctx, call, name, m):
    """`tl::tcgen05_ld_32dp<bits>bNx<N, pack>(tmem_addr, col, dst)`: TileLang 0.1.8's tensor-memory
    load, the template 0.1.15's `T.tcgen05_ld(bits, N, pack, addr, col, 32, dst)` prints to
    (copy_sm100.h: the same `tcgen05_ld_core` chain, then `fence_view_async_tmem_load`)."""
    if len(call.args) != 5:
        raise NotModelled(f"{name} with {len(call.args) - 2} arguments")
    bits, n, pack = int(m.group(1)), int(m.group(2)), m.group(3) == "true"
    args = (ir.Const(bits), ir.Const(n), ir.Const(pack), call.args[2], call.args[3], ir.Const(32), call.args[4])
    return tmem_load(ctx, ir.Call(ir.Attr(ir.Var("T"), "tcgen05_ld"), args, (), call.span))


def _all_reduce(ctx, call, name, m):
    threads, scale, offset0 = int(m.group(1)), int(m.group(2)), int(m.group(3))
    named = m.group(5)
    batch = int(m.group(6) or 1)
    stride = int(m.group(7) or 0)
    if batch > 1 and stride <= 0:
        raise NotModelled(f"{name}: a batch with no workspace stride")
    levels = []
    k = threads
    while k != scale and k > 1:
        levels.append(k // 2)
        if k // 2 == scale:
            break
        k //= 2
    smem_levels = [o for o in levels if o >= 32]
    if not smem_levels:
        return None  # warp shuffles only
    if len(call.args) != 4:
        raise NotModelled(f"{name} reduces over {threads} threads but has no shared workspace argument")
    ptr = ctx.access_ptr(call.args[3])
    if ptr is None or not ptr.view.is_shared:
        raise NotModelled(f"{name}: workspace is not a shared T.tvm_access_ptr")
    tidx = ctx.thread_x()
    # the byte ranges of the last few (workspace base, threads), the thread ids by identity
    # (the same array while a task runs; the entry holds it, so its id stays its own)
    recent: dict = {}

    def ranges(base, tids):
        hit = recent.get((base, id(tids)))
        if hit is not None and hit[0] is tids:
            return hit[1]
        lane = tidx[tids] - offset0
        out = []
        for off in smem_levels:
            for idx in (lane, lane ^ off):
                for i in range(batch):
                    lo = base + (idx + i * stride) * ptr.elem_size
                    hi = lo + ptr.elem_size
                    lo.flags.writeable = hi.flags.writeable = False
                    out.append((lo, hi))
        if len(recent) >= 128:
            recent.clear()
        recent[(base, id(tids))] = (tids, out)
        return out

    def run(env, tids):
        base = ptr.view.flat_base + int(np.asarray(ptr.offset(env)).flat[0]) * ptr.elem_size
        spans = iter(ranges(base, tids))
        events = []
        for _ in smem_levels:
            for bar_id, acc in ((1, AccessKind.WRITE), (2, AccessKind.READ)):
                events.append(Barrier(tids, bar_id if named else 0, int(named) if named else None))
                for _ in range(batch):
                    lo, hi = next(spans)
                    events.append(Access(acc, tids, lo, hi, ptr.view.name,
                                         ptr.view.flat_base, ptr.elem_size, "AllReduce"))
        return events
    return run


def _scan(ctx, call, name, m):
    dims, threads = m.group(1), int(m.group(2))
    axis = int(m.group(3) or 0) if dims == "2D" else 0
    reverse = m.group(4) == "true"
    want = (5,) if dims == "1D" else (8, 6)   # 2D: TileLang 0.1.11 passes no strides (module doc)
    if len(call.args) not in want:
        raise NotModelled(f"{name} with {len(call.args) - 2} arguments")
    if threads not in (32, 64, 128, 256, 512, 1024) or axis not in (0, 1):
        raise NotModelled(f"{name}: template arguments the template refuses")
    src, dst = ctx.access_ptr(call.args[2]), ctx.access_ptr(call.args[3])
    if src is None or dst is None:
        raise NotModelled(f"{name}: source or destination is not a T.tvm_access_ptr")
    sizes = [ctx.compile(a) for a in call.args[4:]]
    tidx = ctx.thread_x()
    short = name.removeprefix("tl::").split("<")[0]

    def access(kind, ptr, tids, elem, env):
        lo = ptr.view.flat_base + (int(np.asarray(ptr.offset(env)).flat[0]) + elem) * ptr.elem_size
        return Access(kind, tids, lo, lo + ptr.elem_size, ptr.view.name, ptr.view.flat_base,
                      ptr.elem_size, short)

    def line(env, tids, src_start, dst_start, extent, src_stride, dst_stride, out):
        """InclusiveScanLine for the warps in `tids` (one line per thread: start arrays)."""
        lane = tidx[tids] % SEG
        segs = list(range(-(-extent // SEG)))
        for seg in reversed(segs) if reverse else segs:
            idx = seg * SEG + lane
            on = idx < extent
            if on.any():
                t, i = tids[on], idx[on]
                out.append(access(AccessKind.READ, src, t, src_start[on] + i * src_stride, env))
                out.append(access(AccessKind.WRITE, dst, t, dst_start[on] + i * dst_stride, env))
            if len(out) > MAX_STEPS:
                raise NotModelled(f"{name}: more than {MAX_STEPS} scan steps")

    def run(env, tids):
        vals = [constant(f(env), f"{short} size") for f in sizes]
        out: list = []
        tx = tidx[tids]
        if dims == "1D":
            mine = tids[tx < SEG]
            zero = np.zeros(len(mine), dtype=np.int64)
            if mine.size and vals[0] > 0:
                line(env, mine, zero, zero, vals[0], 1, 1, out)
            return out
        h, w, ss, ds = vals if len(vals) == 4 else (*vals, vals[1], vals[1])
        if h <= 0 or w <= 0:
            return out
        tile, item = threads // SEG, tx // SEG
        lines, extent = (h, w) if axis == 1 else (w, h)
        alive = np.ones(len(tids), dtype=bool)
        for b in range(-(-lines // tile)):
            which = b * tile + item
            alive &= which < lines      # a warp past the last line returns from run()
            if not alive.any():
                break
            t, k = tids[alive], which[alive]
            if axis == 1:
                line(env, t, k * ss, k * ds, extent, 1, 1, out)
            else:
                line(env, t, k, k, extent, ss, ds, out)
        return out
    return run


def _register_decode(ctx, call, name):
    """Reads and writes through its pointer arguments, as their access flags say; any other
    argument must be a plain value (an integer such as N or an offset)."""
    steps = []
    for a in call.args[2:]:
        p = ctx.access_ptr(a)
        if p is None:
            if ctx.view_of(a) is not None:
                raise NotModelled(f"extern call {name}: a buffer passed other than by T.tvm_access_ptr")
            continue
        if p.view.is_shared:
            steps.append(p)
    if not steps:
        return None   # registers only

    def run(env, tids):
        out = []
        for p in steps:
            rw = constant(p.rw(env), f"{name} access flag")
            lo = p.view.flat_base + np.broadcast_to(np.asarray(p.offset(env)) * p.elem_size, (len(tids),))
            n = np.broadcast_to(np.asarray(p.extent(env)) * p.elem_size, (len(tids),))
            for flag, kind in ((1, AccessKind.READ), (2, AccessKind.WRITE)):
                if rw & flag:
                    out.append(Access(kind, tids, lo, lo + n, p.view.name, p.view.flat_base,
                                      p.elem_size, name))
        return out
    return run


def _dp4a(ctx, call):
    if len(call.args) != 5:
        raise NotModelled(f"DP4A with {len(call.args) - 2} arguments")
    ptrs = [ctx.access_ptr(a) for a in call.args[2:]]
    if any(p is None for p in ptrs):
        raise NotModelled("DP4A: an operand is not a T.tvm_access_ptr")
    steps = [(p, kind) for p, kinds in zip(ptrs, ((AccessKind.READ,), (AccessKind.READ,),
                                                  (AccessKind.READ, AccessKind.WRITE)))
             for kind in kinds if p.view.is_shared]
    if not steps:
        return None   # registers only

    def run(env, tids):
        out = []
        for p, kind in steps:
            lo = p.view.flat_base + np.asarray(p.offset(env)) * p.elem_size
            lo = np.broadcast_to(lo, (len(tids),)) if np.ndim(lo) == 0 else lo[tids]
            out.append(Access(kind, tids, lo, lo + 4, p.view.name, p.view.flat_base, p.elem_size, "DP4A"))
        return out
    return run
