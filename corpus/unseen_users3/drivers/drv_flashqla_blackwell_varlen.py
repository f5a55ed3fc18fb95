"""Driver for corpus/unseen_users3 (not part of the source repository): QwenLM/FlashQLA, the Blackwell (sm_100) kernels,
variable-length path with the package's automatic intra-card context parallelism (auto_cp=True): forward
then backward of chunk_gated_delta_rule on two packed sequences (cu_seqlens [0, 300, 16384], int32), Hk = Hv
= 4, K = V = 128 (the tests' "B1-T4096-H4" heads; a long sequence so that the package's own rule turns CP
on), bf16 q/k/v, fp32 g and beta, with an initial state. The tensors are CPU tensors holding values
(the CP planner reads cu_seqlens with .tolist()); no kernel runs. Placed at flashqla/ in the scratch tree.
Stubs (GPU queries only): `torch.cuda.is_current_stream_capturing` (asked by flash_qla.utils.tensor_cache)
answers False; `tilelang.contrib.nvcc.get_target_compute_version` answers "10.0" (see drv_flashqla_hopper.py)."""
import tilelang.contrib.nvcc as _nvcc

_nvcc.get_target_compute_version = lambda *a, **k: "10.0"

import torch  # noqa: E402

torch.cuda.is_current_stream_capturing = lambda: False
from flash_qla import chunk_gated_delta_rule_fwd, chunk_gated_delta_rule_bwd  # noqa: E402

T, H, D = 16384, 4, 128
dev = "cpu"
cu = torch.tensor([0, 300, T], dtype=torch.int32, device=dev)
q = torch.randn(1, T, H, D, device=dev, dtype=torch.bfloat16)
k = torch.randn(1, T, H, D, device=dev, dtype=torch.bfloat16)
v = torch.randn(1, T, H, D, device=dev, dtype=torch.bfloat16)
g = -torch.rand(1, T, H, device=dev, dtype=torch.float32)
beta = torch.rand(1, T, H, device=dev, dtype=torch.float32)
h0 = torch.randn(2, H, D, D, device=dev, dtype=torch.float32)
scale = D ** -0.5

g2, A, o, h, ht, cp_cache = chunk_gated_delta_rule_fwd(q, k, v, g, beta, scale=scale, initial_state=h0,
                                                       output_final_state=True, cu_seqlens=cu, auto_cp=True,
                                                       enable_fwd_cp_cache=True)
do = torch.randn_like(v)
dht = torch.randn(2, H, D, D, device=dev, dtype=torch.float32)
chunk_gated_delta_rule_bwd(q, k, v, g2, beta, A, do, dht=dht, scale=scale, initial_state=h0, cu_seqlens=cu,
                           auto_cp=True, cp_cache=cp_cache)
