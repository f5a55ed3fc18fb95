#!/bin/bash
# Runs asyncguard on every .tir of corpus/trackers_r10 in the four requested modes (plus --strict tcgen05 for the
# sm_100a pair and the --assume runs of the flashinfer3439 pair, see MANIFEST.md) and writes RESULTS.txt.
D=/work/main/corpus/trackers_r10
OUT=$D/RESULTS.txt
cd /tmp
{
echo "# asyncguard raw outputs, corpus/trackers_r10 (commands run from /tmp with nice -n 10)"
echo "# asyncguard tree: $(git -C /work/main rev-parse HEAD), changed paths under asyncguard/ tests/ docs/: $(git -C /work/main status --porcelain -- asyncguard tests docs | wc -l)"
echo "# date: $(date -u)"
for F in $D/*.tir; do
  for S in "" "--strict proxy" "--strict lapping" "--strict tmem"; do
    echo; echo "===== python -m asyncguard check --no-cache $S $(basename $F)"
    nice -n 10 python -m asyncguard check --no-cache $S $F 2>&1; echo "[exit $?]"
  done
done
for F in $D/deepgemm285_*.tir; do
  echo; echo "===== (extra) python -m asyncguard check --no-cache --strict tcgen05 $(basename $F)"
  nice -n 10 python -m asyncguard check --no-cache --strict tcgen05 $F 2>&1; echo "[exit $?]"
done
for F in $D/flashinfer3439_*.tir; do
  for A in "prev_k == 12" "prev_k == 4"; do
    echo; echo "===== (extra) python -m asyncguard check --no-cache --assume '$A' $(basename $F)"
    nice -n 10 python -m asyncguard check --no-cache --assume "$A" $F 2>&1; echo "[exit $?]"
  done
done
} > $OUT
