"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.deepseek_dsa_decode.SparseMlaKernel with 1, 1, 2048, 64, 512, 64, torch.bfloat16, 512, 576, 0, 1, None, False, 0 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.deepseek_dsa_decode", "SparseMlaKernel", 1, 1, 2048, 64, 512, 64, torch.bfloat16, 512, 576, 0, 1, None, True, 0)
