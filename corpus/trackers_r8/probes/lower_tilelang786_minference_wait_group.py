"""How the tilelang786 files start (TileLang 0.1.15, system python): python THIS [ARCH] [fixed] > out.tir.
The kernel is examples/minference/example_vertical_slash_sparse_attn.py `vs_sparse_flashattn` as it was before
tile-ai/tilelang#786 (commit 013adca01^, read in the repository snapshot), with its slash (block) T.Pipelined loop
removed (the PR rewrote that loop into a hand warp-specialized one; it is not where the wait count is). What is
kept is the vertical (column) part, unchanged: Prefetch (two async_scope copies of K/V rows gathered through
column_index, then T.ptx_commit_group()) into two alternating buffers, and Compute (T.ptx_wait_group(N), QK^T gemm,
online softmax, PV gemm) on the other buffer; the last Compute, after the loop, has no Prefetch after it.
Without `fixed` Compute waits with T.ptx_wait_group(1) everywhere (pre-#786). With `fixed` Compute takes the PR's
`count` argument: 1 in the loop, 0 in the two epilogue calls (the #786 diff of Compute and its callers).
Sizes: batch 1, heads 1, seq_len 128, dim 64, vertical_size 64 (block_M = block_N = 64, threads 128 as in the
example)."""
import sys
sys.path.insert(0, "/work/main")
import tilelang
import tilelang.language as T
from asyncguard.frontends.tilelang_lower import lower_device

FIXED = "fixed" in sys.argv[2:]
batch, heads, seq_len, dim, vertical_size = 1, 1, 128, 64, 64
block_M, block_N, threads = 64, 64, 128
scale = (1.0 / dim) ** 0.5 * 1.44269504
shape = [batch, heads, seq_len, dim]
count_shape = [batch, heads, (seq_len + block_M - 1) // block_M]
index_shape = count_shape + [vertical_size]
vertical_size_round = tilelang.next_power_of_2(vertical_size)
dtype, accum_dtype, int_dtype = "float16", "float", "int32"


@T.macro
def Prefetch(K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype), K_shared: T.SharedBuffer([block_N, dim], dtype),
             V_shared: T.SharedBuffer([block_N, dim], dtype),
             column_index: T.SharedBuffer([vertical_size_round], int_dtype), column_count: T.int32, k: T.int32,
             bz: T.int32, by: T.int32):
    with T.attr("default", "async_scope", 1):
        for i, j in T.Parallel(block_N, dim):
            K_shared[i, j] = T.if_then_else(k + i < column_count, K[bz, by, column_index[k + i], j], 0)
    with T.attr("default", "async_scope", 1):
        for i, j in T.Parallel(block_N, dim):
            V_shared[i, j] = T.if_then_else(k + i < column_count, V[bz, by, column_index[k + i], j], 0)
    T.ptx_commit_group()


@T.macro
def Compute(acc_s: T.FragmentBuffer([block_M, block_N], accum_dtype),
            acc_s_cast: T.FragmentBuffer([block_M, block_N], dtype),
            acc_o: T.FragmentBuffer([block_M, dim], accum_dtype), scores_max: T.FragmentBuffer([block_M], accum_dtype),
            scores_max_prev: T.FragmentBuffer([block_M], accum_dtype), k: T.int32, column_count: T.int32,
            Q_shared: T.SharedBuffer([block_M, dim], dtype), K_shared: T.SharedBuffer([block_N, dim], dtype),
            V_shared: T.SharedBuffer([block_N, dim], dtype), scores_scale: T.FragmentBuffer([block_M], accum_dtype),
            scores_sum: T.FragmentBuffer([block_M], accum_dtype), logsum: T.FragmentBuffer([block_M], accum_dtype),
            count: T.int32):
    T.ptx_wait_group(count)
    for i, j in T.Parallel(block_M, block_N):
        acc_s[i, j] = T.if_then_else(k + j < column_count, 0, -T.infinity(acc_s.dtype))
    T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
    T.copy(scores_max, scores_max_prev)
    T.reduce_max(acc_s, scores_max, dim=1, clear=False)
    for i in T.Parallel(block_M):
        scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
    for i, j in T.Parallel(block_M, block_N):
        acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
    for i, j in T.Parallel(block_M, dim):
        acc_o[i, j] = acc_o[i, j] * scores_scale[i]
    T.copy(acc_s, acc_s_cast)
    T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
    T.reduce_sum(acc_s, scores_sum, dim=1)
    for i in T.Parallel(block_M):
        logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]


