"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.linear_attention.deltanet.deltanet_bwd.DeltaNetBwdKernel with 1, 4, 512, 64, 128, 128, torch.bfloat16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.linear_attention.deltanet.deltanet_bwd", "DeltaNetBwdKernel", 1, 4, 512, 64, 128, 128, torch.bfloat16)
