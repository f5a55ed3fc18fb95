"""Thread-block clusters (sm_90+): the CTAs of one cluster, their ranks, distributed shared
memory, TMA multicast, remote mbarrier arrivals and the cluster barrier.

A kernel whose attributes carry `cluster_dims` is run one whole cluster at a time: the machine
holds every CTA of the cluster as one larger thread set (models/launch.py: machine thread `t`
is thread `t % num_threads` of the CTA with rank `t // num_threads`; each CTA has its own
shared memory, block barriers and mbarriers; engine/state/cluster.py maps them). The models below say
which CTA an operation touches:

- `T.block_rank_in_cluster()` is `%cluster_ctarank` (tl::block_rank_in_cluster): the rank of the
  executing CTA, x fastest over `cluster_dims`.
- `T.tma_load_multicast(desc, mbar, smem, mask, coords...)` is
  `cp.async.bulk.tensor.*.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`
  (tl_templates/cuda/copy_sm90.h): the box is written into the shared memory of every CTA whose
  rank bit is set in `mask`, at the same CTA-relative offset, and each destination's bytes
  complete on the mbarrier at the same CTA-relative offset *in that destination CTA* (CUTLASS's
  SM90 TMA multicast pipelines count the multicast bytes on each receiving CTA's own full
  barrier: PipelineTmaAsync, producer expect_tx of the whole stage in every CTA).
- `T.tma_load(..., use_2cta=1)` is tl::tma_load_2sm (copy_sm100.h, `cta_group::2`): executed by
  both CTAs of a pair; the mbarrier address has its peer bit cleared
  (`Sm100MmaPeerBitMask = 0xFEFFFFFF`), so the bytes complete on the even (leader) CTA's barrier,
  while they land in the issuing CTA's own shared memory.
- `T.ptx_arrive_cluster_barrier(mbar, cta)` is `mapa.shared::cluster` + `mbarrier.arrive.shared::
  cluster` (Barrier::arrive(cta_id), tl_templates/cuda/barrier.h): one arrival (release at
  cluster scope) on the barrier at the same offset in CTA `cta`.
- `T.tma_store_cluster(dst, src, cta, bytes, mbar)` (copy_sm90.h): the issuing thread arrives on
  CTA `cta`'s mbarrier with `expect_tx(bytes)`, runs `fence.proxy.async.shared::cta`, and
  starts `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`: an async-proxy
  read of its own `src` and an async write of `cta`'s `dst`, both complete when `cta`'s barrier
  phase receives the bytes.
- `T.ptx_cluster_store(buf_ptr, value, cta, index)` is `*cluster.map_shared_rank(&buf[index],
  cta) = value` (TileLang's CUDA codegen): a plain store into CTA `cta`'s shared memory.
- `T.cluster_sync()` and `T.tvm_storage_sync("cluster")` are tl::cluster_sync():
  `barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned` (release / acquire at cluster
  scope; the wait is for every non-exited thread of the cluster, PTX ISA barrier.cluster).
  `T.cluster_arrive()`, `T.cluster_arrive_relaxed()` and `T.cluster_wait()` are its halves
  (tl_templates/cuda/cluster.h); the relaxed arrive releases nothing.
"""
from __future__ import annotations

from .. import ir
from ..events import (Access, AccessKind, ClusterArrive, ClusterWait, MbarArrive, Proxy,
                      ProxyFence)
from . import NotModelled, constant, op, per_thread
from .launch import CLUSTER_RANK
from .tma import bulk_box, tensor_box, transaction_bytes

MAX_CLUSTER = 16   # the largest cluster CUDA launches (non-portable size, sm_90/sm_100)


def cluster_launch(ctx, dims, span) -> None:
    """`cluster_dims` of the kernel attributes -> Launch.cluster (a note when not three
    positive literal integers, or more CTAs than a cluster can hold)."""
    if not (isinstance(dims, list) and len(dims) == 3 and all(isinstance(d, int) and d > 0 for d in dims)):
        ctx.notes.append((f"cluster_dims {dims!r:.40}: not three positive integers", span))
        return
    if dims[0] * dims[1] * dims[2] > MAX_CLUSTER:
        ctx.notes.append((f"cluster_dims {dims}: more than {MAX_CLUSTER} CTAs per cluster", span))
        return
    ctx.launch.cluster = tuple(dims)


def cluster_value(ctx, call: ir.Call):
    """Value calls: `T.block_rank_in_cluster()`; None for any other call."""
    if call.name == "T.block_rank_in_cluster" and not call.args:
        # a launch without cluster_dims is a cluster of one CTA (rank 0)
        return lambda env: env.get(CLUSTER_RANK, 0)
    return None


def _rank(ctx, value, what: str) -> int:
    r = constant(value, what)
    if not 0 <= r < ctx.launch.cluster_size:
        raise NotModelled(f"{what} {r} is not a rank of the {ctx.launch.cluster_size}-CTA cluster")
    return r


def _barrier(ctx, call, index):
    ref = ctx.barrier_ref(call.args[index]) if len(call.args) > index else None
    if ref is None:
        raise NotModelled(f"{call.name}: barrier is not an element of a shared.barrier buffer")
    return ref


