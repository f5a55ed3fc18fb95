"""Driver for corpus/unseen_users (not part of the source repository): amaranthine09/GDT2_TileLang gdn2/
(Gated DeltaNet-2 TileLang kernels): the training forward chunk_gdn2_fwd (seven @tilelang.jit kernels), the
backward chunk_gdn2_bwd, and the serving paths gdn2_prefill and gdn2_decode, each through the package's own
entry point with its default GDN2Config, at the sizes of the repo's bench/bench_h100.py defaults (B 2, H 16,
DK = DV = 128, bfloat16) and S = 2048 (one of its -S values); decode with one new token. The kernel files have
no __main__; nothing of them is changed. Placed at gdt2/ in the scratch tree (next to gdn2/)."""
import sys

import torch
import torch.nn.functional as F

from gdn2 import chunk_gdn2_bwd, chunk_gdn2_fwd, gdn2_decode, gdn2_prefill


def run(fn, *a, **k):
    """One entry point; lower_field's stand-in kernels may stop it. An error of the entry point itself
    (chunk_gdn2_bwd: `NameError: name 'Ai' is not defined`, raised by chunk_gdn2_fwd(return_intermediates=True)
    at the repo's commit) is printed (lower_field keeps the child's output tail) and the next entry point runs."""
    try:
        fn(*a, **k)
    except Exception as e:  # noqa: BLE001
        print(f"driver: {fn.__name__} raised {type(e).__name__}: {e}", file=sys.stderr)
    except BaseException as e:  # noqa: BLE001
        if type(e).__name__ != "StopExample":
            raise


B, S, H, DK, DV, dt = 2, 2048, 16, 128, 128, torch.bfloat16


def inputs(S):   # bench/bench_h100.py make_inputs, cast as its main() passes dtype
    q = F.normalize(torch.randn(B, S, H, DK, device="cuda"), dim=-1).to(dt)
    k = F.normalize(torch.randn(B, S, H, DK, device="cuda"), dim=-1).to(dt)
    v = torch.randn(B, S, H, DV, device="cuda").to(dt)
    g = (-F.softplus(torch.randn(B, S, H, DK, device="cuda")) * 4.0).to(dt)
    b = torch.sigmoid(torch.randn(B, S, H, DK, device="cuda")).to(dt)
    w = torch.sigmoid(torch.randn(B, S, H, DV, device="cuda")).to(dt)
    return q, k, v, g, b, w


q, k, v, g, b, w = inputs(S)
scale = DK ** -0.5
run(chunk_gdn2_fwd, q, k, v, g, b, w, scale)
run(chunk_gdn2_bwd, q, k, v, g, b, w, scale, None, torch.randn(B, S, H, DV, device="cuda").to(dt), None)
run(gdn2_prefill, q, k, v, g, b, w, scale=scale)
state = torch.zeros(B, H, DK, DV, device="cuda", dtype=torch.float32)
q1, k1, v1, g1, b1, w1 = inputs(1)
run(gdn2_decode, q1, k1, v1, g1, b1, w1, state, scale=scale)
