"""Benchmark report (not a test): the recorded verdicts of every corpus that keeps a results.json.

    python bench/corpora.py [--markdown]

Runs nothing: it reads each `corpus/*/results.json` that `python corpus/check_field.py --dir DIR`
wrote (one whole `python -m asyncguard check` process per kernel) and prints, per corpus, the
kernels, the share with a definite verdict (clean, bug, invalid or warnings), the count per
verdict, the median and maximum CPU seconds of a check, and the commit and date of the record.
A record is as old as its commit: re-run check_field.py on a corpus to refresh its row.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "corpus"))

from check_field import DEFINITE  # noqa: E402  (the one definition of "definite")

VERDICTS = ("clean", "bug", "invalid", "warnings", "unknown", "error")


def rows() -> list[dict]:
    out = []
    for path in sorted(ROOT.glob("corpus/*/results.json")):
        record = json.loads(path.read_text())
        kernels = record["kernels"]
        if not kernels:
            continue
        count = Counter(k["verdict"] for k in kernels)
        cpu = [k["cpu_s"] for k in kernels if isinstance(k.get("cpu_s"), (int, float))]
        meta = record.get("meta", {})
        out.append({"corpus": path.parent.name, "kernels": len(kernels),
                    "definite": sum(count[v] for v in DEFINITE), "count": count,
                    "cpu_median": statistics.median(cpu) if cpu else None,
                    "cpu_max": max(cpu) if cpu else None,
                    "commit": str(meta.get("asyncguard_commit", "?")).split(" ")[0],
                    "date": str(meta.get("date", "?"))[:10]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="a Markdown table (README)")
    args = ap.parse_args()
    table = rows()
    head = ["corpus", "kernels", "definite", *VERDICTS, "CPU s median / max", "recorded at"]
    lines = []
    for r in table:
        cpu = (f"{r['cpu_median']:.2f} / {r['cpu_max']:.2f}" if r["cpu_median"] is not None else "-")
        lines.append([r["corpus"], str(r["kernels"]),
                      f"{r['definite']} ({100 * r['definite'] / r['kernels']:.1f} %)",
                      *(str(r["count"][v]) for v in VERDICTS), cpu, f"{r['commit']} {r['date']}"])
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for ln in lines:
            print("| " + " | ".join(ln) + " |")
    else:
        widths = [max(len(x) for x in col) for col in zip(head, *lines)]
        for ln in [head, *lines]:
            print("  ".join(x.ljust(w) for x, w in zip(ln, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
