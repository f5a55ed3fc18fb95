"""Blackwell tcgen05 (sm_100a), single-CTA and 2-CTA forms, as TileLang 0.1.15 prints them and its templates
implement them (src/tl_templates/cuda/tcgen_05.h, copy_sm100.h, instruction/tcgen05mma.h, and the
CUDA codegen). docs/model.md ("Blackwell tcgen05") gives the PTX ISA text each rule rests on.

- Tensor memory is a second address space: `ptx_init_tensor_memory(word, ncols)`
  (tcgen05.alloc.cta_group::1 by a warp) writes the allocation's address into the shared word
  `word`; each word names one allocation, and allocations live at once are disjoint, so each
  gets its own stretch of a virtual tensor memory placed after the flat shared space:
  128 lanes x ncols 32-bit columns, lane-major (lane * ncols * 4 + column * 4).
- `ptx_tcgen05_mma_ss` / `ptx_tcgen05_mma_ts` are issued by one elected lane per warp
  (`cute::elect_one_sync`): asynchronous reads of the shared operands through the async proxy
  (descriptors as for wgmma; the offsets are bytes, the templates add `offset >> 4` to the
  descriptor), of A in tensor memory for the TS form (128 lanes x 32 bytes at its column), and an
  asynchronous write of the accumulator (M = 128 lanes x N columns; M and N from the instruction
  descriptor), 128 lanes x N columns from the column its address adds. One thread's MMAs run
  in issue order (a tcgen05 pipeline).
- `tcgen05_mma_arrive(bar)` is tcgen05.commit...mbarrier::arrive::one by the same elected lane:
  once every tcgen05 operation that lane issued completes, one arrival on `bar`. Those MMAs
  complete on the phase the arrival joins; the arrival itself comes from the system later, so a
  thread knows the phase complete only by observing the barrier (a wait), not through a block
  barrier after the commit.
- `tcgen05_ld` / `tcgen05_st`: the warp's collective tcgen05.ld / tcgen05.st of shape .32x32b,
  .16x64b, .16x128b or .16x256b (the 32dp forms of the 16-lane shapes issue it twice, lanes +0 and
  +16), optionally `.pack::16b` / `.unpack::16b`; each thread moves the cells the PTX ISA's matrix
  fragments give its lane id, in the 32 lanes from (warp % 4) * 32 (`_tmem_rows`); the templates
  wait (tcgen05.wait::ld / ::st) before returning.
- `ptx_deallocate_tensor_memory` reads the address word. The tcgen05 fences
  (`tcgen05_before/after_thread_sync`) touch no memory; they are `Tcgen05Fence` events, which order
  tcgen05 operations of different threads across the synchronization they surround
  (engine/state/tcgen05.py, AG432); a commit carries the before fence.
- The 2-CTA forms (cta_group::2, `use_2cta=1` / the MMA's last argument) in a cluster of two:
  the allocation and deallocation are per CTA as above; the MMA is issued by the pair's leader
  and reads A and B shares and writes 128 accumulator lanes in both CTAs (`Access(cta=r)`); the
  commit arrives on the barrier at the same offset in CTA 0 and CTA 1 (the template's mask 3),
  each CTA's share completing on its own arrival (engine/state/mbarrier.py). docs/model.md
  "2-CTA forms" gives the evidence.
- Block-scaled MMA, tcgen05.cp and the scale-factor transpose: models/tcgen05_blockscale.py.
"""
from __future__ import annotations

import numpy as np

from .. import ir
from ..events import TENSOR_MEMORY, Access, AccessKind, MbarArrive, Proxy, Tcgen05Fence, WarpSync
from . import NotModelled, frozen, op, per_thread
from .launch import CLUSTER_RANK, WARP, leader_rank
from .wgmma import K_BYTES, desc_key, init_desc

TMEM_ALLOC = 128 * 512 * 4   # the most one allocation can hold (128 lanes x 512 columns x 4 bytes)
LANES = 128
# what a tcgen05.dealloc's end of its allocation is called (checks/classify.py keys its rules on it)
DEALLOC, DEALLOC_PAIR = "tcgen05.dealloc", "tcgen05.dealloc.cta_group::2"


