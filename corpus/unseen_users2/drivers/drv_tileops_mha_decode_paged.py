"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.mha_decode_paged.MHADecodePagedKernel with 2, 16, 1, 2048, 128, 64, False, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.mha_decode_paged", "MHADecodePagedKernel", 2, 16, 1, 2048, 128, 64, False, torch.float16)
