"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.gemm.dense.GemmKernel with 1024, 1024, 1024, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.gemm.dense", "GemmKernel", 1024, 1024, 1024, torch.float16)
