"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.attention.deepseek_mla_decode.MLADecodeWsKernel with 2, 64, 1, 2048, 512, 64, torch.float16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.attention.deepseek_mla_decode", "MLADecodeWsKernel", 2, 64, 1, 2048, 512, 64, torch.float16)
