"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.grouped_gemm.grouped_gemm.GroupedGemmKernel with 4096, 8, 1024, 1024, torch.bfloat16, False, True (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.grouped_gemm.grouped_gemm", "GroupedGemmKernel", 4096, 8, 1024, 1024, torch.bfloat16, False, True)