LAST = 0 if FIXED else 1


@T.prim_func
def vs_sparse_flashattn(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
                        Output: T.Tensor(shape, dtype), ColumnCount: T.Tensor(count_shape, int_dtype),
                        ColumnIndex: T.Tensor(index_shape, int_dtype)):
    with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bc, by, bz):
        bx = T.ceildiv(seq_len, block_M) - 1 - bc
        Q_shared = T.alloc_shared([block_M, dim], dtype)
        O_shared = T.alloc_shared([block_M, dim], dtype)
        acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
        acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
        acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
        scores_max = T.alloc_fragment([block_M], accum_dtype)
        scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
        scores_scale = T.alloc_fragment([block_M], accum_dtype)
        scores_sum = T.alloc_fragment([block_M], accum_dtype)
        logsum = T.alloc_fragment([block_M], accum_dtype)
        column_count = T.alloc_local([1], int_dtype)
        column_index = T.alloc_shared([vertical_size_round], int_dtype, scope="shared")
        K_shared_1 = T.alloc_shared([block_N, dim], dtype)
        V_shared_1 = T.alloc_shared([block_N, dim], dtype)
        K_shared_2 = T.alloc_shared([block_N, dim], dtype)
        V_shared_2 = T.alloc_shared([block_N, dim], dtype)
        column_count[0] = ColumnCount[bz, by, bx]
        for vi in T.Parallel(vertical_size_round):
            if vi < vertical_size:
                column_index[vi] = ColumnIndex[bz, by, bx, vi]
        T.fill(acc_o, 0)
        T.fill(logsum, 0)
        T.fill(scores_max, -T.infinity(accum_dtype))
        T.copy(Q[bz, by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
        if column_count[0] != 0:
            Prefetch(K, V, K_shared_1, V_shared_1, column_index, column_count[0], 0, bz, by)
            for bi in T.serial(T.ceildiv(column_count[0], block_N) - 1):
                k = bi * block_N
                if bi % 2 == 0:
                    Prefetch(K, V, K_shared_2, V_shared_2, column_index, column_count[0], k + block_N, bz, by)
                    Compute(acc_s, acc_s_cast, acc_o, scores_max, scores_max_prev, k, column_count[0], Q_shared,
                            K_shared_1, V_shared_1, scores_scale, scores_sum, logsum, 1)
                else:
                    Prefetch(K, V, K_shared_1, V_shared_1, column_index, column_count[0], k + block_N, bz, by)
                    Compute(acc_s, acc_s_cast, acc_o, scores_max, scores_max_prev, k, column_count[0], Q_shared,
                            K_shared_2, V_shared_2, scores_scale, scores_sum, logsum, 1)
            if T.ceildiv(column_count[0], block_N) % 2 == 0:
                Compute(acc_s, acc_s_cast, acc_o, scores_max, scores_max_prev,
                        T.ceildiv(column_count[0], block_N) * block_N - block_N, column_count[0], Q_shared,
                        K_shared_2, V_shared_2, scores_scale, scores_sum, logsum, LAST)
            else:
                Compute(acc_s, acc_s_cast, acc_o, scores_max, scores_max_prev,
                        T.ceildiv(column_count[0], block_N) * block_N - block_N, column_count[0], Q_shared,
                        K_shared_1, V_shared_1, scores_scale, scores_sum, logsum, LAST)
        for i, j in T.Parallel(block_M, dim):
            acc_o[i, j] /= logsum[i]
        T.copy(acc_o, O_shared)
        T.copy(O_shared, Output[bz, by, bx * block_M:(bx + 1) * block_M, :])


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"
    cfg = {tilelang.PassConfigKey.TL_DISABLE_SAFE_MEMORY_ACCESS: True, tilelang.PassConfigKey.TL_ENABLE_ASYNC_COPY: True}
    print(lower_device(vs_sparse_flashattn, arch, cfg).tir)
