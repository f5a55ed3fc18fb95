#!/bin/bash
# Run asyncguard on every pair file, default and the three strict modes; raw output to ../RESULTS.txt.
D=$(cd "$(dirname "$0")/.." && pwd)
OUT=$D/RESULTS.txt
{
  echo "# trackers_r13 raw asyncguard outputs"
  echo "# date: $(date -u)"
  echo "# asyncguard imported from: $(cd /tmp && python -c 'import asyncguard; print(asyncguard.__file__)')"
  echo "# HEAD: $(git -C /work/main rev-parse HEAD)"
  echo "# git status --short (deleted sparse-checkout corpus files ' D' omitted):"
  git -C /work/main status --short | grep -v '^ D' | sed 's/^/#   /'
  for f in "$D"/*.tir; do
    for mode in "" "--strict proxy" "--strict lapping" "--strict tmem"; do
      echo
      echo "===== $(basename "$f") ${mode:-(default)}"
      (cd /tmp && nice -n 10 python -m asyncguard check --no-cache $mode "$f" 2>&1)
      echo "exit status: $?"
    done
  done
} > "$OUT"
