"""Lower TileLang kernels to device TIR on a CPU (no GPU needed) for the asyncguard corpus.

Usage:  . /work/tl-venv/bin/activate && python corpus/lower_kernels.py [--out corpus/real] [--only SUBSTR ...]

Each kernel NAME produces NAME.tir (str(artifact.device_mod)) and NAME.cu (artifact.kernel_source).
Kernels are defined here (TileLang reads their source with `inspect`, so they must live in a file).
"""
import argparse
import json
import os
import sys
import traceback

import tilelang
import tilelang.language as T

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lowering import lower_device, write_text  # noqa: E402

# --------------------------------------------------------------------------------------------
# GEMM
# --------------------------------------------------------------------------------------------


def gemm(M, N, K, block_M, block_N, block_K, num_stages, threads, dtype="float16", accum_dtype="float32",
         smem_epilogue=False):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    @T.prim_func
    def main_smem_epi(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main_smem_epi if smem_epilogue else main


def gemm_dynamic_k(M, N, block_M, block_N, block_K, num_stages, threads, dtype="float16", accum_dtype="float32"):
    K = T.dynamic("K")

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main



# --------------------------------------------------------------------------------------------
# Flash attention forward (after examples/flash_attention/example_mha_fwd_bshd.py)
# --------------------------------------------------------------------------------------------


def flashattn(batch, heads, seq_len, dim, is_causal, block_M=64, block_N=64, num_stages=1, threads=128,
              accum_dtype="float32"):
    # accum_dtype=T.float (as in the upstream example) only changes the spelling T.infinity("float")
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e)
    shape = [batch, seq_len, heads, dim]
    dtype = "float16"

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dtype),
        K: T.Tensor(shape, dtype),
        V: T.Tensor(shape, dtype),
        Output: T.Tensor(shape, dtype),
    ):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([block_M, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (
                T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                if is_causal else T.ceildiv(seq_len, block_N))

            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(K[bz, k * block_N:(k + 1) * block_N, by, :], K_shared)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, 0,
                                                     -T.infinity(acc_s.dtype))
                else:
                    T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)

                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]

                T.copy(V[bz, k * block_N:(k + 1) * block_N, by, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main


# --------------------------------------------------------------------------------------------
# Reductions / softmax / norms / copies
# --------------------------------------------------------------------------------------------


def reduce_rows_shared(M, N, block_M, threads, op="sum"):
    """Row reduction: global -> shared -> fragment -> reduce along dim 1 -> global."""
    dtype = "float32"

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            X_shared = T.alloc_shared((block_M, N), dtype)
            X_frag = T.alloc_fragment((block_M, N), dtype)
            s = T.alloc_fragment((block_M,), dtype)
            T.copy(X[bx * block_M, 0], X_shared)
            T.copy(X_shared, X_frag)
            if op == "sum":
                T.reduce_sum(X_frag, s, dim=1)
            else:
                T.reduce_max(X_frag, s, dim=1)
            T.copy(s, Y[bx * block_M])

    return main


def reduce_sum_sample(M, N, block_M, threads):
    """reduce_rows_shared(op="sum") with the buffer names of shared/corpus-samples/reduce_sum_shared_sm80."""
    dtype = "float32"

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            X_shared = T.alloc_shared((block_M, N), dtype)
            s = T.alloc_fragment((block_M,), dtype)
            T.copy(X[bx * block_M, 0], X_shared)
            X_shared_frag = T.alloc_fragment((block_M, N), dtype)
            T.copy(X_shared, X_shared_frag)
            T.reduce_sum(X_shared_frag, s, dim=1)
            T.copy(s, Y[bx * block_M])

    return main


def reduce_rows_to_shared(M, N, block_M, threads, op="sum"):
    """Row reduction whose result goes through a shared buffer before the global store."""
    dtype = "float32"

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            X_shared = T.alloc_shared((block_M, N), dtype)
            X_frag = T.alloc_fragment((block_M, N), dtype)
            s = T.alloc_fragment((block_M,), dtype)
            s_shared = T.alloc_shared((block_M,), dtype)
            T.copy(X[bx * block_M, 0], X_shared)
            T.copy(X_shared, X_frag)
            if op == "sum":
                T.reduce_sum(X_frag, s, dim=1)
            else:
                T.reduce_max(X_frag, s, dim=1)
            T.copy(s, s_shared)
            T.copy(s_shared, Y[bx * block_M])

    return main


def reduce_cols_shared(M, N, block_N, threads):
    """Column reduction (dim=0): shared tile read in a layout different from the one written."""
    dtype = "float32"

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            X_shared = T.alloc_shared((M, block_N), dtype)
            X_frag = T.alloc_fragment((M, block_N), dtype)
            s = T.alloc_fragment((block_N,), dtype)
            T.copy(X[0, bx * block_N], X_shared)
            T.copy(X_shared, X_frag)
            T.reduce_sum(X_frag, s, dim=0)
            T.copy(s, Y[bx * block_N])

    return main


def softmax_rows(M, N, block_M, threads):
    dtype = "float16"
    accum_dtype = "float32"
    scale = 1.44269504  # log2(e)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            X_shared = T.alloc_shared((block_M, N), dtype)
            Y_shared = T.alloc_shared((block_M, N), dtype)
            x = T.alloc_fragment((block_M, N), accum_dtype)
            mx = T.alloc_fragment((block_M,), accum_dtype)
            sm = T.alloc_fragment((block_M,), accum_dtype)
            T.copy(X[bx * block_M, 0], X_shared)
            T.copy(X_shared, x)
            T.reduce_max(x, mx, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = T.exp2(x[i, j] * scale - mx[i] * scale)
            T.reduce_sum(x, sm, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] / sm[i]
            T.copy(x, Y_shared)
            T.copy(Y_shared, Y[bx * block_M, 0])

    return main


def online_softmax_rows(M, N, block_M, block_N, threads, num_stages):
    """Two-pass online softmax streaming the row in block_N chunks through a pipelined shared tile."""
    dtype = "float16"
    accum_dtype = "float32"
    scale = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            X_shared = T.alloc_shared((block_M, block_N), dtype)
            x = T.alloc_fragment((block_M, block_N), accum_dtype)
            mx = T.alloc_fragment((block_M,), accum_dtype)
            mx_prev = T.alloc_fragment((block_M,), accum_dtype)
            lsum = T.alloc_fragment((block_M,), accum_dtype)
            csum = T.alloc_fragment((block_M,), accum_dtype)
            T.fill(mx, -T.infinity(accum_dtype))
            T.fill(lsum, 0)
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
                T.copy(X[bx * block_M, k * block_N], X_shared)
                T.copy(X_shared, x)
                T.copy(mx, mx_prev)
                T.reduce_max(x, mx, dim=1, clear=False)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp2(x[i, j] * scale - mx[i] * scale)
                T.reduce_sum(x, csum, dim=1)
                for i in T.Parallel(block_M):
                    lsum[i] = lsum[i] * T.exp2(mx_prev[i] * scale - mx[i] * scale) + csum[i]
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
                T.copy(X[bx * block_M, k * block_N], X_shared)
                T.copy(X_shared, x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp2(x[i, j] * scale - mx[i] * scale) / lsum[i]
                T.copy(x, Y[bx * block_M, k * block_N])

    return main


def rms_norm_splitk(M, N, blk_m, blk_k, threads):
    """After examples/norm/rms_norm.py (rms_norm_splitk): shared tile read, scaled in place, written back."""
    dtype = "float32"

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
            A_shared = T.alloc_shared((blk_m, blk_k), dtype)
            A_local = T.alloc_fragment((blk_m, blk_k), dtype)
            A_powsum = T.alloc_fragment((blk_m,), dtype)
            num_k_step = T.ceildiv(N, blk_k)
            T.clear(A_local)
            for k in T.serial(num_k_step):
                T.copy(A[bx * blk_m, k * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_local[i, j] += A_shared[i, j] * A_shared[i, j]
            T.reduce_sum(A_local, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)
            for k in T.serial(num_k_step):
                T.copy(A[bx * blk_m, (num_k_step - 1 - k) * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_shared[i, j] *= A_powsum[i]
                T.copy(A_shared, B[bx * blk_m, (num_k_step - 1 - k) * blk_k])

    return main


def rms_norm_full(M, N, blk_m, threads):
    """After examples/norm/rms_norm.py (rms_norm): whole row in registers, staged through shared."""
    dtype = "float16"
    accum_dtype = "float32"

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
            A_shared = T.alloc_shared((blk_m, N), dtype)
            W_shared = T.alloc_shared((N,), dtype)
            A_local = T.alloc_fragment((blk_m, N), accum_dtype)
            A_pow = T.alloc_fragment((blk_m, N), accum_dtype)
            A_powsum = T.alloc_fragment((blk_m,), accum_dtype)
            T.copy(A[bx * blk_m, 0], A_shared)
            T.copy(W, W_shared)
            T.copy(A_shared, A_local)
            for i, j in T.Parallel(blk_m, N):
                A_pow[i, j] = A_local[i, j] * A_local[i, j]
            T.reduce_sum(A_pow, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-6)
            for i, j in T.Parallel(blk_m, N):
                A_shared[i, j] = A_local[i, j] * A_powsum[i] * W_shared[j]
            T.copy(A_shared, B[bx * blk_m, 0])

    return main


def layernorm(N, D, blk_m, threads, eps=1e-5):
    """After examples/norm/layernorm.py (in place update of the shared X tile, then store)."""
    in_dtype = "float16"
    out_dtype = "float16"
    accum_dtype = "float32"

    @T.prim_func
    def main(
        X: T.Tensor((N, D), in_dtype),
        gamma: T.Tensor((D,), in_dtype),
        beta: T.Tensor((D,), in_dtype),
        Y: T.Tensor((N, D), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, blk_m), threads=threads) as bx:
            X_smem = T.alloc_shared((blk_m, D), in_dtype)
            G_smem = T.alloc_shared((D,), in_dtype)
            B_smem = T.alloc_shared((D,), in_dtype)
            X_local = T.alloc_fragment((blk_m, D), accum_dtype)
            X_sq_local = T.alloc_fragment((blk_m, D), accum_dtype)
            sum_row = T.alloc_fragment((blk_m,), accum_dtype)
            sumsq_row = T.alloc_fragment((blk_m,), accum_dtype)
            mean_row = T.alloc_fragment((blk_m,), accum_dtype)
            rstd_row = T.alloc_fragment((blk_m,), accum_dtype)
            T.copy(X[bx * blk_m, 0], X_smem)
            T.copy(gamma, G_smem)
            T.copy(beta, B_smem)
            for i, j in T.Parallel(blk_m, D):
                X_local[i, j] = T.Cast(accum_dtype, X_smem[i, j])
            for i, j in T.Parallel(blk_m, D):
                X_sq_local[i, j] = X_local[i, j] * X_local[i, j]
            T.reduce_sum(X_local, sum_row, dim=1)
            T.reduce_sum(X_sq_local, sumsq_row, dim=1)
            for i in T.Parallel(blk_m):
                mean_row[i] = sum_row[i] / D
                rstd_row[i] = T.rsqrt(sumsq_row[i] / D - mean_row[i] * mean_row[i] + eps)
            for i, j in T.Parallel(blk_m, D):
                X_smem[i, j] = T.Cast(out_dtype, (X_local[i, j] - mean_row[i]) * rstd_row[i]
                                      * T.Cast(accum_dtype, G_smem[j]) + T.Cast(accum_dtype, B_smem[j]))
            T.copy(X_smem, Y[bx * blk_m, 0])

    return main


def transpose_shared(M, N, block, threads, dtype="float32"):
    """Tiled transpose through shared memory: coalesced load, transposed read from shared."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((N, M), dtype)):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=threads) as (bx, by):
            S = T.alloc_shared((block, block), dtype)
            T.copy(A[by * block, bx * block], S)
            for i, j in T.Parallel(block, block):
                B[bx * block + i, by * block + j] = S[j, i]

    return main


def copy_pipelined(M, N, block_M, block_N, num_stages, threads, dtype="float16", scale=False):
    """Global -> shared -> global copy of a row of tiles with T.Pipelined (optionally scaled in shared)."""

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            S = T.alloc_shared((block_M, block_N), dtype)
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
                T.copy(X[bx * block_M, k * block_N], S)
                T.copy(S, Y[bx * block_M, k * block_N])

    @T.prim_func
    def main_scale(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            S = T.alloc_shared((block_M, block_N), dtype)
            R = T.alloc_fragment((block_M, block_N), dtype)
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=num_stages):
                T.copy(X[bx * block_M, k * block_N], S)
                for i, j in T.Parallel(block_M, block_N):
                    R[i, j] = S[i, j] * T.cast(2.0, dtype)
                T.copy(R, Y[bx * block_M, k * block_N])

    return main_scale if scale else main

# --------------------------------------------------------------------------------------------
# Convolution via TMA im2col (after examples/convolution/example_convolution.py)
# --------------------------------------------------------------------------------------------


def conv2d_im2col(N, C, H, W, F, K, S, D, P, block_M, block_N, block_K, num_stages, threads,
                  dtype="float16", accum_dtype="float32"):
    KH, KW = K, K
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1

    @T.prim_func
    def main(
        data: T.Tensor((N, H, W, C), dtype),
        kernel: T.Tensor((KH, KW, C, F), dtype),
        out: T.Tensor((N, OH, OW, F), dtype),
    ):
        with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(N * OH * OW, block_M), threads=threads) as (bx, by):
            data_shared = T.alloc_shared((block_M, block_K), dtype)
            kernel_shared = T.alloc_shared((block_K, block_N), dtype)
            out_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            out_shared = T.alloc_shared((block_M, block_N), dtype)

            kernel_flat = T.Tensor((KH * KW * C, F), dtype, kernel.data)
            out_flat = T.Tensor((N * OH * OW, F), dtype, out.data)

            T.clear(out_local)
            for k_iter in T.Pipelined(T.ceildiv(KH * KW * C, block_K), num_stages=num_stages):
                T.im2col(data, data_shared, by, k_iter, KH, S, D, P)
                T.copy(kernel_flat[k_iter * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, out_local)

            T.copy(out_local, out_shared)
            T.copy(out_shared, out_flat[by * block_M, bx * block_N])

    return main


# --------------------------------------------------------------------------------------------
# GEMM with thread-block clusters and TMA multicast of the A tile (T.copy_cluster, cluster_mask)
# --------------------------------------------------------------------------------------------


def gemm_cluster_multicast(M, N, K, block_M, block_N, block_K, num_stages, threads, cluster_x=2,
                           dtype="float16", accum_dtype="float32"):
    """The cluster spans cluster_x consecutive blockIdx.x (same by, same A row panel): the A tile is
    multicast to every CTA of the cluster (cluster_mask with cluster_x low bits set), B is loaded per CTA."""
    mask = (1 << cluster_x) - 1

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.ClusterKernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads,
                             cluster_dims=(cluster_x, 1, 1)) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy_cluster(A[by * block_M, k * block_K], A_shared, cluster_mask=mask)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main

# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

KERNELS = []  # (name, arch, factory, pass_configs, description, threads)


def reg(name, arch, factory, threads, desc, cfg=None):
    KERNELS.append(dict(name=name, arch=arch, factory=factory, threads=threads, desc=desc, cfg=cfg or {}))


# ---- sm_80 ----
NOSYNC = {"tl.disable_thread_storage_sync": True}
for s in (1, 2, 3, 4):
    reg(f"gemm_sm80_s{s}_128x128x32", "sm_80", lambda s=s: gemm(512, 512, 512, 128, 128, 32, s, 128), 128,
        f"fp16 GEMM 512^3, T.Pipelined(num_stages={s}), cp.async + ldmatrix/mma")
reg("gemm_sm80_s3_64x64x32", "sm_80", lambda: gemm(512, 512, 512, 64, 64, 32, 3, 128), 128,
    "fp16 GEMM 512^3, 64x64x32 tile, 3 stages")
reg("gemm_sm80_s3_128x256x32", "sm_80", lambda: gemm(512, 512, 512, 128, 256, 32, 3, 256), 256,
    "fp16 GEMM 512^3, 128x256x32 tile, 3 stages, 8 warps")
reg("gemm_sm80_s2_64x128x64", "sm_80", lambda: gemm(512, 512, 512, 64, 128, 64, 2, 128), 128,
    "fp16 GEMM 512^3, 64x128x64 tile, 2 stages")
reg("gemm_sm80_s2_128x128x32_smemepi", "sm_80",
    lambda: gemm(512, 512, 512, 128, 128, 32, 2, 128, smem_epilogue=True), 128,
    "fp16 GEMM, 2 stages, epilogue C_local -> C_shared -> C (shared reused after the main loop)")
reg("gemm_sm80_s3_128x128x32_odd_k", "sm_80", lambda: gemm(512, 512, 480, 128, 128, 32, 3, 128), 128,
    "fp16 GEMM K=480 (15 k-iterations, not a multiple of the stage count), 3 stages")
for s in (2, 3):
    reg(f"gemm_sm80_dynamic_k_s{s}_128x128x32", "sm_80",
        lambda s=s: gemm_dynamic_k(512, 512, 128, 128, 32, s, 128), 128,
        f"fp16 GEMM with symbolic K (T.dynamic), {s} stages: symbolic trip count")
for s in (1, 2):
    # s2 with accum "float" (prints T.infinity("float")) reproduces shared/corpus-samples/fa_fwd_sm80_s2 exactly
    reg(f"fa_fwd_sm80_s{s}", "sm_80",
        lambda s=s: flashattn(1, 2, 256, 64, False, 64, 64, s, 128, "float" if s == 2 else "float32"), 128,
        f"flash-attention fwd, B1 H2 S256 D64, block 64x64, {s} stage(s)")
    reg(f"fa_fwd_causal_sm80_s{s}", "sm_80", lambda s=s: flashattn(1, 2, 256, 64, True, 64, 64, s, 128), 128,
        f"causal flash-attention fwd, B1 H2 S256 D64, block 64x64, {s} stage(s)")
reg("fa_fwd_sm80_s2_128x64_d128", "sm_80", lambda: flashattn(1, 2, 512, 128, False, 128, 64, 2, 128), 128,
    "flash-attention fwd, B1 H2 S512 D128, block_M 128 block_N 64, 2 stages")
reg("fa_fwd_sm80_s1_128x128_t256", "sm_80", lambda: flashattn(1, 2, 512, 64, False, 128, 128, 1, 256), 256,
    "flash-attention fwd, B1 H2 S512 D64, block 128x128, 1 stage, 256 threads")
for t in (128, 256):
    reg(f"reduce_sum_shared_sm80_t{t}", "sm_80", lambda t=t: reduce_rows_shared(256, 512, 8, t, "sum"), t,
        f"row sum 256x512 fp32, 8 rows/block, global->shared->fragment, reduce_sum dim=1, {t} threads")
    reg(f"reduce_max_shared_sm80_t{t}", "sm_80", lambda t=t: reduce_rows_shared(256, 512, 8, t, "max"), t,
        f"row max 256x512 fp32, 8 rows/block, reduce_max dim=1, {t} threads")
    reg(f"reduce_sum_to_shared_sm80_t{t}", "sm_80", lambda t=t: reduce_rows_to_shared(256, 512, 8, t, "sum"), t,
        f"row sum whose result is staged through a shared buffer, {t} threads")
reg("reduce_sum_shared_sm80", "sm_80", lambda: reduce_sum_sample(256, 128, 8, 128), 128,
    "row sum 256x128 fp32 (= shared/corpus-samples/reduce_sum_shared_sm80)")
reg("reduce_sum_cols_sm80_t128", "sm_80", lambda: reduce_cols_shared(64, 1024, 32, 128), 128,
    "column sum (reduce_sum dim=0) of a 64x32 shared tile")
for t in (128, 256):
    reg(f"softmax_rows_sm80_t{t}", "sm_80", lambda t=t: softmax_rows(256, 1024, 4, t), t,
        f"row softmax 256x1024 fp16, 4 rows/block, through shared in and out, {t} threads")
reg("online_softmax_sm80_s2_t128", "sm_80", lambda: online_softmax_rows(256, 4096, 4, 256, 128, 2), 128,
    "two-pass online softmax, rows streamed in 4x256 tiles, T.Pipelined(num_stages=2)")
reg("rmsnorm_splitk_sm80_t128", "sm_80", lambda: rms_norm_splitk(1024, 2048, 1, 512, 128), 128,
    "RMSNorm split along K (examples/norm/rms_norm.py): shared tile scaled in place then stored")
reg("rmsnorm_sm80_t128", "sm_80", lambda: rms_norm_full(1024, 1024, 2, 128), 128,
    "RMSNorm with weight, whole rows in registers, shared in/out")
reg("layernorm_sm80_t256", "sm_80", lambda: layernorm(1024, 1024, 1, 256), 256,
    "LayerNorm (examples/norm/layernorm.py), shared X tile updated in place")
reg("transpose_shared_sm80_32x32_t128", "sm_80", lambda: transpose_shared(1024, 1024, 32, 128), 128,
    "tiled transpose: T.copy to a 32x32 shared tile, transposed read to global")
reg("transpose_shared_sm80_64x64_t256", "sm_80", lambda: transpose_shared(1024, 1024, 64, 256), 256,
    "tiled transpose: 64x64 shared tile, 256 threads")
for s in (1, 2, 3):
    reg(f"copy_pipelined_sm80_s{s}", "sm_80", lambda s=s: copy_pipelined(1024, 1024, 32, 128, s, 128), 128,
        f"global->shared->global copy of 32x128 tiles, T.Pipelined(num_stages={s})")
reg("copy_scale_pipelined_sm80_s2", "sm_80", lambda: copy_pipelined(1024, 1024, 32, 128, 2, 128, scale=True), 128,
    "global->shared (cp.async ring) -> fragment*2 -> global, 2 stages")
# deliberately racy: TileLang's thread storage sync pass disabled
reg("gemm_sm80_s2_128x128x32_nosync", "sm_80", lambda: gemm(512, 512, 512, 128, 128, 32, 2, 128), 128,
    "RACY: gemm_sm80_s2_128x128x32 lowered with tl.disable_thread_storage_sync", NOSYNC)
reg("gemm_sm80_s3_128x128x32_nosync", "sm_80", lambda: gemm(512, 512, 512, 128, 128, 32, 3, 128), 128,
    "RACY: gemm_sm80_s3_128x128x32 lowered with tl.disable_thread_storage_sync", NOSYNC)
reg("fa_fwd_sm80_s2_nosync", "sm_80", lambda: flashattn(1, 2, 256, 64, False, 64, 64, 2, 128), 128,
    "RACY: fa_fwd_sm80_s2 lowered with tl.disable_thread_storage_sync", NOSYNC)
reg("transpose_shared_sm80_32x32_t128_nosync", "sm_80", lambda: transpose_shared(1024, 1024, 32, 128), 128,
    "RACY: transpose through shared, lowered with tl.disable_thread_storage_sync", NOSYNC)
reg("softmax_rows_sm80_t128_nosync", "sm_80", lambda: softmax_rows(256, 1024, 4, 128), 128,
    "RACY: softmax_rows_sm80_t128 lowered with tl.disable_thread_storage_sync", NOSYNC)


# ---- sm_90a ----
NOWS = {"tl.disable_warp_specialized": True}
NOTMA = {"tl.disable_tma_lower": True}
for s in (1, 2, 3, 4):
    reg(f"gemm_sm90a_ws_s{s}_128x128x64", "sm_90a", lambda s=s: gemm(512, 512, 512, 128, 128, 64, s, 128), 256,
        f"warp-specialized fp16 GEMM 512^3 (TMA producer WG + 1 wgmma consumer WG), {s} stage(s)")
reg("gemm_sm90a_ws_s3_128x256x64_2wg", "sm_90a", lambda: gemm(512, 1024, 512, 128, 256, 64, 3, 256), 384,
    "warp-specialized GEMM 128x256x64, 2 consumer warpgroups + producer, 3 stages")
reg("gemm_sm90a_ws_s3_256x128x64_2wg", "sm_90a", lambda: gemm(1024, 512, 512, 256, 128, 64, 3, 256), 384,
    "warp-specialized GEMM 256x128x64, 2 consumer warpgroups + producer, 3 stages")
reg("gemm_sm90a_ws_s3_128x128x64_smemepi", "sm_90a",
    lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128, smem_epilogue=True), 256,
    "warp-specialized GEMM, epilogue C_local -> C_shared -> C (TMA store)")
reg("gemm_sm90a_ws_s3_128x256x64_2wg_smemepi", "sm_90a",
    lambda: gemm(512, 1024, 512, 128, 256, 64, 3, 256, smem_epilogue=True), 384,
    "warp-specialized GEMM, 2 consumer WGs, epilogue through shared (TMA store)")
reg("gemm_sm90a_ws_dynamic_k_s3_128x128x64", "sm_90a", lambda: gemm_dynamic_k(512, 512, 128, 128, 64, 3, 128), 256,
    "warp-specialized GEMM with symbolic K (T.dynamic), 3 stages: symbolic trip count and parities")
for s in (2, 3, 4):
    reg(f"gemm_sm90a_nows_s{s}_128x128x64", "sm_90a", lambda s=s: gemm(512, 512, 512, 128, 128, 64, s, 128), 128,
        f"GEMM with tl.disable_warp_specialized: software pipeline ({s} stages) feeding wgmma", NOWS)
reg("gemm_sm90a_nows_s3", "sm_90a", lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128), 128,
    "= gemm_sm90a_nows_s3_128x128x64 under the shared sample's name", NOWS)
reg("gemm_sm90a_nows_s3_128x128x64_smemepi", "sm_90a",
    lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128, smem_epilogue=True), 128,
    "non-warp-specialized GEMM with epilogue through shared", NOWS)
# (tl.disable_tma_lower only affects TMA *stores* in 0.1.15, so it is used on smem-epilogue kernels)
reg("gemm_sm90a_ws_s3_128x128x64_smemepi_notma", "sm_90a",
    lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128, smem_epilogue=True), 256,
    "ws GEMM, epilogue through shared, tl.disable_tma_lower: C_shared -> C by plain stores", NOTMA)
reg("gemm_sm90a_nows_s3_128x128x64_smemepi_notma", "sm_90a",
    lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128, smem_epilogue=True), 128,
    "non-ws GEMM, epilogue through shared, disable_warp_specialized + disable_tma_lower", dict(NOWS, **NOTMA))
for s in (1, 2):
    reg(f"fa_fwd_sm90a_ws_s{s}", "sm_90a", lambda s=s: flashattn(1, 2, 256, 64, False, 64, 64, s, 128), 256,
        f"flash-attention fwd on Hopper (warp specialized), B1 H2 S256 D64, block 64x64, {s} stage(s)")
reg("fa_fwd_sm90a_ws_s2_128x128_t256", "sm_90a", lambda: flashattn(1, 2, 512, 128, False, 128, 128, 2, 256), 384,
    "flash-attention fwd Hopper ws, D128, block 128x128, 2 consumer WGs, 2 stages")
reg("fa_fwd_causal_sm90a_ws_s2", "sm_90a", lambda: flashattn(1, 2, 256, 64, True, 64, 64, 2, 128), 256,
    "causal flash-attention fwd Hopper ws, 2 stages (trip count depends on blockIdx)")
reg("fa_fwd_sm90a_nows_s2", "sm_90a", lambda: flashattn(1, 2, 256, 64, False, 64, 64, 2, 128), 128,
    "flash-attention fwd Hopper, tl.disable_warp_specialized, 2 stages", NOWS)
reg("fa_fwd_sm90a_nows_s2_128x128_t256", "sm_90a", lambda: flashattn(1, 2, 512, 128, False, 128, 128, 2, 256),
    256, "flash-attention fwd Hopper, no ws, D128, block 128x128, 256 threads, 2 stages", NOWS)
for s in (2, 3):
    reg(f"copy_pipelined_sm90a_s{s}", "sm_90a", lambda s=s: copy_pipelined(256 if s == 2 else 1024, 1024, 32, 128, s, 128), 256,
        f"warp-specialized pipelined copy: TMA load producer, TMA store consumer, {s} stages")
reg("copy_scale_pipelined_sm90a_s2", "sm_90a", lambda: copy_pipelined(1024, 1024, 32, 128, 2, 128, scale=True), 256,
    "pipelined copy with a shared->fragment*2->global consumer, 2 stages")
reg("copy_pipelined_sm90a_nows_s2", "sm_90a", lambda: copy_pipelined(1024, 1024, 32, 128, 2, 128), 128,
    "pipelined copy, tl.disable_warp_specialized", NOWS)
reg("softmax_rows_sm90a_t128", "sm_90a", lambda: softmax_rows(256, 1024, 4, 128), 128,
    "row softmax through shared in and out (TMA load/store on Hopper)")
reg("reduce_sum_to_shared_sm90a_t128", "sm_90a", lambda: reduce_rows_to_shared(256, 512, 8, 128, "sum"), 128,
    "row sum via shared in, result staged through shared out")
reg("gemm_sm90a_ws_s3_128x128x64_smemepi_nosync", "sm_90a",
    lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128, smem_epilogue=True), 256,
    "RACY: smem-epilogue ws GEMM lowered with tl.disable_thread_storage_sync", NOSYNC)
reg("gemm_sm90a_nows_s3_128x128x64_nosync", "sm_90a", lambda: gemm(512, 512, 512, 128, 128, 64, 3, 128), 128,
    "RACY: non-ws Hopper GEMM lowered with tl.disable_thread_storage_sync", dict(NOWS, **NOSYNC))


reg("conv2d_im2col_sm90a_s2", "sm_90a",
    lambda: conv2d_im2col(1, 64, 32, 32, 64, 3, 1, 1, 1, 64, 64, 32, 2, 128), 256,
    "fp16 NHWC conv2d N1 H=W32 C64 F64 K3 S1 P1 as implicit GEMM: T.im2col (TMA im2col load) + TMA B, "
    "block 64x64x32, 2 stages, epilogue through shared")
reg("gemm_sm90a_cluster_multicast", "sm_90a",
    lambda: gemm_cluster_multicast(512, 512, 512, 128, 128, 64, 3, 128, cluster_x=2), 256,
    "fp16 GEMM 512^3 128x128x64, 3 stages, cluster_dims=(2,1,1): A tile TMA-multicast to both CTAs "
    "(T.copy_cluster cluster_mask=0b11), B per CTA")


def lower_one(k, outdir):
    """Returns "ok", or "tir-only: <why>" when TileLang lowered the kernel but its CUDA codegen failed (the
    device TIR is then the one before codegen: corpus/lowering.py)."""
    lowered = lower_device(k["factory"](), k["arch"], k["cfg"])
    # The corpus is lowered once and never edited: an existing file is kept unless --overwrite is given
    # (a few kernels differ run to run only in which of two aliasing AllReduce workspaces gets which name).
    write_text(os.path.join(outdir, k["name"] + ".tir"), lowered.tir, overwrite=OVERWRITE)
    if lowered.cuda_source is not None:
        write_text(os.path.join(outdir, k["name"] + ".cu"), lowered.cuda_source, overwrite=OVERWRITE)
        return "ok"
    return "tir-only: CUDA codegen failed: " + (str(lowered.codegen_error).strip().splitlines() or [""])[-1]


OVERWRITE = False


def write_manifest(outdir, results):
    import re
    rows = []
    for k in KERNELS:
        name = k["name"]
        if name not in results:
            continue
        p = os.path.join(outdir, name + ".tir")
        tir = open(p).read() if os.path.exists(p) else ""
        m = re.search(r'"threadIdx.x": (\d+)', tir)
        thr = m.group(1) if m else "?"
        m = re.search(r'"dyn_shared_memory_buf": (\d+)', tir)
        smem = m.group(1) if m else "0"
        cfg = ", ".join(f"`{c}`" for c in k["cfg"]) or "(none)"
        st = results[name]
        files = "tir, cu" if st == "ok" else "tir only"
        rows.append(f"| {name} | {k['arch']} | {thr} | {smem} | {k['desc']} | {tilelang.__version__} | {cfg} | {files} |")
    hdr = [
        "# Real TileLang output: lowered device TIR",
        "",
        f"Produced by `corpus/lower_kernels.py` with **tilelang {tilelang.__version__}** (PyPI wheel, bundled TVM),",
        "lowered on a CPU-only machine through `tilelang.lower(func, target=Target({\"kind\": \"cuda\", \"arch\": ARCH}))`",
        "inside `tvm.transform.PassContext(opt_level=3, config=PASS_CONFIGS)`. `NAME.tir` is",
        "`str(artifact.device_mod)` and `NAME.cu` is `artifact.kernel_source`; nothing was edited.",
        "",
        "Threads = `threadIdx.x` extent of the lowered kernel (warp-specialized kernels get an extra producer",
        "warpgroup: the kernel is written with 128/256 threads and lowers to 256/384). Smem = `dyn_shared_memory_buf`",
        "bytes. Kernels with no pass config are believed race-free (TileLang inserted their synchronization);",
        "the `_nosync` ones were lowered with `tl.disable_thread_storage_sync` and are expected to be racy",
        "(TileLang's ThreadSync pass did not run: every `T.tvm_storage_sync` it would add is missing).",
        "",
        "\"tir only\": TileLang's TIR pipeline succeeded but its CUDA codegen raised",
        "`TypeError: Downcast from tirx.Sub to ir.IntImm failed.` The TIR has a `T.ptx_wait_group(E)` whose",
        "argument `E` is an expression of an unrolled epilogue loop variable (e.g. `T.ptx_wait_group(1 - k)` inside",
        "`for k in T.unroll(2)`), which 0.1.15's CUDA codegen cannot print. The TIR is real compiler output",
        "(taken from `tilelang.engine.lower.lower_to_host_device_ir`, the same step that produces `device_mod`).",
        "",
        "Notes:",
        "- Six kernels reproduce `shared/corpus-samples/` byte for byte (.tir and .cu), which checks that this",
        "  setup matches the one that made them: `gemm_sm80_s3_128x128x32`, `fa_fwd_sm80_s2`, `reduce_sum_shared_sm80`,",
        "  `gemm_sm90a_ws_s3_128x128x64`, `gemm_sm90a_nows_s3` (= `gemm_sm90a_nows_s3_128x128x64`) and",
        "  `copy_pipelined_sm90a_s2`.",
        "- Lowering is deterministic except for one detail: in kernels with two AllReduce calls whose shared",
        "  workspaces alias the same offset (`workspace` and `workspace_1`, both at byte 0 of the dynamic buffer:",
        "  softmax_rows_*, layernorm_sm80_t256), which AllReduce gets which name swaps from run to run.",
        "  The script therefore keeps existing files and only rewrites them with `--overwrite`.",
        "- Variants left out because they lowered to byte-identical TIR: `tl.disable_tma_lower` on a GEMM with a",
        "  direct C_local -> C epilogue (the flag only affects TMA *stores* in 0.1.15), `tl.enable_async_copy=False`",
        "  on pipelined sm_80 GEMM/copy (T.Pipelined still emits cp.async), and `tl.disable_thread_storage_sync` on",
        "  the plain ws sm_90a GEMM (its only sync is the explicit one after mbarrier init, which stays).",
        "",
        "| name | arch | threads | smem | what it is | tilelang | pass configs | files |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with open(os.path.join(outdir, "MANIFEST.md"), "w") as f:
        f.write("\n".join(hdr + rows) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "real"))
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--overwrite", action="store_true", help="rewrite existing NAME.tir/NAME.cu files")
    args = ap.parse_args()
    global OVERWRITE
    OVERWRITE = args.overwrite
    os.makedirs(args.out, exist_ok=True)
    results = {}
    for k in KERNELS:
        if args.only and not any(o in k["name"] for o in args.only):
            continue
        if args.list:
            print(k["name"])
            continue
        try:
            st = lower_one(k, args.out)
            results[k["name"]] = st
            print(f"OK   {k['name']}" if st == "ok" else f"PART {k['name']}: {st}", flush=True)
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
            results[k["name"]] = "FAIL " + msg
            print(f"FAIL {k['name']}: {msg}", flush=True)
            traceback.print_exc(file=sys.stderr)
    if not args.list:
        rp = os.path.join(args.out, "_results.json")
        allres = json.load(open(rp))["results"] if os.path.exists(rp) else {}
        allres.update(results)
        with open(rp, "w") as f:
            json.dump({"tilelang": tilelang.__version__, "results": allres}, f, indent=1)
        write_manifest(args.out, allres)


if __name__ == "__main__":
    main()
