"""Symbolic sizes and symbolic grids (issue 13 item 5, issue 17 item 2): runs and time per kernel.

    python bench/symbolic_sizes.py [--repeat 3]

For every kernel of corpus/dynamic, the dynamic-K GEMMs of corpus/real and the paged MLA decode
of corpus/field (a length loaded from memory): the verdict, the number of size values run (the
size plan's, prover.sizes.plan_sizes, less the combinations a cut stood for, prover/sizes_cut.py:
"15/64"), and the in-process
time of check_text (CPU seconds of this process, the median of --repeat runs after one warm-up
that fills z3's memo; wall seconds too, which depend on the machine's load). Nothing is asserted:
tests/test_symbolic_launch.py and tests/test_perf_sizes.py pin the run counts.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from asyncguard.analyze import check_text  # noqa: E402
from asyncguard.engine.program import elaborate  # noqa: E402
from asyncguard.parse import parse  # noqa: E402
from asyncguard.prover.sizes import plan_sizes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = sorted((ROOT / "corpus" / "dynamic").glob("*.tir")) + \
        sorted((ROOT / "corpus" / "real").glob("*dynamic_k*.tir")) + \
        [ROOT / "corpus" / "field" / "deepseek_mla__example_mla_decode_paged__mla_decode_tilelang.main_no_split__sm_80.tir"]
    print(f"{'kernel':58} {'verdict':8} {'runs':>6} {'cpu s':>7} {'wall s':>7}")
    for p in files:
        text = p.read_text()
        plan = plan_sizes(elaborate(parse(text).functions[0]), [])
        check_text(text, str(p))                       # warm-up: imports, z3 memo
        cpu, wall = [], []
        for _ in range(args.repeat):
            c, w = time.process_time(), time.perf_counter()
            rep = check_text(text, str(p))
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        runs = str(len(plan.values))
        cut = getattr(plan, "cut", None)
        if cut is not None and "combinations of" in rep.kernels[0].scope[0]:
            runs = f"{len(plan.values) - len(cut.composed)}/{len(plan.values)}"
        print(f"{p.stem[:58]:58} {rep.verdict:8} {runs:>6} "
              f"{statistics.median(cpu):7.2f} {statistics.median(wall):7.2f}")


if __name__ == "__main__":
    main()
