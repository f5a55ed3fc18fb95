"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.gqa_decode.GQADecodeKernel with 2, 32, 4, 2048, 128, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.gqa_decode", "GQADecodeKernel", 2, 32, 4, 2048, 128, torch.float16)
