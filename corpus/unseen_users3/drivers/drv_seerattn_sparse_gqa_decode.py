"""Driver for corpus/unseen_users3 (not part of the source repository): microsoft/SeerAttention
seer_attn/kernels/varlen/tilelang_sparse_gqa_decode_varlen_indice.py, the block-sparse GQA decode kernel
(split-KV attention over selected block indices, then the split combine, in one prim_func). Its own main()
autotunes SparseFlashAttn over get_configs(); here one of those configs (block_H 64, num_stages 2, threads 128,
num_split 4) is compiled as the autotuner compiles it (out_idx=[-1]), with main()'s default sizes: batch 8,
32 heads / 8 KV heads, dim 128, max_cache_seqlen 8192, sparse_ratio 0.8, block_size 32 (52 selected blocks).
Placed at seerattn/ in the scratch tree."""
import math
import tilelang
from seer_attn.kernels.varlen.tilelang_sparse_gqa_decode_varlen_indice import flashattn

batch, heads, heads_kv, dim, dim_v, max_cache_seqlen, sparse_ratio, block_size = 8, 32, 8, 128, 128, 8192, 0.8, 32
max_selected_blocks = int(math.ceil(max_cache_seqlen * (1 - sparse_ratio) / block_size))
program = flashattn(batch, heads, heads_kv, dim, dim_v)(block_N=block_size, block_H=64, num_split=4, num_stages=2,
                                                        threads=128, max_cache_seqlen=max_cache_seqlen,
                                                        max_selected_blocks=max_selected_blocks)
tilelang.compile(program, out_idx=[-1], target="auto")
