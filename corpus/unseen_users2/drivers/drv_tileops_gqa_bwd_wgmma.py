"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.gqa_bwd.GQABwdWgmmaPipelinedKernel with 2, 16, 4, 1024, 128, True, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.gqa_bwd", "GQABwdWgmmaPipelinedKernel", 2, 16, 4, 1024, 128, True, torch.float16)
