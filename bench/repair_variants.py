"""Repair every single-bug variant with `asyncguard fix`'s search and print the figures: how
many are repaired to clean, proved minimal, statements inserted/changed per fix, and the seconds
per variant as a distribution (median, p90, max; wall and CPU) with every variant over the limit.

    nice -n 10 python bench/repair_variants.py --jobs 2            # the whole corpus, one command
    python bench/repair_variants.py [--jobs N] [--json OUT] [--sample K] [--only-dynamic]
                                    [--no-dynamic] [--over SECONDS] [--out DIR] [--same-as JSON]
    python bench/repair_variants.py --compare BEFORE.json AFTER.json

The corpus: corpus/variants, the single-bug variants in corpus/dynamic (`NAME__MUTATION.tir`),
and every single-bug mutation of corpus/real's symbolic-size (dynamic-K) kernels (corpus/variants
has none), generated with asyncguard.mutants into a temporary folder. `--no-dynamic`: only
corpus/variants; `--only-dynamic`: only the two symbolic-size sets. `--sample K`: about K of
corpus/variants, spread evenly. `--over S` (default 10, issue 17): the limit a variant's repair
should stay under. CPU seconds are printed beside wall seconds: on a machine shared with other
work, wall time grows with the others' load and CPU time much less.

`--same-as JSON`: exactly the variants an earlier run's `--json` rows name (a stopped run
measured an even sample; its "after" is run on the same set).

`--out DIR` also writes each repaired kernel to DIR/NAME.tir: the input of the sanitizer gate's
"every kernel repaired by fix passes" run (docs/sanitizer-gate.md).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from asyncguard.analyze import check_text  # noqa: E402
from asyncguard.repair import repair_text  # noqa: E402


OUT: Path | None = None     # --out, set in each worker


def _set_out(out: str | None) -> None:
    global OUT
    OUT = Path(out) if out else None


def one(path: str) -> dict:
    text = Path(path).read_text()
    meta_path = Path(path).with_suffix(".expect.json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else \
        {"mutation": Path(path).stem.split("__")[-1].rsplit("_L", 1)[0]}
    t0, c0 = time.time(), time.process_time()
    r = repair_text(text, path)
    row = {"path": path, "mutation": meta["mutation"], "status": r.status, "checks": r.checks,
           "seconds": round(time.time() - t0, 2), "cpu_seconds": round(time.process_time() - c0, 2)}
    if r.fix:
        after = check_text(r.new_text, path)
        row.update(inserted=r.fix.inserted, changed=r.fix.changed, safety=r.fix.safety,
                   clean_after=after.verdict == "clean",
                   edits=[e.describe() for e in r.fix.edits],
                   proof=[[kind, what, list(codes)] for kind, what, codes in r.fix.proof],
                   text_sha256=hashlib.sha256(r.new_text.encode()).hexdigest())
        if OUT is not None:
            (OUT / Path(path).name).write_text(r.new_text)
    else:
        row["message"] = r.message
        row["remaining"] = [[f.rule.code, f.line, f.col, f.message] for f in r.remaining]
    return row


# what a before/after pair must keep (--compare): everything `fix` prints, and its proof
SAME = ("status", "edits", "text_sha256", "safety", "proof", "message", "remaining")


def compare(before: str, after: str) -> int:
    """Rows of two --json runs, by variant: any difference in SAME, and the CPU seconds and
    checks of both sides. 1 when a variant's answer differs."""
    a = {Path(r["path"]).name: r for r in json.loads(Path(before).read_text())}
    b = {Path(r["path"]).name: r for r in json.loads(Path(after).read_text())}
    both = [k for k in a if k in b]
    differ = [k for k in both if any(a[k].get(f) != b[k].get(f) for f in SAME)]
    for k in differ:
        print("DIFFERENT", k, [f for f in SAME if a[k].get(f) != b[k].get(f)])
    for k in sorted(both, key=lambda k: -a[k]["cpu_seconds"]):
        if a[k]["checks"] != b[k]["checks"] or max(a[k]["cpu_seconds"], b[k]["cpu_seconds"]) > 3:
            print(f"  {a[k]['cpu_seconds']:7.2f} -> {b[k]['cpu_seconds']:7.2f} CPU s  checks "
                  f"{a[k]['checks']:4d} -> {b[k]['checks']:4d}  {a[k]['status']:12s} {k}")
    for side, rows in (("before", a), ("after", b)):
        print(distribution(f"CPU seconds per variant, {side}", [rows[k]["cpu_seconds"] for k in both]) +
              f", summed {sum(rows[k]['cpu_seconds'] for k in both):.1f}, checks "
              f"{sum(rows[k]['checks'] for k in both)}")
    print(f"{len(both) - len(differ)} of {len(both)} variants the same ({', '.join(SAME)})")
    return 1 if differ else 0


