"""Resource bounds: each oversized input answers quickly, honestly (verdict unknown, AG002) or
through the symbolic engine, in bounded memory. Each case runs `asyncguard check` in a fresh
subprocess; wall time and the child's peak RSS (getrusage RUSAGE_CHILDREN) are printed.

    python bench/limits.py            # targets: < 10 s and < 1 GB per case
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": {threads}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    C_1 = T.decl_buffer((65536,), "float16", data=C)
    tx = T.launch_thread("threadIdx.x", {threads})
    S = T.alloc_buffer((4096,), "float16", scope="shared.dyn")
'''


def kernel(body: str, threads: int = 64) -> str:
    return HEAD.format(threads=threads) + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def big_file(statements: int = 1_100_000) -> str:
    """~43 MB (1.1M statements; 50 MB at 1.28M) of plain stores and barriers."""
    return kernel("\n".join(f"S[(tx + {i}) % 4096] = T.float16(0.0)" if i % 2 == 0
                             else 'T.tvm_storage_sync("shared")' for i in range(statements)))


def cases() -> dict[str, str]:
    """name -> TIR text (all but the big file)."""
    return {
        # periodic: the symbolic engine proves the body periodic and skips iterations
        "loop_1e9_periodic": kernel("""
            for k in T.serial(1000000000):
                S[tx] = T.float16(0.0)
                T.tvm_storage_sync("shared")
        """),
        # not provably periodic (k * k): the step-count bound refuses it up front
        "loop_1e9_nonperiodic": kernel("""
            for k in T.serial(1000000000):
                S[(k * k + tx) % 4096] = T.float16(0.0)
                T.tvm_storage_sync("shared")
        """),
        "nested_loops_1e9": kernel("""
            for i in T.serial(100000):
                for j in T.serial(10000):
                    S[(i * j + tx) % 4096] = T.float16(0.0)
                    T.tvm_storage_sync("shared")
        """),
        "threads_1e6": kernel("""
            S[tx % 4096] = T.float16(0.0)
            T.tvm_storage_sync("shared")
        """, threads=1_000_000),
        # no barrier: no record ever retires, 2,000 records (256,000 thread accesses) stay live
        # (the race check goes through the per-statement interval index, engine/state/memory.py _Group)
        "no_barrier_2000_steps": kernel("""
            for k in T.serial(1000):
                S[(43 * tx + 7 * k) % 4096] = T.float16(0.0)
                S[5] = T.float16(0.0)
        """, threads=128),
    }


CASES = {name: (lambda text=text: text) for name, text in cases().items()}
CASES["file_50MB"] = lambda: big_file(1_280_000)


def measure(path: Path, extra: list[str]) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "asyncguard", "check", "--format", "json", *extra,
                        str(path)], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - t0
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run each case in its own
    # measuring process (see main) so it is this child's peak
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = {"rc": p.returncode, "seconds": round(wall, 2), "peak_rss_mb": round(rss_kb / 1024, 1),
           "stderr": p.stderr[-500:]}
    try:
        doc = json.loads(p.stdout)
        f = doc["files"][0]
        out["verdict"] = f["verdict"]
        out["rules"] = sorted({x["rule"] for x in f["findings"]})
        out["message"] = next((x["message"] for x in f["findings"] if x["rule"] == "AG002"),
                              "; ".join(s for k in f["kernels"] for s in k.get("scope", [])))
    except (ValueError, KeyError, IndexError):
        out["verdict"] = None
    return out


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        # child: a small process (it builds nothing), so the forked asyncguard process's peak
        # RSS (RUSAGE_CHILDREN) is its own and not inherited pages of a big parent
        path = Path(sys.argv[2])
        res = measure(path, [])
        res["bytes"] = path.stat().st_size
        print(json.dumps(res))
        return 0
    ok = True
    print(f"{'case':<22} {'bytes':>11} {'rc':>3} {'verdict':<8} {'rules':<14} {'time':>7} {'peak RSS':>9}")
    with tempfile.TemporaryDirectory() as d:
        for name, make in CASES.items():
            path = Path(d) / f"{name}.tir"
            path.write_text(make())
            p = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True,
                               text=True)
            path.unlink()
            r = json.loads(p.stdout)
            good = r["seconds"] < 10 and r["peak_rss_mb"] < 1024 and r["rc"] in (0, 1) and \
                r["verdict"] in ("clean", "unknown", "buggy")
            ok &= good
            print(f"{name:<22} {r['bytes']:>11,} {r['rc']:>3} {str(r['verdict']):<8} "
                  f"{','.join(r.get('rules', [])) or '-':<14} {r['seconds']:>6.2f}s "
                  f"{r['peak_rss_mb']:>7.1f}MB{'' if good else '  <-- over target'}")
            print(f"{'':<22} {r.get('message', '')[:150]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
