#!/bin/sh
# Build the scratch tree lower_users3.py lowers (default /tmp/users3-src/examples) from the fetch snapshots
# (/work/.mirror/OWNER+NAME/repo, commits in README.md) plus this directory's drivers/.
set -e
DEST=${1:-/tmp/users3-src/examples}
M=/work/.mirror
D=$(cd "$(dirname "$0")" && pwd)/drivers
x() { mirror=$1; commit=$2; dir=$3; shift 3; mkdir -p "$DEST/$dir"; git -C "$M/$mirror/repo" archive "$commit" "$@" | tar -x -C "$DEST/$dir"; }
x QwenLM+FlashQLA c18a4860ea9cb937f1075d606b4823d6ae34e880 flashqla flash_qla
x deepseek-ai+TileKernels 36d9e45d38e204ebb87e6f6e833821eee0482fe5 tilekernels tile_kernels
x microsoft+SeerAttention aba03e3f2caefd0ccd21e576670aa830b748c84e seerattn seer_attn/kernels/varlen/tilelang_sparse_gqa_decode_varlen_indice.py seer_attn/kernels/varlen/utils.py
x SJTU-DENG-Lab+Diffulex f2cbabc84b57adb339aa93cb5a567e0bc011941b diffulex diffulex_kernel/python/dllm_flash_attn_prefill_tilelang.py diffulex_kernel/python/linear_kernels.py diffulex_kernel/python/auto_tuner.py
for d in flashqla tilekernels seerattn diffulex; do
  ls "$D"/drv_${d}_*.py >/dev/null 2>&1 && cp "$D"/drv_${d}_*.py "$DEST/$d/"
done
cp "$D"/_tk_common.py "$DEST/tilekernels/"
exit 0
