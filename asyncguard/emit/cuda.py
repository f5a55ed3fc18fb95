"""Emit CUDA C++ for a kernel's synchronization skeleton, from the elaborated Program.

The skeleton keeps what the checker analysed and drops the arithmetic:

* the launch: the same threads per block, the traced blocks of the grid only (each with its
  real block index, read from a block-index map), one dynamic shared-memory buffer laid
  out exactly as `SharedLayout` places the kernel's regions (flat byte bases), mbarriers in a
  separate static `__shared__ uint64_t` array;
* every synchronization operation: `cp.async` (its size; a false predicate still zero-fills),
  commit / wait groups (`wait_group(0)` is `cp.async.wait_all`, as TileLang prints it), block
  and named barriers (`bar.sync` / `bar.arrive`), `ldmatrix` (the real instruction), mbarrier
  init / fence / arrive / expect_tx / try_wait.parity (bounded: a wait that spins out records a
  timeout instead of hanging), TMA loads as `cp.async.bulk` of the same bytes into the same range
  completing on the same mbarrier, bulk (TMA) stores, `fence.proxy.async`, `tl::AllReduce`'s
  shared-memory levels;
* every shared access at the same bytes: a store writes a deterministic pattern (a function of
  the writing thread, its write count and the byte address); a load / ldmatrix reads the same
  bytes and records a 32-bit FNV-1a checksum of what the thread received in a trace buffer
  (global memory). `cp.async` / bulk copies read a deterministic global pool.

The loop / branch / let structure is the Program's (PLoop, PIf, PLet, POp), with every TIR
expression printed as C (`//` and `%` are floor operations: `ag_floordiv` / `ag_floormod`).
Anything the emitter cannot express raises `EmitError` and the kernel is reported "not emitted".
`asyncguard.emit.reference` computes, from the same Program, what every traced read must see.
"""
from __future__ import annotations

import re

import numpy as np
from dataclasses import dataclass, field

from .. import ir
from ..engine.loop_sizes import _fixed_width
from ..engine.nodes import LOOP_BREAKS, RANGE_TRUTHS, THREAD_RETURN, PIf, PLet, PLoop, PNote, POp, Program, PStore, PWhile
from ..engine.program import Elaborator, _register_range_truth, _scan_globals, truth_from_copies
from ..engine.scopes import SHADOW_MARK, scoped_lets
from ..models import NotModelled
from ..models.cp_async import operands as cp_async_operands
from ..models.extern import ALLREDUCE
from ..models.memory import dtype_bytes
from ..models.memory_ops import ROW_BYTES
from ..models.tma import is_bulk_load, load_operands
from ..models.wgmma import OPERANDS, SPARSE, operand_bytes

SPIN_LIMIT = 200_000       # try_wait polls before a wait gives up and records a timeout
# A kernel already shown to hang (a wait of the launch gave up, flags[0] > 0) polls this many
# times per later wait: its verdict is settled, and a deadlocked pipeline otherwise spins every
# one of its waits to SPIN_LIMIT (seconds per kernel, most of a variants run's launch time)
SPIN_AFTER_TIMEOUT = 256
# Waits of a kernel whose reference run stopped in an mbarrier deadlock (engine: stuck waits):
# the hang is predicted, so the first wait need not spin as long to show it
SPIN_LIMIT_PREDICTED_HANG = 20_000
MAX_WAIT_N = 15            # wait_group counts computed at run time: 0..15 by switch
KERNEL_PREFIX = "ag_"
# Emitted.features: an mbarrier arrive by one elected thread (Emitter._note_elected_arrive)
ELECTED_ARRIVE = "elected_mbarrier_arrive"
# the skeleton issues cp.async.mbarrier.arrive without .noinc (emit/gate.py: synccheck not run)
COUNTING_CP_ASYNC_ARRIVE = "counting_cp_async_arrive"
# the skeleton holds each warpgroup_wait until the warpgroup's 128 threads reach it (a named
# barrier per warpgroup, its ID one the kernel does not use; emit() resolves the placeholder)
WGMMA_WAIT = "wgmma_wait_sync"
WARPGROUP_BARRIER = "@AG_WARPGROUP_BARRIER@"


# TileLang's explicit-width shared loads and stores: bytes per thread
_EXPLICIT_WIDTH = {f"{kind}{bits}": bits // 8 for kind in ("lds", "sts") for bits in (32, 64, 128)}

class EmitError(Exception):
    """The kernel cannot be emitted (reported as 'not emitted' with this reason)."""


@dataclass
class OpInfo:
    """What the reference needs about one POp beyond its events."""
    kind: str                      # load | store | cp_async | ldmatrix | allreduce | tma_load | ...
    trans: bool = False
    num: int = 0
    pred: object = None            # cp.async predicate: fn(env) -> bool or array (None: always)
    site: int | None = None        # a store of one value in every thread: its site number


@dataclass
class Emitted:
    kernel: str                    # C kernel name
    source: str
    threads: tuple
    grid: tuple
    smem_bytes: int                # dynamic shared memory of the launch
    n_mbar: int
    arch: str                      # compile target: sm_80 kernels and Hopper ones both run on sm_90a
    info: dict = field(default_factory=dict)   # id(POp) -> OpInfo
    features: set = field(default_factory=set)


# ---------------------------------------------------------------- span index of the syntax tree
def _index(func: ir.Function) -> dict:
    idx: dict = {}

    def key(kind, span):
        return (kind, span.start, span.end)

    def expr(e):
        if isinstance(e, ir.Call):
            idx.setdefault(key("call", e.span), e)
            for a in e.args:
                expr(a)
            for _, a in e.kwargs:
                expr(a)
        elif isinstance(e, ir.Subscript):
            idx.setdefault(key("sub", e.span), e)
            expr(e.value)
            for i in e.indices:
                if isinstance(i, ir.Slice):
                    for p in (i.lo, i.hi, i.step):
                        if p is not None:
                            expr(p)
                else:
                    expr(i)
        elif isinstance(e, ir.BinOp):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, ir.UnaryOp):
            expr(e.operand)
        elif isinstance(e, ir.IfExp):
            for x in (e.cond, e.then, e.other):
                expr(x)
        elif isinstance(e, ir.Attr):
            expr(e.value)
        elif isinstance(e, (ir.TupleE, ir.ListE)):
            for x in e.items:
                expr(x)

    def stmts(body):
        for s in body:
            if isinstance(s, ir.ExprStmt):
                expr(s.expr)
            elif isinstance(s, ir.Assign):
                idx.setdefault(key("assign", s.span), s)
                expr(s.target)
                expr(s.value)
            elif isinstance(s, ir.For):
                idx.setdefault(key("for", s.span), s)
                expr(s.iter)
                stmts(s.body)
            elif isinstance(s, ir.If):
                idx.setdefault(key("if", s.cond.span), s)
                expr(s.cond)
                stmts(s.then)
                stmts(s.other)
            elif isinstance(s, ir.While):
                idx.setdefault(key("while", s.cond.span), s)
                expr(s.cond)
                stmts(s.body)
            elif isinstance(s, ir.With):
                stmts(s.body)

    stmts(func.body)
    return idx


