"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.gqa_sliding_window_fwd.GQASlidingWindowFwdWgmmaPipelinedKernel with 2, 16, 4, 1024, 128, True, 256, 0, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.gqa_sliding_window_fwd", "GQASlidingWindowFwdWgmmaPipelinedKernel", 2, 16, 4, 1024, 128, True, 256, 0, torch.float16)
