"""What a tree says about a set of kernels, in one process, to compare two trees (a bench, not a test).

    PYTHONPATH=TREE python bench/compare_findings.py record OUT.json FILE_OR_DIR ... [--timeout 50]
    python bench/compare_findings.py diff A.json B.json

`record` checks each .tir file with the asyncguard found on PYTHONPATH (`asyncguard.api.check`,
no cache; --timeout as corpus/check_field.py gives the process: its --timeout less 10 s) and writes,
per file, the verdict, the sorted (rule, line) pairs of its findings, the statement instances of
its kernels and the CPU seconds of its check in this process (imports excluded). `diff` prints the
files whose verdict or (rule, line) set differ, and the CPU seconds of those whose statement
instances changed. Run `record` once per tree (main's, the branch's), in separate processes.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def record(out: str, sources: list[str], timeout: float) -> None:
    from asyncguard.analyze import Limits
    from asyncguard.api import check
    import asyncguard
    files = []
    for s in sources:
        p = Path(s)
        files += sorted(p.glob("*.tir")) if p.is_dir() else [p]
    res = {"asyncguard": str(Path(asyncguard.__file__).parent), "files": {}}
    for i, f in enumerate(files):
        t = time.process_time()
        rep = check(str(f), limits=Limits(max_seconds=timeout))
        cpu = time.process_time() - t
        steps = [k.steps for r in rep._results if r.report is not None for k in r.report.kernels]
        res["files"][str(f)] = {
            "verdict": rep.verdict,
            "findings": sorted({(x.rule, x.line) for u in rep.units for x in u.findings}),
            "errors": [str(e) for e in rep.errors],
            "steps": steps, "cpu_s": round(cpu, 3)}
        print(f"{i + 1}/{len(files)} {cpu:6.2f} {rep.verdict:8} {f.name}", file=sys.stderr, flush=True)
    Path(out).write_text(json.dumps(res, indent=1))


def diff(a: str, b: str) -> int:
    A, B = json.loads(Path(a).read_text())["files"], json.loads(Path(b).read_text())["files"]
    bad = 0
    for f in sorted(set(A) | set(B)):
        x, y = A.get(f), B.get(f)
        if x is None or y is None:
            print(f"only in one: {f}")
            bad += 1
            continue
        if x["verdict"] != y["verdict"] or x["findings"] != y["findings"]:
            bad += 1
            print(f"DIFFERS {Path(f).name}: {x['verdict']} {x['findings']} -> {y['verdict']} {y['findings']}")
    changed = [(f, A[f], B[f]) for f in sorted(set(A) & set(B)) if A[f]["steps"] != B[f]["steps"]]
    for f, x, y in changed:
        print(f"steps {Path(f).name}: {sum(x['steps']):,} -> {sum(y['steps']):,} statement instances, "
              f"{x['cpu_s']:.2f} -> {y['cpu_s']:.2f} CPU s")
    ta = sum(v["cpu_s"] for v in A.values())
    tb = sum(v["cpu_s"] for v in B.values())
    print(f"{len(set(A) & set(B))} files compared, {bad} differ in verdict or (rule, line) set; "
          f"{len(changed)} changed statement instances; CPU {ta:.1f} -> {tb:.1f} s in all")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("sources", nargs="+")
    r.add_argument("--timeout", type=float, default=50)
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.out, args.sources, args.timeout)
        return 0
    return diff(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