@op("T.tma_load_multicast")
def tma_load_multicast(ctx, call):
    if len(call.args) < 4:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    if ctx.access_ptr_or_none(call.args[0]) is not None:
        # 1-D bulk form (smem, gmem, mbar, bytes, mask)
        ptr, bar, n_fn, unit = bulk_box(ctx, call, 0), _barrier(ctx, call, 2), ctx.compile(call.args[3]), 1
        mask_fn = ctx.compile(call.args[4]) if len(call.args) > 4 else None
        payload = None
    else:
        ptr, payload = tensor_box(ctx, call, 2)
        bar, n_fn, unit = _barrier(ctx, call, 1), ptr.extent, ptr.elem_size
        mask_fn = ctx.compile(call.args[3])
    if mask_fn is None:
        raise NotModelled(f"{call.name}: no CTA mask")
    size = ctx.launch.cluster_size

    def run(env, tids):
        mask = constant(mask_fn(env), "multicast CTA mask")
        if mask <= 0 or mask >> size:
            raise NotModelled(f"multicast CTA mask {mask:#x} names CTAs outside the {size}-CTA cluster")
        nbytes = constant(n_fn(env), "TMA box size") * unit
        lo = ptr.view.flat_base + per_thread(ptr.offset(env), tids) * ptr.elem_size
        bars = per_thread(bar(env), tids)
        return [Access(AccessKind.ASYNC_WRITE, tids, lo, lo + nbytes, ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, "tma_load_multicast", group_kind="mbarrier", mbarrier=bars,
                       proxy=Proxy.ASYNC, cta=r,
                       tx_bytes=transaction_bytes(nbytes, ptr, payload))
                for r in range(size) if mask >> r & 1]
    return run


@op("T.ptx_arrive_cluster_barrier")
def arrive_cluster_barrier(ctx, call):
    if len(call.args) != 2:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    bar, cta_fn = _barrier(ctx, call, 0), ctx.compile(call.args[1])
    return lambda env, tids: [MbarArrive(tids, per_thread(bar(env), tids),
                                         cta=_rank(ctx, cta_fn(env), "arrive target CTA"))]


@op("T.tma_store_cluster")
def tma_store_cluster(ctx, call):
    if len(call.args) != 5:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    dst, src = ctx.access_ptr(call.args[0]), ctx.access_ptr(call.args[1])
    if dst is None or src is None or not dst.view.is_shared or not src.view.is_shared:
        raise NotModelled(f"{call.name}: source or destination is not a shared T.tvm_access_ptr")
    cta_fn, n_fn, bar = ctx.compile(call.args[2]), ctx.compile(call.args[3]), _barrier(ctx, call, 4)

    def run(env, tids):
        cta = _rank(ctx, cta_fn(env), "bulk copy destination CTA")
        nbytes = constant(n_fn(env), "bulk copy size")
        bars = per_thread(bar(env), tids)
        s_lo = src.view.flat_base + per_thread(src.offset(env), tids) * src.elem_size
        d_lo = dst.view.flat_base + per_thread(dst.offset(env), tids) * dst.elem_size
        return [MbarArrive(tids, bars, nbytes, cta=cta),
                ProxyFence(tids),
                Access(AccessKind.ASYNC_READ, tids, s_lo, s_lo + nbytes, src.view.name, src.view.flat_base,
                       src.elem_size, "tma_store_cluster", group_kind="mbarrier", mbarrier=bars,
                       proxy=Proxy.ASYNC, mbarrier_cta=cta),
                Access(AccessKind.ASYNC_WRITE, tids, d_lo, d_lo + nbytes, dst.view.name, dst.view.flat_base,
                       dst.elem_size, "tma_store_cluster", group_kind="mbarrier", mbarrier=bars,
                       proxy=Proxy.ASYNC, cta=cta)]
    return run


@op("T.ptx_cluster_store")
def cluster_store(ctx, call):
    if len(call.args) != 4:
        raise NotModelled(f"{call.name} with {len(call.args)} arguments")
    ptr = ctx.access_ptr(call.args[0])
    if ptr is None or not ptr.view.is_shared:
        raise NotModelled(f"{call.name}: destination is not a shared T.tvm_access_ptr")
    cta_fn, idx_fn = ctx.compile(call.args[2]), ctx.compile(call.args[3])

    def run(env, tids):
        cta = _rank(ctx, cta_fn(env), "store target CTA")
        lo = ptr.view.flat_base + (per_thread(ptr.offset(env), tids) + per_thread(idx_fn(env), tids)) * ptr.elem_size
        return [Access(AccessKind.WRITE, tids, lo, lo + ptr.elem_size, ptr.view.name, ptr.view.flat_base,
                       ptr.elem_size, "ptx_cluster_store", cta=cta)]
    return run


@op("T.cluster_sync")
def cluster_sync(ctx, call):
    return lambda env, tids: [ClusterArrive(tids), ClusterWait(tids)]


@op("T.cluster_arrive")
def cluster_arrive(ctx, call):
    return lambda env, tids: [ClusterArrive(tids)]


@op("T.cluster_arrive_relaxed")
def cluster_arrive_relaxed(ctx, call):
    return lambda env, tids: [ClusterArrive(tids, relaxed=True)]


@op("T.cluster_wait")
def cluster_wait(ctx, call):
    return lambda env, tids: [ClusterWait(tids)]


def cluster_storage_sync(env, tids):
    """`T.tvm_storage_sync("cluster")`: printed as tl::cluster_sync() (models/barriers.py)."""
    return [ClusterArrive(tids), ClusterWait(tids)]

