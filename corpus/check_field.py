"""Run the current asyncguard over the field corpus (corpus/field/*.tir) and record what it says.

    python corpus/check_field.py [--jobs 2] [--timeout 60] [--dir corpus/field] [--only SUBSTR ...]

Each kernel is checked by its own `python -m asyncguard check --format json FILE` process (so the wall
time is the whole process, start-up included), at most --timeout seconds. Writes DIR/results.json
(machine-readable: one record per kernel) and DIR/RESULTS.md (summary, AG001 constructs, every definite
finding), and prints the summary. bench/field.py prints the same figures without writing anything.

Verdict per kernel:
  clean    asyncguard understood everything and found nothing
  bug      a race or hang finding (severity error)
  invalid  only findings of kind "invalid" (misuse such as an mbarrier used before init), severity error
  warnings only warnings/notes, nothing unsupported (definite: nothing to fix in the synchronization;
           e.g. AG510, a target that lacks an instruction the kernel prints)
  unknown  something was not understood (AG001 unsupported), no error finding
  error    the check did not finish: bad input (exit 2), crash, or timeout
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "corpus" / "field"
DEFINITE = ("clean", "bug", "invalid", "warnings")


def _run_timed(cmd: list[str], timeout: float, env: dict) -> tuple[int | None, str, str, float, float]:
    """(exit status or None on timeout, stdout, stderr, wall s, CPU s of the process): CPU time too,
    because on a shared machine the wall time mostly measures the neighbours."""
    import tempfile
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT, env=env)
        status, usage = None, None
        while True:
            pid, st, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                status, usage = os.waitstatus_to_exitcode(st), ru
                break
            if time.perf_counter() - t0 > timeout:
                p.kill()
                _, _, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        p.returncode = status if status is not None else -9
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read(), wall, usage.ru_utime + usage.ru_stime


def check_one(path: Path, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    status, stdout, stderr, wall, cpu = _run_timed(
        [sys.executable, "-m", "asyncguard", "check", "--format", "json", "--no-progress", "--no-cache",
         "--timeout", f"{max(timeout - 10, 1):g}", str(path)], timeout, env)
    if status is None:
        return {"file": path.name, "verdict": "error", "raw_verdict": None, "exit": None,
                "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "error": f"timeout after {timeout:g} s",
                "rules": [], "findings": [], "ag001": []}
    p = subprocess.CompletedProcess([], status, stdout, stderr)
    rec = {"file": path.name, "exit": p.returncode, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "rules": [], "findings": [],
           "ag001": []}
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        rec.update(verdict="error", raw_verdict=None, error=f"exit {p.returncode}: {tail[:300]}")
        return rec
    files = doc.get("files") or []
    errors = doc.get("errors") or []
    if p.returncode not in (0, 1) or not files:
        msg = "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors)
        rec.update(verdict="error", raw_verdict=files[0].get("verdict") if files else None,
                   error=f"exit {p.returncode}: {msg[:300] or (p.stderr.strip().splitlines() or [''])[-1][:300]}")
        return rec
    f = files[0]
    raw = f.get("verdict")
    findings = f.get("findings") or []
    rec["raw_verdict"] = raw
    rec["kernels"] = [{k: v for k, v in kk.items() if k in ("name", "threads", "steps", "scope")}
                      for kk in f.get("kernels") or []]
    for fd in findings:
        first = (fd.get("message") or "").splitlines()[0] if fd.get("message") else ""
        rec["findings"].append({"rule": fd.get("rule"), "name": fd.get("name"), "kind": fd.get("kind"),
                                "severity": fd.get("severity"), "line": fd.get("line"), "message": first})
        if fd.get("rule") == "AG001":
            rec["ag001"].append(first)
        if fd.get("kind") == "unsupported":
            rec.setdefault("unsupported", []).append(f"{fd.get('rule')}: {first}")
    rec["rules"] = sorted({fd["rule"] for fd in rec["findings"] if fd.get("rule")})
    errs = [fd for fd in findings if fd.get("severity") == "error" and fd.get("kind") != "unsupported"]
    if errs:
        rec["verdict"] = "invalid" if all(fd.get("kind") == "invalid" for fd in errs) else "bug"
    elif raw == "unknown":
        rec["verdict"] = "unknown"
    elif raw == "warnings":
        rec["verdict"] = "warnings"
    else:
        rec["verdict"] = "clean" if raw == "clean" else (raw or "error")
    return rec


def construct(msg: str) -> str:
    """The construct an AG001 message names, with numbers and names folded so that counts group."""
    m = msg
    m = re.sub(r"^line \d+(:\d+)?:?\s*", "", m)
    m = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:140]


def arch_of(name: str) -> str:
    # (corpus/unseen_passcfg's names end in the pass configs after the arch: __sm_90a__nows.tir)
    m = re.search(r"__(sm_\d+a?)(_\d+)?(__[a-z_]+)?\.tir$", name)
    return m.group(1) if m else "?"


def run(directory: Path, jobs: int, timeout: float, only=(), reuse: dict | None = None) -> list[dict]:
    """Check every .tir of directory; with reuse (file name -> earlier record), a file whose text has the
    same sha256 as when that record was made keeps the record instead of being checked again."""
    import hashlib
    files = sorted(p for p in directory.glob("*.tir") if not only or any(s in p.name for s in only))

    def one(p: Path) -> dict:
        sha = hashlib.sha256(p.read_bytes()).hexdigest()
        old = (reuse or {}).get(p.name)
        if old is not None and old.get("sha256") == sha:
            return old
        rec = check_one(p, timeout)
        rec["sha256"] = sha
        return rec

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, files))


def summary_lines(results: list[dict]) -> list[str]:
    n = len(results)
    verdicts = Counter(r["verdict"] for r in results)
    definite = sum(verdicts[v] for v in DEFINITE)
    walls = [r["wall_s"] for r in results]
    cpus = [r["cpu_s"] for r in results]
    lines = [f"kernels: {n}",
             f"definite verdict (clean/bug/invalid/warnings): {definite}/{n} = {100 * definite / max(n, 1):.1f}%",
             "verdicts: " + ", ".join(f"{v} {verdicts[v]}" for v in
                                      ("clean", "bug", "invalid", "warnings", "unknown", "error") if verdicts[v])]
    if walls:
        lines.append(f"whole-process check time: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s "
                     f"({max(results, key=lambda r: r['wall_s'])['file']})")
        lines.append(f"CPU time of that process: median {statistics.median(cpus):.2f} s, max {max(cpus):.2f} s")
    return lines


def write_results(directory: Path, results: list[dict], jobs: int, timeout: float) -> None:
    by_arch: dict[str, Counter] = {}
    for r in results:
        by_arch.setdefault(arch_of(r["file"]), Counter())[r["verdict"]] += 1
    constructs = Counter(construct(m) for r in results for m in r["ag001"])
    kernels_per_construct = Counter(c for r in results for c in {construct(m) for m in r["ag001"]})
    unknown_first = Counter(construct(r["ag001"][0]) for r in results if r["verdict"] == "unknown" and r["ag001"])
    unknown_reason = Counter(construct(r["unsupported"][0]) for r in results
                             if r["verdict"] == "unknown" and r.get("unsupported"))
    errors = Counter((r.get("error") or "")[:160] for r in results if r["verdict"] == "error")
    git = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    meta = {"asyncguard_commit": git, "jobs": jobs, "timeout_s": timeout,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "note": "wall_s / cpu_s: wall and CPU (user+sys) time of the whole `python -m asyncguard check` process, with --jobs checks in parallel "
                    "on a shared 2-core machine"}
    with open(directory / "results.json", "w") as f:
        json.dump({"meta": meta, "kernels": results}, f, indent=1)
    L = ["# Field corpus: asyncguard results", "",
         f"asyncguard at commit `{git}`, one `python -m asyncguard check "
         f"--format json FILE` process per kernel (its own `--timeout {max(timeout - 10, 1):g}`, killed at {timeout:g} s), {jobs} at a time, on a shared 2-core "
         f"machine ({meta['date']}). Regenerate: `python corpus/check_field.py --jobs {jobs}`; "
         f"machine-readable: `results.json`. Verdict meanings: see `corpus/check_field.py`.", "",
         "## Summary", ""]
    L += [f"- {ln}" for ln in summary_lines(results)]
    L += ["", "| arch | kernels | clean | bug | invalid | warnings | unknown | error |", "|---|---|---|---|---|---|---|---|"]
    for a in sorted(by_arch):
        c = by_arch[a]
        L.append(f"| {a} | {sum(c.values())} | " + " | ".join(str(c[v]) for v in
                 ("clean", "bug", "invalid", "warnings", "unknown", "error")) + " |")
    L += ["", "## AG001 (unsupported) constructs", "",
          "Numbers and quoted names folded to N / '…'. `kernels` counts kernels with at least one such "
          "finding; `first` counts unknown kernels whose first AG001 is this one.", "",
          "| construct | findings | kernels | first |", "|---|---|---|---|"]
    for c, k in constructs.most_common(40):
        L.append(f"| {c.replace('|', '/')} | {k} | {kernels_per_construct[c]} | {unknown_first[c]} |")
    L += ["", "## Why unknown (first unsupported finding of each unknown kernel: AG001 construct, AG002 engine "
          "limit, AG003 internal error)", "", "| reason | kernels |", "|---|---|"]
    for c, k in unknown_reason.most_common(30):
        L.append(f"| {c.replace('|', '/')} | {k} |")
    L += ["", "## Definite findings (bug / invalid): candidates to triage", ""]
    for r in results:
        if r["verdict"] in ("bug", "invalid"):
            L.append(f"- `{r['file']}` ({r['verdict']})")
            for fd in r["findings"]:
                if fd["severity"] == "error" and fd["kind"] != "unsupported":
                    L.append(f"  - {fd['rule']} {fd['name']} line {fd['line']}: {fd['message'][:400]}")
    warn = [r for r in results if r["verdict"] == "warnings"]
    if warn:
        L += ["", "## Warnings only", ""]
        for r in warn:
            L.append(f"- `{r['file']}`: " + "; ".join(f"{fd['rule']} line {fd['line']}: {fd['message'][:160]}"
                                                   for fd in r["findings"]))
    if errors:
        L += ["", "## Checks that did not finish (error)", ""]
        for e, k in errors.most_common():
            files = [r["file"] for r in results if r["verdict"] == "error" and (r.get("error") or "")[:160] == e]
            L.append(f"- {k}x `{e}`: " + ", ".join(f"`{x}`" for x in files[:12]) + (" ..." if len(files) > 12 else ""))
    L += ["", "## Per kernel", "", "| file | verdict | rules | wall s | CPU s |", "|---|---|---|---|---|"]
    for r in results:
        L.append(f"| `{r['file']}` | {r['verdict']} | {' '.join(r['rules'])} | {r['wall_s']} | {r['cpu_s']} |")
    (directory / "RESULTS.md").write_text("\n".join(L) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=FIELD)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--reuse", action="store_true",
                    help="keep results.json records of files whose text did not change (same asyncguard assumed)")
    args = ap.parse_args()
    reuse = None
    if args.reuse and (args.dir / "results.json").exists():
        reuse = {r["file"]: r for r in json.loads((args.dir / "results.json").read_text())["kernels"]}
    results = run(args.dir, args.jobs, args.timeout, args.only, reuse)
    if not args.only:
        write_results(args.dir, results, args.jobs, args.timeout)
    for ln in summary_lines(results):
        print(ln)
    return 0


if __name__ == "__main__":
    sys.exit(main())
