"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.convolution.conv2d.Conv2dKernel with 2, 64, 56, 56, 128, 3, 3, 1, 1, 1, 1, 1, 1, torch.float16, False (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.convolution.conv2d", "Conv2dKernel", 2, 64, 56, 56, 128, 3, 3, 1, 1, 1, 1, 1, 1, torch.float16, False)
