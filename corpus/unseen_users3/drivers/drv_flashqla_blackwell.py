"""Driver for corpus/unseen_users3 (not part of the source repository): QwenLM/FlashQLA, the Blackwell (sm_100) kernels
(flash_qla/ops/gated_delta_rule/chunk/blackwell/, chosen when the compute version is 10.0).
Forward then backward of chunk_gated_delta_rule, fixed-length (no cu_seqlens), auto_cp off, with the
sizes of the repository's tests (tests/test_gdr_unit.py "B1-T4096-H8G2": Hk 2, Hv 8, K = V = 128, bf16 q/k/v,
fp32 g and beta; here T 1024) and an initial state. Placed at flashqla/ in the scratch tree.
The only stub: `tilelang.contrib.nvcc.get_target_compute_version` (a GPU query FlashQLA makes at import to
pick its kernel folder) answers "10.0"; the kernels' lowering does not read it."""
import tilelang.contrib.nvcc as _nvcc

_nvcc.get_target_compute_version = lambda *a, **k: "10.0"

import torch  # noqa: E402
from flash_qla import chunk_gated_delta_rule_fwd, chunk_gated_delta_rule_bwd  # noqa: E402

B, T, HK, HV, D = 1, 1024, 2, 8, 128
dev = "cuda"
q = torch.randn(B, T, HK, D, device=dev, dtype=torch.bfloat16)
k = torch.randn(B, T, HK, D, device=dev, dtype=torch.bfloat16)
v = torch.randn(B, T, HV, D, device=dev, dtype=torch.bfloat16)
g = -torch.rand(B, T, HV, device=dev, dtype=torch.float32)
beta = torch.rand(B, T, HV, device=dev, dtype=torch.float32)
h0 = torch.randn(B, HV, D, D, device=dev, dtype=torch.float32)
scale = D ** -0.5

g2, A, o, h, ht, _ = chunk_gated_delta_rule_fwd(q, k, v, g, beta, scale=scale, initial_state=h0,
                                                output_final_state=True, auto_cp=False)
do = torch.randn_like(v)
dht = torch.randn(B, HV, D, D, device=dev, dtype=torch.float32)
chunk_gated_delta_rule_bwd(q, k, v, g2, beta, A, do, dht=dht, scale=scale, initial_state=h0, auto_cp=False)
