"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.gemm.w4a16.GemmW4A16Kernel with 1024, 1024, 1024, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.gemm.w4a16", "GemmW4A16Kernel", 1024, 1024, 1024, torch.float16)