# ---------------------------------------------------------------- the C prelude
PRELUDE = r"""
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

__device__ __forceinline__ i64 ag_floordiv(i64 a, i64 b) {
  i64 q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q; }
__device__ __forceinline__ i64 ag_floormod(i64 a, i64 b) {
  i64 m = a % b; if (m != 0 && ((m < 0) != (b < 0))) m += b; return m; }
__device__ __forceinline__ i64 ag_min(i64 a, i64 b) { return a < b ? a : b; }
__device__ __forceinline__ i64 ag_max(i64 a, i64 b) { return a > b ? a : b; }
__device__ __forceinline__ i64 ag_abs(i64 a) { return a < 0 ? -a : a; }
__device__ __forceinline__ u32 ag_fmix(u32 h) {
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16; return h; }
__device__ __forceinline__ u32 ag_seed(u32 tid, u32 w) { return ag_fmix(tid * 65599u + w * 2654435761u + 12345u); }
__device__ __forceinline__ u32 ag_pat(u32 seed, u32 a) { return ag_fmix(seed ^ (a * 0x9E3779B1u)) & 0xffu; }
__device__ __forceinline__ u32 ag_fnv_byte(u32 h, u32 b) { return (h ^ b) * 16777619u; }
__device__ __forceinline__ u32 ag_fnv_word(u32 h, u32 w) {
  h = ag_fnv_byte(h, w & 0xffu); h = ag_fnv_byte(h, (w >> 8) & 0xffu);
  h = ag_fnv_byte(h, (w >> 16) & 0xffu); return ag_fnv_byte(h, w >> 24); }
__device__ __forceinline__ bool ag_elect(u32 tid, i64 n) {
  u32 lane = tid % 32u, warp = tid / 32u;
  if (n == 0) return lane == 0 && warp == 0;
  u32 g = (u32)((n + 31) / 32); return lane == 0 && warp % g == 0; }

extern __shared__ __align__(1024) unsigned char ag_smem[];

struct AgState {
  u32 tid, w, r, src, maxr; bool traced; u32* trace; const unsigned char* pool; u32 per; u32* flags;
};

__device__ __forceinline__ void ag_record(AgState& s, u32 h) {
  if (s.traced && s.r < s.maxr) s.trace[s.r] = h;
  s.r++; }

__device__ __noinline__ void ag_read(AgState& s, i64 addr, i64 n) {
  u32 h = 2166136261u; const unsigned char* p = ag_smem + addr;
  if (((addr | n) & 3) == 0) { for (i64 i = 0; i < n; i += 4) h = ag_fnv_word(h, *(const u32*)(p + i)); }
  else { for (i64 i = 0; i < n; ++i) h = ag_fnv_byte(h, p[i]); }
  ag_record(s, h); }

__device__ __forceinline__ u32 ag_useed(u32 site, u32 k) { return ag_fmix(site * 16777619u + k * 2654435761u + 0x5bd1e995u); }

__device__ __noinline__ void ag_write_seed(i64 addr, i64 n, u32 seed) {
  unsigned char* p = ag_smem + addr;
  if (((addr | n) & 3) == 0) {
    for (i64 i = 0; i < n; i += 4) { u32 a = (u32)(addr + i);
      *(u32*)(p + i) = ag_pat(seed, a) | (ag_pat(seed, a + 1) << 8) | (ag_pat(seed, a + 2) << 16) | (ag_pat(seed, a + 3) << 24); }
  } else { for (i64 i = 0; i < n; ++i) p[i] = (unsigned char)ag_pat(seed, (u32)(addr + i)); } }

// a store: a pattern of the writing thread and its write count
__device__ __forceinline__ void ag_write(AgState& s, i64 addr, i64 n) { ag_write_seed(addr, n, ag_seed(s.tid, s.w++)); }

// a store whose value is the same in every thread (built from uniform names and read-only global
// loads at uniform addresses: engine/program.py same_in_every_thread): a pattern of the store
// site and how often this thread executed it, so the threads of one instance write one value
__device__ __forceinline__ void ag_write_uniform(i64 addr, i64 n, u32 site, u32& count) {
  ag_write_seed(addr, n, ag_useed(site, count++)); }

__device__ __forceinline__ u32 ag_saddr(const void* p) {
  u64 a; asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p)); return (u32)a; }

// The global source of the thread's next copy: the next `slot` bytes of its pool slice. The
// pool is sized from the traced blocks' copies; a block that is not traced (or a reference that
// under-counted) may copy more: that copy reads from the slice's start instead of past the pool
// (the pool has `smem` bytes of padding behind it, more than any copy into shared memory),
// and an overrun in a traced block is counted (flags[1]: the trace cannot be compared).
__device__ __forceinline__ const unsigned char* ag_src(AgState& s, u32 slot) {
  u32 off = s.src; s.src += slot;
  if ((u64)off + slot > s.per) { off = 0; if (s.traced) atomicAdd(&s.flags[1], 1u); }
  return s.pool + off; }

__device__ __forceinline__ void ag_delay(u32 us) {
  // replay of a static witness: hold this warp back so the other side of the race goes first
  for (u32 i = 0; i < us; ++i) __nanosleep(1000); }

__device__ __forceinline__ void ag_cp_async(AgState& s, i64 addr, i64 n, bool pred) {
  const unsigned char* src = ag_src(s, 16u);
  u32 d = ag_saddr(ag_smem + addr); int ss = pred ? (int)n : 0;
  if (n == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else if (n == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else if (n == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else __trap(); }
__device__ __forceinline__ void ag_cp_async_or_zero(AgState& s, i64 addr, i64 n, bool pred) {
  // TVM's predicated cp.async (ptx.cc PrintPredicatedCpAsyncAssembly): a false predicate stores
  // zeros synchronously instead of copying
  if (pred) { ag_cp_async(s, addr, n, true); return; }
  unsigned char* d = ag_smem + addr;
  for (i64 i = 0; i < n; ++i) d[i] = 0; }
__device__ __forceinline__ void ag_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
#define AG_WAIT_CASE(k) case k: asm volatile("cp.async.wait_group " #k ";\n" ::: "memory"); break;
__device__ __forceinline__ void ag_cp_wait(i64 n) {
  switch (n) { case 0: asm volatile("cp.async.wait_all;\n" ::: "memory"); break;
    AG_WAIT_CASE(1) AG_WAIT_CASE(2) AG_WAIT_CASE(3) AG_WAIT_CASE(4) AG_WAIT_CASE(5) AG_WAIT_CASE(6)
    AG_WAIT_CASE(7) AG_WAIT_CASE(8) AG_WAIT_CASE(9) AG_WAIT_CASE(10) AG_WAIT_CASE(11) AG_WAIT_CASE(12)
    AG_WAIT_CASE(13) AG_WAIT_CASE(14) AG_WAIT_CASE(15)
    default: __trap(); } }
// TVM's codegen: wait_group(0) is `cp.async.wait_group 0` (models/cp_async.py)
__device__ __forceinline__ void ag_cp_wait_group(i64 n) {
  if (n == 0) { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); return; }
  ag_cp_wait(n); }
__device__ __forceinline__ void ag_bar_sync(i64 id, i64 n) {
  asm volatile("bar.sync %0, %1;\n" :: "r"((int)id), "r"((int)n) : "memory"); }
__device__ __forceinline__ void ag_bar_arrive(i64 id, i64 n) {
  asm volatile("bar.arrive %0, %1;\n" :: "r"((int)id), "r"((int)n) : "memory"); }

__device__ __noinline__ void ag_ldmatrix(AgState& s, i64 addr, int num, bool trans) {
  u32 a = ag_saddr(ag_smem + addr), r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if (num == 4) {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  } else if (num == 2) {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
  } else {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(a) : "memory");
  }
  u32 h = ag_fnv_word(2166136261u, r0);
  if (num >= 2) h = ag_fnv_word(h, r1);
  if (num == 4) { h = ag_fnv_word(h, r2); h = ag_fnv_word(h, r3); }
  ag_record(s, h); }
"""

HOPPER_PRELUDE = r"""
__device__ __forceinline__ void ag_mbar_init(u64* b, i64 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((int)count) : "memory"); }
__device__ __forceinline__ void ag_mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void ag_mbar_arrive(u64* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(ag_saddr(b)) : "memory"); }
__device__ __forceinline__ void ag_mbar_expect_tx(u64* b, i64 tx) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((u32)tx) : "memory"); }
__device__ __forceinline__ void ag_mbar_arrive_expect_tx(u64* b, i64 tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((u32)tx) : "memory"); }
// the mbarrier tracks the thread's prior cp.asyncs; once they complete, the arrival is made
// for the thread (noinc: it counts against the init count, as TileLang's template issues it)
__device__ __forceinline__ void ag_mbar_cp_async_arrive(u64* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" :: "r"(ag_saddr(b)) : "memory"); }
// without .noinc: the pending count rises by one at issue and the arrival on completion takes it
// back, so the phase waits for the copies without the init counting them (AG422's instruction)
__device__ __forceinline__ void ag_mbar_cp_async_arrive_inc(u64* b) {
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];\n" :: "r"(ag_saddr(b)) : "memory"); }
__device__ __noinline__ void ag_mbar_wait(AgState& s, u64* b, i64 parity) {
  u32 a = ag_saddr(b), ok = 0;
  // once a wait of this launch gave up the kernel is shown to hang: later waits poll briefly
  u32 limit = *(volatile u32*)&s.flags[0] ? AG_SPIN_AFTER_TIMEOUT : AG_SPIN_LIMIT;
  for (u32 spin = 0; spin < limit && !ok; ++spin) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok) : "r"(a), "r"((u32)(parity & 1)) : "memory");
  }
  if (!ok) atomicAdd(&s.flags[0], 1u); }
__device__ __forceinline__ void ag_bulk_load(AgState& s, i64 addr, i64 n, u64* b) {
  const unsigned char* src = ag_src(s, (u32)((n + 15) / 16 * 16));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               :: "r"(ag_saddr(ag_smem + addr)), "l"(src), "r"((u32)n), "r"(ag_saddr(b)) : "memory"); }
__device__ __forceinline__ void ag_bulk_store(unsigned char* sink, i64 addr, i64 n) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
               :: "l"(sink + addr), "r"(ag_saddr(ag_smem + addr)), "r"((u32)n) : "memory"); }
__device__ __forceinline__ void ag_bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
#define AG_BWAIT_CASE(k) case k: asm volatile("cp.async.bulk.wait_group.read " #k ";\n" ::: "memory"); break;
__device__ __forceinline__ void ag_bulk_wait(i64 n) {
  switch (n) { AG_BWAIT_CASE(0) AG_BWAIT_CASE(1) AG_BWAIT_CASE(2) AG_BWAIT_CASE(3) AG_BWAIT_CASE(4)
    AG_BWAIT_CASE(5) AG_BWAIT_CASE(6) AG_BWAIT_CASE(7) default: __trap(); } }
__device__ __forceinline__ void ag_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// A wgmma's shared operand, read by the warpgroup's 128 threads in equal contiguous slices
// (the hardware reads it once for the warpgroup): thread r of the group checksums its slice.
__device__ __forceinline__ void ag_wgmma_read(AgState& s, i64 start, i64 n) {
  i64 chunk = (n + 127) / 128, lo = start + (i64)(s.tid % 128u) * chunk, hi = start + n;
  hi = hi < AG_SMEM_BYTES ? hi : AG_SMEM_BYTES;
  lo = lo < hi ? lo : hi; hi = lo + chunk < hi ? lo + chunk : hi;
  ag_read(s, lo, hi - lo); }
"""

_CNAME = re.compile(r"[^A-Za-z0-9_]")