def _allocs(ctx) -> dict:
    """Tensor-memory allocations of this kernel: shared word region name -> (index, ncols). Kept
    on the shared layout, whose per-CTA flat space they extend (`tensor_memory_end`)."""
    return _layout_allocs(ctx.layout)


def _layout_allocs(layout) -> dict:
    return layout.__dict__.setdefault("tcgen05_allocs", {})


def tensor_memory_end(layout) -> int:
    """One past the last flat byte of this kernel's virtual tensor memory (0 without any): a
    cluster's CTAs each get their own copy of shared and tensor memory, so the CTA stride
    (engine/state/cluster.py) must cover it. Read once the layout is placed."""
    allocs = _layout_allocs(layout)
    return tmem_base_of(layout) + len(allocs) * TMEM_ALLOC if allocs else 0


def _word(ctx, e):
    """The shared word holding an allocation's address: T.tvm_access_ptr, `buf.data`, `buf[0]`."""
    view = None
    if isinstance(getattr(e, "indices", None), tuple):
        view = ctx.view_of(e.value)
    else:
        addr = ctx.address(e)
        view = addr[0] if addr is not None else None
    if view is None or not view.is_shared:
        raise NotModelled("tcgen05: the tensor-memory address word is not a shared buffer")
    return view


def elected(tids: np.ndarray) -> np.ndarray:
    """`elect.sync` in each warp: its lowest executing lane. The templates' `cute::elect_one_sync()`
    is `elect.sync` with the full mask, whose `.sync` makes each lane wait until every lane of
    the warp executes it: see `converge`."""
    if tids.size == 0:
        return tids
    first = np.r_[True, tids[1:] // WARP != tids[:-1] // WARP]
    return tids[first]


def converge(tids: np.ndarray) -> WarpSync:
    """The warp convergence of `elect.sync` (full mask): no lane issues the MMA or the commit
    before every lane got there, so a lane cannot lag behind at an earlier wait while its
    elected lane moves on. Modelled as `__syncwarp()`, which also orders the lanes' memory
    accesses (PTX states that for bar.warp.sync, not for elect.sync: lenient, docs/model.md)."""
    return WarpSync(tids)


def pair_form(ctx, call, flag=None) -> bool:
    """Whether the call is the 2-CTA form (`cta_group::2`: TileLang prints `use_2cta=1` on the
    allocation, the deallocation and the commit, and a last True argument on the MMA). It is
    modelled for a cluster of exactly two CTAs, the pair TileLang's 2-CTA kernels launch
    (`cluster_dims [2, 1, 1]`): the commit's CTA mask is the template's default 3 (ranks 0 and 1),
    which names the pair only there."""
    if flag is None:
        flag = call.kwarg("use_2cta")
    if flag is None or ctx.literal(flag) in (False, 0):
        return False
    if ctx.literal(flag) not in (True, 1):
        raise NotModelled(f"{call.name}: 2-CTA flag {flag!r:.30} is not a constant")
    if ctx.launch.cluster_size != 2:
        raise NotModelled(f"{call.name}: 2-CTA form (cta_group::2) in a cluster of "
                          f"{ctx.launch.cluster_size} CTA(s): modelled only for a cluster of two")
    return True


def _leader(env, what: str) -> int:
    """The executing CTA, which must be the pair's leader (even rank) to issue a cta_group::2 MMA
    (the PTX ISA lets only the pair's even CTA issue it; CUTLASS guards its 2-SM MMA with
    `cute::elect_one_sync() && is_mma_leader_cta`)."""
    rank = int(env.get(CLUSTER_RANK, 0))
    if rank != leader_rank(env):
        raise NotModelled(f"{what}: cta_group::2 issued by the odd CTA {rank} of its pair")
    return rank


def _word_access(kind, view, tids, via):
    # read-only, one array per content (models.frozen): every MMA of a K loop reads the same word
    lo = frozen(np.full(len(tids), view.flat_base, dtype=np.int64))
    return Access(kind, tids, lo, frozen(lo + 4), view.name, view.flat_base, 4, via)


@op("T.ptx_init_tensor_memory")
def tmem_alloc(ctx, call):
    """tcgen05.alloc; the cta_group::2 form is executed by one warp of each CTA of the pair and
    allocates the same columns in both CTAs' tensor memory, writing the address into each
    executing CTA's own word (`.shared::cta`): per CTA, the same as the single-CTA form."""
    pair_form(ctx, call)
    if len(call.args) != 2:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    view = _word(ctx, call.args[0])
    ncols = ctx.literal(call.args[1])
    if not isinstance(ncols, int) or ncols < 32 or ncols > 512 or ncols & (ncols - 1):
        raise NotModelled(f"{call.name}: {ncols!r} columns (a power of two, 32 to 512)")
    allocs = _allocs(ctx)
    if view.region.name in allocs and allocs[view.region.name][1] != ncols:
        raise NotModelled(f"{call.name}: one address word allocated with different sizes")
    allocs.setdefault(view.region.name, (len(allocs), ncols))
    return lambda env, tids: [_word_access(AccessKind.WRITE, view, elected(tids)[:1], "tcgen05.alloc")]


@op("T.ptx_deallocate_tensor_memory")
def tmem_dealloc(ctx, call):
    """tcgen05.dealloc by a warp reads the address word and ends the allocation: a write of all
    its columns by the warp's elected lane, so that any tensor-memory access (tcgen05.ld/st, an
    MMA's accumulator or A operand) not ordered before it races with it. Such a race is its own
    rule (checks/classify.py): AG420 for the cta_group::2 form, where the PTX ISA requires the
    pair's accesses to be synchronized first; AG421, opt-in (`--strict tmem`), for the
    single-CTA form, where it states no rule (docs/model.md "Deallocation")."""
    pair = pair_form(ctx, call)   # the cta_group::2 form: each CTA's warp, its own word and columns
    view = _word(ctx, call.args[0]) if call.args else None
    if view is None:
        raise NotModelled(f"{call.name} without an address word")
    base, ncols = _tmem(ctx, view, call.name)
    via = DEALLOC_PAIR if pair else DEALLOC

    def run(env, tids):
        at = tmem_base(ctx) + base
        who = elected(tids)[:1]
        lo = np.full(len(who), at, dtype=np.int64)
        return [_word_access(AccessKind.READ, view, tids, "tcgen05.dealloc"),
                Access(AccessKind.WRITE, who, lo, lo + LANES * ncols * 4, TENSOR_MEMORY, at, 4, via)]
    return run


@op("T.tcgen05_before_thread_sync", "T.tcgen05_after_thread_sync")
def tcgen05_fence(ctx, call):
    """tcgen05.fence::before_thread_sync / ::after_thread_sync by every thread that runs it: they
    order tcgen05 operations across the synchronization they surround (engine/state/tcgen05.py)."""
    after = call.name == "T.tcgen05_after_thread_sync"
    return lambda env, tids: [Tcgen05Fence(tids, after)]


op("T.initialize_tcgen05_descriptor")(init_desc)


def tmem_base(ctx) -> int:
    """Virtual tensor memory starts right after the flat shared space (its size is known once
    elaboration has placed every region, i.e. when the handlers run): the engine's per-byte
    bookkeeping then stays as small as the kernel's own memory."""
    return tmem_base_of(ctx.layout)


def tmem_base_of(layout) -> int:
    return -(-(layout.dyn_bytes + layout.static_bytes) // TMEM_ALLOC) * TMEM_ALLOC + TMEM_ALLOC


def _tmem(ctx, view, what):
    """(offset of the allocation in virtual tensor memory, its columns)."""
    alloc = _allocs(ctx).get(view.region.name)
    if alloc is None:
        raise NotModelled(f"{what}: tensor memory not allocated by ptx_init_tensor_memory before it")
    index, ncols = alloc
    return index * TMEM_ALLOC, ncols


def _accumulator(ctx, call, idesc_arg: int, c_arg: int, pair: bool = False, ws: bool = False):
    """(offset of its allocation in virtual tensor memory, the allocation's columns, the columns
    of each lane it writes, the first column's function, M, N) of the MMA's accumulator, M and N
    read from the instruction descriptor (bits 24-28: M >> 4, bits 17-22: N >> 3): 128 lanes x N
    32-bit columns from the column the address adds (a double-buffered accumulator is one half of
    its allocation). A cta_group::2 MMA of M = 256 keeps 128 lanes of D in each CTA of the pair
    (rows 0-127 in the leader, 128-255 in the peer). The weight-stationary form (`ws`, M = 32, 64
    or 128) folds the columns over the lanes: M = 128 is 128 lanes x N (data-path layout D),
    M = 64 puts column halves on the two 64-lane halves (layout E), M = 32 column quarters on
    the four 32-lane slabs (layout G), so every lane holds N * M / 128 columns (PTX ISA,
    "tcgen05 data-path layout organization"). A cta_group::1 MMA of M = 64 (not ws) is layout F:
    its 64 rows on the low 16 lanes of each 32-lane sub-partition, N columns each
    (`datapath_lanes`). Other M stay unmodelled."""
    idesc = ctx.literal(call.args[idesc_arg])
    if not isinstance(idesc, int):
        raise NotModelled(f"{call.name}: instruction descriptor is not a constant")
    m, n = ((idesc >> 24) & 0x1F) << 4, ((idesc >> 17) & 0x3F) << 3
    base, ncols = _tmem(ctx, _word(ctx, call.args[c_arg]), call.name)
    if ws:
        cols = n * m // LANES
        if pair or m not in (32, 64, LANES) or not 0 < cols <= ncols:
            raise NotModelled(f"{call.name}: weight-stationary accumulator of M={m}, N={n} in a "
                              f"{ncols}-column allocation")
    else:
        cols = n
        if m not in ((2 * LANES,) if pair else (LANES, LAYOUT_F_M)) or not 0 < n <= ncols:
            raise NotModelled(f"{call.name}: accumulator of M={m}, N={n} in a {ncols}-column allocation"
                              + (" (cta_group::2)" if pair else ""))
    return base, ncols, cols, ctx.compile(call.args[c_arg + 1]), m, n


LAYOUT_F_M = 64   # the one M below 128 a cta_group::1 MMA (not ws) is modelled for: layout F


def datapath_lanes(m: int, ws: bool = False) -> np.ndarray:
    """The tensor-memory lanes an MMA's rows occupy, in D and in an A read from tensor memory
    (the two follow one data-path layout: PTX ISA "tcgen05 data-path layout organization"; TVM's
    tirx resolves both operands' layouts from the same instruction M, `tmem_mma_operand_layout`).
    Layout F (M = 64, cta_group::1, not ws): rows on the low 16 lanes of each of the four 32-lane
    sub-partitions, "64 rows scattered 16-per-warp, half datapath" (tirx `tmem_datapath_layout`;
    TileLang's copy_sm100.h: the M = 64 tile "occupies only the low 16 datapaths of each
    sub-partition", which its 16dp tcgen05.ld/st forms read). Every other modelled form: all 128."""
    if m == LAYOUT_F_M and not ws:
        return (np.arange(4, dtype=np.int64)[:, None] * 32 + np.arange(16, dtype=np.int64)).ravel()
    return np.arange(LANES, dtype=np.int64)


def _smem_operand(ctx, name: str, desc, off, rows: int):
    """A shared operand through its descriptor: `rows` rows x 32 bytes of K from the start address
    plus `off` bytes (the templates add `off >> 4` to the descriptor's 16-byte address field). The
    footprint is approximated as contiguous, as for wgmma: over one commit's MMAs it stays inside
    the bytes they read."""
    return (name, desc_key(ctx, desc), ctx.compile(off), rows * K_BYTES)


def _mma(ctx, call, via: str, smem_parts: list, tmem_a, acc, pair: bool = False,
         rows: np.ndarray | None = None):
    """The MMA's accesses. A cta_group::2 MMA (`pair`) is issued by the leader CTA and reads its
    shared operands at the same CTA-relative addresses in both CTAs of the pair (each holds half
    of A's rows and half of B's columns: `smem_parts` give one CTA's share) and writes the
    accumulator's 128 lanes in both CTAs' tensor memory: one access per CTA (`cta=r`). `rows`:
    the lanes of D and of A in tensor memory (`datapath_lanes`; all 128 by default)."""
    base, ncols, n, col_fn = acc
    rows = np.arange(LANES, dtype=np.int64) if rows is None else rows
    nrows = len(rows)

    # the accumulator's (threads, lo, hi) by (issuers, first columns): the same read-only
    # arrays each time the loop comes back to a column (models.frozen)
    lanes_of: dict = {}

    def run(env, tids):
        # read-only arrays, one per content: each MMA of a K loop names the same issuer, stage
        # bytes and accumulator columns again (models.frozen)
        issuer = frozen(elected(tids))
        at = tmem_base(ctx)
        ctas = [None]
        if pair:
            lead = _leader(env, via)
            ctas = [lead, lead + 1]
        col = per_thread(col_fn(env), issuer)
        if (col < 0).any() or (col + n > ncols).any():
            raise NotModelled(f"{via}: accumulator of {n} columns at column {int(col.max())} is beyond "
                              f"its {ncols}-column allocation")
        out = [converge(tids)]
        for name, key, off_fn, size in smem_parts:
            if key not in env:
                raise NotModelled("tcgen05.mma descriptor used before initialize_tcgen05_descriptor")
            start = frozen(per_thread(env[key], issuer) + per_thread(off_fn(env), issuer))
            out += [Access(AccessKind.ASYNC_READ, issuer, start, frozen(start + size),
                           f"tcgen05.mma {name.upper()} operand", 0, 1, via,
                           group_kind="tcgen05", proxy=Proxy.ASYNC, cta=r) for r in ctas]
        if tmem_a is not None:   # A in tensor memory: its rows' lanes x 32 bytes of K at its column
            a_base, a_cols, a_col_fn = tmem_a
            a_col = per_thread(a_col_fn(env), issuer)
            if (a_col < 0).any() or (a_col + K_BYTES // 4 > a_cols).any():
                raise NotModelled(f"{via}: A operand beyond its {a_cols}-column allocation")
            lanes = np.tile(rows, len(issuer))
            lo = at + a_base + lanes * a_cols * 4 + np.repeat(a_col, nrows) * 4
            out.append(Access(AccessKind.ASYNC_READ, np.repeat(issuer, nrows), lo, lo + K_BYTES,
                              TENSOR_MEMORY, at + a_base, 4, via, group_kind="tcgen05", proxy=Proxy.ASYNC))
        acc_key = (at, issuer.tobytes(), col.tobytes())
        hit = lanes_of.get(acc_key)
        if hit is not None:
            who, lo, hi = hit
        else:
            if n == ncols and nrows == LANES:   # the whole allocation: one range
                who, lo = issuer, np.full(len(issuer), at + base, dtype=np.int64)
                hi = lo + LANES * ncols * 4
            else:            # N columns of each of its lanes
                lanes = np.tile(rows, len(issuer))
                who = np.repeat(issuer, nrows)
                lo = at + base + lanes * ncols * 4 + np.repeat(col, nrows) * 4
                hi = lo + n * 4
            who, lo, hi = frozen(who), frozen(lo), frozen(hi)
            if len(lanes_of) >= 64:
                lanes_of.clear()
            lanes_of[acc_key] = (who, lo, hi)
        out += [Access(AccessKind.ASYNC_WRITE, who, lo, hi, TENSOR_MEMORY, at + base, 4,
                       via, group_kind="tcgen05", proxy=Proxy.ASYNC, cta=r) for r in ctas]
        return out
    return run


@op("T.ptx_tcgen05_mma_ss")
def mma_ss(ctx, call):
    """(kind, desc_a, a_off, desc_b, b_off, C, c_off, idesc, scale_c, mask x4, ws, 2cta). The
    cta_group::2 form: each CTA of the pair holds 128 rows of A and N/2 rows of B. TileLang 0.1.8
    printed it without the last operand (14 arguments, cta_group::1)."""
    if len(call.args) == 14:   # TileLang 0.1.8: no cta_group operand, always ::1 (its codegen_cuda.cc)
        pair = False
    elif len(call.args) == 15:
        pair = pair_form(ctx, call, call.args[14])
    else:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    ws = ctx.literal(call.args[13])
    if ws not in (False, True, 0, 1):
        raise NotModelled(f"{call.name}: weight-stationary flag {ws!r:.30} is not a constant")
    acc = _accumulator(ctx, call, 7, 5, pair, bool(ws))
    m, n = acc[4], acc[5]
    parts = [_smem_operand(ctx, "a", call.args[1], call.args[2], m // 2 if pair else m),
             _smem_operand(ctx, "b", call.args[3], call.args[4], n // 2 if pair else n)]
    return _mma(ctx, call, "ptx_tcgen05_mma_ss", parts, None, acc[:4], pair,
                None if ws else datapath_lanes(m))


@op("T.ptx_tcgen05_mma_ts")
def mma_ts(ctx, call):
    """(kind, A, a_col, desc_b, b_off, C, c_off, idesc, scale_c, mask x4, 2cta): A is read from
    tensor memory (the word names its allocation, a_col its first 32-bit column; 32 bytes of K per
    lane), B from shared memory."""
    if len(call.args) != 14:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    if ctx.literal(call.args[13]) not in (False, 0):
        raise NotModelled(f"{call.name}: 2-CTA form (cta_group::2 with A in tensor memory: which "
                          "CTA's A lanes feed which rows is not modelled)")
    acc = _accumulator(ctx, call, 7, 5)
    a_base, a_cols = _tmem(ctx, _word(ctx, call.args[1]), call.name)
    parts = [_smem_operand(ctx, "b", call.args[3], call.args[4], acc[5])]
    return _mma(ctx, call, "ptx_tcgen05_mma_ts", parts, (a_base, a_cols, ctx.compile(call.args[2])), acc[:4],
                rows=datapath_lanes(acc[4]))


@op("T.tcgen05_mma_arrive")
def mma_arrive(ctx, call):
    """tcgen05.commit by the elected lane. The 2-CTA form (tl::tcgen05_mma_arrive<true>, from
    cute's umma_arrive_multicast_2x1SM) is `tcgen05.commit.cta_group::2.mbarrier::arrive::one.
    shared::cluster.multicast::cluster [bar], 3`: one arrival on the barrier at the same offset in
    CTA 0 and in CTA 1 (TileLang's codegen passes no mask: the template's default 3). What the
    committed MMAs did in CTA r's memory completes on CTA r's arrival (engine/state/mbarrier.py),
    the phase that CTA's own threads wait for."""
    pair = pair_form(ctx, call)
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bar = ctx.barrier_ref(call.args[0])
    if bar is None:
        raise NotModelled(f"{call.name}: barrier is not an element of a shared.barrier buffer")

    def run(env, tids):
        issuer = elected(tids)
        bars = per_thread(bar(env), issuer)
        # tcgen05.commit: "an implicit tcgen05.fence::before_thread_sync" before its arrival
        fence = Tcgen05Fence(issuer, False)
        if not pair:
            return [converge(tids), fence, MbarArrive(issuer, bars, copies="tcgen05")]
        return [converge(tids), fence] + [MbarArrive(issuer, bars, copies="tcgen05", cta=r) for r in (0, 1)]
    return run


def _strip_cast(e):
    """`T.Cast("uint32", x)` -> x (a column number is small and non-negative either way)."""
    while isinstance(e, ir.Call) and e.name == "T.Cast" and len(e.args) == 2:
        e = e.args[1]
    return e


# The tcgen05.ld / tcgen05.st forms TileLang prints (`T.tcgen05_ld(bits, n, pack, addr, col, dp,
# regs)` -> `tl::tcgen05_ld_<dp>dp<bits>bNx<n, pack>(addr, col, regs)`, src/cuda/codegen/
# codegen_cuda.cc; the CuTeDSL backend prints `tl.tcgen05_ld_<dp>dp<bits>bNx(...)`), by (dp, bits):
# the PTX shape each issue uses, the lane offsets of its issues within the warp's 32-lane chunk
# (the 32dp forms of the wider shapes issue the 16-lane shape twice, the second at lane +16:
# tl_templates/cuda/tcgen_05_ld.h `tmem_ld_32dp64bNx` ..., contrib/cutedsl/gemm_tcgen05.py), the
# 32-bit columns one repetition (.num x1) covers, and the largest .num one instruction takes in the
# CUDA templates (copy_sm100.h `tcgen05_ld_core<..., MAX_LOGN, N>`).
_TMEM_FORMS = {
    (32, 32): ("32x32b", (0,), 1, 128),
    (16, 64): ("16x64b", (0,), 2, 128),
    (16, 128): ("16x128b", (0,), 4, 64),
    (16, 256): ("16x256b", (0,), 8, 32),
    (32, 64): ("16x64b", (0, 16), 2, 128),
    (32, 128): ("16x128b", (0, 16), 4, 64),
    (32, 256): ("16x256b", (0, 16), 8, 32),
}


def _shape_cells(shape: str) -> tuple:
    """(lane, column) of each 32-bit cell lane `l` (0..31) of the warp moves in one repetition
    (.x1) of `shape`, relative to the issue's lane and first column: PTX ISA 9.7.16.2.3.1
    ("Matrix fragments for shape ..."; the figures' thread layouts as CUTLASS's
    Copy_Traits<SM100_TMEM_LOAD_16dp*b1x> and TileLang's tcgen05_layout.cc write them):
    .32x32b: lane l, column 0. .16x64b: lane 8 * (l % 2) + l // 4, column (l // 2) % 2.
    .16x128b: lanes l // 4 and l // 4 + 8, column l % 4. .16x256b: lanes l // 4 and l // 4 + 8,
    columns 2 * (l % 4) and 2 * (l % 4) + 1. Returned as two (32, cells) arrays."""
    l = np.arange(32, dtype=np.int64)[:, None]
    if shape == "32x32b":
        return l, np.zeros_like(l)
    if shape == "16x64b":
        return 8 * (l % 2) + l // 4, (l // 2) % 2
    if shape == "16x128b":
        return np.hstack([l // 4, l // 4 + 8]), np.hstack([l % 4, l % 4])
    c = 2 * (l % 4)
    return np.hstack([l // 4, l // 4, l // 4 + 8, l // 4 + 8]), np.hstack([c, c + 1, c, c + 1])


def _tmem_rows(ctx, call, kind: AccessKind, via: str):
    """tcgen05_ld / tcgen05_st (bits, n, pack, tmem_word, col, dp, regs). Each is one warp's
    collective `tcgen05.{ld,st}.sync.aligned.<shape>.x<n>` (twice for the 32dp forms of the
    16-lane shapes), followed by tcgen05.wait::ld / wait::st in the templates, so each thread's
    cells are plain accesses done at issue. Which tensor-memory lanes a warp reaches: PTX ISA
    9.7.16.8.1, "each warp of a warpgroup in the CTA can access a chunk of the Tensor Memory":
    warp w the 32 lanes from 32 * (w % 4); the issue's lane offset inside that chunk is 0 (TileLang
    passes the allocation's address, lane field 0) or 16 (the second issue of a 32dp form). Each
    repetition covers the next `width` 32-bit columns (.32x32b: 32 bits, .16x64b: 64 bits ...
    "of each lane (64 * .num)-bits", 9.7.16.2.3.1). `.pack::16b` (ld) packs two 16-bit elements
    of adjacent columns into one 32-bit register and `.unpack::16b` (st) unpacks one into two
    adjacent columns (9.7.16.8; CUTLASS's `_16b` copy traits): each register cell at column c
    stands for columns 2c and 2c + 1, whole words taken (the 16-bit halves are not told apart; the only writers of
    tensor memory write whole words). Only what both backends compile the same is modelled: for a
    16-lane shape or a packed form, a power-of-two n one instruction takes (the CUDA templates
    chain further instructions at `column + segment` whatever the shape covers, the CuTeDSL ones
    at `column + segment * width`); .32x32b unpacked, any n (both chain contiguous columns)."""
    if len(call.args) not in (6, 7):
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bits, chunks = ctx.literal(call.args[0]), ctx.literal(call.args[1])
    datapaths = ctx.literal(call.args[5]) if len(call.args) == 7 else 32
    form = _TMEM_FORMS.get((datapaths, bits))
    if form is None or not isinstance(chunks, int) or isinstance(chunks, bool) or chunks <= 0:
        raise NotModelled(f"{call.name}: {datapaths}dp{bits}b form")
    packed = ctx.literal(call.args[2])
    if packed not in (False, True, 0, 1):
        raise NotModelled(f"{call.name}: 16-bit pack flag {packed!r:.30} is not a constant")
    packed = bool(packed)
    shape, issues, width, most = form
    if (packed or width > 1) and (chunks & (chunks - 1) or chunks > most):
        raise NotModelled(f"{call.name}: {datapaths}dp{bits}b{' packed' if packed else ''} form with "
                          f"n={chunks} (more than one instruction: the backends differ)")
    addr, extra = call.args[3], None
    if isinstance(addr, ir.BinOp) and addr.op == "+" and isinstance(addr.left, ir.Subscript):
        # `C_tmem[0] + T.Cast("uint32", column)`: the allocation's address plus a column (the
        # column is the address's low 16 bits; the lane field stays the warp's own)
        addr, extra = addr.left, ctx.compile(_strip_cast(addr.right))
    word = _word(ctx, addr)
    base, ncols = _tmem(ctx, word, call.name)
    col_fn = ctx.compile(call.args[4])
    scale = 2 if packed else 1
    span = chunks * width * scale   # columns from the first one
    if shape == "32x32b":   # one contiguous run of the thread's own lane
        cell_lane = cell_col = None
    else:
        # per lane id: (lanes, first columns) of its runs, `scale` columns each, one per cell and
        # repetition: repetition r adds r * width * scale columns
        lanes0, cols0 = _shape_cells(shape)
        reps = np.arange(chunks, dtype=np.int64) * width * scale
        cell_lane = np.hstack([np.repeat(lanes0 + i, chunks, axis=1) for i in issues])
        cell_col = np.hstack([(cols0[:, :, None] * scale + reps).reshape(32, -1) for _ in issues])

    def run(env, tids):
        col = per_thread(col_fn(env), tids)
        if extra is not None:
            col = col + per_thread(extra(env), tids)
        if (col < 0).any() or (col + span > ncols).any():
            raise NotModelled(f"{call.name} of columns beyond the {ncols}-column allocation")
        at = tmem_base(ctx) + base
        chunk = (tids // WARP % 4) * WARP
        if cell_lane is None:
            lo = at + (chunk + tids % WARP) * ncols * 4 + col * 4
            who, hi = tids, lo + span * 4
        else:
            k = cell_lane.shape[1]
            lane_id = tids % WARP
            who = np.repeat(tids, k)
            lo = at + ((np.repeat(chunk, k) + cell_lane[lane_id].ravel()) * ncols
                       + np.repeat(col, k) + cell_col[lane_id].ravel()) * 4
            hi = lo + scale * 4
        return [_word_access(AccessKind.READ, word, tids, via),
                Access(kind, who, lo, hi, TENSOR_MEMORY, at, 4, via)]
    return run


@op("T.tcgen05_ld")
def tmem_load(ctx, call):
    return _tmem_rows(ctx, call, AccessKind.READ, "tcgen05_ld")


@op("T.tcgen05_st")
def tmem_store(ctx, call):
    return _tmem_rows(ctx, call, AccessKind.WRITE, "tcgen05_st")
