"""Driver for corpus/unseen_users (not part of the source repository): builds the TileLang kernels of
ppppqp/qwen-in-tilelang src/qwen_inference/kernels/*.py (lazy-style @tilelang.jit kernels compiled by
qwen_inference.utils.run_kernel) through the package's own wrappers, with the block sizes its model code
(qwen.py) passes, on one 128-token prefill of a Qwen3-0.6B-sized layer (hidden 1024, 16 query heads, 8 KV heads,
head_dim 128, intermediate 3072). The kernel files have no __main__; nothing of them is changed.
Placed at qwen_in_tilelang/ in the scratch tree (next to src/)."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
from qwen_inference.kernels import grouped_attention, linear, rms_norm, rope, silu, softmax  # noqa: E402


def build(fn, *a, **k):
    """Run one wrapper; lower_field's stand-in kernel may stop it once the kernel is compiled."""
    try:
        fn(*a, **k)
    except BaseException as e:  # noqa: BLE001
        if type(e).__name__ != "StopExample":
            raise


S, HID, QH, KVH, HD, INTER = 128, 1024, 16, 8, 128, 3072
dev, f16, f32 = "cuda", torch.float16, torch.float32
x = torch.randn(S, HID, dtype=f16, device=dev)
build(linear, x, torch.randn(HID, QH * HD, dtype=f16, device=dev), BLOCK_M=16, BLOCK_N=64, BLOCK_K=64)
build(grouped_attention, torch.randn(1, S, QH, HD, dtype=f16, device=dev),
      torch.randn(1, S, KVH, HD, dtype=f16, device=dev), torch.randn(1, S, KVH, HD, dtype=f16, device=dev))
build(rms_norm, x, torch.ones(HID, dtype=f16, device=dev), 1e-6)
build(silu, torch.randn(S, INTER, dtype=f16, device=dev), BLOCK_M=16, BLOCK_N=INTER)
build(softmax, torch.randn(S, S, dtype=f32, device=dev))
build(rope, torch.randn(1, S, QH, HD, dtype=f32, device=dev))
