"""Lower the TileLang kernels of corpus/trackers (synchronization bugs reported on TileLang's tracker) with
tilelang 0.1.15 on the CPU, and write NAME.tir for each buggy kernel and its fixed counterpart.

Usage (regenerates every TileLang .tir of this folder; the CUDA transcriptions are hand-written and kept):
    . /work/tl-venv/bin/activate
    nice -n 15 python corpus/trackers/lower_trackers.py [--only SUBSTR]

Each kernel is the issue's own reproducer (MANIFEST.md says where a part of it had to be completed). Where
0.1.15 already lowers the reproducer correctly (the fix landed before the release), the buggy TIR is the
0.1.15 output with exactly the change the fix reverted applied back, as a literal one-line replacement that
must match once (RECONSTRUCT below): the MANIFEST cites the fix commit and the lines it touched. The device
TIR is `str(device_mod)` of `tilelang.lower` (asyncguard.frontends.tilelang_lower.lower_device), as
`asyncguard check kernel.py` would check it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from lowering import lower_device, write_text  # noqa: E402

import tilelang.language as T  # noqa: E402


def tl2613_ws_copy_gemm(fixed: bool):
    """tile-ai/tilelang#2613: examples/warp_specialize/example_warp_specialize_gemm_copy_gemm_0_1.py as a
    prim_func, with the issue's K=128 (two K tiles, so A_shared is reused). `fixed`: the loop-back
    barrier the issue says is missing, written by hand as T.sync_threads() at the top of the loop."""
    M, N, K = 128, 128, 128
    block_M, block_N, block_K = 128, 128, 64
    dtype, accum = T.float16, T.float32
    wgn = 2

    @T.prim_func
    def matmul(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128 * wgn) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype, "shared")
            B_shared_g0 = T.alloc_shared((block_K, block_N // wgn), dtype, "shared")
            B_shared_g1 = T.alloc_shared((block_K, block_N // wgn), dtype, "shared")
            C_local_g0 = T.alloc_fragment((block_M, block_N // wgn), accum)
            C_local_g1 = T.alloc_fragment((block_M, block_N // wgn), accum)
            with T.ws(1):
                T.clear(C_local_g1)
            with T.ws(0):
                T.clear(C_local_g0)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=0):
                if fixed:
                    T.sync_threads()
                T.copy(A[by * block_M, ko * block_K], A_shared)
                with T.ws(1):
                    T.copy(B[ko * block_K, bx * block_N], B_shared_g1)
                    T.gemm(A_shared, B_shared_g1, C_local_g1)
                with T.ws(0):
                    T.copy(B[ko * block_K, bx * block_N + block_N // wgn], B_shared_g0)
                    T.gemm(A_shared, B_shared_g0, C_local_g0)
            with T.ws(1):
                T.copy(C_local_g1, C[by * block_M, bx * block_N])
            with T.ws(0):
                T.copy(C_local_g0, C[by * block_M, bx * block_N + block_N // wgn])

    return matmul


def tl2566_gemv_1iter():
    """tile-ai/tilelang#2566 (comment by xiaguan, 2026-08-12): a split-K GEMV whose pipelined loop has one
    iteration. The issue's excerpt ends inside the first T.copy; the rest of the body (the X copy, the
    dot product, the store of P) is completed here in the obvious way."""
    N, BK, BN = 4096, 64, 256

    @T.prim_func
    def gemv_1iter(X: T.Tensor((BK,), "bfloat16"), W: T.Tensor((BK, N), "bfloat16"), P: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, BN), threads=256) as bx:
            Ws = T.alloc_shared((BK, BN), "bfloat16")
            Xs = T.alloc_shared((BK,), "bfloat16")
            acc = T.alloc_fragment((BN,), "float32")
            T.clear(acc)
            for ko in T.Pipelined(1, num_stages=1):
                T.copy(W[ko * BK:(ko + 1) * BK, bx * BN:(bx + 1) * BN], Ws)
                T.copy(X[ko * BK:(ko + 1) * BK], Xs)
                for j in T.Parallel(BN):
                    for k in T.serial(BK):
                        acc[j] += T.cast(Xs[k], "float32") * T.cast(Ws[k, j], "float32")
            T.copy(acc, P[bx * BN:(bx + 1) * BN])

    return gemv_1iter


def tl2668_pipelined_war(num_stages: int):
    """tile-ai/tilelang#2668: the issue's reproducer, TRIGGER branch (read S, then overwrite it with the
    next tile). num_stages=2 is the miscompiled case; num_stages=0 is the issue's reference."""
    W, NK = 32, 8

    @T.prim_func
    def main(A: T.Tensor((NK, W), "int32"), Sinit: T.Tensor((W,), "int32"), Out: T.Tensor((W,), "int32")):
        with T.Kernel(1, threads=W) as _:
            S = T.alloc_shared((W,), "int32")
            acc = T.alloc_fragment((W,), "int32")
            T.clear(acc)
            for i in T.Parallel(W):
                S[i] = Sinit[i]
            for k in T.Pipelined(NK, num_stages=num_stages):
                for i in T.Parallel(W):
                    acc[i] += S[i]
                T.copy(A[k, :], S)
            for i in T.Parallel(W):
                Out[i] = acc[i]

    return main


