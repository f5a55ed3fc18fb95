"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.moe.shared_expert_mlp.SharedExpertMLPKernel with 512, 1024, 2048, torch.bfloat16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.moe.shared_expert_mlp", "SharedExpertMLPKernel", 512, 1024, 2048, torch.bfloat16)
