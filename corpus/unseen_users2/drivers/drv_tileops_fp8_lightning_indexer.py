"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.fp8_lightning_indexer.FP8LightningIndexerKernel with 1, 1024, 64, 128, 2048, 1 (realistic small sizes)."""
from _tileops_common import build
import torch  # noqa: F401

if __name__ == "__main__":
    build("tileops.kernels.fp8_lightning_indexer", "FP8LightningIndexerKernel", 1, 1024, 64, 128, 2048, 1)
