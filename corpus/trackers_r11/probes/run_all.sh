#!/bin/bash
# Runs asyncguard on every .tir of corpus/trackers_r11 in the four requested modes and writes RESULTS.txt.
D=/work/main/corpus/trackers_r11
OUT=$D/RESULTS.txt
cd /tmp
{
echo "# asyncguard raw outputs, corpus/trackers_r11 (commands run from /tmp with nice -n 10)"
echo "# asyncguard package: $(python -c 'import asyncguard; print(asyncguard.__file__)')"
echo "# asyncguard tree: $(git -C /work/main rev-parse HEAD); git status --short at run time:"
git -C /work/main status --short | sed 's/^/#   /'
echo "# date: $(date -u)"
for F in $D/*.tir; do
  for S in "" "--strict proxy" "--strict lapping" "--strict tmem"; do
    echo; echo "===== python -m asyncguard check --no-cache $S $(basename $F)"
    nice -n 10 python -m asyncguard check --no-cache $S $F 2>&1; echo "[exit $?]"
  done
done
} > $OUT
