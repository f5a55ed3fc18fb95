"""Blackwell block-scaled MMA and its scale-factor path (sm_100a), as TileLang 0.1.15 prints and
its templates implement them: `tcgen_05.h` (`tl::tcgen05_cp`, `tl::tcgen05_sf_warp_transpose`,
`tl::make_sf_smem_desc`), `instruction/tcgen05mma.h` (`tl::tcgen05mma_blockscaled_ss`) and the
CUDA codegen (`src/cuda/codegen/codegen_cuda.cc`). docs/model.md ("Block-scaled MMA and its
scale factors") gives the PTX ISA text each rule rests on.

- `ptx_tcgen05_sf_warp_transpose(p)` is plain CUDA run by every thread of one warp: lane l
  (threadIdx.x % 32) reads the four 32-bit words l, 32 + l, 64 + l, 96 + l of `p`, then
  `__syncwarp()`, then writes the words 4l .. 4l + 3. Synchronous generic-proxy accesses.
- `ptx_tcgen05_cp_warpx4(p, word, col)` is `tcgen05.cp.cta_group::N.32x128b.warpx4` by the warp's
  elected lane (`cute::elect_one_sync`): an asynchronous read through the async proxy of 32 rows
  x 16 bytes of shared memory from `p` (no swizzle, 8-row core matrices 128 bytes apart: the 512
  bytes from `p`), written into 4 columns of every one of the 128 tensor-memory lanes (the
  `.warpx4` multicast copies the 32 rows into each warp's 32 lanes) from column `col` of the
  allocation `word` names. Completed by the thread's next tcgen05.commit, like an MMA.
- `ptx_tcgen05_mma_blockscaled_ss(kind, desc_a, a_off, desc_b, b_off, C, c_off, idesc, scale_c,
  SFA, sfa_col, SFB, sfb_col, _, _, 2cta)` is `tcgen05.mma.cta_group::N.kind::mxf8f6f4.block_scale`
  (one scale per 32 elements of K, `scale_vec::1X`): the shared operands and the accumulator as
  `ptx_tcgen05_mma_ss` (models/tcgen05.py), plus asynchronous reads of the scale factors in
  tensor memory: 128 lanes x 4 columns per 128 rows of A (SFA) and per 128 columns of B (SFB)
  from their columns (whole words: the selected byte's word).
- The 2-CTA forms (`use_2cta=1`, the MMA's last argument) act on both CTAs of the pair: the copy
  reads each CTA's shared memory at the same CTA-relative address and writes each CTA's tensor
  memory; the MMA reads both CTAs' scale factors (`Access(cta=r)`).
- One thread's tcgen05.cp and tcgen05.mma run in issue order (engine/state/memory.py
  `tcgen05_pipeline`): cp -> mma is a PTX ISA pipeline pair; mma -> cp and cp -> cp are not in
  the ISA's list, and are modelled ordered after CUTLASS and Triton (docs/model.md says why).
"""
from __future__ import annotations

import numpy as np

from ..events import TENSOR_MEMORY, Access, AccessKind, Proxy, WarpSync
from . import NotModelled, constant, frozen, op, per_thread
from .launch import WARP, leader_rank
from .tcgen05 import (LANES, _leader, _mma, _smem_operand, _tmem, _word, _word_access, converge,
                      elected, pair_form, tmem_base)

SF_ROWS = 32          # tcgen05.cp .32x128b: 32 rows of 128 bits
SF_ROW_BYTES = 16
SF_COPY_BYTES = SF_ROWS * SF_ROW_BYTES    # make_sf_smem_desc: no swizzle, SBO 128 B, LBO 0
SF_COLUMNS = SF_ROW_BYTES // 4            # 32-bit tensor-memory columns one copy writes per lane
SF_ROWS_PER_BLOCK = 128                   # matrix rows (or columns of B) 4 scale columns cover
SF_WORDS = 128                            # tcgen05_sf_warp_transpose: a 4 x 32 block of uint32


def _shared_pointer(ctx, e, what: str):
    addr = ctx.address(e)
    if addr is None or not addr[0].is_shared:
        raise NotModelled(f"{what}: the shared-memory pointer is not a shared buffer")
    return addr


