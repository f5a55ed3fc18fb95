"""Lower TileLang kernels of a third set of user repositories (see README.md) with corpus/lower_field.py's
machinery, unchanged, exactly as corpus/unseen_users/lower_users.py does (imported from there: its stand-ins
for absent packages and its `tilelang.intrinsics` alias are kept); only the file -> archs table differs (ARCHS).

    sh corpus/unseen_users3/make_scratch3.sh
    nice -n 10 python corpus/unseen_users3/lower_users3.py --examples /tmp/users3-src/examples \
        --out corpus/unseen_users3 --jobs 1 --timeout 400
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
BLACKWELL = ["sm_100a"]

ARCHS = {
    # QwenLM/FlashQLA (MIT): Gated-DeltaNet chunked prefill, Hopper and Blackwell kernel folders, via drivers
    "flashqla/drv_flashqla_hopper.py": HOPPER,
    "flashqla/drv_flashqla_hopper_varlen.py": HOPPER,
    "flashqla/drv_flashqla_blackwell.py": BLACKWELL,
    "flashqla/drv_flashqla_blackwell_varlen.py": BLACKWELL,
    # deepseek-ai/TileKernels (MIT): MoE routing, quantization, engram, mHC kernels (SM90/SM100), via drivers
    "tilekernels/drv_tilekernels_moe.py": HOPPER,
    "tilekernels/drv_tilekernels_quant.py": HOPPER,
    "tilekernels/drv_tilekernels_engram.py": HOPPER,
    "tilekernels/drv_tilekernels_mhc.py": HOPPER,
    "tilekernels/drv_tilekernels_mhc2.py": HOPPER,
    # microsoft/SeerAttention (MIT): sparse GQA decode (varlen, block indices), via a driver
    "seerattn/drv_seerattn_sparse_gqa_decode.py": GENERIC,
    # SJTU-DENG-Lab/Diffulex (Apache-2.0, at f2cbabc8): dLLM prefill attention and quantized linear GEMMs
    "diffulex/drv_diffulex_prefill_attn.py": GENERIC,
    "diffulex/drv_diffulex_linear.py": GENERIC,
    "diffulex/drv_diffulex_linear_fp8.py": HOPPER,
}


def classify(rel, src):
    if rel in ARCHS:
        return list(ARCHS[rel]), None
    return [], "not selected for corpus/unseen_users3 (lower_users3.ARCHS)"


lower_field.classify = classify
lower_field.children_through(os.path.abspath(__file__))

if __name__ == "__main__":
    sys.exit(lower_field.main())
