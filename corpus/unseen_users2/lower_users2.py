"""Lower TileLang kernels of a second set of user repositories (see README.md) with corpus/lower_field.py's
machinery, unchanged, exactly as corpus/unseen_users/lower_users.py does (imported from there: its stand-ins for
absent packages and its `tilelang.intrinsics` alias are kept); only the file -> archs table differs (ARCHS).

    nice -n 15 python corpus/unseen_users2/lower_users2.py --examples /tmp/users2-src/examples \
        --out corpus/unseen_users2 --jobs 1 --timeout 300
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen_users"))
sys.path.insert(0, os.path.dirname(HERE))
import lower_users  # noqa: E402  (installs its classify / stand-ins / child on lower_field)
import lower_field  # noqa: E402

GENERIC = ["sm_80", "sm_90a"]
HOPPER = ["sm_90a"]

ARCHS = {
    # tile-ai/TileOPs (MIT): library kernels, via drivers (drivers/drv_tileops_*.py)
    "tileops/drv_tileops_mha_decode_paged_ws.py": HOPPER,
    "tileops/drv_tileops_gqa_fwd_ws.py": HOPPER,
    "tileops/drv_tileops_gqa_decode_paged.py": GENERIC,
    "tileops/drv_tileops_mla_decode_ws.py": HOPPER,
    "tileops/drv_tileops_nsa_fwd.py": HOPPER,
    "tileops/drv_tileops_grouped_gemm_3wg.py": HOPPER,
    "tileops/drv_tileops_fp8_lightning_indexer.py": HOPPER,
    "tileops/drv_tileops_gated_deltanet_fwd.py": GENERIC,
    "tileops/drv_tileops_gqa_fwd_wgmma.py": HOPPER,
    "tileops/drv_tileops_gqa_bwd_wgmma.py": HOPPER,
    "tileops/drv_tileops_gqa_decode_bs1.py": HOPPER,
    "tileops/drv_tileops_gqa_decode_bs1_paged.py": HOPPER,
    "tileops/drv_tileops_gqa_sliding_window.py": HOPPER,
    "tileops/drv_tileops_dsa_decode.py": HOPPER,
    "tileops/drv_tileops_nsa_cmp_fwd.py": HOPPER,
    "tileops/drv_tileops_nsa_topk.py": HOPPER,
    "tileops/drv_tileops_bmm.py": HOPPER,
    "tileops/drv_tileops_gemm.py": HOPPER,
    "tileops/drv_tileops_gemm_fp8_blockscaled.py": HOPPER,
    "tileops/drv_tileops_moe_3wg_fused_act.py": HOPPER,
    "tileops/drv_tileops_topk_selector.py": HOPPER,
    "tileops/drv_tileops_fp8_quant.py": HOPPER,
    "tileops/drv_tileops_gqa_decode.py": GENERIC,
    "tileops/drv_tileops_mha_decode.py": GENERIC,
    "tileops/drv_tileops_mha_decode_paged.py": GENERIC,
    "tileops/drv_tileops_w4a16.py": GENERIC,
    "tileops/drv_tileops_grouped_gemm.py": GENERIC,
    "tileops/drv_tileops_moe_nopad.py": GENERIC,
    "tileops/drv_tileops_shared_expert_mlp.py": GENERIC,
    "tileops/drv_tileops_deltanet_fwd.py": GENERIC,
    "tileops/drv_tileops_deltanet_bwd.py": GENERIC,
    "tileops/drv_tileops_gated_deltanet_bwd.py": GENERIC,
    "tileops/drv_tileops_gla_fwd.py": GENERIC,
    "tileops/drv_tileops_gla_bwd.py": GENERIC,
    "tileops/drv_tileops_ssd_chunk_scan.py": GENERIC,
    "tileops/drv_tileops_ssd_chunk_state.py": GENERIC,
    "tileops/drv_tileops_conv2d.py": GENERIC,
    # Anjiang-Wei/tilelang_PTX (MIT, fork of tilelang; only its own PTX/ folder): own __main__ blocks
    "tl_ptx/PTX/gemm1.py": GENERIC,
    "tl_ptx/PTX/gemm2.py": GENERIC,
    "tl_ptx/PTX/gemm3.py": GENERIC,
    "tl_ptx/PTX/conv2d.py": GENERIC,
}


def classify(rel, src):
    if rel in ARCHS:
        return list(ARCHS[rel]), None
    return [], "not selected for corpus/unseen_users2 (lower_users2.ARCHS)"


lower_field.classify = classify
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
