"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.gqa_fwd_ws.GQAFwdWsPersistentKernel with 2, 16, 4, 1024, 128, False, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.gqa_fwd_ws", "GQAFwdWsPersistentKernel", 2, 16, 4, 1024, 128, False, torch.float16)
