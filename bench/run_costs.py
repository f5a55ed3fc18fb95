"""Where a kernel's check spends its time, by machine run and by event (a bench, not a test).

    python bench/run_costs.py [--events N] FILE ...

For each file (checked in this process, after the imports): the CPU seconds of the whole check,
then one line per machine run (the block, its statement instances, its CPU seconds, how many loop
outcomes it recorded), then the N (event kind, line) pairs that cost the most CPU inside
`Machine._event` (count, seconds, microseconds per event). Timing the events adds ~1 us each,
so read the shares, not the sum. This is the profile behind bench/README.md's "Stream-K" section:
a 2-CTA persistent GEMM's time is its statement instances (each tile's K loops, run per tile)
times ~100 us each (the race check of the 512 threads' records), per block run.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncguard.analyze as analyze  # noqa: E402
from asyncguard.engine import machine as machine_mod  # noqa: E402


def profile(path: Path, top: int) -> None:
    runs = []
    count, spent = collections.Counter(), collections.Counter()
    run_machine, event = analyze._run_machine, machine_mod.Machine._event

    def timed_run(machine, clock, seconds):
        t = time.process_time()
        res = run_machine(machine, clock, seconds)
        runs.append((machine.block, res.steps, time.process_time() - t, len(res.accelerated)))
        return res

    def timed_event(self, task, ev, s):
        t = time.perf_counter()
        try:
            return event(self, task, ev, s)
        finally:
            key = (type(ev).__name__, s.span.line)
            count[key] += 1
            spent[key] += time.perf_counter() - t

    analyze._run_machine, machine_mod.Machine._event = timed_run, timed_event
    try:
        t = time.process_time()
        rep = analyze.check_text(path.read_text(), str(path))
        total = time.process_time() - t
    finally:
        analyze._run_machine, machine_mod.Machine._event = run_machine, event
    print(f"{path.name}: {rep.verdict}, {total:.2f} CPU s in check_text, "
          f"{sum(r[1] for r in runs):,} statement instances in {len(runs)} run(s)")
    for block, steps, cpu, outcomes in runs:
        print(f"  run {block or '(the launch)'}: {steps:,} statement instances, {cpu:.2f} CPU s, "
              f"{outcomes} loop outcomes")
    if top:
        print(f"  events: {sum(count.values()):,}, {sum(spent.values()):.2f} s")
        for key, sec in spent.most_common(top):
            print(f"    {key[0]:<14} line {key[1]:<5} {count[key]:>7,}  {sec:6.3f} s  "
                  f"{sec / count[key] * 1e6:6.0f} us")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--events", type=int, default=10, help="how many (event, line) pairs to list (0: none)")
    args = ap.parse_args()
    for f in args.files:
        profile(f, args.events)


if __name__ == "__main__":
    main()
