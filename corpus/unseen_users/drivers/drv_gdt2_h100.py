"""Driver for corpus/unseen_users (not part of the source repository): amaranthine09/GDT2_TileLang
gdn2_h100/forward.py chunk_gdn2_fwd_h100 (the Hopper forward: its solve_wy_kernel under H100_PASS_CONFIGS, TMA,
WGMMA and warp specialization left on, plus the gdn2 kernels it reuses) with its default H100Config, at the
repo's bench/bench_h100.py defaults (B 2, H 16, DK = DV = 128, bfloat16) and S = 2048. Nothing of the repo is
changed. Placed at gdt2/ in the scratch tree."""
import torch
import torch.nn.functional as F

from gdn2_h100 import H100Config, chunk_gdn2_fwd_h100

B, S, H, DK, DV, dt = 2, 2048, 16, 128, 128, torch.bfloat16
q = F.normalize(torch.randn(B, S, H, DK, device="cuda"), dim=-1).to(dt)
k = F.normalize(torch.randn(B, S, H, DK, device="cuda"), dim=-1).to(dt)
v = torch.randn(B, S, H, DV, device="cuda").to(dt)
g = (-F.softplus(torch.randn(B, S, H, DK, device="cuda")) * 4.0).to(dt)
b = torch.sigmoid(torch.randn(B, S, H, DK, device="cuda")).to(dt)
w = torch.sigmoid(torch.randn(B, S, H, DV, device="cuda")).to(dt)
chunk_gdn2_fwd_h100(q, k, v, g, b, w, DK ** -0.5, None, False, H100Config())
