"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.topk_selector.TopkSelectorKernel with 1, 1024, 2048, 1, 512, torch.float32, torch.int32 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.topk_selector", "TopkSelectorKernel", 1, 1024, 2048, 1, 512, torch.float32, torch.int32)
