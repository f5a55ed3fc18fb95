"""Benchmarks (not tests): wall time of the whole `asyncguard check` process.

    python bench/run.py            # prints one line per kernel: median and min of 5 runs

Targets (issues 2 and 3): at most 1 s for the sm_80 GEMM and flash-attention samples, 1.5 s for
the warp-specialized sm_90 GEMM, on the 2-core reference machine.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [
    ("gemm_sm80_s3_128x128x32 (128 thr, 14+2 iters)", "corpus/real/gemm_sm80_s3_128x128x32.tir", 1.0),
    ("fa_fwd_sm80_s2 (128 thr)", "corpus/real/fa_fwd_sm80_s2.tir", 1.0),
    ("gemm_sm90a_ws_s3_128x128x64 (256 thr)", "corpus/real/gemm_sm90a_ws_s3_128x128x64.tir", 1.5),
]


def time_check(path: str, runs: int = 5) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "asyncguard", "check", str(ROOT / path)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append(time.perf_counter() - t)
    return out


def main() -> int:
    print(f"{'kernel':<48} {'median s':>9} {'min s':>7} {'target s':>9}")
    for name, path, target in KERNELS:
        ts = time_check(path)
        flag = "ok" if statistics.median(ts) <= target else "OVER"
        print(f"{name:<48} {statistics.median(ts):>9.3f} {min(ts):>7.3f} {target:>9.1f}  {flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
