"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.gemm.dense.GemmFp8BlockScaledKernel with 1024, 1024, 1024, torch.float8_e4m3fn, torch.bfloat16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.gemm.dense", "GemmFp8BlockScaledKernel", 1024, 1024, 1024, torch.float8_e4m3fn, torch.bfloat16)
