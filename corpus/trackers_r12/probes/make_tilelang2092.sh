#!/bin/bash
# Rebuild the tilelang2092 pair: FIXED = TileLang 0.1.15's lowering (it contains #2092's fix), BUGGY = the same text
# with the two trailing drain waits set to what RelaxTrailingConsumerWaits computes at the fix's parent (6d0bffb9e):
# every suffix wait but the last rewritten to retain = num_stages - 1 = 3.
set -e
D=$(cd "$(dirname "$0")/.." && pwd)
P=$D/probes
T=$(mktemp -d)
cd /tmp && nice -n 10 python3 $P/lower_tilelang2092_pipe.py 5 4 > $T/raw.tir 2>/dev/null
python3 $P/../../trackers_r9/probes/strip_module.py $T/raw.tir $D/tilelang2092_pipeline_tail_drain_wait_group_too_large_sm80_fixed.tir $P/tilelang2092_hdr.txt
python3 $P/../../trackers_r9/probes/strip_module.py $T/raw.tir $T/b.tir $P/tilelang2092_hdr.txt
# exactly two lines change: the first two tail waits (2 -> 3, 1 -> 3)
sed -e 's/^    T.ptx_wait_group(2)$/    T.ptx_wait_group(3)/' -e 's/^    T.ptx_wait_group(1)$/    T.ptx_wait_group(3)/' $T/b.tir > $D/tilelang2092_pipeline_tail_drain_wait_group_too_large_sm80.tir
rm -rf $T
