"""Benchmark (not a test): the same `asyncguard check` through a 2-worker Dask LocalCluster
(`--executor dask://...`) and through `--jobs 2`; the JSON outputs must be identical.

    nice -n 10 python bench/executor.py [DIR ...]   # default: corpus/field (TileLang's examples) if it has kernels, else corpus/real

No results cache (--no-cache): both runs do all the work. Both run with `--timeout 0`
(`--timeout S` to change it): the per-kernel wall-clock limit is a signal in the main thread, so
it does not apply in Dask's worker threads, and with it a slow kernel would be AG002 under
--jobs and finished on the cluster. A kernel that still hits a limit (AG002) stops after a
number of steps that depends on the machine's load, so such units are compared by verdict only
and counted apart. CPU seconds are printed beside wall seconds (the check process and its
workers; on the cluster, the client process and the two workers' own CPU): on a machine shared
with other work, wall time follows the others' load. The cluster is started before the
clock starts (a real cluster outlives one command). On one 2-core machine the cluster can only
match --jobs 2; what it adds is machines: the same command against a scheduler with workers on
several hosts.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "corpus" / "field"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _own_cpu() -> float:
    """CPU seconds of the process this runs in (a Dask worker, through Client.run)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def check(target: list[str], *extra: str) -> tuple[float, float, dict, int]:
    """(wall s, CPU s of the check process and the workers it waited for, JSON, exit status)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    t, c = time.perf_counter(), _children_cpu()
    p = subprocess.run([sys.executable, "-m", "asyncguard", "check", "--no-cache", "--no-progress",
                        "--format", "json", *extra, *target], capture_output=True, text=True, env=env)
    return time.perf_counter() - t, _children_cpu() - c, json.loads(p.stdout or "{}"), p.returncode


def compare(a: dict, b: dict) -> tuple[bool, int]:
    same = len(a.get("files", [])) == len(b.get("files", [])) and a.get("errors") == b.get("errors")
    timed_out = 0
    for x, y in zip(a.get("files", []), b.get("files", [])):
        if any(f["rule"] == "AG002" for f in x["findings"] + y["findings"]):
            timed_out += 1
            same = same and (x["path"], x["verdict"]) == (y["path"], y["verdict"])
        else:
            same = same and x == y
    return same, timed_out


def main() -> int:
    import argparse

    from distributed import Client, LocalCluster
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--timeout", default="0", help="check's --timeout for both runs (default 0: none)")
    args = ap.parse_args()
    dirs = args.dirs or [str(FIELD) if FIELD.is_dir() and any(FIELD.glob("*.tir"))
                         else str(ROOT / "corpus" / "real")]
    # the scheduler runs in this process and the workers are started from it: both must import
    # the asyncguard under test (tasks name their functions by module)
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster:
        url = cluster.scheduler_address.replace("tcp://", "dask://")
        t_jobs, c_jobs, doc_jobs, rc_jobs = check(dirs, "--jobs", "2", "--timeout", args.timeout)
        with Client(cluster) as client:
            before = client.run(_own_cpu)
            t_dask, c_dask, doc_dask, rc_dask = check(dirs, "--executor", url, "--timeout", args.timeout)
            after = client.run(_own_cpu)
        c_dask += sum(after[w] - before.get(w, 0.0) for w in after)
    same, timed_out = compare(doc_jobs, doc_dask)
    same = same and rc_jobs == rc_dask
    n = len(doc_jobs.get("files", []))
    print(f"{' '.join(d[-30:] for d in dirs)}: {n} files")
    print(f"  --jobs 2                    {t_jobs:8.1f} s wall {c_jobs:8.1f} s CPU")
    print(f"  --executor dask (2 workers) {t_dask:8.1f} s wall {c_dask:8.1f} s CPU")
    verdicts = {}
    for f in doc_jobs.get("files", []):
        verdicts[f["verdict"]] = verdicts.get(f["verdict"], 0) + 1
    print(f"  verdicts (--jobs 2): {verdicts}")
    print(f"  same results: {'yes' if same else 'NO'}"
          f" ({timed_out} unit(s) hit --timeout: compared by verdict only)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
