"""Whole-process CPU seconds of issue 17's slowest kernels (a bench, not a test).

    python bench/slow_kernels.py [--runs 3] [--tree DIR] [--only SUBSTR ...]

Each kernel is checked by `python -m asyncguard check --format json --no-progress --no-cache FILE`
(as corpus/check_field.py runs it) --runs times with the asyncguard of --tree (default: this
checkout) on PYTHONPATH, from --tree's directory (`python -m` puts the working directory first on
sys.path: run from this checkout, the other tree's package was never the one imported); prints, per kernel, the median and every run's user+sys CPU seconds of the
process (start-up included), and the verdict. Run it for two trees side by side to compare.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [
    "corpus/field/gemm_tcgen05__gemm_tcgen5mma_ws_persistent_streamk__gemm_streamk_2cta__sm_100a.tir",
    "corpus/field/blockscaled_gemm_sm100__grouped_gemm_mxfp8_blockscaled_1d1d__"
    "grouped_mxfp8_blockscaled_gemm_2cta_persistent__sm_100a.tir",
    "corpus/field/blockscaled_gemm_sm100__gemm_mxfp8_blockscaled_1d1d__mxfp8_blockscaled_gemm_2cta_persistent__sm_100a.tir",
    "corpus/field/deepseek_v4__fp8_fp4_gemm_1d1d_sm100__fp8_fp4_gemm_1d1d_persistent__sm_100a.tir",
    "corpus/field/gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__sm_100a.tir",
    "corpus/field_sm120/dsa_hisa__pool_mqa_fp8__pool_mqa_attn_return_logits_fp8__sm_120.tir",
]


def run_once(tree: Path, path: Path) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    p = subprocess.Popen([sys.executable, "-m", "asyncguard", "check", "--format", "json", "--no-progress",
                          "--no-cache", str(path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         cwd=tree, env=env)   # `-m` puts the working directory first on sys.path
    out = p.stdout.read()
    _, _, usage = os.wait4(p.pid, 0)
    try:
        verdict = json.loads(out)["files"][0]["verdict"]
    except (ValueError, KeyError, IndexError):
        verdict = "error"
    return usage.ru_utime + usage.ru_stime, verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", default=str(ROOT))
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    for k in KERNELS:
        if args.only and not any(s in k for s in args.only):
            continue
        runs = [run_once(tree, ROOT / k) for _ in range(args.runs)]
        cpu = [c for c, _ in runs]
        print(f"{statistics.median(cpu):6.2f} CPU s (runs {', '.join(f'{c:.2f}' for c in cpu)}) "
              f"{runs[-1][1]:8} {Path(k).name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
