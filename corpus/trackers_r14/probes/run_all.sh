#!/bin/bash
# Run asyncguard on every pair file, default and the three strict modes; raw output to ../RESULTS.txt.
# AG_SRC (optional): a folder holding an `asyncguard` package to run instead of the work tree's (put first on
# PYTHONPATH). This round used a `git archive HEAD asyncguard` export, because asyncguard/ in the work tree was being
# edited by someone else while the runs went (one work-tree run died on an ImportError mid-edit):
#   mkdir -p /tmp/r14/ag_HEAD && git -C /work/main archive HEAD asyncguard | tar -x -C /tmp/r14/ag_HEAD
#   AG_SRC=/tmp/r14/ag_HEAD bash run_all.sh
D=$(cd "$(dirname "$0")/.." && pwd)
OUT=$D/RESULTS.txt
PP=${AG_SRC:+$AG_SRC}
{
  echo "# trackers_r14 raw asyncguard outputs"
  echo "# date: $(date -u)"
  echo "# asyncguard imported from: $(cd /tmp && PYTHONPATH=$PP python -c 'import asyncguard; print(asyncguard.__file__)')"
  [ -n "$AG_SRC" ] && echo "# (AG_SRC=$AG_SRC: a \`git archive HEAD asyncguard\` export of the HEAD below, not the work tree)"
  echo "# HEAD: $(git -C /work/main rev-parse HEAD)"
  echo "# git status --short (deleted sparse-checkout corpus files ' D' omitted):"
  git -C /work/main status --short | grep -v '^ D' | sed 's/^/#   /'
  for f in "$D"/*.tir; do
    for mode in "" "--strict proxy" "--strict lapping" "--strict tmem"; do
      echo
      echo "===== $(basename "$f") ${mode:-(default)}"
      (cd /tmp && PYTHONPATH=$PP nice -n 10 python -m asyncguard check --no-cache $mode "$f" 2>&1)
      echo "exit status: $?"
    done
  done
} > "$OUT"
