"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.linear_attention.gla.gla_fwd.GLAFwdKernel with 1, 512, 4, 128, 128, 64, 0.088, False, torch.bfloat16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.linear_attention.gla.gla_fwd", "GLAFwdKernel", 1, 512, 4, 128, 128, 64, 0.088, False, torch.bfloat16)