def tl2927_copy_cluster_per_stage_barrier():
    """tile-ai/tilelang#2927: T.copy_cluster(..., cluster_mask=..., remote_barrier=bar[s]) inside
    `for s in range(4)`, a different mbarrier per iteration (each completes one phase). The issue gives
    the lowered wait (`bar[s].wait((s & 1))`), not a full program: this kernel is written after
    testing/python/cuda/test_tma_multicast_demo.py (a 2-CTA cluster, rank 0 multicasting), with one
    shared stage per barrier so that nothing but the parity is wrong."""
    M, N, block_M, block_N, S = 1024, 1024, 64, 64, 4

    @T.prim_func
    def kernel(A: T.Tensor((S, M, N), "float16"), B: T.Tensor((S, M, N), "float16")):
        with T.ClusterKernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128,
                             cluster_dims=(2, 1, 1)) as (bx, by):
            A_shared = T.alloc_shared((S, block_M, block_N), "float16")
            bar = T.alloc_cluster_barrier([1] * S)
            for s in range(S):
                T.copy_cluster(A[s, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N],
                               A_shared[s, :, :], cluster_mask=0b11, remote_barrier=bar[s])
                T.copy(A_shared[s, :, :], B[s, by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N])

    return kernel


def tl3087_sync_gemm_explicit_mbar():
    """tile-ai/tilelang#3087 (the PR describes the bug; no separate issue): a synchronous
    T.gemm(..., mbar=mbar) inside T.Pipelined(num_stages=3) on Blackwell. Written after
    testing/python/kernel/test_tilelang_kernel_int8_gemm_tcgen5.py (matmul_nt, one explicit mbarrier) with
    its T.tcgen05_gemm + T.mbarrier_wait_parity replaced by the synchronous T.gemm(mbar=...) the PR names,
    bf16 operands (int8 selects the weight-stationary tcgen05.mma.ws form, which asyncguard does not model),
    3 stages (the PR saw wrong results at num_stages >= 3), warp specialization disabled as in that test."""
    M, N, K, bM, bN, bK = 256, 256, 512, 128, 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), T.bfloat16), B: T.Tensor((N, K), T.bfloat16), C: T.Tensor((M, N), T.bfloat16)):
        with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=256) as (bx, by):
            A_shared = T.alloc_shared((bM, bK), T.bfloat16)
            B_shared = T.alloc_shared((bN, bK), T.bfloat16)
            C_tmem = T.alloc_tmem((bM, bN), T.float32)
            mbar = T.alloc_barrier(1)
            C_local = T.alloc_fragment((bM, bN), T.float32)
            C_shared = T.alloc_shared((bM, bN), T.bfloat16)
            for k in T.Pipelined(T.ceildiv(K, bK), num_stages=3):
                T.copy(A[by * bM, k * bK], A_shared)
                T.copy(B[bx * bN, k * bK], B_shared)
                T.gemm(A_shared, B_shared, C_tmem, transpose_B=True, mbar=mbar, clear_accum=k == 0)
            T.copy(C_tmem, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * bM, bx * bN])

    return main


NO_WS = {"tl.disable_warp_specialized": True}

