"""Driver for corpus/unseen_users3 (not part of the source repository): SJTU-DENG-Lab/Diffulex at f2cbabc8
(the last commit before its quantization/TileLang code was removed), diffulex_kernel/python/
dllm_flash_attn_prefill_tilelang.py: the block-diffusion ("block_attention") varlen prefill kernel. Its wrapper
autotunes over auto_tuner.build_configs(); here the @tilelang.jit under the @tilelang.autotune is called
directly (`.jit_impl`) with one of those configs (BLOCK_M 64, BLOCK_N 64, NUM_STAGES 2, NUM_THREADS 128) and
Qwen-7B-like sizes (28 heads, 4 KV heads, head dim 128), 4 sequences of 1024 tokens in all, diffusion block 32.
The module imports `diffulex.attention.metadata` only for host-side types (the metadata dataclass and
is_warming_up); that package is not in the scratch tree, so a stand-in module provides those two names.
Placed at diffulex/ in the scratch tree."""
import sys
import types

_meta = types.ModuleType("diffulex.attention.metadata")
_meta.AttnMetaDataBase = object
_meta.is_warming_up = lambda: False
for _name in ("diffulex", "diffulex.attention"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
sys.modules["diffulex.attention.metadata"] = _meta

from diffulex_kernel.python.dllm_flash_attn_prefill_tilelang import dllm_flash_attn_prefill_kernel  # noqa: E402

dllm_flash_attn_prefill_kernel.jit_impl(4, 7, 1024, 1024, 28, 128, True, 32,
                                        BLOCK_M=64, BLOCK_N=64, NUM_STAGES=2, NUM_THREADS=128)
