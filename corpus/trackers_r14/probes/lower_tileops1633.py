"""TileOPs #1633 (commit f2e77f24, parent f2e77f24^; issue #1616): the SM90 WGMMA pipelined fixed-length
sliding-window GQA forward kernel of tileops/kernels/attention/gqa_sliding_window_fwd.py
(`_gqa_sw_fwd_wgmma_pipelined_kernel`), copied verbatim from the parent, at a failing test shape of
tests/ops/attention/test_gqa_sliding_window.py (batch 2, seq_len 512, heads 8, heads_kv 2, dim 64, non-causal,
window (64, 64), fp16) with the kernel's default config (block_m 128, block_n 128, num_stages 3, threads 256),
lowered by TileLang 0.1.15 for sm_90a on the CPU with the kernel's pass config (TL_ENABLE_FAST_MATH).
argv[1] = pre | post (post adds the PR's two `T.sync_threads(3, threads)` around `T.copy(acc_o, o_shared)`);
argv[2] = output .tir."""
import sys
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

FIX = sys.argv[1] == "post"
OUT = sys.argv[2]
LOG2E = 1.44269504

batch, seq_len, heads, heads_kv, dim = 2, 512, 8, 2, 64
is_causal, window_size_left, window_size_right = False, 64, 64
dtype = "float16"
block_m, block_n, num_stages, threads = 128, 128, 3, 256
scale = (1.0 / dim) ** 0.5 * LOG2E
groups = heads // heads_kv
accum_dtype = "float"
has_window = window_size_left >= 0 or window_size_right >= 0
q_shape = (batch, seq_len, heads, dim)
kv_shape = (batch, seq_len, heads_kv, dim)


@T.macro
def mma0(k: T.Tensor(kv_shape, dtype), q_shared: T.SharedBuffer([block_m, dim], dtype),
         k_shared: T.SharedBuffer([block_n, dim], dtype), acc_s: T.FragmentBuffer([block_m, block_n], accum_dtype),
         k_idx: T.int32, bx: T.int32, by: T.int32, bz: T.int32) -> None:
    T.copy(k[bz, k_idx * block_n:(k_idx + 1) * block_n, by // groups, :], k_shared)
    if is_causal and has_window:
        for i, j in T.Parallel(block_m, block_n):
            causal_mask = bx * block_m + i < k_idx * block_n + j
            left_mask = (window_size_left >= 0) and (k_idx * block_n + j < bx * block_m + i - window_size_left)
            acc_s[i, j] = T.if_then_else(causal_mask or left_mask, -T.infinity(accum_dtype), 0)
    elif is_causal:
        for i, j in T.Parallel(block_m, block_n):
            acc_s[i, j] = T.if_then_else(bx * block_m + i < k_idx * block_n + j, -T.infinity(accum_dtype), 0)
    elif has_window:
        for i, j in T.Parallel(block_m, block_n):
            left_mask = (window_size_left >= 0) and (k_idx * block_n + j < bx * block_m + i - window_size_left)
            right_mask = (window_size_right >= 0) and (k_idx * block_n + j > bx * block_m + i + window_size_right)
            acc_s[i, j] = T.if_then_else(left_mask or right_mask, -T.infinity(accum_dtype), 0)
    else:
        T.clear(acc_s)
    T.gemm(q_shared, k_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)


@T.macro
def mma1(v: T.Tensor(kv_shape, dtype), v_shared: T.SharedBuffer([block_n, dim], dtype),
         acc_s_cast: T.FragmentBuffer([block_m, block_n], dtype), acc_o: T.FragmentBuffer([block_m, dim], accum_dtype),
         k_idx: T.int32, by: T.int32, bz: T.int32) -> None:
    T.copy(v[bz, k_idx * block_n:(k_idx + 1) * block_n, by // groups, :], v_shared)
    T.gemm(acc_s_cast, v_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)


@T.prim_func
def main(q: T.Tensor(q_shape, dtype), k: T.Tensor(kv_shape, dtype), v: T.Tensor(kv_shape, dtype),
         output: T.Tensor(q_shape, dtype), lse: T.Tensor([batch, heads, seq_len], accum_dtype)):
    with T.Kernel(T.ceildiv(seq_len, block_m), heads, batch, threads=threads) as (bx, by, bz):
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
        T.copy(q[bz, bx * block_m:(bx + 1) * block_m, by, :], q_shared)
        T.clear(acc_o)
        T.clear(logsum)
        T.fill(scores_max, -T.infinity(accum_dtype))

        if is_causal:
            k_end = T.ceildiv(T.min(seq_len, (bx + 1) * block_m), block_n)
        elif has_window and window_size_right >= 0:
            k_end = T.ceildiv(T.min(seq_len, (bx + 1) * block_m + window_size_right), block_n)
        else:
            k_end = T.ceildiv(seq_len, block_n)

        if has_window and window_size_left >= 0:
            k_start = T.max(0, bx * block_m - window_size_left) // block_n
        else:
            k_start = 0

        loop_count = T.max(k_end - k_start, 0)

        for k_offset in T.Pipelined(loop_count, num_stages=num_stages):
            k_idx = k_start + k_offset
            mma0(k, q_shared, k_shared, acc_s, k_idx, bx, by, bz)
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
            T.copy(acc_s, acc_s_cast)
            for i, j in T.Parallel(block_m, dim):
                acc_o[i, j] *= scores_scale[i]
            mma1(v, v_shared, acc_s_cast, acc_o, k_idx, by, bz)

        for i, j in T.Parallel(block_m, dim):
            acc_o[i, j] /= logsum[i]
        if FIX:
            T.sync_threads(3, threads)
        T.copy(acc_o, o_shared)
        if FIX:
            T.sync_threads(3, threads)
        T.copy(o_shared, output[bz, bx * block_m:(bx + 1) * block_m, by, :])
        for i in T.Parallel(block_m):
            logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale
        T.copy(logsum, lse[bz, by, bx * block_m:(bx + 1) * block_m])


low = lower_device(main, "sm_90a", {tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
if low.codegen_error is not None:
    print("codegen error:", low.codegen_error, file=sys.stderr)
open(OUT, "w").write(low.tir)
if low.cuda_source:
    open(OUT[:-4] + ".cu", "w").write(low.cuda_source)
