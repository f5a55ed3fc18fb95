"""Regenerate corpus/unseen_tvm: CUDA device TIR produced by TVM's own lowering (not TileLang's).

The TVM is the fork bundled by tilelang 0.1.15 (`import tilelang; import tvm`, tvm.__version__ 0.25.dev0,
modules tvm.tirx / tvm.s_tir / tvm.te). Each kernel is a TE workload or a TVMScript PrimFunc scheduled with
tvm.s_tir.Schedule (hand schedules, TVM's `tvm.testing.tir.mma_schedule`, or dlight rules), then lowered exactly
as `tvm.tirx.build` does up to codegen: BindTarget(cuda sm_80, host llvm) -> the "s_tir" pipeline
(tvm/s_tir/pipeline.py: InjectSoftwarePipeline, ..., ThreadSync, LowerThreadAllreduce, InjectPTXAsyncCopy
when `tirx.use_async_copy`, SplitHostDevice, MergeSharedMemoryAllocations, ...) -> split_host_device_mods ->
finalize_device_passes (LowerWarpMemory, Simplify, LowerCustomDatatypes, LowerIntrin). The device module's
PrimFuncs are printed with `.script()`, one file per device function, with a leading comment saying how it
was made.

CUDA codegen (`target.build.cuda`) is then run on each device module with TVM_COMPILE_FORCE_FALLBACK=1 (source
only, no nvcc, no GPU) to record whether TVM's codegen accepts the TIR; the CUDA source goes to
/tmp/tvmprobe/cuda/<name>.cu for triage. Results: MANIFEST.json next to this file.

Run: python corpus/unseen_tvm/lower_tvm.py [name-substring ...]
"""
import json
import os
import sys
import time
import traceback

os.environ.setdefault("TVM_COMPILE_FORCE_FALLBACK", "1")

import tilelang  # noqa: F401,E402  (loads the bundled TVM)
import tvm  # noqa: E402
import tvm.s_tir  # noqa: E402
import tvm.s_tir.pipeline  # noqa: E402,F401  (registers the "s_tir" pipeline)
import tvm.s_tir.tensor_intrin.cuda  # noqa: E402,F401  (registers the mma / ldmatrix intrinsics)
from tvm import te, tirx, topi  # noqa: E402
from tvm.s_tir import dlight as dl  # noqa: E402
from tvm.s_tir.meta_schedule.testing import te_workload  # noqa: E402
from tvm.script import tirx as T  # noqa: E402
from tvm.target import Target  # noqa: E402
from tvm.tirx.build import split_host_device_mods  # noqa: E402

OUT = os.path.dirname(os.path.abspath(__file__))
CUDA_DIR = "/tmp/tvmprobe/cuda"
TARGET = {"kind": "cuda", "arch": "sm_80"}
ASYNC = {"tirx.use_async_copy": 1}
NOASYNC = {}

KERNELS = []   # (name, how, builder, pass config)


def kernel(name, how, config=ASYNC):
    def deco(fn):
        KERNELS.append((name, how, fn, config))
        return fn
    return deco


# ----------------------------------------------------------------------------------------------- lowering
def lower_device(mod, config):
    """tvm.tirx.build's steps 3-6 without codegen: the device IRModule after finalize_device_passes."""
    if isinstance(mod, tirx.PrimFunc):
        mod = tvm.IRModule({"main": mod.with_attr("global_symbol", "main")})
    with tvm.transform.PassContext(opt_level=3, config=config):
        target = Target(TARGET).with_host(Target("llvm"))
        mod = tirx.transform.BindTarget(target)(mod)
        mod = tirx.get_tir_pipeline("s_tir")(mod)
        _host, dev = split_host_device_mods(mod)
        dev = {t: tirx.pipeline.finalize_device_passes()(m) for t, m in dev.items()}
    assert len(dev) == 1, f"{len(dev)} device targets"
    ((t, m),) = dev.items()
    return t, m


_CUDA_SRC = []


@tvm.register_global_func("tvm_callback_cuda_postproc", override=True)
def _postproc(code, _target):
    _CUDA_SRC.append(code)
    return code


def codegen(dev_mod, target, config):
    """Run TVM's CUDA codegen (source only). Returns (None, source) or (error line, None)."""
    _CUDA_SRC.clear()
    try:
        with tvm.transform.PassContext(opt_level=3, config=config):
            tvm.get_global_func("target.build.cuda")(dev_mod, target)
    except Exception as e:  # noqa: BLE001
        lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
        return (lines[-1] if lines else type(e).__name__)[:300], None
    return None, (_CUDA_SRC[-1] if _CUDA_SRC else None)


