#!/bin/sh
# run_checks.sh FILE...: asyncguard default, --strict proxy, --strict lapping, --strict tmem, from /tmp (raw outputs)
for f in "$@"; do
  f=$(readlink -f "$f")
  for mode in "" "--strict proxy" "--strict lapping" "--strict tmem"; do
    echo "===== $(basename "$f") [${mode:-default}]"
    (cd /tmp && nice -n 10 python -m asyncguard check --no-cache $mode "$f"; echo "(exit $?)")
  done
done