@op("T.ptx_tcgen05_sf_warp_transpose")
def sf_warp_transpose(ctx, call):
    """tl::tcgen05_sf_warp_transpose(uint32_t *p): in-place 4 x 32 transpose by one warp,
    `values[i] = p[(i ^ (lane >> 3)) * 32 + lane]; __syncwarp(); p[lane * 4 + (i ^ (lane >> 3))] =
    values[i]` for i < 4: lane l reads words {l, 32 + l, 64 + l, 96 + l} and writes words
    4l .. 4l + 3."""
    if len(call.args) != 1:
        raise NotModelled(f"{call.name} (a scale-factor transpose in shared memory) with "
                          f"{len(call.args)} arguments")
    view, at = _shared_pointer(ctx, call.args[0], call.name)
    lane_of = ctx.thread_x() % WARP

    def run(env, tids):
        base = per_thread(at(env), tids)
        lane = lane_of[tids]
        rows = np.arange(4, dtype=np.int64)
        r_lo = frozen((base[:, None] + (rows[None, :] * WARP + lane[:, None]) * 4).ravel())
        w_lo = frozen(base + lane * 16)   # (models.frozen: the same words each K iteration)
        return [Access(AccessKind.READ, frozen(np.repeat(tids, 4)), r_lo, frozen(r_lo + 4), view.name,
                       view.flat_base, 4, "tcgen05_sf_warp_transpose"),
                WarpSync(tids),
                Access(AccessKind.WRITE, tids, w_lo, frozen(w_lo + 16), view.name, view.flat_base, 4,
                       "tcgen05_sf_warp_transpose")]
    return run


def _pair_ctas(env, pair: bool):
    """The CTAs a cta_group::2 copy acts on: the pair of the issuing CTA (the PTX ISA, tcgen05.cp:
    "the data is copied into the Tensor Memory of both the current and the peer CTAs")."""
    if not pair:
        return [None]
    lead = leader_rank(env)
    return [lead, lead + 1]


