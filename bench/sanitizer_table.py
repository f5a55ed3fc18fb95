"""Render `asyncguard sanitize --json` results as the markdown table in docs/sanitizer-gate.md.

    python bench/sanitizer_table.py [--summary] RESULTS.json...

A later file's row replaces an earlier file's row of the same kernel (a re-run).
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from asyncguard.emit.gate import agreement  # noqa: E402   (one rule for the run and the table)


def agree(r) -> str:
    return agreement(r["static"], r["static_rules"], r["verdict"], r["status"])


def cell(t):
    if not t:
        return "-"
    if t.get("hazards") is None:
        return "no report"
    s = str(t["hazards"])
    if t.get("errors") is not None and t["hazards"]:
        s += f" ({t['errors']} err, {t['warnings']} warn)"
    return s if t.get("finished", True) else s + " (unfinished)"


def trace(r):
    t = r.get("trace")
    if not t:
        return "-"
    if t.get("sink_mismatches"):
        return f"{t['mismatches']}/{t['reads']} differ, TMA-store sink: {t['sink_mismatches']} B differ"
    if not (t["mismatches"] or t["count_mismatches"]):
        return f"ok ({t['reads']} reads)" + (f", {r['timeouts']} timeouts" if r.get("timeouts") else "")
    s = f"{t['mismatches']}/{t['reads']} differ"
    if t["count_mismatches"]:
        s += f", {t['count_mismatches']} count"
    if r.get("timeouts"):
        s += f", {r['timeouts']} timeouts"
    return s


def row_line(r) -> str:
    k = r["kernel"].replace("corpus/", "").replace("::main_kernel", "")
    st = r["static"] + (f" {','.join(x for x in r['static_rules'])}" if r["static_rules"] else "")
    if r["status"] != "ran":
        why = (r.get("not_emitted") or r.get("error") or r["status"] or "")[:90].replace("|", "/")
        return f"| {k} | {st} | - | - | - | {r['verdict']}: {why} | {agree(r)} |"
    gate = r["verdict"] + (" (same skeleton as " + r["same_as"].replace("corpus/", "").replace("::main_kernel", "")
                           + ")" if r.get("same_as") else "")
    return f"| {k} | {st} | {cell(r.get('racecheck'))} | {cell(r.get('synccheck'))} | {trace(r)} | {gate} | {agree(r)} |"


def summary(rows) -> None:
    """Totals, then the rows that did not pass (for runs too large for one row per kernel)."""
    ran = [r for r in rows if r["status"] == "ran"]
    count = lambda key, val, rs=rows: sum(r.get(key) == val for r in rs)   # noqa: E731
    print(f"kernels: {len(rows)}; ran: {len(ran)} ({sum(not r.get('same_as') for r in ran)} distinct skeletons); "
          f"pass: {count('verdict', 'pass')}; fail: {count('verdict', 'fail')}; skip: {count('verdict', 'skip')}; "
          f"static clean: {sum(r['static'] in ('clean', 'warnings') for r in rows)}; "
          f"agree: {sum(agree(r) == 'yes' for r in rows)} yes, {sum(agree(r) == 'no' for r in rows)} no")
    bad = [r for r in rows if r["verdict"] != "pass"]
    if bad:
        print()
        print("| kernel | static (asyncguard check) | racecheck | synccheck | trace check | gate | agree? |")
        print("|---|---|---|---|---|---|---|")
        for r in bad:
            print(row_line(r))


def main(argv) -> None:
    brief = "--summary" in argv
    by_kernel = {}      # a later file's row replaces an earlier one of the same kernel (a re-run)
    for f in (a for a in argv if a != "--summary"):
        for r in json.load(open(f)):
            by_kernel[r["kernel"]] = r
    rows = list(by_kernel.values())
    if brief:
        summary(rows)
        return
    print("| kernel | static (asyncguard check) | racecheck | synccheck | trace check | gate | agree? |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(row_line(r))


if __name__ == "__main__":
    main(sys.argv[1:])
