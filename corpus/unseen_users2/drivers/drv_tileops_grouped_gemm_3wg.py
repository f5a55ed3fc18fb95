"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.grouped_gemm.grouped_gemm_persistent_3wg.GroupedGemmPersistent3WGKernel with 4096, 8, 1024, 1024, dtype=torch.bfloat16, sm_count=132 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.grouped_gemm.grouped_gemm_persistent_3wg", "GroupedGemmPersistent3WGKernel", 4096, 8, 1024, 1024, dtype=torch.bfloat16, sm_count=132)
