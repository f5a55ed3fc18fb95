"""TileOPs #1405 (commit f4c360ec, parent f4c360ec^): the SM90 WGMMA pipelined varlen sliding-window GQA forward
kernel of tileops/kernels/attention/gqa_sliding_window_varlen_fwd.py, copied verbatim from the parent (the kernel
body, its apply_mask / online_softmax_with_mask_guard / rescale macros from tileops/kernels/online_softmax.py), at
the failing test's shape (#1404: batch 2, heads 8, heads_kv 2, dim 64, non-causal, window (64, 64)) with the
default config (block_m 128, block_n 128, num_stages 3, threads 256), lowered by TileLang 0.1.15 for sm_90a on the
CPU with the kernel's pass config (TL_ENABLE_FAST_MATH).  argv[1] = pre | post; post adds the PR's two
`T.sync_threads(3, threads)` lines around `T.copy(acc_o, o_shared)`.  argv[2] = output .tir."""
import sys
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

FIX = sys.argv[1] == "post"
OUT = sys.argv[2]
LOG2E = 1.44269504

batch, heads, heads_kv, total_q, total_k, dim = 2, 8, 2, 512, 512, 64
is_causal, window_size_left, window_size_right = False, 64, 64
dtype, accum_dtype = "float16", "float"
block_m, block_n, num_stages, threads = 128, 128, 3, 256
scale = (1.0 / dim) ** 0.5 * LOG2E
groups = heads // heads_kv
has_window = window_size_left >= 0 or window_size_right >= 0
q_shape = (total_q, heads, dim)
kv_shape = (total_k, heads_kv, dim)


@T.macro
def apply_mask(acc_s, k_idx, bx, q_len, kv_len, offset):
    if is_causal and has_window:
        for i, j in T.Parallel(block_m, block_n):
            causal_mask = (k_idx * block_n + j > bx * block_m + i + offset)
            left_mask = (window_size_left >= 0) and (
                k_idx * block_n + j < bx * block_m + i + offset - window_size_left)
            q_oob = bx * block_m + i >= q_len
            k_oob = k_idx * block_n + j >= kv_len
            acc_s[i, j] = T.if_then_else(causal_mask or left_mask or q_oob or k_oob, -T.infinity(accum_dtype), 0)
    elif is_causal:
        for i, j in T.Parallel(block_m, block_n):
            causal_mask = (k_idx * block_n + j > bx * block_m + i + offset)
            q_oob = bx * block_m + i >= q_len
            k_oob = k_idx * block_n + j >= kv_len
            acc_s[i, j] = T.if_then_else(causal_mask or q_oob or k_oob, -T.infinity(accum_dtype), 0)
    elif has_window:
        for i, j in T.Parallel(block_m, block_n):
            left_mask = (window_size_left >= 0) and (
                k_idx * block_n + j < bx * block_m + i + offset - window_size_left)
            right_mask = (window_size_right >= 0) and (
                k_idx * block_n + j > bx * block_m + i + offset + window_size_right)
            q_oob = bx * block_m + i >= q_len
            k_oob = k_idx * block_n + j >= kv_len
            acc_s[i, j] = T.if_then_else(left_mask or right_mask or q_oob or k_oob, -T.infinity(accum_dtype), 0)
    else:
        for i, j in T.Parallel(block_m, block_n):
            q_oob = bx * block_m + i >= q_len
            k_oob = k_idx * block_n + j >= kv_len
            acc_s[i, j] = T.if_then_else(q_oob or k_oob, -T.infinity(accum_dtype), 0)


@T.macro
def online_softmax(acc_s, scores_max, scores_max_prev, scores_scale, scores_sum, logsum):
    T.copy(scores_max, scores_max_prev)
    T.fill(scores_max, -T.infinity(accum_dtype))
    T.reduce_max(acc_s, scores_max, dim=1, clear=False)
    for i in T.Parallel(block_m):
        scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
    for i in T.Parallel(block_m):
        scores_max[i] = T.max(scores_max[i], T.cast(-1e38, accum_dtype))
    for i in T.Parallel(block_m):
        scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
    for i, j in T.Parallel(block_m, block_n):
        acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
    T.reduce_sum(acc_s, scores_sum, dim=1)
    for i in T.Parallel(block_m):
        logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]


@T.macro
def rescale(acc_o, scores_scale):
    for i, j in T.Parallel(block_m, dim):
        acc_o[i, j] *= scores_scale[i]


