"""Render `asyncguard sanitize --json` results as the markdown table in docs/sanitizer-gate.md."""
import json
import sys


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
    if not (t["mismatches"] or t["count_mismatches"]):
        return f"ok ({t['reads']} reads)" + (f", {r['timeouts']} timeouts" if r.get("timeouts") else "")
    s = f"{t['mismatches']}/{t['reads']} differ"
    if t["count_mismatches"]:
        s += f", {t['count_mismatches']} count"
    if r.get("timeouts"):
        s += f", {r['timeouts']} timeouts"
    return s


rows = []
for f in sys.argv[1:]:
    rows += json.load(open(f))
print("| kernel | static (asyncguard check) | racecheck | synccheck | trace check | gate | agree? |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    k = r["kernel"].replace("corpus/", "").replace("::main_kernel", "")
    st = r["static"] + (f" {','.join(x for x in r['static_rules'])}" if r["static_rules"] else "")
    if r["status"] != "ran":
        why = (r.get("not_emitted") or r.get("error") or r["status"] or "")[:90].replace("|", "/")
        print(f"| {k} | {st} | - | - | - | {r['verdict']}: {why} | {r['agree']} |")
        continue
    print(f"| {k} | {st} | {cell(r.get('racecheck'))} | {cell(r.get('synccheck'))} | {trace(r)} | {r['verdict']} | {r['agree']} |")
