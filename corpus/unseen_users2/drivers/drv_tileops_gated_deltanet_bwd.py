"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.linear_attention.gated_deltanet.gated_deltanet_bwd.GatedDeltaNetBwdKernel with
batch 1, 4 heads, seq 512, chunk 64, dim_k = dim_v = 128, bf16. Its kernels are built inside forward, which reads
the batch/head/seq sizes off g, so forward gets zero CPU tensors of the kernel's shapes."""
from _tileops_common import build
import torch

if __name__ == "__main__":
    B, H, S, C, DK, DV = 1, 4, 512, 64, 128, 128
    z = lambda *s: torch.zeros(*s, dtype=torch.bfloat16)  # noqa: E731
    q, k, v, g, beta = z(B, H, S, DK), z(B, H, S, DK), z(B, H, S, DV), z(B, H, S), z(B, H, S)
    args = (q, k, v, g, beta) if "bwd" == "fwd" else (z(B, H, S, DV), q, k, v, g, beta, z(B, H, S // C, DK, DV))
    build("tileops.kernels.linear_attention.gated_deltanet.gated_deltanet_bwd", "GatedDeltaNetBwdKernel", B, H, S, C, DK, DV,
          dtype=torch.bfloat16, forward_args=args)
