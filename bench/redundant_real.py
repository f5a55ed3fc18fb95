"""How many synchronizations in the real TileLang corpus are redundant (AG601-AG603)?

    nice -n 10 python bench/redundant_real.py --jobs 2              # corpus/real, one command
    python bench/redundant_real.py [--jobs N] [--json OUT] [--sample K] [--only SUBSTR]
                                   [--dir corpus/field] [--over SECONDS] [--same-as JSON]
                                   [--whole-runs] [--no-prefix]

`--sample K`: about K kernels, evenly spread (the dynamic-K ones always included: they were the
slow ones); `--only SUBSTR`: kernels whose name contains it; `--dir`: another folder of kernels
(corpus/field: TileLang's own examples). The seconds per kernel of the lint (`check
--redundant`'s work: lint_text) are printed as a distribution (median, p90, max; wall and CPU,
CPU being what a shared machine's load inflates least), with every kernel over `--over` seconds
(default 30, issue 17). `--same-as JSON`: exactly the kernels an earlier run's `--json` names.
`--whole-runs`: the oracle's stop-early checks run each run to its end, as before they could
end one at a race certain to be a problem (Limits.stop_at_race): the "before" of a comparison.
`--no-prefix`: every removal is checked from scratch, none by a copy of the unedited kernel's
run (repair/prefix.py). Rows list `checks` (the oracle's) and `forked` (those answered by a copy).

For every clean kernel in corpus/real/*.tir: each barrier and wait removed alone (the kernel
still proves clean -> redundant), each wait count raised while it stays clean, and the greedy
removal `fix --remove-redundant` applies (removed one at a time, re-checked together).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from asyncguard.analyze import check_text  # noqa: E402
from asyncguard.repair.redundant import _sync_stmts, lint_text, remove_redundant  # noqa: E402
from asyncguard.repair.search import Oracle  # noqa: E402
from asyncguard.repair.tree import Tree  # noqa: E402


LINT_ONLY = False     # --lint-only, set in each worker
WHOLE_RUNS = False    # --whole-runs, set in each worker


def _set_flags(lint_only: bool, whole_runs: bool, no_prefix: bool = False) -> None:
    global LINT_ONLY, WHOLE_RUNS
    LINT_ONLY, WHOLE_RUNS = lint_only, whole_runs
    if no_prefix:    # every removal checked from scratch, as before repair/prefix.py
        import asyncguard.repair.redundant as redundant
        redundant.check_removals = lambda oracle, removals: 0


def one(path: str) -> dict:
    text = Path(path).read_text()
    row = {"path": Path(path).name, "verdict": check_text(text, path).verdict}
    if row["verdict"] != "clean":
        return row
    syncs = _sync_stmts(Tree(text, path))
    row["barriers"] = sum(1 for _, c in syncs if c.name == "T.tvm_storage_sync")
    row["waits"] = len(syncs) - row["barriers"]
    t0, c0 = time.time(), time.process_time()
    # the lint's own check of the kernel, then one per sync edit (lint_text's own oracle)
    oracle = Oracle(text, path, stop_at_race=not WHOLE_RUNS)
    found = lint_text(text, path, oracle=oracle)
    row["lint_seconds"] = round(time.time() - t0, 2)
    row["lint_cpu_seconds"] = round(time.process_time() - c0, 2)
    row["checks"] = oracle.calls
    row["forked"] = getattr(oracle, "forked", 0)    # answered by a copy of the unedited run
    row["AG601"] = sum(f.rule.code == "AG601" for f in found)
    row["AG602"] = sum(f.rule.code == "AG602" for f in found)
    row["AG603"] = sum(f.rule.code == "AG603" for f in found)
    row["found"] = [f"{f.rule.code} L{f.line}: {f.message}" for f in found]   # to compare two runs
    if LINT_ONLY:
        return row
    _, edits = remove_redundant(text, path, oracle=oracle)
    row["removed_together"] = sum(1 for e in edits if e.op != "replace" or "evaluate" in e.text)
    row["raised_together"] = len(edits) - row["removed_together"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json")
    ap.add_argument("--merge", action="append", default=[],
                    help="rows of an earlier (partial) run: those kernels are not checked again")
    ap.add_argument("--sample", type=int, default=0, help="about this many kernels (dynamic-K always)")
    ap.add_argument("--only", help="kernels whose file name contains this")
    ap.add_argument("--same-as", metavar="JSON",
                    help="exactly the kernels an earlier run's --json names (a before/after pair)")
    ap.add_argument("--lint-only", action="store_true",
                    help="time the lint only, not fix --remove-redundant's greedy removal")
    ap.add_argument("--whole-runs", action="store_true",
                    help="every run of a stop-early check to its end, as before Limits.stop_at_race "
                         "(the 'before' of bench/README.md's figures)")
    ap.add_argument("--no-prefix", action="store_true",
                    help="no removal shares the unedited kernel's run (repair/prefix.py): the "
                         "'before' of bench/README.md's session 10 figures")
    ap.add_argument("--dir", default=str(ROOT / "corpus" / "real"), help="the kernels' folder")
    ap.add_argument("--over", type=float, default=30.0,
                    help="list every kernel whose lint took more seconds than this")
    args = ap.parse_args()
    rows = [r for m in args.merge for r in json.loads(Path(m).read_text())]
    done = {r["path"] for r in rows}
    files = sorted(str(p) for p in Path(args.dir).glob("*.tir") if p.name not in done)
    if args.only:
        files = [f for f in files if args.only in Path(f).name]
    if args.same_as:
        names = {r["path"] for r in json.loads(Path(args.same_as).read_text())}
        files = [f for f in files if Path(f).name in names]
    if args.sample and len(files) > args.sample:
        dyn = [f for f in files if "dynamic_k" in f]
        rest = [f for f in files if f not in dyn]
        files = dyn + rest[:: max(1, len(rest) // max(1, args.sample - len(dyn)))]
    with ProcessPoolExecutor(max_workers=args.jobs, initializer=_set_flags,
                             initargs=(args.lint_only, args.whole_runs, args.no_prefix)) as pool:   # largest first, rows as they finish
        futs = [pool.submit(one, f) for f in sorted(files, key=lambda f: -os.path.getsize(f))]
        for fut in as_completed(futs):
            rows.append(fut.result())
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1))
    rows.sort(key=lambda r: r["path"])
    clean = [r for r in rows if r["verdict"] == "clean"]
    t = {k: sum(r.get(k, 0) for r in clean) for k in
         ("barriers", "waits", "AG601", "AG602", "AG603", "removed_together", "raised_together")}
    print(f"kernels: {len(rows)} in {args.dir}, {len(clean)} clean (linted)")
    print(f"syncs: {t['barriers']} barriers, {t['waits']} waits")
    print(f"redundant alone: {t['AG601']} barriers (AG601), {t['AG602']} waits (AG602); "
          f"{t['AG603']} wait counts can grow (AG603)")
    print(f"removed together by fix --remove-redundant: {t['removed_together']} syncs, "
          f"{t['raised_together']} wait counts raised")
    for key, what in (("lint_seconds", "wall"), ("lint_cpu_seconds", "CPU")):
        secs = sorted(r[key] for r in clean if key in r)
        if secs:
            print(f"lint {what} seconds per clean kernel: median {statistics.median(secs):.2f}, "
                  f"p90 {secs[int(0.9 * (len(secs) - 1))]:.2f}, max {secs[-1]:.2f}")
    for r in sorted(clean, key=lambda r: -r.get("lint_cpu_seconds", 0))[:5]:
        print(f"  slowest: {r.get('lint_seconds', 0):.2f} s wall, {r.get('lint_cpu_seconds', 0):.2f} s CPU {r['path']}")
    for key, what in (("lint_cpu_seconds", "CPU"), ("lint_seconds", "wall")):
        over = [r for r in clean if r.get(key, 0) > args.over]
        print(f"over {args.over:g} s {what}: {len(over)} of {len(clean)}")
        for r in sorted(over, key=lambda r: -r[key]):
            print(f"  {r[key]:7.2f} s {what} ({r['lint_cpu_seconds']:.2f} CPU, {r['lint_seconds']:.2f} wall) {r['path']}")
    with_any = [r for r in clean if r["AG601"] + r["AG602"] + r["AG603"]]
    print(f"kernels with at least one redundant sync: {len(with_any)} of {len(clean)}")
    for r in with_any:
        print(f"  {r['path']}: AG601 {r['AG601']}, AG602 {r['AG602']}, AG603 {r['AG603']} "
              f"(of {r['barriers']} barriers, {r['waits']} waits)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