@T.macro
def mma0(k: T.Tensor(kv_shape, dtype), q_shared: T.SharedBuffer([block_m, dim], dtype),
         k_shared: T.SharedBuffer([block_n, dim], dtype), acc_s: T.FragmentBuffer([block_m, block_n], accum_dtype),
         k_idx: T.int32, bx: T.int32, by: T.int32, kv_start: T.int32, q_len: T.int32, kv_len: T.int32,
         offset: T.int32) -> None:
    T.copy(k[kv_start + k_idx * block_n:kv_start + (k_idx + 1) * block_n, by // groups, :], k_shared)
    apply_mask(acc_s, k_idx, bx, q_len, kv_len, offset)
    T.gemm(q_shared, k_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)


@T.macro
def mma1(v: T.Tensor(kv_shape, dtype), v_shared: T.SharedBuffer([block_n, dim], dtype),
         acc_s_cast: T.FragmentBuffer([block_m, block_n], dtype), acc_o: T.FragmentBuffer([block_m, dim], accum_dtype),
         k_idx: T.int32, by: T.int32, kv_start: T.int32) -> None:
    T.copy(v[kv_start + k_idx * block_n:kv_start + (k_idx + 1) * block_n, by // groups, :], v_shared)
    T.gemm(acc_s_cast, v_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)


@T.prim_func
def main(q: T.Tensor(q_shape, dtype), k: T.Tensor(kv_shape, dtype), v: T.Tensor(kv_shape, dtype),
         cu_seqlens_q: T.Tensor([batch + 1], T.int32), cu_seqlens_k: T.Tensor([batch + 1], T.int32),
         max_seqlen_q: T.int32, output: T.Tensor(q_shape, dtype), lse: T.Tensor([heads, total_q], accum_dtype)):
    with T.Kernel(T.ceildiv(max_seqlen_q, block_m), heads, batch, threads=threads) as (bx, by, bz):
        q_shared = T.alloc_shared([block_m, dim], dtype)
        k_shared = T.alloc_shared([block_n, dim], dtype)
        v_shared = T.alloc_shared([block_n, dim], dtype)
        o_shared = T.alloc_shared([block_m, dim], dtype)
        acc_s = T.alloc_fragment([block_m, block_n], accum_dtype)
        acc_s_cast = T.alloc_fragment([block_m, block_n], dtype)
        acc_o = T.alloc_fragment([block_m, dim], accum_dtype)
        scores_max = T.alloc_fragment([block_m], accum_dtype)
        scores_max_prev = T.alloc_fragment([block_m], accum_dtype)
        scores_scale = T.alloc_fragment([block_m], accum_dtype)
        scores_sum = T.alloc_fragment([block_m], accum_dtype)
        logsum = T.alloc_fragment([block_m], accum_dtype)

        T.annotate_layout({o_shared: tilelang.layout.make_swizzled_layout(o_shared)})

        q_start = cu_seqlens_q[bz]
        kv_start = cu_seqlens_k[bz]
        q_len = cu_seqlens_q[bz + 1] - q_start
        kv_len = cu_seqlens_k[bz + 1] - kv_start
        offset = kv_len - q_len

        T.copy(q[q_start + bx * block_m:q_start + (bx + 1) * block_m, by, :], q_shared)
        T.clear(acc_o)
        T.clear(logsum)
        T.fill(scores_max, -T.infinity(accum_dtype))

        if is_causal:
            k_end = T.ceildiv(T.min(kv_len, offset + (bx + 1) * block_m), block_n)
        elif has_window and window_size_right >= 0:
            k_end = T.ceildiv(T.min(kv_len, offset + (bx + 1) * block_m + window_size_right), block_n)
        else:
            k_end = T.ceildiv(kv_len, block_n)

        if has_window and window_size_left >= 0:
            k_start = T.max(0, offset + bx * block_m - window_size_left) // block_n
        else:
            k_start = 0

        loop_count = T.max(k_end - k_start, 0)

        for k_offset in T.Pipelined(loop_count, num_stages=num_stages):
            k_idx = k_start + k_offset
            mma0(k, q_shared, k_shared, acc_s, k_idx, bx, by, kv_start, q_len, kv_len, offset)
            online_softmax(acc_s, scores_max, scores_max_prev, scores_scale, scores_sum, logsum)
            T.copy(acc_s, acc_s_cast)
            rescale(acc_o, scores_scale)
            mma1(v, v_shared, acc_s_cast, acc_o, k_idx, by, kv_start)

        for i, j in T.Parallel(block_m, dim):
            acc_o[i, j] = T.if_then_else(logsum[i] > 0, acc_o[i, j] / logsum[i], 0.0)
        if FIX:
            T.sync_threads(3, threads)
        T.copy(acc_o, o_shared)
        if FIX:
            T.sync_threads(3, threads)
        for i, j in T.Parallel(block_m, dim):
            if bx * block_m + i < q_len:
                output[q_start + bx * block_m + i, by, j] = o_shared[i, j]
        for i in T.Parallel(block_m):
            if bx * block_m + i < q_len:
                logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale
                lse[by, q_start + bx * block_m + i] = logsum[i]


low = lower_device(main, "sm_90a", {tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
if low.codegen_error is not None:
    print("codegen error:", low.codegen_error, file=sys.stderr)
open(OUT, "w").write(low.tir)
if low.cuda_source:
    open(OUT[:-4] + ".cu", "w").write(low.cuda_source)
