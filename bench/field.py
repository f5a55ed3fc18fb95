"""Benchmark (not a test): asyncguard over the field corpus, TileLang's own examples lowered by tilelang.

    python bench/field.py [--jobs 2] [--timeout 60]

Prints the number of kernels, the share with a definite verdict (clean, bug, invalid or warnings), the count per
verdict, and the median and maximum wall time of one whole `python -m asyncguard check FILE` process
(start-up included; --jobs processes run at a time, so on a busy machine times include contention).
Nothing is written; `python corpus/check_field.py` records the same run in corpus/field/RESULTS.md.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "corpus"))

import check_field  # noqa: E402  (corpus/check_field.py: one check process per kernel, verdict mapping)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--dir", type=Path, default=check_field.FIELD)
    args = ap.parse_args()
    results = check_field.run(args.dir, args.jobs, args.timeout)
    if not results:
        print(f"no .tir files under {args.dir}")
        return 1
    for line in check_field.summary_lines(results):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
