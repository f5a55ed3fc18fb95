#!/bin/sh
# Build the scratch tree corpus/unseen_users/lower_users.py lowers (default /tmp/users-src/examples): each source
# repository's files at the snapshot `fetch` brought to /work/.mirror/OWNER+NAME/repo (commits in README.md),
# in its own relative layout, plus this directory's drivers/ (and the sglang.srt.utils stand-in). Nothing of
# the repositories is committed here; only the drivers are ours.
#
#   sh corpus/unseen_users/make_scratch.sh [DEST]
set -e
DEST=${1:-/tmp/users-src/examples}
M=/work/.mirror
D=$(cd "$(dirname "$0")" && pwd)/drivers
x() {   # mirror, folder under DEST, paths to take (all when none)
    mirror=$1; dir=$2; shift 2
    mkdir -p "$DEST/$dir"
    git -C "$M/$mirror/repo" archive HEAD "$@" | tar -x -C "$DEST/$dir"
}
x deepseek-ai+DeepSeek-V3.2-Exp dsv32 inference
x NVIDIA+Megatron-LM megatron_lm megatron/core/transformer/experimental_attention_variant/ops
x ppppqp+qwen-in-tilelang qwen_in_tilelang src
x impecme+Tilelang-Learning tilelang_learning
x shuminghu+tilelang-bench tilelang_bench tasks
x HomleTree+tilelang-mace tilelang_mace
x tile-ai+tilelang-benchmark tilelang_benchmark hopper_benchmark
x RuneFang+tvm_tilelang_cookbook tl_cookbook docs/examples
x Leafoon+tilelang-operator-dev tl_operator_dev resources
x amaranthine09+GDT2_TileLang gdt2 gdn2 gdn2_h100 tests bench
# sglang: only the NSA TileLang kernel file, from the Ammar-Alnagar/Chimera snapshot (a fork of sgl-project/sglang;
# the file there is as sgl-project/sglang commit efbc687c2 added it), plus the stand-in for sglang.srt.utils.
mkdir -p "$DEST/sglang/python/sglang/srt/layers/attention/nsa"
git -C "$M/Ammar-Alnagar+Chimera/repo" show HEAD:python/sglang/srt/layers/attention/nsa/tilelang_kernel.py \
    > "$DEST/sglang/python/sglang/srt/layers/attention/nsa/tilelang_kernel.py"
cp "$D/sglang_srt_utils_standin.py" "$DEST/sglang/python/sglang/srt/utils.py"
cp "$D"/drv_dsv32_*.py "$DEST/dsv32/"
cp "$D"/drv_megatron_dsa.py "$DEST/megatron_lm/"
cp "$D"/drv_qwen_kernels.py "$DEST/qwen_in_tilelang/"
cp "$D"/drv_tl_learning_*.py "$DEST/tilelang_learning/"
cp "$D"/drv_tlbench_*.py "$DEST/tilelang_bench/"
cp "$D"/drv_operator_template.py "$DEST/tl_operator_dev/"
cp "$D"/drv_gdt2_*.py "$DEST/gdt2/"
cp "$D"/drv_sglang_nsa.py "$DEST/sglang/"
