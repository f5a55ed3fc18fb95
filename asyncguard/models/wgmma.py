"""wgmma (sm_90): warpgroup matrix multiply reading shared memory asynchronously.

Operands in shared memory are named by 64-bit descriptors: `initialize_wgmma_descriptor(desc,
ptr, ...)` stores the start address, `increase_descriptor_offset(desc, bytes)` advances it,
and `ptx_wgmma_ss/_rs(..., desc.data, offset, ...)` adds `offset` 16-byte units. Each wgmma
reads its operands until a `warpgroup_wait(n)` completes its batch (committed by
`warpgroup_commit_batch`). Footprint: a contiguous run of the operand's size (rows * 32
bytes: k16 fp16, k8 tf32, k32 fp8) from its start address. With swizzled layouts the bytes
really read are spread over the same stage tile, so this stays inside the stage the
descriptor names (docs/model.md states the approximation).

A wgmma is a warpgroup's operation (PTX ISA, wgmma: "executed by all 128 threads of a
warpgroup"; `wgmma.wait_group` waits for the executing warpgroup's wgmma-groups): a statement
that several warpgroups run issues one per warpgroup, each completed by a wait of its own
warpgroup only. (Until the twenty-third session it was one operation of all the statement's
threads, which a wait in either warpgroup completed: NVIDIA/Fuser#3865 and triton#11047, one
warpgroup refilling a stage the other's wgmma still read, came back clean.)

Sparse wgmma (`wgmma.mma_async.sp`, `ptx_wgmma_sp_ss/_rs`): A is 2:4 structured-sparse and
stored compressed (K/2 elements per row) while the shape's K doubles (k32 fp16, k16 tf32,
k64 fp8/int8), so an A row is still 32 bytes and a B row 64. The metadata operand `E` and the
sparsity selector are registers (TileLang passes `E_local.data`): a register read, no shared
bytes. Argument positions as TileLang's codegen_cuda.cc reads them (18 and 17 arguments).
"""
from __future__ import annotations

import re

import numpy as np

from ..events import Access, AccessKind, CommitGroup, Proxy, SetDescriptor, WaitGroup
from . import NotModelled, constant, op, per_thread

_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)")
K_BYTES = 32  # bytes of one operand row along K for every wgmma dtype (16 x 2, 8 x 4, 32 x 1)


def desc_key(ctx, expr) -> str:
    view = ctx.view_of(expr)
    if view is None or view.region is None:
        raise NotModelled("wgmma descriptor is not a known buffer")
    return f"__wgmma_desc__{view.region.name}"


@op("T.initialize_wgmma_descriptor")
def init_desc(ctx, call):
    key = desc_key(ctx, call.args[0].value if hasattr(call.args[0], "value") else call.args[0])
    addr = ctx.address(call.args[1])
    if addr is None or not addr[0].is_shared:
        raise NotModelled("wgmma descriptor over a pointer that is not shared memory")
    start = addr[1]

    def run(env, tids):
        return [SetDescriptor(tids, key, per_thread(start(env), tids))]
    return run


@op("T.increase_descriptor_offset")
def increase(ctx, call):
    key = desc_key(ctx, call.args[0].value if hasattr(call.args[0], "value") else call.args[0])
    off_fn = ctx.compile(call.args[1])
    return lambda env, tids: [SetDescriptor(tids, key, per_thread(off_fn(env), tids), add=True)]


# Shared operands of each wgmma form: (argument count, [(operand, descriptor argument index)]);
# the descriptor's offset (16-byte units) is the next argument. The skeleton emitter reads it too.
OPERANDS = {"T.ptx_wgmma_ss": (15, [("a", 6), ("b", 8)]), "T.ptx_wgmma_rs": (14, [("b", 7)]),
            "T.ptx_wgmma_sp_ss": (18, [("a", 6), ("b", 11)]), "T.ptx_wgmma_sp_rs": (17, [("b", 10)])}
SPARSE = {"T.ptx_wgmma_sp_ss", "T.ptx_wgmma_sp_rs"}


def operand_bytes(shape, sparse: bool = False) -> dict | None:
    """Bytes of each operand's footprint for a shape `mMnNkK` (A: M rows, B: N rows), or None.
    Sparse: B rows span the doubled K (module doc)."""
    m = _SHAPE.fullmatch(str(shape))
    if m is None:
        return None
    return {"a": int(m.group(1)) * K_BYTES, "b": int(m.group(2)) * K_BYTES * (2 if sparse else 1)}


@op(*OPERANDS)
def wgmma(ctx, call):
    nargs, operands = OPERANDS[call.name]
    if len(call.args) != nargs:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    shape = ctx.literal(call.args[0])
    size = operand_bytes(shape, call.name in SPARSE)
    if size is None:
        raise NotModelled(f"wgmma shape {shape!r}")
    parts = [(name, desc_key(ctx, call.args[d]), ctx.compile(call.args[d + 1])) for name, d in operands]
    cta_threads = ctx.launch.num_threads

    def run(env, tids):
        out = []
        # one operation per warpgroup: the threads of a statement that two warpgroups run (a
        # 256-thread GEMM without warp specialization) issue two, and each warpgroup's
        # wait_group completes its own (module doc)
        groups = by_warpgroup(tids, cta_threads)
        for name, key, off_fn in parts:
            if key not in env:
                raise NotModelled("wgmma descriptor used before initialize_wgmma_descriptor")
            start = per_thread(env[key], tids) + per_thread(off_fn(env), tids) * 16
            for sel in groups:
                who, lo = (tids, start) if sel is None else (tids[sel], start[sel])
                out.append(Access(AccessKind.ASYNC_READ, who, lo, lo + size[name],
                                  f"wgmma {name.upper()} operand", 0, 1, call.name.removeprefix("T."),
                                  group_kind="wgmma", proxy=Proxy.ASYNC, collective=True))
        return out
    return run


WARPGROUP = 128


def by_warpgroup(tids, cta_threads: int) -> list:
    """Selections of `tids` by warpgroup (four consecutive warps of a CTA; machine thread t is
    thread t % cta_threads of CTA t // cta_threads): [None] when they are one warpgroup's."""
    group = (tids // cta_threads) * cta_threads + (tids % cta_threads) // WARPGROUP * WARPGROUP
    first = int(group[0])
    if (group == first).all():
        return [None]
    return [group == g for g in np.unique(group)]


@op("T.warpgroup_arrive")
def warpgroup_arrive(ctx, call):
    return None  # wgmma.fence: orders register operands; no shared-memory effect of its own


@op("T.warpgroup_commit_batch")
def commit_batch(ctx, call):
    return lambda env, tids: [CommitGroup(tids, "wgmma")]


@op("T.warpgroup_wait", "T.wait_wgmma")
def warpgroup_wait(ctx, call):
    n_fn = ctx.compile(call.args[0])
    return lambda env, tids: [WaitGroup(tids, constant(n_fn(env), "warpgroup_wait count"), "wgmma")]
