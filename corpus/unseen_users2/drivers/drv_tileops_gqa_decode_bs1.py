"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.gqa_decode_bs1.GQADecodeBs1Kernel with 1, 32, 4, 4096, 128, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.gqa_decode_bs1", "GQADecodeBs1Kernel", 1, 32, 4, 4096, 128, torch.float16)
