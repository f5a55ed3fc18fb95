"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.fp8_quant.FP8QuantKernel with 1, 2048, 1, 128, torch.bfloat16 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.fp8_quant", "FP8QuantKernel", 1, 2048, 1, 128, torch.bfloat16)
