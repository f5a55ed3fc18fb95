"""Where `asyncguard check` spends its time, per kernel (a bench, not a test).

    python bench/profile.py [PATH ...] [--top N] [--profile NAME] [--json OUT] [--sample K]

PATH: files or directories of *.tir (default: corpus/real, and corpora like corpus/field
when named). Each file is checked in this process, after one warm-up file, so the figure is the
per-kernel work without interpreter start-up and imports; the import time of `asyncguard.cli`
(measured in a fresh interpreter) is printed once and must be added for a whole-process figure.
`--profile NAME` (a substring of a file name; repeatable) prints cProfile's top cumulative
functions for those files; `--top N` with no --profile profiles the N slowest files.
On a shared machine, read the distribution (median, max) and the profile shares, not one time.
"""
from __future__ import annotations

import sys
from pathlib import Path

# this file is named like the standard library's `profile`, which cProfile imports: take its
# directory off the path first
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from asyncguard.analyze import Limits, check_text  # noqa: E402

LIMITS = Limits()


def files_of(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        out.extend(sorted(path.rglob("*.tir")) if path.is_dir() else [path])
    return out


def import_seconds() -> float:
    """CPU seconds to import asyncguard.cli in a fresh interpreter (median of 3)."""
    code = "import time; t = time.process_time(); import asyncguard.cli; print(time.process_time() - t)"
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        runs.append(float(out.stdout.strip() or "nan"))
    return statistics.median(runs)


def check_once(path: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of this process, verdict): on a shared machine the CPU time is
    the figure that does not grow with the other processes' load."""
    text = path.read_text()
    t0, c0 = time.perf_counter(), time.process_time()
    rep = check_text(text, str(path), LIMITS)
    return time.perf_counter() - t0, time.process_time() - c0, rep.verdict


def profile_one(path: Path, top: int) -> str:
    text = path.read_text()
    prof = cProfile.Profile()
    prof.enable()
    check_text(text, str(path), LIMITS)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    lines = buf.getvalue().splitlines()
    # keep the table (drop pstats' header paragraph) and shorten the paths
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls")), 0)
    return "\n".join(ln.replace(str(ROOT) + "/", "") for ln in lines[start:])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "corpus" / "real")])
    ap.add_argument("--top", type=int, default=0, help="profile the N slowest files")
    ap.add_argument("--rows", type=int, default=25, help="cProfile rows per profiled file")
    ap.add_argument("--profile", action="append", default=[], help="profile files whose name contains this")
    ap.add_argument("--sample", type=int, default=0, help="only every k-th file, k chosen to keep about this many")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=float, default=0, help="seconds per kernel (check's --timeout)")
    ap.add_argument("--max-steps", type=int, default=0,
                    help="statement instances per kernel (check's --max-steps): a bound that, unlike "
                         "--timeout, stops at the same point under any load")
    args = ap.parse_args()
    LIMITS.max_seconds = args.timeout
    if args.max_steps:
        LIMITS.max_steps = args.max_steps
    files = files_of(args.paths)
    if args.sample and len(files) > args.sample:
        files = files[:: len(files) // args.sample]
    imp = import_seconds()
    print(f"import asyncguard.cli: {imp:.3f} CPU s (fresh interpreter; add it to each figure below)")
    if files:
        check_once(files[0])   # warm-up: lazy imports (z3, lark tables) are paid once per process
    rows = []
    print(f"{'wall s':>8s} {'cpu s':>8s}  verdict  kernel")
    for f in files:
        secs, cpu, verdict = check_once(f)
        rows.append({"path": str(f), "seconds": round(secs, 3), "cpu_seconds": round(cpu, 3), "verdict": verdict})
        print(f"{secs:8.3f} {cpu:8.3f}  {verdict:8s} {f.name}", flush=True)
    for key in ("seconds", "cpu_seconds"):
        ts = sorted(r[key] for r in rows)
        if ts:
            print(f"{len(ts)} kernels, {'wall' if key == 'seconds' else 'CPU'}: median {statistics.median(ts):.3f} s, "
                  f"p90 {ts[int(0.9 * (len(ts) - 1))]:.3f} s, max {ts[-1]:.3f} s "
                  f"(in-process; + {imp:.3f} s import per process)")
    targets = [f for f in files if any(s in f.name for s in args.profile)]
    if args.top and not targets:
        slow = sorted(rows, key=lambda r: -r["cpu_seconds"])[: args.top]
        targets = [Path(r["path"]) for r in slow]
    for f in targets:
        print(f"\n== cProfile, cumulative: {f.name}")
        print(profile_one(f, args.rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"import_seconds": imp, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
