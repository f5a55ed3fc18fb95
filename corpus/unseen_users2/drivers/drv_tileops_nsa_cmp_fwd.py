"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.deepseek_nsa_cmp_fwd.NSACmpFwdVarlenKernel with 1, 1024, 64, 128, 128, 64, 16, 0.088, 32, 64, torch.bfloat16, torch.float32 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.deepseek_nsa_cmp_fwd", "NSACmpFwdVarlenKernel", 1, 1024, 64, 128, 128, 64, 16, 0.088, 32, 64, torch.bfloat16, torch.float32)