@op("T.ptx_tcgen05_cp_warpx4")
def tcgen05_cp(ctx, call):
    """tl::tcgen05_cp<use_2cta>(make_sf_smem_desc(p), *word + col) by the warp's elected lane."""
    pair = pair_form(ctx, call)
    if len(call.args) != 3:
        raise NotModelled(f"{call.name} (tcgen05.cp, a shared-to-tensor-memory copy) with "
                          f"{len(call.args)} arguments")
    view, at = _shared_pointer(ctx, call.args[0], call.name)
    word = _word(ctx, call.args[1])
    base, ncols = _tmem(ctx, word, call.name)
    col_fn = ctx.compile(call.args[2])
    via = "ptx_tcgen05_cp_warpx4"

    def run(env, tids):
        issuer = elected(tids)
        start = per_thread(at(env), issuer)
        if (start % 16).any():   # the descriptor keeps address >> 4: the template needs 16-byte alignment
            raise NotModelled(f"{call.name}: shared address {int(start[0])} is not 16-byte aligned")
        col = per_thread(col_fn(env), issuer)
        if (col < 0).any() or (col + SF_COLUMNS > ncols).any():
            raise NotModelled(f"{call.name}: columns {int(col.max())}..+{SF_COLUMNS} beyond the "
                              f"{ncols}-column allocation")
        t0 = tmem_base(ctx) + base
        lanes = np.tile(np.arange(LANES, dtype=np.int64), len(issuer))
        lo = t0 + lanes * ncols * 4 + np.repeat(col, LANES) * 4
        out = [_word_access(AccessKind.READ, word, tids, via), converge(tids)]
        issuer, start = frozen(issuer), frozen(start)   # (models.frozen, as for the MMA's reads)
        who, lo = frozen(np.repeat(issuer, LANES)), frozen(lo)
        src_hi, dst_hi = frozen(start + SF_COPY_BYTES), frozen(lo + SF_COPY_BYTES // SF_ROWS)
        for r in _pair_ctas(env, pair):
            out.append(Access(AccessKind.ASYNC_READ, issuer, start, src_hi, view.name,
                              view.flat_base, 4, via, group_kind="tcgen05", proxy=Proxy.ASYNC, cta=r))
            out.append(Access(AccessKind.ASYNC_WRITE, who, lo, dst_hi,
                              TENSOR_MEMORY, t0, 4, via, group_kind="tcgen05", proxy=Proxy.ASYNC, cta=r))
        return out
    return run


def _scale_reads(ctx, call, word_arg: int, what: str):
    """(allocation offset, its columns, first column's function) of one scale-factor operand."""
    word = _word(ctx, call.args[word_arg])
    base, ncols = _tmem(ctx, word, f"{call.name} {what}")
    return word, base, ncols, ctx.compile(call.args[word_arg + 1])


@op("T.ptx_tcgen05_mma_blockscaled_ss")
def mma_blockscaled_ss(ctx, call):
    """(kind, desc_a, a_off, desc_b, b_off, C, c_off, idesc, scale_c, SFA, sfa_col, SFB, sfb_col,
    reserved, reserved, 2cta); the codegen prints neither reserved argument. The instruction
    descriptor may vary per iteration in its scale-factor IDs (bits 29-30, 4-5: which byte of
    each scale word), so M and N are read from it at each issue."""
    if len(call.args) != 16:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    pair = pair_form(ctx, call, call.args[15])
    c_word = _word(ctx, call.args[5])
    c_base, c_ncols = _tmem(ctx, c_word, call.name)
    c_col = ctx.compile(call.args[6])
    idesc_fn = ctx.compile(call.args[7])
    scales = [_scale_reads(ctx, call, 9, "SFA"), _scale_reads(ctx, call, 11, "SFB")]
    a_part = _smem_operand(ctx, "a", call.args[1], call.args[2], LANES)
    via = "ptx_tcgen05_mma_blockscaled_ss"
    by_shape: dict = {}

    def issue(m: int, n: int):
        """The operand and accumulator accesses of an MMA of this shape (models/tcgen05.py)."""
        run = by_shape.get((m, n))
        if run is None:
            if m != LANES * (2 if pair else 1) or not 0 < n <= c_ncols:
                raise NotModelled(f"{call.name}: accumulator of M={m}, N={n} in a {c_ncols}-column "
                                  "allocation" + (" (cta_group::2)" if pair else ""))
            parts = [a_part, _smem_operand(ctx, "b", call.args[3], call.args[4], n // 2 if pair else n)]
            run = by_shape[(m, n)] = _mma(ctx, call, via, parts, None, (c_base, c_ncols, n, c_col), pair)
        return run

    def run(env, tids):
        idesc = constant(idesc_fn(env), f"{call.name} instruction descriptor")
        m, n = ((idesc >> 24) & 0x1F) << 4, ((idesc >> 17) & 0x3F) << 3
        out = issue(m, n)(env, tids)
        issuer = elected(tids)
        ctas = [None]
        if pair:
            lead = _leader(env, via)
            ctas = [lead, lead + 1]
        t_at = tmem_base(ctx)
        lanes = np.tile(np.arange(LANES, dtype=np.int64), len(issuer))
        per_cta_rows = {"SFA": m // (2 if pair else 1), "SFB": n}
        for (word, base, ncols, col_fn), what in zip(scales, ("SFA", "SFB")):
            cols = SF_COLUMNS * -(-per_cta_rows[what] // SF_ROWS_PER_BLOCK)
            col = per_thread(col_fn(env), issuer)
            if (col < 0).any() or (col + cols > ncols).any():
                raise NotModelled(f"{call.name}: {what} columns {int(col.max())}..+{cols} beyond the "
                                  f"{ncols}-column allocation")
            lo = t_at + base + lanes * ncols * 4 + np.repeat(col, LANES) * 4
            out.append(_word_access(AccessKind.READ, word, tids, via))
            # read-only, one array per content (models.frozen): the K loop reads the same columns
            # again, and the race check remembers what it learnt of them by identity
            who, lo = frozen(np.repeat(issuer, LANES)), frozen(lo)
            out += [Access(AccessKind.ASYNC_READ, who, lo, frozen(lo + cols * 4),
                           TENSOR_MEMORY, t_at + base, 4, via, group_kind="tcgen05",
                           proxy=Proxy.ASYNC, cta=r) for r in ctas]
        return out
    return run
