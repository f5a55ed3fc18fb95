"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.mamba.ssd_chunk_state.SSDChunkStateFwdKernel with 1, 8, 64, 8, 64, 128, 1, torch.bfloat16, False (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.mamba.ssd_chunk_state", "SSDChunkStateFwdKernel", 1, 8, 64, 8, 64, 128, 1, torch.bfloat16, False)
