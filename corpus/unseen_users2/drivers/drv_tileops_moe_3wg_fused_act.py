"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.moe.moe_grouped_gemm_persistent_3wg_fused_act.MoeGroupedGemmPersistent3WGFusedActKernel with 4096, 8, 1024, 1024, torch.bfloat16, 'silu_and_mul', 132 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.moe.moe_grouped_gemm_persistent_3wg_fused_act", "MoeGroupedGemmPersistent3WGFusedActKernel", 4096, 8, 1024, 1024, torch.bfloat16, 'silu_and_mul', 132)
