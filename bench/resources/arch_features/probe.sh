#!/bin/sh
# Which targets ptxas accepts each architecture-specific instruction family on (models/arch.py
# TARGET_FEATURES cites this). Needs only nvcc: `sh bench/resources/arch_features/probe.sh`.
cd "$(dirname "$0")"
nvcc --version | tail -1
for f in wgmma setmaxnreg tcgen05 clusterlaunchcontrol; do
  ok=""
  for a in 75 80 86 87 88 89 90 90a 100 100a 100f 103 103a 103f 110 110a 110f 120 120a 120f 121 121a 121f; do
    if nvcc -gencode "arch=compute_$a,code=sm_$a" -c "$f.cu" -o /dev/null >/dev/null 2>&1; then ok="$ok sm_$a"; fi
  done
  echo "$f:$ok"
done