# name -> (factory, arch, [(old line, new line)] applied to the 0.1.15 TIR, each matching exactly once[, pass configs])
KERNELS = {
    "tilelang2613_ws_copy_gemm_shared_operand_sm90a": (lambda: tl2613_ws_copy_gemm(False), "sm_90a", []),
    "tilelang2613_ws_copy_gemm_shared_operand_sm90a_fixed": (lambda: tl2613_ws_copy_gemm(True), "sm_90a", []),
    # The fix (tile-ai/tilelang#2737, commit dff136d4, src/cuda/op/copy.cc LowerBulk1D) made the 1D bulk
    # copy honour `emit_arrive`; its arrive is fused with the expect_tx into ptx_arrive_barrier_expect_tx.
    # Before it, the 1D copy's forward barrier got the bare expect_tx and no arrive.
    "tilelang2566_ws_single_iteration_bulk1d_sm90a": (tl2566_gemv_1iter, "sm_90a", [
        ("T.ptx_arrive_barrier_expect_tx(mbarrier_1[0], 128)", "T.mbarrier_expect_tx(mbarrier_1[0], 128)")]),
    "tilelang2566_ws_single_iteration_bulk1d_sm90a_fixed": (tl2566_gemv_1iter, "sm_90a", []),
    "tilelang2668_pipelined_read_then_overwrite_sm80": (lambda: tl2668_pipelined_war(2), "sm_80", []),
    "tilelang2668_pipelined_read_then_overwrite_sm80_fixed": (lambda: tl2668_pipelined_war(0), "sm_80", []),
    "tilelang2927_copy_cluster_loop_parity_sm90a": (tl2927_copy_cluster_per_stage_barrier, "sm_90a", []),
    # The fix the issue asks for: the parity of the barrier's own phase history (each bar[s] completes
    # exactly one phase, so parity 0), not the loop iteration's.
    "tilelang2927_copy_cluster_loop_parity_sm90a_fixed": (tl2927_copy_cluster_per_stage_barrier, "sm_90a", [
        ("T.mbarrier_wait_parity(bar_1[s], s % 2)", "T.mbarrier_wait_parity(bar_1[s], 0)")]),
    # The fix (tile-ai/tilelang#3087, InjectSoftwarePipeline) annotates the gemm's auto-emitted wait with the
    # logical iteration parity (k - min) % 2; before it, with the ring parity (k / num_stages) % 2, specialised
    # per clone: k // 3 % 2 in the main loop (k = 0..5) and 6 // 3 % 2 = 0, 7 // 3 % 2 = 0 in the two epilogue
    # clones (0.1.15 prints k % 2, 0 and 1). Only the last epilogue wait and the loop's wait change.
    "tilelang3087_sync_gemm_explicit_mbar_parity_sm100a": (tl3087_sync_gemm_explicit_mbar, "sm_100a", [
        ("T.mbarrier_wait_parity(mbar_1[0], k % 2)", "T.mbarrier_wait_parity(mbar_1[0], k // 3 % 2)"),
        ("T.mbarrier_wait_parity(mbar_1[0], 1)", "T.mbarrier_wait_parity(mbar_1[0], 0)")], NO_WS),
    "tilelang3087_sync_gemm_explicit_mbar_parity_sm100a_fixed": (tl3087_sync_gemm_explicit_mbar, "sm_100a", [], NO_WS),
}


def reconstruct(tir: str, edits) -> str:
    for old, new in edits:
        if tir.count(old) != 1:
            raise SystemExit(f"expected exactly one {old!r} in the 0.1.15 TIR, found {tir.count(old)}")
        tir = tir.replace(old, new)
    return tir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="lower only the kernels whose name has this")
    args = ap.parse_args()
    for name, (factory, arch, edits, *configs) in KERNELS.items():
        if args.only and not any(s in name for s in args.only):
            continue
        lowered = lower_device(factory(), arch, configs[0] if configs else {})
        if lowered.codegen_error is not None:
            raise SystemExit(f"{name}: CUDA codegen failed: {lowered.codegen_error}")
        write_text(os.path.join(HERE, name + ".tir"), reconstruct(lowered.tir, edits))
        print(name, "written")


if __name__ == "__main__":
    main()
