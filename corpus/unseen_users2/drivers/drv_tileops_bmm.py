"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.gemm.bmm.BmmKernel with 4, 512, 512, 512, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.gemm.bmm", "BmmKernel", 4, 512, 512, 512, torch.float16)
