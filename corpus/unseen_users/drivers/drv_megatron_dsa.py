"""Driver for corpus/unseen_users (not part of the source repository): builds the TileLang kernels of
NVIDIA/Megatron-LM megatron/core/transformer/experimental_attention_variant/ops/tilelang_*.py through the
modules' own kernel getters (_get_*_kernel: the sizes and defaults their interfaces pass), at DeepSeek-V3.2
sizes: 128 heads, kv_lora_rank 512 + rope 64, topk 2048, indexer 64 heads x 128. No file there has a
__main__; nothing of them is changed. Placed at megatron_lm/ in the scratch tree."""
import importlib

P = "megatron.core.transformer.experimental_attention_variant.ops."
fwd = importlib.import_module(P + "tilelang_sparse_mla_fwd")
bwd = importlib.import_module(P + "tilelang_sparse_mla_bwd")
ifwd = importlib.import_module(P + "tilelang_indexer_fwd")
ibwd = importlib.import_module(P + "tilelang_indexer_bwd")
loss = importlib.import_module(P + "tilelang_indexer_loss")

H, D, D_TAIL, TOPK, IH, ID = 128, 512, 64, 2048, 64, 128
SM_SCALE = (D + D_TAIL) ** -0.5

fwd._get_sparse_mla_fwd_kernel(H, D, D_TAIL, TOPK, 1, SM_SCALE, 64, 2, 256)   # interface defaults
bwd._get_preprocess_kernel(H, D)
bwd._get_bwd_kernel(H, D, D_TAIL, TOPK, 1, SM_SCALE, 32)                       # MCORE_DSA_TILELANG_BWD_MAX_BLOCK_H default
bwd._get_postprocess_kernel(D, D_TAIL, 1)
ifwd._get_indexer_fwd_kernel(IH, ID)
ifwd._get_clean_logits_kernel()
ibwd._get_indexer_bwd_kernel(IH, ID, TOPK)   # = _canonical_topk(2048); its helper _round_up needs megatron.core.utils, not here
loss._get_target_kernel(H, D + D_TAIL, TOPK, SM_SCALE)
loss._get_kl_kernel(TOPK)
