#!/bin/bash
# How the four trackers_r14 pairs (and the #1550 duplicate) were made (CPU, niced). Raw lowerings go to /tmp/r14; the corpus files are the raw
# lowerings with the IRModule wrapper removed and the header (NAME_hdr.txt) added by strip_module.py.
#
# TileLang 0.1.9 (the release TileOPs pinned) was installed beside the system's 0.1.15 in a scratch folder, no deps:
#   pip download tilelang==0.1.9 --no-deps -d /tmp/tl019 && unzip -q /tmp/tl019/tilelang-0.1.9-*.whl -d /tmp/tl019/site
#   pip install --no-deps --target /tmp/tl019/site apache-tvm-ffi==0.1.9   # 0.1.9 fails to import with tvm-ffi 0.1.12
# and is selected with PYTHONPATH=/tmp/tl019/site. The system TileLang is 0.1.15.
set -e
P=$(cd "$(dirname "$0")" && pwd); D=$(dirname "$P"); mkdir -p /tmp/r14
TL019=/tmp/tl019/site
# TileLang 0.1.9's ThreadSync is NOT deterministic on these two kernels: lowering the same parent kernel twice gives
# either no partial barrier around the o_shared round-trip or both (`tvm_storage_sync("shared.dyn", 3, 256)` before
# and after the stmatrix); 1633 parent: 2 of 6 runs with the barriers, 4 without; 1405 parent: 5 of 6 with, 1 without
# (PYTHONHASHSEED does not pin it, so the variation is on the C++ side). pick() relowers until the output has the
# wanted number of `tvm_storage_sync(..., 3, 256)` lines (20 tries at most).
pick() {  # pick SCRIPT pre|post WANT OUT
  for i in $(seq 1 20); do
    (cd /work/main && PYTHONPATH=$TL019:/work/main nice -n 10 python "$P/$1" $2 "$4" > /dev/null 2>&1)
    n=$(grep -c 'tvm_storage_sync("shared[.a-z]*", 3, 256)' "$4" || true)
    echo "$1 $2 try $i: $n partial barrier(s)"
    [ "$n" = "$3" ] && return 0
  done
  echo "$1 $2: no output with $3 partial barrier(s) in 20 tries" >&2; return 1
}
# Pair 1: TileOPs#1633, TileLang 0.1.9. Buggy: a parent lowering with no partial barrier. Fixed: a fix lowering with
# just the two user barriers (the other outcome adds ThreadSync's own "shared.dyn" barrier next to the first one).
pick lower_tileops1633.py pre 0 /tmp/r14/t1633_pre_019.tir
pick lower_tileops1633.py post 2 /tmp/r14/t1633_post_019.tir
N=tileops1633_gqa_sw_fwd_stmatrix_o_shared_then_tma_store_no_barrier_tl019_sm90a
python "$P/strip_module.py" /tmp/r14/t1633_pre_019.tir "$D/$N.tir" "$P/tileops1633_hdr.txt"
python "$P/strip_module.py" /tmp/r14/t1633_post_019.tir "$D/${N}_fixed.tir" "$P/tileops1633_hdr.txt"
# Pair 4: TileOPs#1405, TileLang 0.1.9. Buggy: a parent lowering with no partial barrier. Fixed: the fix lowering (all
# 4 runs seen gave the same output: the two user barriers and ThreadSync's "shared.dyn" one before the stmatrix).
pick lower_tileops1405.py pre 0 /tmp/r14/t1405_pre_019.tir
pick lower_tileops1405.py post 3 /tmp/r14/t1405_post_019.tir
N=tileops1405_gqa_sw_varlen_fwd_stmatrix_o_shared_then_generic_reads_no_barrier_tl019_sm90a
python "$P/strip_module.py" /tmp/r14/t1405_pre_019.tir "$D/$N.tir" "$P/tileops1405_hdr.txt"
python "$P/strip_module.py" /tmp/r14/t1405_post_019.tir "$D/${N}_fixed.tir" "$P/tileops1405_hdr.txt"
# Pair 2 (and the #1550 duplicate): TileOPs#1574 and #1550, TileLang 0.1.15 (0.1.9 output kept under /tmp/r14 for comparison).
for c in 77502ffa^ 77502ffa 8cc6eb04; do
  n=$(echo $c | tr '^' p)
  (cd /tmp && nice -n 10 python "$P/lower_tileops3wg.py" $c /tmp/r14/g3wg_${n}_0115.tir)
  (cd /tmp && PYTHONPATH=$TL019 nice -n 10 python "$P/lower_tileops3wg.py" $c /tmp/r14/g3wg_${n}_019.tir)
done
A=tileops1550_3wg_grouped_gemm_next_wave_stmatrix_over_inflight_tma_store_sm90a
B=tileops1574_3wg_grouped_gemm_stmatrix_then_tma_store_no_barrier_sm90a
# TileOPs#1550 is already a pair in corpus/trackers_new (a reduced program), so its real-output files are kept
# under probes/dup_tileops1550/ only (not a trackers_r14 pair).
mkdir -p "$P/dup_tileops1550"
python "$P/strip_module.py" /tmp/r14/g3wg_77502ffap_0115.tir "$P/dup_tileops1550/$A.tir" "$P/tileops1550_hdr.txt"
python "$P/strip_module.py" /tmp/r14/g3wg_77502ffa_0115.tir "$P/dup_tileops1550/${A}_fixed.tir" "$P/tileops1550_hdr.txt"
python "$P/strip_module.py" /tmp/r14/g3wg_77502ffa_0115.tir "$D/$B.tir" "$P/tileops1574_hdr.txt"
python "$P/strip_module.py" /tmp/r14/g3wg_8cc6eb04_0115.tir "$D/${B}_fixed.tir" "$P/tileops1574_hdr.txt"
# Pair 3: TileOPs#1903, TileLang 0.1.15, V2P_NUM_SMS=2 (2 persistent CTAs).
for c in c9dfeadc^ c9dfeadc; do
  n=$(echo $c | tr '^' p)
  (cd /tmp && V2P_NUM_SMS=2 nice -n 10 python "$P/lower_tileops1903.py" $c /tmp/r14/fp8_${n}.tir)
done
N=tileops1903_fp8_gqa_ws_one_v_full_barrier_for_two_v_buffers_phase_wrap_sm90a
python "$P/strip_module.py" /tmp/r14/fp8_c9dfeadcp.tir "$D/$N.tir" "$P/tileops1903_hdr.txt"
python "$P/strip_module.py" /tmp/r14/fp8_c9dfeadc.tir "$D/${N}_fixed.tir" "$P/tileops1903_hdr.txt"
# Not a pair: tilelang#3085's repro (lower_tilelang3085.py) does not compile under 0.1.15 (see MANIFEST.md).
