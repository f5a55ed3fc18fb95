"""Scaling of the whole `asyncguard check` process (issue 4): trip counts and thread counts.

    python bench/scaling.py

Prints, from one run: the sm_80 GEMM sample with its K loop at 29 and 29,999 iterations
(29 = 14 mod 3 keeps TileLang's peeled epilogue consistent), the warp-specialized sm_90 GEMM
at 32 and 32,768 iterations, and a cp.async ring kernel at 128 ... 1024 threads.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RING = (ROOT / "corpus" / "handwritten" / "ring2.tir").read_text()


def timed(text: str, runs: int = 3) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".tir", delete=False) as f:
        f.write(text)
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "asyncguard", "check", f.name], capture_output=True, text=True)
        ts.append(time.perf_counter() - t)
        assert p.returncode in (0, 1), p.stderr
    Path(f.name).unlink()
    return statistics.median(ts)


def ring(threads: int) -> str:
    n = threads * 8   # elements per stage
    return (RING.replace("1024", str(n))
            .replace('"threadIdx.x": 128', f'"threadIdx.x": {threads}')
            .replace('T.launch_thread("threadIdx.x", 128)', f'T.launch_thread("threadIdx.x", {threads})')
            .replace("127 - tx", f"{threads - 1} - tx")
            .replace("(4096,)", f"({4 * n},)").replace("(2048,)", f"({2 * n},)")
            .replace('"dyn_shared_memory_buf": 4096', f'"dyn_shared_memory_buf": {4 * n}'))


def main() -> int:
    gemm = (ROOT / "corpus/real/gemm_sm80_s3_128x128x32.tir").read_text()
    ws = (ROOT / "corpus/real/gemm_sm90a_ws_s3_128x128x64.tir").read_text()
    rows = []
    a, b = timed(gemm.replace("T.serial(14, ", "T.serial(29, ")), timed(gemm.replace("T.serial(14, ", "T.serial(29999, "))
    rows.append(("sm_80 GEMM, 29 vs 29,999 iterations", a, b))
    a, b = timed(ws.replace("for k in range(8):", "for k in range(32):")), \
        timed(ws.replace("for k in range(8):", "for k in range(32768):"))
    rows.append(("sm_90 warp-specialized GEMM, 32 vs 32,768 iterations", a, b))
    print(f"{'case':<56} {'small s':>8} {'large s':>8} {'ratio':>6}")
    for name, a, b in rows:
        print(f"{name:<56} {a:>8.3f} {b:>8.3f} {b / a:>6.2f}")
    base = None
    print(f"\n{'ring kernel, threads':<56} {'s':>8} {'vs 128':>8} {'linear':>6}")
    from asyncguard.analyze import check_text
    for t in (128, 256, 512, 1024):
        assert check_text(ring(t)).verdict == "clean"
        s = timed(ring(t))
        base = base or s
        print(f"{t:<56} {s:>8.3f} {s / base:>8.2f} {t / 128:>6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
