"""Benchmark (not a test): `asyncguard check` over a corpus twice, with an empty results cache
(cold) and then with the cache it filled (warm); the two JSON outputs must be identical.

    python bench/cache.py [DIR ...]         # default: corpus/field (TileLang's examples) if it has kernels, and corpus/real
    python bench/cache.py --py tests/fixtures/tilelang_repo   # .py kernels: warm = lowering only

Whole-process wall time, --jobs 2 (the 2-core reference machine). Prints one line per corpus.
Units whose result depends on the machine's speed (AG002: --timeout hit) or on an engine
failure (AG003) are not stored, so a warm run recomputes them: they are counted apart
("recomputed"), their time is in the warm figure, and "same" compares the other units.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELD = ROOT / "corpus" / "field"


def check(target, cache_dir: str, cwd: str | None = None, jobs: int = 2) -> tuple[float, dict, int]:
    env = dict(os.environ, ASYNCGUARD_CACHE_DIR=cache_dir,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    targets = [target] if isinstance(target, str) else list(target)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "asyncguard", "check", "--format", "json", "--jobs",
                        str(jobs), "--no-progress", *targets], capture_output=True, text=True, env=env, cwd=cwd)
    return time.perf_counter() - t, json.loads(p.stdout or "{}"), p.returncode


NOT_STORED = ("AG002", "AG003")


def compare(doc1: dict, doc2: dict) -> tuple[bool, int]:
    """(every stored unit identical, units recomputed because they are not stored)."""
    recomputed = 0
    same = len(doc1.get("files", [])) == len(doc2.get("files", [])) and doc1.get("errors") == doc2.get("errors")
    for a, b in zip(doc1.get("files", []), doc2.get("files", [])):
        if any(f["rule"] in NOT_STORED for f in a["findings"] + b["findings"]):
            recomputed += 1
            same = same and a["path"] == b["path"]
        else:
            same = same and a == b
    return same, recomputed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="*")
    ap.add_argument("--py", help="a TileLang repository: check its kernels/ (.py) cold and warm")
    args = ap.parse_args()
    dirs = args.dirs or ([str(FIELD)] if FIELD.is_dir() and any(FIELD.glob("*.tir")) else []) + \
        [str(ROOT / "corpus" / "real")]
    print(f"{'corpus':<40} {'units':>5} {'cold s':>8} {'warm s':>8} {'same':>5} {'recomputed':>10}"
          f" {'warm s, stored units only':>26}")
    for d in dirs:
        with tempfile.TemporaryDirectory() as cache:
            cold, doc1, rc1 = check(d, cache)
            warm, doc2, rc2 = check(d, cache)
            stored = [f["path"] for f in doc1.get("files", [])
                      if not any(x["rule"] in NOT_STORED for x in f["findings"])]
            warm_stored, _, _ = check(stored, cache) if stored else (0.0, {}, 0)
        same, recomputed = compare(doc1, doc2)
        print(f"{d[-40:]:<40} {len(doc1.get('files', [])):>5} {cold:>8.1f} {warm:>8.1f} "
              f"{'yes' if same else 'NO':>5} {recomputed:>10} {warm_stored:>26.1f}")
    if args.py:
        with tempfile.TemporaryDirectory() as cache:
            cold, doc1, rc1 = check("kernels", cache, cwd=args.py, jobs=1)
            warm, doc2, rc2 = check("kernels", cache, cwd=args.py, jobs=1)
            with tempfile.TemporaryDirectory() as empty:
                env = dict(os.environ, PYTHONPATH=str(ROOT))
                t = time.perf_counter()   # the lowering alone: what a warm run cannot avoid
                subprocess.run([sys.executable, "-c", _LOWER_ONLY, args.py], env=env, cwd=args.py,
                               capture_output=True)
                lower = time.perf_counter() - t
        same, recomputed = compare(doc1, doc2)
        print(f"{(args.py + ' (.py)')[-40:]:<40} {len(doc1.get('files', [])):>5} {cold:>8.1f} "
              f"{warm:>8.1f} {'yes' if same else 'NO':>5} {recomputed:>10}   (lowering alone: {lower:.1f} s)")
    return 0


_LOWER_ONLY = """
import sys
from pathlib import Path
from asyncguard.config import Resolver
from asyncguard.frontends.python import lower_file
for f in sorted(Path('kernels').glob('*.py')):
    lower_file(str(f), Resolver().for_file(f))
"""

if __name__ == "__main__":
    sys.exit(main())