# ------------------------------------------------------------------------------------- 1. SIMT GEMM, hand
def simt_gemm(M=1024, N=1024, K=1024, in_dtype="float16", out_dtype="float32", bm=64, bn=128, bk=32,
              ty_i=8, tx_j=16, vec=4, stage=(0, 0, 2), order=(0, 1, 2), async_stages=(0,), threads=None):
    """te matmul; block tile bm x bn, k step bk; A and B cache_read to shared at the k loop, copies
    vectorized by `vec` elements over all threads; pipeline annotations on the k loop."""
    f = te.create_prim_func(te_workload.matmul(M, N, K, in_dtype=in_dtype, out_dtype=out_dtype))
    sch = tvm.s_tir.Schedule(f)
    b = sch.get_sblock("C")
    i, j, k = sch.get_loops(b)
    i0, i1, i2 = sch.split(i, [None, ty_i, bm // ty_i])
    j0, j1, j2 = sch.split(j, [None, tx_j, bn // tx_j])
    k0, k1 = sch.split(k, [None, bk])
    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    nthr = ty_i * tx_j
    for idx in (0, 1):
        s = sch.cache_read(b, idx, "shared")
        sch.compute_at(s, k0)
        fused = sch.fuse(*sch.get_loops(s)[-2:])
        _, t, v = sch.split(fused, [None, nthr, vec])
        sch.bind(t, "threadIdx.x")
        sch.vectorize(v)
    if stage is not None:
        sch.annotate(k0, "software_pipeline_stage", list(stage))
        sch.annotate(k0, "software_pipeline_order", list(order))
        if async_stages is not None:
            sch.annotate(k0, "software_pipeline_async_stages", list(async_stages))
    return sch.mod["main"]


for _st in (2, 3, 4):
    kernel(f"simt_gemm_f16_s{_st}_async_v4",
           f"hand schedule: te matmul 1024^3 f16->f32, tile 64x128x32, 128 threads, A/B cache_read shared, "
           f"vec 4 (8 B), software_pipeline_stage [0,0,{_st - 1}] async_stages [0], use_async_copy=1"
           )(lambda _st=_st: simt_gemm(stage=(0, 0, _st - 1)))
for _st in (2, 3, 4):
    kernel(f"simt_gemm_f16_s{_st}_async_v8",
           f"hand schedule: te matmul 1024^3 f16->f32, tile 64x128x32, vec 8 (16 B), "
           f"software_pipeline_stage [0,0,{_st - 1}] async_stages [0], use_async_copy=1"
           )(lambda _st=_st: simt_gemm(stage=(0, 0, _st - 1), vec=8))
kernel("simt_gemm_f16_s3_sync",
       "hand schedule: te matmul 1024^3 f16, vec 8, software_pipeline_stage [0,0,2], no async stages, "
       "use_async_copy=0", NOASYNC)(lambda: simt_gemm(stage=(0, 0, 2), vec=8, async_stages=None))
kernel("simt_gemm_f16_s2_sync",
       "hand schedule: te matmul 1024^3 f16, vec 8, software_pipeline_stage [0,0,1], no async stages, "
       "use_async_copy=0", NOASYNC)(lambda: simt_gemm(stage=(0, 0, 1), vec=8, async_stages=None))
kernel("simt_gemm_f16_nopipe",
       "hand schedule: te matmul 1024^3 f16, vec 8, no pipeline annotations, use_async_copy=1",
       )(lambda: simt_gemm(stage=None, vec=8))
kernel("simt_gemm_f16_s3_asyncattr_nocpasync",
       "hand schedule: te matmul 1024^3 f16, vec 8, stage [0,0,2] async_stages [0] but use_async_copy=0 "
       "(commit/wait queue attrs kept, copies stay plain stores)", NOASYNC
       )(lambda: simt_gemm(stage=(0, 0, 2), vec=8))
kernel("simt_gemm_f32_s3_async_v4",
       "hand schedule: te matmul 1024^3 f32, tile 64x128x32, vec 4 (16 B), stage [0,0,2] async [0]"
       )(lambda: simt_gemm(in_dtype="float32", stage=(0, 0, 2), vec=4))
kernel("simt_gemm_f32_s3_async_v1",
       "hand schedule: te matmul 1024^3 f32, tile 64x128x32, vec 1 (4 B cp.async), stage [0,0,2] async [0]"
       )(lambda: simt_gemm(in_dtype="float32", stage=(0, 0, 2), vec=1))
kernel("simt_gemm_f16_s3_async_order102",
       "hand schedule: te matmul 1024^3 f16, vec 8, stage [0,0,2] order [1,0,2] (B copy first) async [0]"
       )(lambda: simt_gemm(stage=(0, 0, 2), order=(1, 0, 2), vec=8))
kernel("simt_gemm_f16_s3_async_order021",
       "hand schedule: te matmul 1024^3 f16, vec 8, stage [0,0,2] order [0,2,1] async [0] (B copy issued "
       "after the compute: two async producers interleaved with their consumer, as upstream "
       "test_async_producer_interleaving)")(lambda: simt_gemm(stage=(0, 0, 2), order=(0, 2, 1), vec=8))
kernel("simt_gemm_f16_s4_async_order021",
       "hand schedule: te matmul 1024^3 f16, vec 8, stage [0,0,3] order [0,2,1] async [0] (interleaved "
       "producers)")(lambda: simt_gemm(stage=(0, 0, 3), order=(0, 2, 1), vec=8))
kernel("simt_gemm_f16_s3_async_b_stage1",
       "hand schedule: te matmul 1024^3 f16, vec 8, stage [0,1,2] order [0,1,2] async [0,1] "
       "(A and B copies in different async stages: two commit queues)"
       )(lambda: simt_gemm(stage=(0, 1, 2), vec=8, async_stages=(0, 1)))
kernel("simt_gemm_f16_tile32_s4_async",
       "hand schedule: te matmul 512x512x512 f16, tile 32x64x16, 64 threads, vec 8, stage [0,0,3] async [0]"
       )(lambda: simt_gemm(M=512, N=512, K=512, bm=32, bn=64, bk=16, ty_i=4, tx_j=16, vec=8,
                           stage=(0, 0, 3)))
kernel("simt_gemm_f16_ragged_s3_async",
       "hand schedule: te matmul 1000x1000x1000 f16 (not tile-divisible: guarded copies), tile 64x128x32, "
       "vec 1 (2 B elements: no cp.async possible) stage [0,0,2] async [0]"
       )(lambda: simt_gemm(M=1000, N=1000, K=1000, stage=(0, 0, 2), vec=1))
kernel("simt_gemm_f32_ragged_s3_async",
       "hand schedule: te matmul 1000x1000x1000 f32 (not tile-divisible: guarded copies -> predicated "
       "cp.async), vec 1 (4 B), stage [0,0,2] async [0]"
       )(lambda: simt_gemm(M=1000, N=1000, K=1000, in_dtype="float32", stage=(0, 0, 2), vec=1))


# ----------------------------------------------------------------------- 2. batched matmul / conv, hand
def simt_bmm(stage=(0, 0, 2), async_stages=(0,)):
    f = te.create_prim_func(te_workload.batch_matmul_nkkm(8, 256, 256, 256, in_dtype="float16",
                                                          out_dtype="float32"))
    sch = tvm.s_tir.Schedule(f)
    b = sch.get_sblock("Z")
    bb, i, j, k = sch.get_loops(b)
    i0, i1, i2 = sch.split(i, [None, 8, 8])
    j0, j1, j2 = sch.split(j, [None, 16, 8])
    k0, k1 = sch.split(k, [None, 32])
    sch.reorder(bb, i0, j0, i1, j1, k0, k1, i2, j2)
    sch.bind(bb, "blockIdx.z")
    sch.bind(i0, "blockIdx.y")
    sch.bind(j0, "blockIdx.x")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    for idx in (0, 1):
        s = sch.cache_read(b, idx, "shared")
        sch.compute_at(s, k0)
        fused = sch.fuse(*sch.get_loops(s)[-2:])
        _, t, v = sch.split(fused, [None, 128, 8])
        sch.bind(t, "threadIdx.x")
        sch.vectorize(v)
    sch.annotate(k0, "software_pipeline_stage", list(stage))
    sch.annotate(k0, "software_pipeline_order", [0, 1, 2])
    if async_stages is not None:
        sch.annotate(k0, "software_pipeline_async_stages", list(async_stages))
    return sch.mod["main"]


kernel("bmm_f16_s3_async", "hand schedule: te batch_matmul_nkkm 8x256x256x256 f16->f32, blockIdx.z batch, "
       "tile 64x128x32, vec 8, stage [0,0,2] async [0]")(lambda: simt_bmm())
kernel("bmm_f16_s2_async", "hand schedule: te batch_matmul_nkkm 8x256x256x256 f16, stage [0,0,1] async [0]"
       )(lambda: simt_bmm(stage=(0, 0, 1)))


def conv_nhwc(vec=8, stage=(0, 0, 2), async_stages=(0,), pad=1, inline_pad_into_copy=True):
    hw_in = 16 if pad else 18   # output 16x16 either way
    f = te.create_prim_func(te_workload.conv2d_nhwc(1, hw_in, hw_in, 64, 64, 3, 1, pad, in_dtype="float16",
                                                    out_dtype="float32"))
    sch = tvm.s_tir.Schedule(f)
    b = sch.get_sblock("conv2d_nhwc")
    n, h, w, co, rh, rw, rc = sch.get_loops(b)
    hw = sch.fuse(n, h, w)
    i0, i1, i2 = sch.split(hw, [None, 8, 4])       # 256 -> 8 blocks x 8 threads x 4
    j0, j1, j2 = sch.split(co, [None, 16, 4])      # 64 -> 1 x 16 threads x 4
    rc0, rc1 = sch.split(rc, [None, 16])
    sch.reorder(i0, j0, i1, j1, rh, rw, rc0, rc1, i2, j2)
    sch.bind(i0, "blockIdx.x")
    sch.bind(j0, "blockIdx.y")
    tx = sch.fuse(i1, j1)
    sch.bind(tx, "threadIdx.x")
    for idx in (0, 1):
        s = sch.cache_read(b, idx, "shared")
        sch.compute_at(s, rc0)
        loops = sch.get_loops(s)[-3:] if idx == 0 else sch.get_loops(s)[-2:]
        fused = sch.fuse(*loops)
        _, t, v = sch.split(fused, [None, 128, vec])
        sch.bind(t, "threadIdx.x")
        sch.vectorize(v)
    if inline_pad_into_copy:   # topi.nn.pad makes a PadInput stage even for pad 0
        sch.compute_inline(sch.get_sblock("PadInput"))
    sch.annotate(rc0, "software_pipeline_stage", list(stage))
    sch.annotate(rc0, "software_pipeline_order", [0, 1, 2])
    if async_stages is not None:
        sch.annotate(rc0, "software_pipeline_async_stages", list(async_stages))
    return sch.mod["main"]


kernel("conv2d_nhwc_pad1_s3_async_v1",
       "hand schedule: te conv2d_nhwc 1x16x16x64 -> 64, 3x3 pad 1, f16; pad inlined into the input's shared "
       "copy (if_then_else), copies vec 1, pipeline on the rc outer loop stage [0,0,2] async [0]"
       )(lambda: conv_nhwc(vec=1))
kernel("conv2d_nhwc_pad0_s3_async_v4",
       "hand schedule: te conv2d_nhwc 1x18x18x64 -> 64, 3x3 pad 0, f16, copies vec 4 (8 B), rc-outer pipeline "
       "stage [0,0,2] async [0]")(lambda: conv_nhwc(vec=4, pad=0))
kernel("conv2d_nhwc_pad1_s2_async_v1",
       "hand schedule: te conv2d_nhwc 1x16x16x64 -> 64, 3x3 pad 1, f16, pad inlined into copy, vec 1, stage [0,0,1] async [0]"
       )(lambda: conv_nhwc(vec=1, stage=(0, 0, 1)))


# ----------------------------------------------------------- 3. tensor-core GEMM: tvm.testing.tir.mma_schedule
def mma_gemm(n=1024, stage=(0, 0, 3), order=(0, 1, 2), async_stages=(0,), nested=False):
    from tvm.s_tir.tensor_intrin.cuda import (LDMATRIX_f16_A_DYN_INTRIN, LDMATRIX_f16_B_DYN_INTRIN,
                                              MMA_f16f16f32_INTRIN, MMA_fill_16x16_f32_INTRIN,
                                              MMA_store_16x16_f32_global_INTRIN,
                                              shared_16x16_to_ldmatrix_32x8_layout)
    from tvm.testing.tir import mma_schedule
    t = n // 16
    i_factors, j_factors, k_factors = [1, t // 8, 1, 4, 2], [t // 16, 2, 4, 1, 2], [t // 2, 2, 1]

    def index_map(i, j):
        return (i // 16, j // 16, *shared_16x16_to_ldmatrix_32x8_layout(i % 16, j % 16))

    workload = te.create_prim_func(te_workload.matmul(n, n, n, in_dtype="float16", out_dtype="float32"))
    sch = mma_schedule(workload, 16, "float16", False, i_factors, j_factors, k_factors, index_map,
                       index_map, index_map, LDMATRIX_f16_A_DYN_INTRIN, LDMATRIX_f16_B_DYN_INTRIN,
                       MMA_f16f16f32_INTRIN, MMA_fill_16x16_f32_INTRIN, MMA_store_16x16_f32_global_INTRIN,
                       "shared.dyn")
    k0 = sch.get_loops(sch.get_sblock("C_o_update"))[3]
    k1 = sch.get_loops(sch.get_sblock("C_o_update"))[4]
    sch.annotate(k0, "software_pipeline_stage", list(stage))
    sch.annotate(k0, "software_pipeline_order", list(order))
    if async_stages is not None:
        sch.annotate(k0, "software_pipeline_async_stages", list(async_stages))
    if nested:
        sch.annotate(k1, "software_pipeline_stage", [0, 0, 1])
        sch.annotate(k1, "software_pipeline_order", [0, 1, 2])
    return sch.mod["main"]


kernel("mma_gemm_s4_async",
       "upstream test_async_pipelined_mma_gemm_simple schedule (tvm.testing.tir.mma_schedule, ldmatrix + "
       "mma.sync, shared.dyn) at 1024^3: stage [0,0,3] order [0,1,2] async [0]")(lambda: mma_gemm())
kernel("mma_gemm_s3_async", "mma_schedule 1024^3, stage [0,0,2] async [0]"
       )(lambda: mma_gemm(stage=(0, 0, 2)))
kernel("mma_gemm_s2_async", "mma_schedule 1024^3, stage [0,0,1] async [0]"
       )(lambda: mma_gemm(stage=(0, 0, 1)))
kernel("mma_gemm_s3_sync", "mma_schedule 1024^3, stage [0,0,2], no async stages, use_async_copy=0", NOASYNC
       )(lambda: mma_gemm(stage=(0, 0, 2), async_stages=None))
kernel("mma_gemm_nested_async",
       "upstream test_async_nested_pipeline_mma_gemm_ideal_annotation schedule at 1024^3: k0 stage "
       "[0,0,2,3,3] order [0,1,3,2,4] async [0]; k1 stage [0,0,1] order [0,1,2]"
       )(lambda: mma_gemm(stage=(0, 0, 2, 3, 3), order=(0, 1, 3, 2, 4), nested=True))
kernel("mma_gemm_2048_s4_async", "mma_schedule 2048^3, stage [0,0,3] async [0]"
       )(lambda: mma_gemm(n=2048))


# ------------------------------------------------------------------ 4. upstream TVMScript inputs (tests)
def _upstream_vec_copy(dtype, vector_size):
    num_iters = 128 // vector_size
    vs = tvm.runtime.convert(vector_size)

    @T.prim_func
    def ptx_global_to_shared_copy(A: T.Buffer((32, 128), dtype), B: T.Buffer((32, 128), dtype)) -> None:
        T.func_attr({"global_symbol": "main", "tirx.noalias": True})
        bx = T.env_thread("blockIdx.x")
        tx = T.env_thread("threadIdx.x")
        T.launch_thread(bx, 1)
        T.launch_thread(tx, 32)
        with T.sblock():
            A_shared = T.sblock_alloc_buffer([32, 128], dtype, scope="shared")
            T.reads(A[0:32, 0:128])
            T.writes(B[0:32, 0:128])
            T.attr("default", "async_scope", 1)
            for i in T.serial(num_iters):
                for j in T.vectorized(vector_size):
                    A_shared[tx, i * vs + j] = A[tx, i * vs + j]
            T.evaluate(T.ptx_commit_group())
            T.evaluate(T.ptx_wait_group(0))
            for i in range(128):
                B[tx, i] = A_shared[tx, i]

    return ptx_global_to_shared_copy


for _dt, _vs in (("float16", 8), ("float16", 4), ("float32", 4), ("float32", 1)):
    kernel(f"upstream_copy_{_dt}x{_vs}",
           f"upstream test_inject_async_copy TVMScript (async_scope + explicit T.ptx_commit_group / "
           f"T.ptx_wait_group(0)), {_dt} x {_vs}")(lambda _dt=_dt, _vs=_vs: _upstream_vec_copy(_dt, _vs))


@T.prim_func
def _upstream_dyn_copy(A: T.Buffer((32, 128), "float16"), B: T.Buffer((32, 128), "float16"),
                       C: T.Buffer((32, 128), "float16")) -> None:
    T.func_attr({"global_symbol": "main", "tirx.noalias": True})
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 1)
    T.launch_thread(tx, 32)
    with T.sblock():
        A_shared = T.sblock_alloc_buffer([32, 128], "float16", scope="shared.dyn")
        B_shared = T.sblock_alloc_buffer([32, 128], "float16", scope="shared.dyn")
        T.reads(A[0:32, 0:128], B[0:32, 0:128])
        T.writes(C[0:32, 0:128])
        T.attr("default", "async_scope", 1)
        for i in T.serial(16):
            for j in T.vectorized(8):
                A_shared[tx, i * 8 + j] = A[tx, i * 8 + j]
                B_shared[tx, i * 8 + j] = B[tx, i * 8 + j]
        T.evaluate(T.ptx_commit_group())
        T.evaluate(T.ptx_wait_group(0))
        for i in range(128):
            C[tx, i] = A_shared[tx, i] + B_shared[tx, i]


kernel("upstream_dyn_copy_f16x8", "upstream test_inject_async_copy_shared_dyn TVMScript (two shared.dyn "
       "buffers merged by MergeSharedMemoryAllocations)")(lambda: _upstream_dyn_copy)


@T.prim_func
def _upstream_if_then_else(A: T.Buffer((16, 14), "float32"), B: T.Buffer((16, 14), "float32"),
                           C: T.Buffer((16, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tirx.noalias": True})
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(16, annotations={"software_pipeline_stage": [0, 0, 3],
                                           "software_pipeline_order": [0, 2, 1],
                                           "software_pipeline_async_stages": [0]}):
            with T.sblock("compute"):
                T.reads(A[tx, i])
                T.writes(C[tx, i])
                A_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                B_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(A_shared[tx, 0])
                    A_shared[tx, 0] = T.if_then_else(1 <= i and i < 15, A[tx, i - 1], T.float32(0),
                                                     dtype="float32")
                with T.sblock():
                    T.reads(B[tx, i])
                    T.writes(B_shared[tx, 0])
                    B_shared[tx, 0] = T.if_then_else(1 <= i and i < 15, B[tx, i - 1], T.float32(0),
                                                     dtype="float32")
                with T.sblock():
                    T.reads(A_shared[tx, 0], B_shared[tx, 0])
                    T.writes(C[tx, i])
                    C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]


kernel("upstream_cp_async_in_if_then_else", "upstream test_cp_async_in_if_then_else TVMScript "
       "(stage [0,0,3] order [0,2,1] async [0], if_then_else copies -> predicated cp.async)"
       )(lambda: _upstream_if_then_else)


def _gen_simple_compute(num_stages):
    @T.prim_func
    def simple_compute(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
            for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, num_stages],
                                                  "software_pipeline_order": [0, 1]}):
                with T.sblock("compute"):
                    T.reads(A[tx, i])
                    T.writes(C[tx, i])
                    B = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                    with T.sblock():
                        T.reads(A[tx, i])
                        T.writes(B[tx, 0])
                        B[tx, 0] = A[tx, i] * T.float32(2)
                    with T.sblock():
                        T.reads(B[tx, 0])
                        T.writes(C[tx, i])
                        C[tx, i] = B[tx, 0] + T.float32(1)
    return simple_compute


def _simple_compute_async(num_stages):
    sch = tvm.s_tir.Schedule(_gen_simple_compute(num_stages))
    _, loop = sch.get_loops(sch.get_sblock("compute"))
    sch.annotate(loop, "software_pipeline_async_stages", [0])
    return sch.mod["main"]


kernel("upstream_simple_compute_async_s1", "upstream test_simple_compute_async (gen_simple_compute(1) + "
       "async_stages [0]); its B = A * 2 store is not a plain copy")(lambda: _simple_compute_async(1))
kernel("upstream_simple_compute_async_s3", "upstream test_simple_compute_async second case "
       "(gen_simple_compute(3) + async_stages [0])")(lambda: _simple_compute_async(3))


@T.prim_func
def _producer_interleaving(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
                           C: T.Buffer((16, 16), "float32")):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in range(16):
            with T.sblock("compute"):
                T.reads(A[tx, i])
                T.writes(C[tx, i])
                A_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                B_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(A_shared[tx, 0])
                    A_shared[tx, 0] = A[tx, i]
                with T.sblock():
                    T.reads(B[tx, i])
                    T.writes(B_shared[tx, 0])
                    B_shared[tx, 0] = B[tx, i]
                with T.sblock():
                    T.reads(A_shared[tx, 0], B_shared[tx, 0])
                    T.writes(C[tx, i])
                    C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]


def _producer_interleaving_sched():
    sch = tvm.s_tir.Schedule(_producer_interleaving)
    _, loop = sch.get_loops(sch.get_sblock("compute"))
    sch.annotate(loop, "software_pipeline_stage", [0, 0, 3])
    sch.annotate(loop, "software_pipeline_order", [0, 2, 1])
    sch.annotate(loop, "software_pipeline_async_stages", [0])
    return sch.mod["main"]


kernel("upstream_async_producer_interleaving", "upstream test_async_producer_interleaving "
       "(stage [0,0,3] order [0,2,1] async [0], 4 B copies)")(_producer_interleaving_sched)


@T.prim_func
def _three_stage_compute(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1, 2],
                                              "software_pipeline_order": [0, 1, 2]}):
            with T.sblock("compute"):
                T.reads(A[tx, i])
                T.writes(D[tx, i])
                B = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                C = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(B[tx, 0])
                    B[tx, 0] = A[tx, i] * T.float32(2)
                with T.sblock():
                    T.reads(B[tx, 0])
                    T.writes(C[tx, 0])
                    C[tx, 0] = B[tx, 0] + T.float32(2)
                with T.sblock():
                    T.reads(C[tx, 0])
                    T.writes(D[tx, i])
                    D[tx, i] = C[tx, 0] + T.float32(1)


def _three_stage_two_async():
    sch = tvm.s_tir.Schedule(_three_stage_compute)
    _, loop = sch.get_loops(sch.get_sblock("compute"))
    sch.annotate(loop, "software_pipeline_async_stages", [0, 1])
    return sch.mod["main"]


kernel("upstream_three_stage_two_stage_async", "upstream test_three_stage_compute_two_stage_async "
       "(async_stages [0, 1]: commit queues 0 and 1)")(_three_stage_two_async)
kernel("upstream_three_stage_sync", "upstream three_stage_compute (stage [0,1,2], no async)", NOASYNC
       )(lambda: _three_stage_compute)


# -------------------------------------------------------------------------------------------- 5. dlight
def _dlight(func, *rules):
    mod = tvm.IRModule({"main": func.with_attr("global_symbol", "main")})
    with Target(TARGET):
        mod = dl.ApplyDefaultSchedule(*rules)(mod)
    return mod


def _add_async(mod, stages=(0,)):
    """Add software_pipeline_async_stages to every loop dlight annotated with software_pipeline_stage."""
    def post(stmt):
        if isinstance(stmt, tirx.For) and "software_pipeline_stage" in stmt.annotations:
            ann = dict(stmt.annotations)
            if "software_pipeline_async_stages" not in ann:
                ann["software_pipeline_async_stages"] = list(stages)
            return tirx.For(stmt.loop_var, stmt.min, stmt.extent, stmt.kind, stmt.body, stmt.thread_binding,
                            ann)
        return None
    f = mod["main"]
    f = f.with_body(tirx.stmt_functor.ir_transform(f.body, None, post, ["tirx.For"]))
    return tvm.IRModule({"main": f})


def _te(*tensors):
    return te.create_prim_func(list(tensors))


def _mm(n, m, k, dt, odt):
    return te.create_prim_func(te_workload.matmul(n, m, k, in_dtype=dt, out_dtype=odt))


kernel("dlight_matmul_f16_tensorcore", "dlight ApplyDefaultSchedule(gpu.Matmul) on te matmul 1024^3 "
       "f16->f32, sm_80 (MatmulTensorization: wmma, shared.dyn, software pipeline without async stages)"
       )(lambda: _dlight(_mm(1024, 1024, 1024, "float16", "float32"), dl.gpu.Matmul()))
kernel("dlight_matmul_f16_tensorcore_plus_async", "dlight gpu.Matmul (as dlight_matmul_f16_tensorcore) "
       "then software_pipeline_async_stages [0] added to its pipelined loops, use_async_copy=1"
       )(lambda: _add_async(_dlight(_mm(1024, 1024, 1024, "float16", "float32"), dl.gpu.Matmul())))
kernel("dlight_matmul_f32_simt", "dlight gpu.Matmul on te matmul 1024^3 f32 (SIMT rule, shared memory)"
       )(lambda: _dlight(_mm(1024, 1024, 1024, "float32", "float32"), dl.gpu.Matmul()))
kernel("dlight_matmul_f16_f16out", "dlight gpu.Matmul on te matmul 512x1024x768 f16->f16"
       )(lambda: _dlight(_mm(512, 1024, 768, "float16", "float16"), dl.gpu.Matmul()))


def _row_sum(n=256, m=4096):
    a = te.placeholder((n, m), "float32", name="A")
    k = te.reduce_axis((0, m), "k")
    return _te(a, te.compute((n,), lambda i: te.sum(a[i, k], axis=k), name="S"))


def _softmax(n=128, m=2048):
    a = te.placeholder((n, m), "float32", name="A")
    return _te(a, topi.nn.softmax(a))


def _gemv(n=4096, k=4096):
    a = te.placeholder((n, k), "float16", name="W")
    x = te.placeholder((1, k), "float16", name="x")
    r = te.reduce_axis((0, k), "k")
    return _te(a, x, te.compute((1, n), lambda b, i: te.sum(a[i, r].astype("float32")
                                                            * x[b, r].astype("float32"), axis=r), name="y"))


def _transpose(n=1024, m=2048):
    a = te.placeholder((n, m), "float32", name="A")
    return _te(a, te.compute((m, n), lambda i, j: a[j, i], name="T_transpose"))


def _rmsnorm(n=64, m=4096):
    a = te.placeholder((n, m), "float16", name="A")
    w = te.placeholder((m,), "float16", name="W")
    k = te.reduce_axis((0, m), "k")
    sq = te.compute((n,), lambda i: te.sum(a[i, k].astype("float32") * a[i, k].astype("float32"), axis=k),
                    name="sq")
    out = te.compute((n, m), lambda i, j: (a[i, j].astype("float32") / te.sqrt(sq[i] / m + 1e-5)
                                           ).astype("float16") * w[j], name="rms_norm")
    return _te(a, w, out)


kernel("dlight_reduction_rowsum", "dlight gpu.Reduction on te row sum 256x4096 f32 (cross-thread "
       "allreduce -> shuffles + shared memory)", NOASYNC)(lambda: _dlight(_row_sum(), dl.gpu.Reduction()))
kernel("dlight_general_reduction_softmax", "dlight gpu.GeneralReduction on topi.nn.softmax 128x2048 f32",
       NOASYNC)(lambda: _dlight(_softmax(), dl.gpu.GeneralReduction()))
kernel("dlight_gemv_f16", "dlight gpu.GEMV on te gemv (1x4096) x (4096x4096)^T f16->f32", NOASYNC
       )(lambda: _dlight(_gemv(), dl.gpu.GEMV()))
kernel("dlight_transpose", "dlight gpu.Transpose on te transpose 1024x2048 f32 (shared tile)", NOASYNC
       )(lambda: _dlight(_transpose(), dl.gpu.Transpose()))
kernel("dlight_rmsnorm", "dlight gpu.RMSNorm on te rms norm 64x4096 f16", NOASYNC
       )(lambda: _dlight(_rmsnorm(), dl.gpu.RMSNorm()))
kernel("dlight_fallback_rmsnorm", "dlight gpu.Fallback on te rms norm 64x4096 f16 (two kernels)", NOASYNC
       )(lambda: _dlight(_rmsnorm(), dl.gpu.Fallback()))


# ----------------------------------------------------------------------------- 6. hand reductions
def _hand_allreduce(threads=256, m=4096, two_level=False):
    f = _row_sum(256, m)
    sch = tvm.s_tir.Schedule(f)
    b = sch.get_sblock("S")
    i, k = sch.get_loops(b)
    sch.bind(i, "blockIdx.x")
    ko, ki = sch.split(k, [None, threads])
    sch.bind(ki, "threadIdx.x")
    return sch.mod["main"]


kernel("hand_allreduce_256", "hand schedule: te row sum 256x4096, reduce axis split and bound to "
       "threadIdx.x 256 (LowerCrossThreadReduction + LowerThreadAllreduce)", NOASYNC
       )(lambda: _hand_allreduce(256))
kernel("hand_allreduce_1024", "hand schedule: te row sum, reduce axis bound to threadIdx.x 1024", NOASYNC
       )(lambda: _hand_allreduce(1024))
kernel("hand_allreduce_48", "hand schedule: te row sum 256x4032, reduce axis bound to threadIdx.x 48 "
       "(not a multiple of the warp size)", NOASYNC)(lambda: _hand_allreduce(48, m=4032))


def _shared_stencil():
    """1D 3-point stencil: tile loaded to shared memory by all threads, then read by neighbours."""
    n = 4096
    a = te.placeholder((n + 2,), "float32", name="A")
    out = te.compute((n,), lambda i: a[i] + a[i + 1] + a[i + 2], name="B")
    sch = tvm.s_tir.Schedule(_te(a, out))
    b = sch.get_sblock("B")
    (i,) = sch.get_loops(b)
    i0, i1 = sch.split(i, [None, 128])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    s = sch.cache_read(b, 0, "shared")
    sch.compute_at(s, i0)
    (l,) = sch.get_loops(s)[-1:]
    lo, li = sch.split(l, [None, 128])
    sch.bind(li, "threadIdx.x")
    return sch.mod["main"]


kernel("hand_stencil_shared", "hand schedule: te 1D 3-point stencil, input tile (130 floats) cache_read "
       "to shared by 128 threads then read by neighbours (ThreadSync inserts the barrier)", NOASYNC
       )(_shared_stencil)


# --------------------------------------------------------------------------------------------- driver
def main(argv):
    os.makedirs(CUDA_DIR, exist_ok=True)
    manifest_path = os.path.join(OUT, "MANIFEST.json")
    manifest = {}
    if argv and os.path.exists(manifest_path):
        manifest = json.load(open(manifest_path))
    for name, how, builder, config in KERNELS:
        if argv and not any(a in name for a in argv):
            continue
        rec = {"how": how, "config": config}
        t0 = time.time()
        try:
            target, dev = lower_device(builder(), config)
        except Exception as e:  # noqa: BLE001
            lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
            rec.update(status="lowering-failed", why=(lines[-1] if lines else repr(e))[:400])
            traceback.print_exc(limit=2)
            print(f"{name}: FAILED {rec['why']}", file=sys.stderr)
            manifest[name] = rec
            continue
        rec["lower_s"] = round(time.time() - t0, 2)
        err, src = codegen(dev, target, config)
        rec["codegen"] = "ok" if err is None else "refused: " + err
        if src is not None:
            with open(os.path.join(CUDA_DIR, name + ".cu"), "w") as fh:
                fh.write(src)
        files = []
        funcs = sorted(dev.functions.items(), key=lambda kv: kv[0].name_hint)
        for gv, func in funcs:
            fname = name if len(funcs) == 1 else f"{name}__{gv.name_hint}"
            text = tvm.IRModule({gv: func}).script()
            cfg = json.dumps(config, sort_keys=True)
            head = (f"# made by corpus/unseen_tvm/lower_tvm.py with TVM 0.25.dev0 as bundled by tilelang 0.1.15 "
                    f"(not TileLang's lowering): {how}; s_tir pipeline + finalize_device_passes, target "
                    f"cuda sm_80, PassContext {cfg}; device function {gv.name_hint}\n")
            with open(os.path.join(OUT, fname + ".tir"), "w") as fh:
                fh.write(head + text)
            files.append(fname + ".tir")
        rec.update(status="ok", files=files)
        manifest[name] = rec
        print(f"{name}: {len(files)} device function(s), codegen {rec['codegen']}", flush=True)
    with open(manifest_path, "w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
