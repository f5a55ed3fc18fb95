"""Driver (ours) for tile-ai/TileOPs: tileops.kernels.moe.moe_grouped_gemm_nopad.MoeGroupedGemmNopadKernel with
4096 routed tokens, 8 experts, N = K = 1024, bf16. Its kernels are built inside forward, so forward gets CPU
tensors of the kernel's shapes (512 tokens per expert)."""
from _tileops_common import build
import torch

if __name__ == "__main__":
    T_, E, N, K = 4096, 8, 1024, 1024
    A = torch.zeros(T_, K, dtype=torch.bfloat16)
    B = torch.zeros(E, N, K, dtype=torch.bfloat16)
    sizes = torch.full((E,), T_ // E, dtype=torch.int32)
    offs = torch.arange(E, dtype=torch.int32) * (T_ // E)
    build("tileops.kernels.moe.moe_grouped_gemm_nopad", "MoeGroupedGemmNopadKernel", T_, E, N, K, torch.bfloat16,
          forward_args=(A, B, sizes, offs))