def _resolve_warpgroup_barriers(lines: list[str], num_threads: int, used: set,
                                runtime: str | None) -> list[str]:
    """Give each warpgroup's wgmma-wait barrier a named-barrier ID the kernel leaves free
    (from 15 down; 0 is __syncthreads). `used`: the kernel's own IDs (`Emitter.bar`);
    `runtime`: one of them computed at run time (None: none), which raises EmitError, as does
    a kernel that leaves too few free."""
    if runtime is not None:
        raise EmitError(f"named barrier ID {runtime} computed at run time: no free ID for the "
                        "warpgroup_wait barrier")
    groups = -(-num_threads // 128)
    free = [i for i in range(15, 0, -1) if i not in used][:groups]
    if len(free) < groups:
        raise EmitError(f"named barrier IDs {sorted(used)} leave no free ID for {groups} warpgroups' "
                        "warpgroup_wait barriers")
    ids = "".join(f"ag.tid < {128 * (k + 1)}u ? {i}LL : " for k, i in enumerate(free[:-1])) + f"{free[-1]}LL"
    return [line.replace(WARPGROUP_BARRIER, f"({ids})") for line in lines]


def c_name(name: str) -> str:
    """A TIR name as a C identifier: `v_NAME`; a let renamed apart from a shadowed one
    (`i_s_5%2`, engine/scopes.py) `wK_NAME`, which no source name's `v_` form can be."""
    base, mark, k = name.partition(SHADOW_MARK)
    if mark:
        return f"w{_CNAME.sub('_', k)}_" + _CNAME.sub("_", base)
    return "v_" + _CNAME.sub("_", name)


def register_c(region: str) -> str:
    return "ag_reg_" + _CNAME.sub("_", region)


def _truth_of_global_slice(em, val) -> bool:
    """`T.Cast("int8xN", T.Cast("boolxN", G[a:a + N]))` over a global parameter: the engine's
    element-wise truth copy of a block mask into registers (engine/program.py
    _register_slice_store)."""
    truth = False
    while isinstance(val, ir.Call) and val.name == "T.Cast" and len(val.args) == 2:
        truth = truth or str(em.el.literal(val.args[0]) or "").startswith("bool")
        val = val.args[1]
    if not (isinstance(val, ir.Subscript) and len(val.indices) == 1 and isinstance(val.indices[0], ir.Slice)):
        return False
    root = em.input_root(em.el.view_of(val.value))
    # a plain copy the engine reads as truth values (every read of the register asks `!= 0`:
    # SeerAttention's `block_mask[0:4] = BlockSparseMask[...]`, engine/program.py)
    return root is not None and (truth or any(val is x for x in em.el.truth_copies.get(root, ())))


def _byte_size(size, what, span) -> int:
    """A whole, positive element size in bytes, or EmitError: sub-byte and unknown dtypes
    (int4, fp4, ...) have no byte-addressed skeleton, and a None must never reach the C text."""
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        raise EmitError(f"line {span.line}: element size of {what} in bytes is not known "
                        f"({size!r}; sub-byte or unknown dtype)")
    return size


# ---------------------------------------------------------------- the emitter
class _Emitter:
    def __init__(self, func: ir.Function, program: Program, kernel: str):
        func = scoped_lets(func)   # the let names of the Program (engine/scopes.py)
        self.func, self.p, self.kernel = func, program, kernel
        self.idx = _index(func)
        # helpers only (literal, view_of, register_of); views from the Program. Elaborating the
        # body again gives the global parameters' aliases and which of them the kernel only
        # reads as truth values: the engine's data-dependent inputs (engine/inputs.py)
        self.el = Elaborator(func)
        self.el.body = self.el.block(func.body)   # (where lets and registers are defined: same_value)
        _scan_globals(self.el, func.body)
        truth_from_copies(self.el, func)
        self.el.views = program.views
        self.el.launch = program.launch
        self.lines: list[str] = []
        self.depth = 1
        self.scopes: list[set] = [set()]
        self.known: set = set(program.launch.thread_vars) | set(program.launch.block_vars)
        self.unavailable: dict = {}       # let name -> why it has no C value
        self.info: dict = {}
        self.features: set = set()
        # the named-barrier IDs the kernel's own barriers use, as emitted (`bar`), and the first
        # one computed at run time (None: none): the warpgroup waits take IDs left free
        self.barrier_ids: set = set()
        self.runtime_barrier_id: str | None = None
        self.guards: list[str] = []   # the C conditions of the enclosing ifs (else: negated)
        self.descriptors: set = set()     # C variables of wgmma descriptors (declared at the top)
        self.registers: dict = {}         # per-thread integer register region -> element count
        self.unknown_registers: dict = {} # region -> why a store into it has no C value
        self.delays: list = []            # witness replay: [{line, warp, loops, us}]
        self.uniform_sites = 0            # stores of one value in every thread (ag_write_uniform)
        # the launch's loaded numbers ({(parameter, byte offset): value}, engine/inputs.py
        # launch_numbers), printed as one lookup function per parameter; None: none are known
        self.numbers: dict | None = None
        self.number_roots: set = set()   # parameters the skeleton loads numbers from
        # a witness's inputs: truth values come from the table too (default 1), not all 1
        self.truth_table = False
        self.truth_roots: set = set()
        # global roots read by all_of / any_of (range_truth) and their ranges' element size
        self.range_roots: set = set()
        self.range_sizes: dict = {}
        self.symbol_trips: set = set()   # folded trip counts whose loops run the symbol (emit())
        # branches the checker reads as taken by every thread (a guard of shared accesses on a
        # loaded number, engine/loaded_numbers.py _numeric_pass): the skeleton takes them too
        numeric = getattr(program, "numeric", None)
        self.taken_lines = {line for line, _ in numeric.reduced} if numeric is not None else set()

    # ---- output
    def out(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def bar(self, kind: str, bar_id: str, count: str, comment: str = "") -> None:
        """Emit `ag_bar_sync` or `ag_bar_arrive` (`kind`) of named barrier `bar_id` (C text),
        recording the ID for `_resolve_warpgroup_barriers`."""
        literal = bar_id.strip().removesuffix("LL")
        if literal.isdigit():
            self.barrier_ids.add(int(literal))
        elif self.runtime_barrier_id is None:
            self.runtime_barrier_id = bar_id
        self.out(f"ag_bar_{kind}({bar_id}, {count});" + (f"  // {comment}" if comment else ""))

    def node(self, kind, span):
        n = self.idx.get((kind, span.start, span.end))
        if n is None:
            raise EmitError(f"line {span.line}: no syntax node for a {kind} (emitter index)")
        return n

    # ---- expressions
    def expr(self, e) -> str:
        if isinstance(e, ir.Const):
            v = e.value
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, int):
                return f"{v}LL"
            if isinstance(v, float):
                return repr(v)
            raise EmitError(f"constant {v!r} in an index or condition")
        if isinstance(e, ir.Var):
            if e.name in self.unavailable:
                raise EmitError(f"line {e.span.line}: '{e.name}' is {self.unavailable[e.name]}")
            if e.name not in self.known:
                raise EmitError(f"line {e.span.line}: '{e.name}' has no concrete value (symbolic size?)")
            return c_name(e.name)
        if isinstance(e, ir.BinOp):
            a, b = self.expr(e.left), self.expr(e.right)
            if e.op in ("//", "/"):
                return f"ag_floordiv({a}, {b})"
            if e.op == "%":
                return f"ag_floormod({a}, {b})"
            if e.op == "and":
                return f"({a} && {b})"
            if e.op == "or":
                return f"({a} || {b})"
            if e.op in ("+", "-", "*", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!="):
                return f"({a} {e.op} {b})"
            raise EmitError(f"line {e.span.line}: operator {e.op}")
        if isinstance(e, ir.UnaryOp):
            a = self.expr(e.operand)
            return {"-": f"(-{a})", "+": a, "~": f"(~{a})", "not": f"(!{a})"}.get(e.op) or \
                self._fail(e, f"unary {e.op}")
        if isinstance(e, ir.IfExp):
            return f"({self.expr(e.cond)} ? {self.expr(e.then)} : {self.expr(e.other)})"
        if isinstance(e, ir.Call):
            n, args = e.name, e.args
            two = {"T.floordiv": "ag_floordiv", "T.floormod": "ag_floormod", "T.min": "ag_min",
                   "T.max": "ag_max"}
            if n in two and len(args) == 2:
                return f"{two[n]}({self.expr(args[0])}, {self.expr(args[1])})"
            ops = {"T.truncdiv": "/", "T.truncmod": "%", "T.shift_right": ">>", "T.shift_left": "<<",
                   "T.bitwise_and": "&", "T.bitwise_or": "|", "T.bitwise_xor": "^"}
            if n in ops and len(args) == 2:
                return f"({self.expr(args[0])} {ops[n]} {self.expr(args[1])})"
            if n == "T.bitwise_not" and len(args) == 1:
                return f"(~{self.expr(args[0])})"
            if n == "T.ceildiv" and len(args) == 2:
                return f"(-ag_floordiv(-({self.expr(args[0])}), {self.expr(args[1])}))"
            if n == "T.likely" and len(args) == 1:
                return self.expr(args[0])
            if n == "T.abs" and len(args) == 1:
                return f"ag_abs({self.expr(args[0])})"
            if n in ("T.Select", "T.if_then_else") and len(args) == 3:
                return f"({self.expr(args[0])} ? {self.expr(args[1])} : {self.expr(args[2])})"
            if n == "T.bool" and len(args) == 1:
                return f"((bool)({self.expr(args[0])}))"
            if n in ("T.int8", "T.int16", "T.int32", "T.int64", "T.uint8", "T.uint16", "T.uint32",
                     "T.uint64") and len(args) == 1:
                return f"((i64)({self.expr(args[0])}))"
            if n == "T.Cast" and len(args) == 2 and isinstance(args[0], ir.Const) \
                    and str(args[0].value).startswith(("int", "uint")) and "x" not in str(args[0].value):
                return f"((i64)({self.expr(args[1])}))"
            if n == "T.Cast" and len(args) == 2 and isinstance(args[0], ir.Const) and args[0].value == "bool":
                return f"((i64)(({self.expr(args[1])}) != 0))"
            if n == "T.tl_shuffle_elect" and len(args) == 1:
                return f"ag_elect(ag_tid, {self.expr(args[0])})"
            if n in RANGE_TRUTHS:
                return self.range_truth(e)
            return self._fail(e, f"value of {n or 'call'}(...)")
        if isinstance(e, ir.Subscript):
            return self.loaded_value(e)
        return self._fail(e, type(e).__name__)

    def loaded_value(self, sub: ir.Subscript) -> str:
        """A value loaded from memory: a per-thread integer register (the skeleton keeps it, as
        the engine does), or a data-dependent input from global memory, which is 1: the gate's
        reference runs the kernel with every input truth value taken (reference.AllTaken), the
        pattern the checker's own first run takes. Anything the engine does not compute there
        makes the reference incomplete (SKIP), so `1` is only ever compared where the engine
        read a 1 too."""
        view = self.el.view_of(sub.value)
        reg = self.el.register_of(view)
        if reg is not None:
            region, first, size, _ = reg
            if region in self.unknown_registers:
                raise EmitError(f"line {sub.span.line}: register {region}: {self.unknown_registers[region]}")
            self.registers[region] = max(self.registers.get(region, 0), size)
            return f"{register_c(region)}[{self.register_index(reg, view, sub)}]"
        if self.input_root(view) is not None and not any(isinstance(i, ir.Slice) for i in sub.indices):
            if not self.truth_table:
                return "1LL"
            root = self.input_root(view)
            self.truth_roots.add(root)
            return f"ag_num_{_CNAME.sub('_', root)}((i64)({self.byte_offset(view, sub)}))"
        root = self.number_root(view)
        if root is not None and not any(isinstance(i, ir.Slice) for i in sub.indices):
            self.number_roots.add(root)
            return f"ag_num_{_CNAME.sub('_', root)}((i64)({self.byte_offset(view, sub)}))"
        return self._fail(sub, "a value loaded from memory (data-dependent)")

    def range_truth(self, call: ir.Call) -> str:
        """`T.all_of(T.tvm_access_ptr(.., buf, off, n, 1), n)` / `T.any_of(...)` (tl::All / tl::Any:
        whether all / any of n consecutive elements are non-zero), as the engine reads it
        (engine/program.py `Elaborator._range_truth`):
        over a register range, a helper looping over the thread's register array (`ag_all_of_reg`);
        over a read-only global truth mask, a helper looping over the n cells of the launch's table
        (`ag_all_of_<root>`, the table `ag_num_<root>` the plain mask loads read; its cells realise
        the range outcomes the reference run met: `_realise_ranges`); over shared memory, the
        engine's value, 1 (the call is taken: `_shared_masks_taken`; the skeleton's shared bytes
        hold patterns, not the mask), its read of the n elements emitted by its POp (op())."""
        kind = call.name.removeprefix("T.")
        ptr = self.el.access_ptr_or_none(call.args[0]) if len(call.args) == 2 else None
        n = self.el.literal(call.args[1]) if len(call.args) == 2 else None
        if ptr is None or not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            return self._fail(call, f"value of {call.name}(...) (not a constant-size range)")
        ann, _, off, _, _ = call.args[0].args
        reg = _register_range_truth(self.el, call)
        if reg is not None:
            region, first, size, _ = reg
            if region in self.unknown_registers:
                raise EmitError(f"line {call.span.line}: register {region}: {self.unknown_registers[region]}")
            self.registers[region] = max(self.registers.get(region, 0), size)
            self.features.add("range_truth")
            return f"ag_{kind}_reg(&{register_c(region)}[{first}LL + ({self.expr(off)})], {n}LL)"
        if ptr.view.is_shared:
            return f"1LL /* {kind} over shared {ptr.view.name}: taken, as the engine reads it */"
        # the engine's condition: a read-only global parameter (its plain loads, if any, truth
        # values: a root also loaded as a number is refused in emit())
        root = self.el.roots.get(ptr.view.name) if ptr.view.region is None else None
        if root is None or root in self.el.written_roots:
            return self._fail(call, f"value of {call.name}(...) over {ptr.view.name} (not a read-only "
                                    "global mask)")
        es = _byte_size(ptr.elem_size, ptr.view.name, call.span)
        if self.range_sizes.setdefault(root, es) != es:
            raise EmitError(f"line {call.span.line}: {kind} ranges over {root} of two element sizes")
        self.truth_roots.add(root)
        self.range_roots.add(root)
        name = _CNAME.sub("_", root)
        return f"ag_{kind}_{name}((i64)({ptr.view.byte_offset}LL + ({self.expr(off)}) * {es}LL), {n}LL)"

    def truth_slice_element(self, reg, tgt: ir.Subscript, val, k: int) -> str:
        """Element k (from the region's element 0) of a truth copy `r[lo:hi] = Cast(.., G[a:b])`
        under a witness's inputs: the table's value of G[a + (k - first - lo)]."""
        src = val
        while isinstance(src, ir.Call) and src.name == "T.Cast" and len(src.args) == 2:
            src = src.args[1]
        view = self.el.view_of(src.value)
        root = self.input_root(view)
        lo = self.el.literal(tgt.indices[0].lo) if tgt.indices[0].lo is not None else 0
        j = k - reg[1] - int(lo)
        self.truth_roots.add(root)
        first = self.expr(src.indices[0].lo)
        return (f"ag_num_{_CNAME.sub('_', root)}((i64)({view.byte_offset}LL + (({first}) + {j}LL) * "
                f"{view.elem_size}LL))")

    def number_root(self, view) -> str | None:
        """The read-only global parameter behind `view` when the launch's numbers are known."""
        el = self.el
        if self.numbers is None or view is None or view.region is not None:
            return None
        root = el.roots.get(view.name)
        if root is None or root in el.written_roots or el.truth_only.get(root, False):
            return None
        return root

    def byte_offset(self, view, sub: ir.Subscript) -> str:
        """C byte offset of a one-element subscript from its parameter's byte 0 (the engine's
        cell key, engine/program.py _input_cell)."""
        shape = view.shape or ()
        if len(sub.indices) == 1:
            flat = f"({self.expr(sub.indices[0])})"
        elif len(sub.indices) == len(shape) and all(isinstance(d, int) for d in shape):
            flat = " + ".join(f"({self.expr(i)}) * {int(np.prod(shape[k + 1:]))}LL"
                              for k, i in enumerate(sub.indices))
        else:
            return self._fail(sub, "a loaded number at an address of unknown shape")
        return f"{view.byte_offset}LL + ({flat}) * {view.elem_size}LL"

    def input_root(self, view) -> str | None:
        """The global parameter behind `view` when the engine takes its loads as data-dependent
        truth values (read only, every use a truth value), else None."""
        el = self.el
        root = el.roots.get(view.name) if view is not None and view.region is None else None
        if root is None or root in el.written_roots or not el.truth_only.get(root, False):
            return None
        return root

    def register_index(self, reg, view, sub: ir.Subscript) -> str:
        """C element index (from the region's element 0) of a one-element register subscript."""
        _, first, _, _ = reg
        idx = sub.indices
        if any(isinstance(i, ir.Slice) for i in idx):
            raise EmitError(f"line {sub.span.line}: register slice used as a value")
        if len(idx) == 1:
            return f"({first}LL + {self.expr(idx[0])})"
        shape = view.shape or ()
        if len(idx) != len(shape):
            raise EmitError(f"line {sub.span.line}: register subscript of {len(idx)} indices")
        strides = [1] * len(idx)
        for k in range(len(idx)):
            for d in shape[k + 1:]:
                strides[k] *= d
        return f"({first}LL + " + " + ".join(f"({self.expr(i)}) * {st}LL" for i, st in zip(idx, strides)) + ")"

    def _fail(self, e, what):
        raise EmitError(f"line {getattr(e, 'span', ir.NO_SPAN).line}: cannot print {what} as C")

    # ---- pointers
    def ptr(self, e):
        """T.tvm_access_ptr -> (view, C flat byte address, elem size, C extent expr); TVM's
        `T.address_of(buf[i])` too (extent None), as the engine's Elaborator.access_ptr reads it."""
        if isinstance(e, ir.Call) and e.name == "T.address_of" and len(e.args) == 1 \
                and isinstance(e.args[0], ir.Subscript) and len(e.args[0].indices) == 1 \
                and not isinstance(e.args[0].indices[0], ir.Slice):
            view = self.el.view_of(e.args[0].value)
            if view is None:
                raise EmitError(f"line {e.span.line}: address_of an unknown buffer")
            size = _byte_size(view.elem_size, view.name, e.span)
            return view, f"({view.flat_base}LL + ({self.expr(e.args[0].indices[0])}) * {size}LL)", size, None
        plain = self.el.view_of(e)
        if plain is not None:   # TVM's `buf.data` (ldmatrix's pointer operand): its element 0
            return plain, f"({plain.flat_base}LL)", _byte_size(plain.elem_size, plain.name, e.span), None
        if not (isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5):
            raise EmitError(f"line {e.span.line}: shared pointer is not a T.tvm_access_ptr")
        ann, data, off, ext, _ = e.args
        dtype = self.el.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else None
        view = self.el.view_of(data)
        if view is None:
            raise EmitError(f"line {e.span.line}: access_ptr over an unknown buffer")
        size = _byte_size(dtype_bytes(str(dtype)) if dtype else view.elem_size, dtype or view.name, e.span)
        addr = f"({view.flat_base}LL + ({self.expr(off)}) * {size}LL)"
        return view, addr, size, ext

    def address(self, e) -> str:
        """C flat byte address of a shared pointer: T.tvm_access_ptr, optionally inside
        T.handle_add_byte_offset(ptr, bytes) (as the engine's Elaborator.address reads it)."""
        if isinstance(e, ir.Call) and e.name == "T.handle_add_byte_offset" and len(e.args) == 2:
            return f"({self.address(e.args[0])} + ({self.expr(e.args[1])}))"
        view, addr, _, _ = self.ptr(e)
        if not view.is_shared:
            raise EmitError(f"line {e.span.line}: wgmma descriptor over memory that is not shared")
        return addr

    def descriptor(self, e) -> str:
        """The C variable holding a wgmma descriptor's byte address (one per descriptor buffer)."""
        view = self.el.view_of(e.value if isinstance(e, ir.Subscript) else e)
        if view is None or view.region is None:
            raise EmitError(f"line {e.span.line}: wgmma descriptor is not a known buffer")
        name = "ag_desc_" + _CNAME.sub("_", view.region.name)
        self.descriptors.add(name)
        return name

    def barrier(self, e) -> str:
        named = self.el.barrier_view(e)
        if named is None:
            carved = self.el.barrier_view(e, carve=True) is not None
            raise EmitError(f"line {e.span.line}: " + ("an mbarrier carved out of shared memory (the skeleton "
                                                       "declares shared.barrier arrays only)" if carved else
                                                       "mbarrier reference not understood"))
        view, idx = named
        base = view.region.barrier_base + view.byte_offset // 8
        return f"(&ag_mbar[{base}LL + ({self.expr(idx)})])"

    def subscript_range(self, sub: ir.Subscript):
        """(view, C byte address, C byte count) of a shared subscript, as the engine reads it."""
        view = self.el.view_of(sub.value)
        if view is None or not view.is_shared:
            raise EmitError(f"line {sub.span.line}: subscript is not shared memory")
        shape = view.shape or (1 << 40,)
        idx = sub.indices
        es = _byte_size(view.elem_size, view.name, sub.span)
        if len(idx) == 1 and isinstance(idx[0], ir.Slice):
            s = idx[0]
            if s.step is not None and self.el.literal(s.step) not in (1, None):
                raise EmitError(f"line {sub.span.line}: strided slice (emitted lane by lane: strided_lanes)")
            lo = self.expr(s.lo) if s.lo is not None else "0LL"
            hi = self.expr(s.hi) if s.hi is not None else f"{shape[0]}LL"
            return view, f"({view.flat_base}LL + ({lo}) * {es}LL)", f"(({hi}) - ({lo})) * {es}LL"
        if any(isinstance(i, ir.Slice) for i in idx):
            raise EmitError(f"line {sub.span.line}: multi-dimensional slice")
        if len(idx) == 1:
            lin = self.expr(idx[0])
        else:
            strides = [1] * len(idx)
            for k in range(len(idx)):
                p = 1
                for d in shape[k + 1:]:
                    p *= d
                strides[k] = p
            lin = " + ".join(f"({self.expr(i)}) * {st}LL" for i, st in zip(idx, strides))
        return view, f"({view.flat_base}LL + ({lin}) * {es}LL)", f"{es}LL"

    def strided_lanes(self, sub: ir.Subscript):
        """C byte addresses of each lane of `S[e : e + c : k]` and the element size, as the engine
        reads it (Elaborator._strided_access: element e + j * k for lane j); None for any other
        subscript."""
        idx = sub.indices
        if not (len(idx) == 1 and isinstance(idx[0], ir.Slice) and idx[0].step is not None
                and self.el.literal(idx[0].step) not in (1, None)):
            return None
        view, shape = self.el.view_of(sub.value), self.el.strided_shape(idx[0])
        if view is None or not view.is_shared or shape is None:
            raise EmitError(f"line {sub.span.line}: strided slice the engine does not model")
        step, lanes = shape
        es = _byte_size(view.elem_size, view.name, sub.span)
        first = self.expr(idx[0].lo)
        return [f"({view.flat_base}LL + (({first}) + {j * step}LL) * {es}LL)" for j in range(lanes)], es

    # ---- statements
    def body(self, stmts) -> None:
        copied = None   # the span of a register slice copy emitted whole (register_slice_copy)
        for s in stmts:
            if isinstance(s, PStore):
                # the engine's other element stores of that copy: already written by it
                if copied is not None and s.span == copied:
                    continue
                copied = s.span if self.register_store(s) else None
                continue
            copied = None
            self.stmt(s)

    def _note_elected_arrive(self) -> None:
        """An mbarrier arrive by one elected thread (`T.tl_shuffle_elect`): racecheck does not carry
        the other threads' ordering (a bar.sync before it) through that thread's release, so the
        gate may discount its reports (gate.racecheck_false_positive; bench/probes/
        racecheck_bar_then_mbarrier.cu shows it on an H200)."""
        if any("ag_elect(" in g and not g.startswith("!") for g in self.guards):
            self.features.add(ELECTED_ARRIVE)

    def block(self, head: str, stmts) -> None:
        self.out(head + " {")
        self.depth += 1
        self.scopes.append(set())
        saved_known, saved_unavail = set(self.known), dict(self.unavailable)
        self.body(stmts)
        self.known, self.unavailable = saved_known, saved_unavail
        self.scopes.pop()
        self.depth -= 1
        self.out("}")

    def stmt(self, s) -> None:
        if isinstance(s, PNote):
            raise EmitError(f"line {s.span.line}: {s.reason}")
        if isinstance(s, PLet):
            a = self.node("assign", s.span)
            try:
                # a shared parameter copy's load prints as the parameter's (as the engine reads it)
                val = self.expr(self.el.forwarded(a.value)[0])
            except EmitError as err:
                self.unavailable[s.name] = f"a let the emitter cannot print ({err})"
                self.known.discard(s.name)
                return
            self.unavailable.pop(s.name, None)
            self.known.add(s.name)
            if s.name in self.scopes[-1]:
                self.out(f"{c_name(s.name)} = (i64)({val});")
            else:
                self.scopes[-1].add(s.name)
                self.out(f"i64 {c_name(s.name)} = (i64)({val});")
            return
        if isinstance(s, PLoop):
            if not s.relevant:
                return
            f = self.node("for", s.span)
            it = f.iter
            if it.name == "T.grid":
                k = list(f.names).index(s.var)
                start, stop = "0LL", self.expr(it.args[k])
            elif len(it.args) == 2:
                start, stop = self.expr(it.args[0]), self.expr(it.args[1])
            else:
                start, stop = "0LL", self.expr(it.args[0])
            bound = s.src[1] if len(s.src) == 2 else None
            if isinstance(bound, ir.Var) and bound.name in self.symbol_trips:
                # a folded trip count no loaded numbers give at this size: the count the
                # reference runs (the symbol's value), not the kernel's fold of the table
                stop = c_name(bound.name)
            v = c_name(s.var)
            self.known.add(s.var)
            self.unavailable.pop(s.var, None)
            self.block(f"for (i64 {v} = {start}; {v} < {stop}; ++{v})", s.body)
            return
        if isinstance(s, PWhile):   # before PIf, which it extends
            if not s.relevant:
                return
            node = self.node("while", s.span)
            self.block(f"while ({self.expr(node.cond)})", s.then)
            return
        if isinstance(s, PIf):
            if not s.relevant:
                return
            if self.delays:
                self.delay(s)   # a warp that only tests the branch can be held back there too
            node = self.node("if", s.span)
            cond = "1" if s.span.line in self.taken_lines else self.expr(node.cond)
            self.guards.append(cond)
            self.block(f"if ({cond})", s.then)
            self.guards.pop()
            if s.other:
                self.guards.append(f"!({cond})")
                self.block("else", s.other)
                self.guards.pop()
            return
        if isinstance(s, POp):
            if s.guard:   # an operand of `c ? a : b`, `&&`, `||`: only where the engine runs it
                cond = " && ".join(f"({self.expr(c)})" if side else f"!({self.expr(c)})" for c, side in s.guard)
                self.out(f"if ({cond}) {{  // line {s.span.line}: the operand its threads select")
                self.depth += 1
                self.op(s)
                self.depth -= 1
                self.out("}")
                return
            self.op(s)
            return
        if isinstance(s, PStore):
            self.register_store(s)
            return
        raise EmitError(f"program node {type(s).__name__}")

    def register_element(self, s: PStore, index: str, value: str, what: str) -> None:
        """Print one element store of register store `s` (a truth register, bounds (0, 2), keeps
        the value's truth)."""
        if s.bounds == (0, 2):
            value = f"(({value}) != 0)"
        self.out(f"{register_c(s.region)}[{index}] = (i64)({value});  // line {s.span.line}: {what}")

    def register_store(self, s: PStore) -> bool:
        """A store into a per-thread integer register (`local` scope): the skeleton keeps the
        register, since later control flow or addresses may read it. The engine's slice store of
        a truth-cast global vector (a block mask) is 1 per element under the reference's
        all-taken inputs; a plain vector copy of a slice of global numbers is written whole,
        element by element, from the launch's table (register_slice_copy: True, and the
        assignment's other element stores are that copy's); a value the emitter cannot print
        leaves the register unknown, and only a later read of it is an EmitError (as the engine
        reports only a use)."""
        a = self.node("assign", s.span)
        tgt, val = a.target, a.value
        view = self.el.view_of(tgt.value) if isinstance(tgt, ir.Subscript) else None
        reg = self.el.register_of(view)
        if reg is None or reg[0] != s.region:
            raise EmitError(f"line {s.span.line}: register store the emitter cannot place")
        self.registers[s.region] = max(self.registers.get(s.region, 0), s.size)
        if any(isinstance(i, ir.Slice) for i in tgt.indices) and not _truth_of_global_slice(self, val):
            try:
                lines = self.register_slice_copy(reg, tgt, val)
            except EmitError as err:
                why = f"written from a register slice with a value the emitter cannot print ({err})"
                self.unknown_registers[s.region] = why
                self.out(f"// line {s.span.line}: {s.region} store not emitted ({why})")
                return False
            self.unknown_registers.pop(s.region, None)
            for index, value in lines:
                self.register_element(s, index, value, "register slice copy")
            return True
        if any(isinstance(i, ir.Slice) for i in tgt.indices):
            # a truth copy: one constant element per store, 1 or the witness table's value
            index = f"{int(s.index({}))}LL"
            value, why = "1LL", None
            if self.truth_table:
                value = self.truth_slice_element(reg, tgt, val, int(s.index({})))
        else:
            index = self.register_index(reg, view, tgt)
            try:
                value, why = self.expr(val), None
            except EmitError as err:
                value, why = None, f"written with a value the emitter cannot print ({err})"
        if value is None:
            self.unknown_registers[s.region] = why
            self.out(f"// line {s.span.line}: {s.region} store not emitted ({why})")
            return False
        self.unknown_registers.pop(s.region, None)
        self.register_element(s, index, value, "register store")
        return False

    def register_slice_copy(self, reg, tgt: ir.Subscript, val) -> list:
        """[(C element index, C value)] of `r[lo:lo + n] = X[e:e + n]`, the vector copy TileLang
        prints for a fragment filled from memory (`block_mask_f[i * 4:i * 4 + 4] =
        BlockMask[by * 8 + i * 4:...]`): element lo + j of the register is X[e + j], loaded as
        a one-element read of X is (loaded_value: the launch's table for global numbers, the
        register for a register). The engine leaves such elements unknown and reads the copied
        cells through the register's reads instead (engine/loaded_numbers.py `_register_copies`);
        the skeleton runs the copy itself, so its reads see those cells. EmitError for any other
        value (a cast, a broadcast, a strided or multi-dimensional slice)."""
        _, first, size, _ = reg
        span = tgt.span
        tsl = tgt.indices[0] if len(tgt.indices) == 1 else None
        if not isinstance(tsl, ir.Slice) or tsl.lo is None or tsl.step is not None:
            raise EmitError(f"line {span.line}: register slice of {len(tgt.indices)} indices or a step")
        if not (isinstance(val, ir.Subscript) and len(val.indices) == 1 and isinstance(val.indices[0], ir.Slice)):
            raise EmitError(f"line {span.line}: register slice written from something other than a slice")
        ssl = val.indices[0]
        width = _fixed_width(tsl)
        if width is None or ssl.lo is None or ssl.step is not None or _fixed_width(ssl) != width:
            raise EmitError(f"line {span.line}: register slice and source slice of unknown or different widths")
        src_view, dst_view = self.el.view_of(val.value), self.el.view_of(tgt.value)
        if src_view is None or dst_view is None or src_view.dtype != dst_view.dtype:
            raise EmitError(f"line {span.line}: register slice copied from another element type")
        lo = self.el.literal(tsl.lo)
        if isinstance(lo, int) and not 0 <= lo <= size - first - width:
            raise EmitError(f"line {span.line}: register slice [{lo}:{lo + width}] outside its register")
        start = self.expr(tsl.lo)
        out = []
        for j in range(width):
            element = ir.Subscript(val.value, (ir.BinOp("+", ssl.lo, ir.Const(j)),), val.span)
            out.append((f"({first}LL + ({start}) + {j}LL)", self.loaded_value(element)))
        return out

    def uniform_store(self, assign) -> bool:
        """Does every thread store one value here (the engine's `same_value` store: whole-byte
        elements, a value built from uniform names and read-only global loads at uniform
        addresses), or every two threads that store to one element (`same_value_per_address`)?
        Threads storing one value into one element are no race (docs/model.md): the skeleton
        writes one pattern from all of them, as the kernel writes one value."""
        view = self.el.view_of(assign.target.value) if isinstance(assign.target, ir.Subscript) else None
        if view is None or not (view.elem_bits or 0) >= 8:
            return False
        try:
            if self.el.same_in_every_thread(assign.value):
                return True
            # one value among the threads that meet at an element (the lanes of a row storing the
            # row's value, engine/same_value.py): the site's pattern is then one per address too.
            # Where no two threads meet, each keeps its own pattern (a trace that tells writers apart)
            from ..engine.same_value import same_value_per_address, threads_meet
            return threads_meet(self.el, assign.target) and \
                bool(same_value_per_address(self.el, assign.target, assign.value))
        except Exception:  # noqa: BLE001 -- an expression the test does not know: a per-thread store
            return False

    def delay(self, s) -> None:
        """Witness replay: before the op (or branch) at a delayed line, the named warp (at the witness's
        loop iteration, for the loop variables in scope here) waits `us` microseconds."""
        for d in self.delays:
            if d["line"] != s.span.line:
                continue
            conds = [f"ag_tid / 32u == {int(d['warp'])}u"]
            conds += [f"{c_name(k)} == {int(v)}LL" for k, v in sorted((d.get("loops") or {}).items())
                      if k in self.known and isinstance(v, int)]
            self.out(f"if ({' && '.join(conds)}) ag_delay({int(d['us'])}u);  // replay: hold warp {d['warp']} back")
            self.features.add("replay")

    def op(self, s: POp) -> None:
        if self.delays:
            self.delay(s)
        name, span = s.name, s.span
        if name in ("load", "store"):
            sub = self.node("sub", span) if name == "load" else self.node("assign", span).target
            lanes = self.strided_lanes(sub)
            if lanes is not None:   # one access per lane, in lane order (the engine's)
                self.info[id(s)] = OpInfo(name)
                for addr in lanes[0]:
                    self.out(f"ag_{'read' if name == 'load' else 'write'}(ag, {addr}, {lanes[1]}LL);  "
                             f"// line {span.line}: strided {name}")
                return
        if name == "load":
            sub = self.node("sub", span)
            _, addr, n = self.subscript_range(sub)
            self.info[id(s)] = OpInfo("load")
            self.out(f"ag_read(ag, {addr}, {n});  // line {span.line}: load")
            return
        if name in ("any_of", "all_of"):
            # tl::Any / tl::All over shared memory (models/logical.py): the model reads all n
            # elements, one read of the range; the call's value is range_truth's
            call = s.src
            if not (isinstance(call, ir.Call) and len(call.args) == 2):
                raise EmitError(f"line {span.line}: {name} the emitter cannot place")
            view, addr, size, _ = self.ptr(call.args[0])
            n = self.el.literal(call.args[1])
            if not view.is_shared or not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                raise EmitError(f"line {span.line}: {name} over {view.name} of size {n!r}")
            self.info[id(s)] = OpInfo("load")
            self.out(f"ag_read(ag, {addr}, {n * size}LL);  // line {span.line}: {name} reads its {n} elements")
            return
        if name == "store":
            a = self.node("assign", span)
            _, addr, n = self.subscript_range(a.target)
            if self.uniform_store(a):
                site = self.uniform_sites
                self.uniform_sites += 1
                self.info[id(s)] = OpInfo("store", site=site)
                self.out(f"ag_write_uniform({addr}, {n}, {site}u, ag_ucount[{site}]);  "
                         f"// line {span.line}: store, one value per element")
                return
            self.info[id(s)] = OpInfo("store")
            self.out(f"ag_write(ag, {addr}, {n});  // line {span.line}: store")
            return
        if name in ("ptx_commit_group", "ptx_wait_group") and isinstance(s.src, ir.Call) \
                and s.src.name == "T." + name:
            call = s.src   # its own (or written by the engine for a TileLang 0.1.8 async-queue attr)
        else:
            call = self.node("call", span)
        args = call.args
        self.features.add(name)
        if name == "ptx_cp_async":
            try:
                ops = cp_async_operands(call)
            except NotModelled as err:
                raise EmitError(f"line {span.line}: {err}") from None
            if ops.offset is None:
                _, addr, size, _ = self.ptr(ops.dst)
                nbytes = f"({self.expr(ops.size)})" + (f" * {size}LL" if ops.size_in_elements else "")
            else:
                view = self.el.view_of(ops.dst)
                if view is None or not view.is_shared:
                    raise EmitError(f"line {span.line}: cp.async destination")
                es = _byte_size(view.elem_size, view.name, span)
                addr = f"({view.flat_base}LL + ({self.expr(ops.offset)}) * {es}LL)"
                nbytes = self.expr(ops.size)
            pred_c, pred_fn = "true", None
            if ops.pred is not None:
                pred_c = f"((bool)({self.expr(ops.pred)}))"
                pred_fn = self.el.compile(ops.pred)
            # TVM's builtin: `@p cp.async; @!p st.shared` of zeros (TileLang's zero-fills by a copy)
            helper = "ag_cp_async_or_zero" if ops.zero_store else "ag_cp_async"
            self.info[id(s)] = OpInfo("cp_async", pred=pred_fn)
            self.out(f"{helper}(ag, {addr}, {nbytes}, {pred_c});  // line {span.line}")
            return
        if name == "ptx_commit_group":
            self.out("ag_cp_commit();")
            return
        if name in LOOP_BREAKS:   # the skeleton's loops nest as the kernel's: the same loop ends
            self.out(f"break;  // line {span.line}: T.{name}")
            return
        if name == THREAD_RETURN:   # the threads exit, as the kernel's do
            self.out(f"return;  // line {span.line}: T.{name}")
            return
        if name == "ptx_wait_group":
            # TVM's codegen prints wait_group(0) as `cp.async.wait_group 0`, TileLang's as wait_all
            helper = "ag_cp_wait_group" if self.el.printed_by_tvm() else "ag_cp_wait"
            self.out(f"{helper}({self.expr(args[0])});  // line {span.line}")
            return
        if name == "tvm_storage_sync":
            if len(args) == 1:
                self.out(f"__syncthreads();  // line {span.line}")
            elif len(args) == 2:   # TileLang's tl::__sync_thread_partial(id): bar.sync id, 0
                self.bar("sync", self.expr(args[1]), "0", f"line {span.line}")
            else:
                self.bar("sync", self.expr(args[1]), self.expr(args[2]), f"line {span.line}")
            return
        if name == "sync_warp":   # bar.warp.sync: the lanes of the mask (all 32 by default)
            mask = f"(unsigned)({self.expr(args[0])})" if args else ""
            self.out(f"__syncwarp({mask});  // line {span.line}")
            return
        if name == "named_barrier_sync":
            self.bar("sync", self.expr(args[0]), self.expr(args[1]), f"line {span.line}")
            return
        if name == "named_barrier_arrive":
            self.bar("arrive", self.expr(args[0]), self.expr(args[1]), f"line {span.line}")
            return
        if name == "ptx_ldmatrix":
            smem, row_offset = args[2], None
            if args and isinstance(args[0], ir.Const) and isinstance(args[0].value, str):
                # TVM's builtin, dtype first: each lane's row at smem_ptr + smem_off elements
                args, smem, row_offset = args[1:], args[6], args[7]
            trans = self.el.literal(args[0])
            trans = bool(trans) if trans in (0, 1) else None   # T.bool(False), or 0 (0.1.8)
            num = self.el.literal(args[1])
            if trans is None or num not in (1, 2, 4):
                raise EmitError(f"line {span.line}: ldmatrix with non-constant trans/num")
            view, addr, size, _ = self.ptr(smem)
            if not view.is_shared:
                raise EmitError(f"line {span.line}: ldmatrix from non-shared memory")
            if row_offset is not None:
                addr = f"({addr} + ({self.expr(row_offset)}) * {size}LL)"
            self.info[id(s)] = OpInfo("ldmatrix", trans=trans, num=num)
            self.out(f"ag_ldmatrix(ag, {addr}, {num}, {'true' if trans else 'false'});  // line {span.line}")
            return
        if name == "ptx_stmatrix":
            # the engine's model: lanes 0..8*num-1 each write the 16-byte row they name
            num = self.el.literal(args[1])
            if num not in (1, 2, 4):
                raise EmitError(f"line {span.line}: stmatrix with a non-constant count")
            view, addr, _, _ = self.ptr(args[2])
            if not view.is_shared:
                return
            self.info[id(s)] = OpInfo("store")
            self.out(f"if ((ag_tid & 31u) < {8 * num}u) ag_write(ag, {addr}, {ROW_BYTES}LL);  // line {span.line}: stmatrix rows")
            return
        if name in _EXPLICIT_WIDTH:   # tl::load_shared_N / store_shared_N (models/memory_ops.py)
            view, addr, _, _ = self.ptr(args[0])
            if not view.is_shared:
                return
            width = _EXPLICIT_WIDTH[name]
            if name.startswith("lds"):
                self.info[id(s)] = OpInfo("load")
                self.out(f"ag_read(ag, {addr}, {width}LL);  // line {span.line}: {name}")
            elif self.el.same_in_every_thread(args[1]):
                site = self.uniform_sites
                self.uniform_sites += 1
                self.info[id(s)] = OpInfo("store", site=site)
                self.out(f"ag_write_uniform({addr}, {width}LL, {site}u, ag_ucount[{site}]);  "
                         f"// line {span.line}: {name}, one value per element")
            else:
                self.info[id(s)] = OpInfo("store")
                self.out(f"ag_write(ag, {addr}, {width}LL);  // line {span.line}: {name}")
            return
        if name == "AllReduce":
            self.allreduce(call, s)
            return
        # ---- Hopper: mbarriers, TMA (as bulk copies), bulk stores, proxy fences
        self.features.add("hopper")
        if name == "ptx_init_barrier_thread_count":
            self.out(f"ag_mbar_init({self.barrier(args[0])}, {self.expr(args[1])});  // line {span.line}")
        elif name == "ptx_fence_barrier_init":
            self.out("ag_mbar_fence_init();")
        elif name == "mbarrier_expect_tx":
            self.out(f"ag_mbar_expect_tx({self.barrier(args[0])}, {self.expr(args[1])});")
        elif name == "ptx_arrive_barrier" and len(args) == 1:
            self._note_elected_arrive()
            self.out(f"ag_mbar_arrive({self.barrier(args[0])});  // line {span.line}")
        elif name == "ptx_arrive_barrier_expect_tx" and len(args) == 2:
            self._note_elected_arrive()
            self.out(f"ag_mbar_arrive_expect_tx({self.barrier(args[0])}, {self.expr(args[1])});  // line {span.line}")
        elif name == "ptx_cp_async_barrier_noinc" and len(args) == 1:
            self.out(f"ag_mbar_cp_async_arrive({self.barrier(args[0])});  // line {span.line}: cp.async.mbarrier.arrive.noinc")
        elif name == "ptx_cp_async_barrier" and len(args) == 1:
            self.features.add(COUNTING_CP_ASYNC_ARRIVE)
            self.out(f"ag_mbar_cp_async_arrive_inc({self.barrier(args[0])});  // line {span.line}: cp.async.mbarrier.arrive")
        elif name == "mbarrier_wait_parity":
            self.out(f"ag_mbar_wait(ag, {self.barrier(args[0])}, {self.expr(args[1])});  // line {span.line}")
        elif name == "fence_proxy_async":
            self.out("ag_fence_proxy_async();")
        elif name == "initialize_wgmma_descriptor":
            self.out(f"{self.descriptor(args[0])} = {self.address(args[1])};  // line {span.line}")
        elif name == "increase_descriptor_offset":
            self.out(f"{self.descriptor(args[0])} += {self.expr(args[1])};  // line {span.line}")
        elif "T." + name in OPERANDS:
            # compute is dropped; the operands' shared bytes (the model's footprint) are read at issue
            size = operand_bytes(self.el.literal(args[0]), "T." + name in SPARSE)
            if size is None:
                raise EmitError(f"line {span.line}: wgmma shape")
            self.info[id(s)] = OpInfo("wgmma")
            for which, d in OPERANDS["T." + name][1]:
                start = f"{self.descriptor(args[d])} + ({self.expr(args[d + 1])}) * 16LL"
                self.out(f"ag_wgmma_read(ag, {start}, {size[which]}LL);  // line {span.line}: wgmma {which.upper()}")
        elif name in ("warpgroup_wait", "wait_wgmma"):
            # a wgmma is one operation of its warpgroup: no warp's wait returns before every warp
            # of the warpgroup issued it and its part read the operands (docs/model.md, measured
            # on the H200), so the skeleton, whose threads read their slices at issue, holds each
            # wait until its warpgroup's 128 threads reach it (the ID is chosen in emit())
            self.features.add(WGMMA_WAIT)
            self.out(f"ag_bar_sync({WARPGROUP_BARRIER}, 128LL);  // line {span.line}: {name}, the warpgroup's "
                     "wgmma read by all its warps")
        elif name in ("warpgroup_arrive", "warpgroup_commit_batch"):
            self.out(f"// line {span.line}: {name} (orders the dropped wgmma compute; nothing to emit)")
        elif name in ("tma_load", "tma_load_im2col"):
            bar_arg, dst = load_operands(call)
            _, addr, size, ext = self.ptr(dst)
            bar = self.barrier(bar_arg)
            nbytes = self.expr(args[3]) if is_bulk_load(call) else f"({self.expr(ext)}) * {size}LL"
            self.info[id(s)] = OpInfo("tma_load")
            self.out(f"ag_bulk_load(ag, {addr}, {nbytes}, {bar});  // line {span.line}: TMA load as cp.async.bulk")
        elif name == "tma_store":
            if isinstance(args[0], ir.Call) and args[0].name == "T.tvm_access_ptr":
                _, addr, _, _ = self.ptr(args[1])
                nbytes = self.expr(args[2])
            else:
                _, addr, size, ext = self.ptr(args[1])
                nbytes = f"({self.expr(ext)}) * {size}LL"
            self.out(f"ag_bulk_store(ag_sinkb, {addr}, {nbytes});  // line {span.line}: TMA store as cp.async.bulk")
        elif name == "tma_store_arrive":
            self.out("ag_bulk_commit();")
        elif name == "tma_store_wait":
            self.out(f"ag_bulk_wait({self.expr(args[0]) if args else '0LL'});")
        else:
            raise EmitError(f"line {span.line}: {name} is not emitted (no skeleton for it yet)")

    def allreduce(self, call: ir.Call, s: POp) -> None:
        fname = self.el.literal(call.args[1])
        m = ALLREDUCE.match(fname or "")
        if m is None or m.group(6) is not None or m.group(8) != "run" or len(call.args) != 4:
            raise EmitError(f"line {call.span.line}: extern {fname}")
        threads, scale, offset0 = int(m.group(1)), int(m.group(2)), int(m.group(3))
        named = m.group(5)
        levels, k = [], threads
        while k != scale and k > 1:
            levels.append(k // 2)
            if k // 2 == scale:
                break
            k //= 2
        _, base, es, _ = self.ptr(call.args[3])
        self.info[id(s)] = OpInfo("allreduce")
        for off in (o for o in levels if o >= 32):
            for bar_id, what in ((1, "write"), (2, "read")):
                if named:
                    self.bar("sync", str(bar_id), str(named))
                else:
                    self.out("__syncthreads();")
                lane = f"((i64)threadIdx.x - {offset0}LL)"
                idx = lane if what == "write" else f"({lane} ^ {off}LL)"
                fn = "ag_write" if what == "write" else "ag_read"
                self.out(f"{fn}(ag, {base} + {idx} * {es}LL, {es}LL);  // line {call.span.line}: AllReduce level {off}")


def _realise_ranges(numbers: dict, sizes: dict) -> dict:
    """The table's cells with the range truths' outcomes realised: `numbers` holds plain cells
    ({(root, byte offset): value}) and the outcomes of all_of / any_of ranges the reference run met
    ({(root, byte offset, kind, n): 0 or 1}, engine/program.py `Elaborator._range_truth`, a
    witness's `WitnessInputs.used`); `sizes`: the element size of each root's ranges (the
    skeleton's; ranges over other roots are not read by it and are dropped). A range's cells get
    values giving its outcome over the helper `ag_<kind>_<root>`: all_of true and any_of true all
    non-zero (1), any_of false all 0, all_of false one 0 (its first cell nothing else fixed). A
    plain cell the reference read keeps its value; outcomes no cell values give raise EmitError."""
    cells = {k: int(v) for k, v in numbers.items() if len(k) == 2}
    ranges = [(k, int(v)) for k, v in numbers.items() if len(k) == 4 and k[0] in sizes]
    fixed = set(cells)

    def span(key):
        root, off, _, n = key
        return [(root, int(off) + j * sizes[root]) for j in range(int(n))]

    def force(key, value):
        for c in span(key):
            if c in fixed and (cells[c] != 0) != (value != 0):
                raise EmitError(f"inputs not realisable: {key[2]} over {key[0]} at byte {key[1]} "
                                f"needs {value} at byte {c[1]}, which holds {cells[c]}")
            if c not in fixed:
                cells[c] = value
                fixed.add(c)

    for key, v in ranges:      # what a range fixes cell by cell: every cell true or every cell false
        if key[2] == "all_of" and v:
            force(key, 1)
        elif key[2] == "any_of" and not v:
            force(key, 0)
    for key, v in ranges:      # one cell of its own: a false all_of's 0, a true any_of's 1
        if (key[2] == "all_of") == bool(v):
            continue
        want = 0 if key[2] == "all_of" else 1
        cs = span(key)
        if any(c in fixed and (cells[c] != 0) == bool(want) for c in cs):
            continue
        free = [c for c in cs if c not in fixed]
        if not free:
            raise EmitError(f"inputs not realisable: {key[2]} over {key[0]} at byte {key[1]} "
                            f"= {v}: every cell is fixed otherwise")
        cells[free[0]] = want
        fixed.add(free[0])
    for key, v in ranges:      # the helpers read the outcomes back (unfixed cells: the default 1)
        vals = [cells.get(c, 1) != 0 for c in span(key)]
        if (all(vals) if key[2] == "all_of" else any(vals)) != bool(v):
            raise EmitError(f"inputs not realisable: {key[2]} over {key[0]} at byte {key[1]} = {v}")
    return cells


RANGE_REG_HELPERS = (
    "__device__ __forceinline__ i64 ag_all_of_reg(const i64* r, i64 n) "
    "{ for (i64 j = 0; j < n; ++j) if (r[j] == 0) return 0LL; return 1LL; }\n"
    "__device__ __forceinline__ i64 ag_any_of_reg(const i64* r, i64 n) "
    "{ for (i64 j = 0; j < n; ++j) if (r[j] != 0) return 1LL; return 0LL; }")


def _range_helpers(sizes: dict) -> list:
    """all_of / any_of over n elements (of `sizes[root]` bytes) of a truth root's table, read
    through `ag_num_<root>` as the plain mask loads are (Emitter.range_truth)."""
    out = []
    for root, es in sorted(sizes.items(), key=lambda kv: str(kv[0])):
        name = _CNAME.sub("_", str(root))
        out.append(f"__device__ __forceinline__ i64 ag_all_of_{name}(i64 off, i64 n) "
                   f"{{ for (i64 j = 0; j < n; ++j) if (ag_num_{name}(off + j * {es}LL) == 0) return 0LL; "
                   "return 1LL; }")
        out.append(f"__device__ __forceinline__ i64 ag_any_of_{name}(i64 off, i64 n) "
                   f"{{ for (i64 j = 0; j < n; ++j) if (ag_num_{name}(off + j * {es}LL) != 0) return 1LL; "
                   "return 0LL; }")
    return out


def _number_tables(numbers: dict | None, used: set, truth: set = frozenset()) -> list:
    """One device function per read-only parameter the skeleton loads numbers from: the value at
    each byte offset the launch's checking run read, 0 elsewhere (a cell no checked run reads only
    addresses global memory, which the skeleton does not touch); for a truth-valued parameter
    under a witness's inputs, 1 elsewhere (the reference's outcome of a cell it did not fix)."""
    if numbers is None:
        return []
    roots: dict = {root: [] for root in sorted(set(used) | set(truth), key=str)}
    for (root, off), value in sorted(((k, v) for k, v in numbers.items() if len(k) == 2),
                                     key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if root in roots:
            roots[root].append((int(off), int(value)))
    out = []
    for root, cells in roots.items():
        cases = " ".join(f"case {off}LL: return {value}LL;" for off, value in cells)
        other = "1LL" if root in truth else "0LL"
        out.append(f"__device__ __forceinline__ i64 ag_num_{_CNAME.sub('_', str(root))}(i64 off) "
                   f"{{ switch (off) {{ {cases} default: return {other}; }} }}")
    return out


def emit(func: ir.Function, program: Program, kernel: str | None = None,
         sizes: dict | None = None, delays: list | None = None, numbers: dict | None = None,
         truth_table: bool = False, symbol_trips=frozenset()) -> Emitted:
    """The skeleton of one prim_func, its symbolic sizes (scalar parameters) bound to `sizes`.
    `delays` ([{line, warp, loops, us}]) hold a warp back before the ops of a line (witness
    replay). `numbers` ({(parameter, byte offset): value}): what the launch's loads of read-only
    numbers return (a varlen kernel's cu_seqlens), as the reference run reads them; with
    `truth_table` the table also holds truth values (a witness's inputs: a block mask's zeros),
    which are 1 otherwise. `symbol_trips`: folded trip-count symbols (engine/loaded_numbers.py
    `_fold_trips`) that `numbers` cannot realise at `sizes` (emit/prepare.py fold_numbers):
    their loops run the symbol's value, the count the reference runs; the others fold their
    count from the table's numbers, as the kernel does. Raises EmitError when it cannot be
    expressed."""
    if program.notes:
        reason, span = program.notes[0]
        raise EmitError(f"line {span.line}: {reason}")
    sizes = sizes or {}
    unbound = [s for s in program.symbols if s not in sizes]
    if unbound:
        raise EmitError(f"symbolic kernel parameters ({', '.join(unbound)}): no concrete launch")
    kernel = kernel or KERNEL_PREFIX + _CNAME.sub("_", func.name)
    em = _Emitter(func, program, kernel)
    em.known |= set(sizes)
    em.delays = list(delays or [])
    em.numbers = None if numbers is None else dict(numbers)
    em.truth_table = truth_table and numbers is not None
    # a count of true cells run as a size (engine/loop_sizes.py `_count_sizes`): its loops run the
    # size's value with every cell true, as the reference does; no table gives that count
    em.symbol_trips = set(symbol_trips or ()) | set(getattr(program, "count_sizes", {}))
    launch = program.launch
    layout = program.layout
    total = -(-(layout.dyn_bytes + layout.static_bytes) // 16) * 16 or 16
    n_mbar = sum(r.nbytes // 8 for r in program.barrier_regions)
    em.depth = 1
    em.body(program.body)
    if WGMMA_WAIT in em.features:
        em.lines = _resolve_warpgroup_barriers(em.lines, launch.num_threads, em.barrier_ids,
                                               em.runtime_barrier_id)
    hopper = "hopper" in em.features
    tx, ty, tz = launch.threads
    # the helpers live in a namespace named after the kernel: compute-sanitizer reports name the
    # helper function (`ag_read(AgState&, ...)+0x..`), and in one process running several
    # skeletons a hazard must never look like one already reported in another kernel
    head = [f"// asyncguard sanitize: synchronization skeleton of {func.name}",
            f"#define AG_SPIN_LIMIT {SPIN_LIMIT}u", f"#define AG_SPIN_AFTER_TIMEOUT {SPIN_AFTER_TIMEOUT}u",
            f"#define AG_SMEM_BYTES {total}LL",
            f"namespace agns_{kernel} {{", PRELUDE]
    if hopper:
        head.append(HOPPER_PRELUDE)
    if "range_truth" in em.features:
        head.append(RANGE_REG_HELPERS)
    if em.range_roots & em.number_roots:
        raise EmitError(f"all_of / any_of over {sorted(em.range_roots & em.number_roots)}, also loaded "
                        "as numbers")
    if em.range_roots:
        # all_of / any_of over a global mask read its cells from the table: the reference's
        # range outcomes (a witness's) realised as cell values; none met: every cell 1 (all taken)
        table = _realise_ranges(em.numbers or {}, em.range_sizes)
        head += _number_tables({**(em.numbers or {}), **table}, em.number_roots, em.truth_roots)
        head += _range_helpers(em.range_sizes)
    else:
        head += _number_tables(em.numbers, em.number_roots, em.truth_roots)
    head.append(f"}}  // namespace agns_{kernel}\nusing namespace agns_{kernel};")
    head.append(
        f'extern "C" __global__ void __launch_bounds__({launch.num_threads}) {kernel}(\n'
        "    u32* __restrict__ ag_trace, u32* __restrict__ ag_counts, u32* __restrict__ ag_flags,\n"
        "    const int* __restrict__ ag_bmap, const unsigned char* __restrict__ ag_pool,\n"
        "    unsigned char* __restrict__ ag_sink, const u64* __restrict__ ag_pool_at, u32 ag_maxr, u32 ag_nslots) {")
    pre = [
        f"  const u32 ag_tid = threadIdx.x + threadIdx.y * {tx}u + threadIdx.z * {tx * ty}u;",
        # the launch is one block per traced block (blockIdx.x = its slot); ag_bmap holds the
        # kernel's own (x, y, z) block index of each, so a sampled block computes what it would in
        # the kernel's full grid, which is never launched (16384 x 16384 GEMMs: minutes)
        "  const int ag_s = (int)blockIdx.x;",
        "  AgState ag; ag.tid = ag_tid; ag.w = 0; ag.r = 0; ag.src = 0; ag.maxr = ag_maxr; ag.traced = ag_s < (int)ag_nslots;",
        f"  ag.trace = ag_trace + ((u64)(ag.traced ? ag_s : 0) * {launch.num_threads}u + ag_tid) * ag_maxr;",
        # each thread's slice of the pool: only the threads that copy have one (one TMA producer
        # of a persistent GEMM copies 120 MB; a slice that size for all 384 threads was 46 GB)
        "  ag.pool = ag_pool + ag_pool_at[ag_tid]; ag.per = (u32)(ag_pool_at[ag_tid + 1] - ag_pool_at[ag_tid]);",
        "  ag.flags = ag_flags;",
        # bulk (TMA) stores copy shared bytes to the same offsets of this block's slice of the
        # sink, compared afterwards
        f"  unsigned char* ag_sinkb = ag_sink + (u64)(ag.traced ? (u32)ag_s : ag_nslots) * {total}u; (void)ag_sinkb;",
    ]
    pre += [f"  i64 {d} = 0;" for d in sorted(em.descriptors)]
    pre += [f"  i64 {register_c(r)}[{n}] = {{0}}; (void){register_c(r)};" for r, n in sorted(em.registers.items())]
    if em.uniform_sites:
        pre.append(f"  u32 ag_ucount[{em.uniform_sites}] = {{0}};")
    if n_mbar:
        pre.append(f"  __shared__ __align__(8) u64 ag_mbar[{n_mbar}];")
    pre.append(f"  for (u32 i = ag_tid * 4u; i < {total}u; i += {launch.num_threads * 4}u) {{")
    pre.append("    *(u32*)(ag_smem + i) = ag_pat(0xC0FFEE11u, i) | (ag_pat(0xC0FFEE11u, i + 1) << 8)"
               " | (ag_pat(0xC0FFEE11u, i + 2) << 16) | (ag_pat(0xC0FFEE11u, i + 3) << 24); }")
    pre.append("  __syncthreads();")
    for name, value in sizes.items():
        pre.append(f"  const i64 {c_name(name)} = {int(value)}LL; (void){c_name(name)};")
    for name, axis in launch.thread_vars.items():
        pre.append(f"  const i64 {c_name(name)} = (i64)threadIdx.{axis[-1]}; (void){c_name(name)};")
    for name, axis in launch.block_vars.items():
        k = "xyz".index(axis[-1])
        pre.append(f"  const i64 {c_name(name)} = (i64)ag_bmap[3u * blockIdx.x + {k}u]; (void){c_name(name)};")
    post = ["  if (ag.traced) ag_counts[(u64)ag_s * %du + ag_tid] = ag.r;" % launch.num_threads, "}"]
    src = "\n".join(head + pre + em.lines + post) + "\n"
    return Emitted(kernel, src, tuple(launch.threads), tuple(launch.blocks), total, n_mbar,
                   "sm_90a", em.info, em.features)
