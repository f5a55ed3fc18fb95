"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.deepseek_nsa_fwd.NSAFwdVarlenKernel with 1, 64, 1024, 128, True, 0.088, 64, 16, 16, torch.bfloat16, torch.float32 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.deepseek_nsa_fwd", "NSAFwdVarlenKernel", 1, 64, 1024, 128, True, 0.088, 64, 16, 16, torch.bfloat16, torch.float32)
