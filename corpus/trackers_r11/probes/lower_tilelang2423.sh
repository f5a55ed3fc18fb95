#!/bin/bash
# How the tilelang2423 pair was made (TileLang 0.1.15, system python, CPU): the example at the fix's parent and at the
# fix, each alone in a scratch examples tree, lowered by corpus/lower_field.py; then the IRModule wrapper is removed and
# the header (hdr.txt, the `#` lines at the top of either .tir without its first line) added by
# corpus/trackers_r9/probes/strip_module.py.
set -e
M=/work/.mirror/tile-ai+tilelang/repo
for v in pre post; do
  mkdir -p /tmp/tl2423/$v/examples/gemm_sm100
done
git -C $M show 1b462e2c5^:examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py > /tmp/tl2423/pre/examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py
git -C $M show 1b462e2c5:examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py > /tmp/tl2423/post/examples/gemm_sm100/gemm_tcgen5mma_ws_clc.py
cd /work/main
for v in pre post; do
  PYTHONPATH=/work/main:/tmp/tl2423/$v nice -n 10 python corpus/lower_field.py --examples /tmp/tl2423/$v/examples \
    --out /tmp/tl2423/${v}_out --only gemm_tcgen5mma_ws_clc --timeout 300
done
# (each run ends "error ... RuntimeError: No device is available" after the first kernel is lowered: the example's
# main then tries to run it; the one .tir written is the base kernel at M = N = K = 4096)
D=/work/main/corpus/trackers_r11; N=tilelang2423_clc_schedule_state_reused_before_all_readers_sm100a
python corpus/trackers_r9/probes/strip_module.py /tmp/tl2423/pre_out/*.tir $D/$N.tir $D/probes/tilelang2423_hdr.txt
python corpus/trackers_r9/probes/strip_module.py /tmp/tl2423/post_out/*.tir $D/${N}_fixed.tir $D/probes/tilelang2423_hdr.txt