def dynamic_variants() -> list[str]:
    """Every single-bug mutation of the dynamic-K kernels, written to a temporary folder."""
    import tempfile

    from asyncguard.mutants import mutations
    out = Path(tempfile.mkdtemp(prefix="dynamic_variants_"))
    paths = []
    for src in sorted((ROOT / "corpus" / "real").glob("*dynamic_k*.tir")):
        text = src.read_text()
        for m in mutations(text):
            p = out / f"{src.stem}__{m.kind}_L{m.line}.tir"
            p.write_text(m.apply(text))
            paths.append(str(p))
    return paths


def dynamic_corpus() -> list[str]:
    """The single-bug variants of corpus/dynamic's symbolic-size kernels."""
    return sorted(str(p) for p in (ROOT / "corpus" / "dynamic").glob("*__*.tir"))


def distribution(label: str, secs: list) -> str:
    if not secs:
        return f"{label}: none"
    s = sorted(secs)
    return (f"{label}: {len(s)} runs, median {statistics.median(s):.2f} s, p90 {s[int(0.9 * (len(s) - 1))]:.2f} s, "
            f"max {s[-1]:.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--sample", type=int, default=0, help="about this many variants, evenly spread")
    ap.add_argument("--dynamic", action="store_true", help="(the default; kept for old commands)")
    ap.add_argument("--no-dynamic", action="store_true",
                    help="leave out corpus/dynamic's variants and the dynamic-K mutations")
    ap.add_argument("--only-dynamic", action="store_true", help="only those")
    ap.add_argument("--over", type=float, default=10.0,
                    help="list every variant whose repair took more seconds than this")
    ap.add_argument("--out", help="write each repaired kernel to OUT/NAME.tir")
    ap.add_argument("--exclude-from", metavar="LOG",
                    help="skip the variants an earlier run's printed lines name")
    ap.add_argument("--same-as", metavar="JSON",
                    help="run exactly the variants an earlier run's --json names (a before/after "
                         "pair on one set; the dynamic-K mutations are generated again)")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="compare two --json runs (status, edits, repaired text, proof, message) "
                         "instead of running anything")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    files = sorted(str(p) for p in (ROOT / "corpus" / "variants").glob("*.tir"))
    keep = args.sample or args.limit
    if keep:
        files = files[:: max(1, len(files) // keep)]
    if args.only_dynamic:
        files = []
    if not args.no_dynamic:    # first: they were the slow ones (issue 17)
        files = dynamic_corpus() + dynamic_variants() + files
    if args.same_as:           # the names an earlier (maybe stopped) run measured, nothing else
        names = {Path(r["path"]).name for r in json.loads(Path(args.same_as).read_text())}
        files = [f for f in files if Path(f).name in names]
    if args.exclude_from:      # names printed by an earlier (stopped) run: not run again
        done = set(re.findall(r"(\S+\.tir)\s*$", Path(args.exclude_from).read_text(), re.M))
        files = [f for f in files if Path(f).name not in done]
    # corpus order interleaved (every 7th, then the next offset...): a run stopped early has
    # measured an even sample of every kernel and mutation kind, not the first names
    dyn = [f for f in files if "dynamic" in f]
    rest = [f for f in files if f not in dyn]
    files = dyn + [f for k in range(7) for f in rest[k::7]]
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=args.jobs, initializer=_set_out, initargs=(args.out,)) as pool:
        rows = []
        for row in pool.map(one, files, chunksize=1):   # one line per variant as it comes
            rows.append(row)
            if args.json:     # kept as it grows: a stopped run leaves its rows
                Path(args.json).write_text(json.dumps(rows, indent=1))
            print(f"  {row['seconds']:7.2f} s wall {row['cpu_seconds']:7.2f} s CPU  {row['status']:12s} "
                  f"{Path(row['path']).name}", flush=True)
    by = collections.defaultdict(list)
    for r in rows:
        by[r["mutation"]].append(r)
    print(f"{'mutation':26s} {'variants':>8s} {'repaired':>8s} {'proved':>6s} "
          f"{'ins=1':>6s} {'chg=1':>6s} {'other':>6s} {'checks/fix':>10s}")
    tot = collections.Counter()
    for k in sorted(by):
        rs = by[k]
        fixed = [r for r in rs if r["status"] == "fixed" and r.get("clean_after")]
        proved = [r for r in fixed if r["safety"] == "proved"]
        ins1 = [r for r in fixed if r["inserted"] == 1 and r["changed"] == 0]
        chg1 = [r for r in fixed if r["inserted"] == 0 and r["changed"] == 1]
        other = len(fixed) - len(ins1) - len(chg1)
        cpf = sum(r["checks"] for r in rs) / max(len(rs), 1)
        print(f"{k:26s} {len(rs):8d} {len(fixed):8d} {len(proved):6d} {len(ins1):6d} {len(chg1):6d} "
              f"{other:6d} {cpf:10.1f}")
        tot.update(variants=len(rs), fixed=len(fixed), proved=len(proved), ins1=len(ins1),
                   chg1=len(chg1), other=other)
    print(f"{'total':26s} {tot['variants']:8d} {tot['fixed']:8d} {tot['proved']:6d} {tot['ins1']:6d} "
          f"{tot['chg1']:6d} {tot['other']:6d}")
    stmts = [r["inserted"] + r["changed"] for r in rows if r["status"] == "fixed"]
    if stmts:
        print(f"statements inserted or changed per fix: mean {sum(stmts) / len(stmts):.2f}, "
              f"max {max(stmts)}; wall {time.time() - t0:.0f} s with {args.jobs} jobs")
    print(distribution("wall seconds per variant (repair)", [r["seconds"] for r in rows]))
    print(distribution("CPU seconds per variant (repair; what a shared machine's load does not inflate)",
                       [r["cpu_seconds"] for r in rows]))
    dyn = [r for r in rows if "dynamic" in r["path"]]
    if dyn:
        print(distribution("  symbolic-size variants (dynamic-K, corpus/dynamic), wall",
                           [r["seconds"] for r in dyn]))
        print(distribution("  symbolic-size variants (dynamic-K, corpus/dynamic), CPU",
                           [r["cpu_seconds"] for r in dyn]))
    for r in sorted(rows, key=lambda r: -r["cpu_seconds"])[:5]:
        print(f"  slowest: {r['cpu_seconds']:.2f} s CPU, {r['seconds']:.2f} s wall "
              f"{Path(r['path']).name} ({r['status']}, {r['checks']} checks)")
    for key, what in (("cpu_seconds", "CPU"), ("seconds", "wall")):
        over = [r for r in rows if r[key] > args.over]
        print(f"over {args.over:g} s {what}: {len(over)} of {len(rows)}")
        for r in sorted(over, key=lambda r: -r[key]):
            print(f"  {r[key]:7.2f} s {what} ({r['cpu_seconds']:.2f} CPU, {r['seconds']:.2f} wall) "
                  f"{Path(r['path']).name}")
    for r in rows:
        if r["status"] != "fixed" or not r.get("clean_after") or r["inserted"] + r["changed"] > 1:
            print("  not a one-line fix:", r["path"].split("/")[-1], r["status"],
                  r.get("edits") or r.get("message", "")[:160])
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
