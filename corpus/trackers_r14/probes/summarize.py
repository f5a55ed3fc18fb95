"""summarize.py [RESULTS.txt]: one line per run of RESULTS.txt: file, mode, verdict, exit status, and the findings as
RULE@line (sorted, unique)."""
import re, sys
path = sys.argv[1] if len(sys.argv) > 1 else "RESULTS.txt"
sec = None
for ln in open(path).read().splitlines() + ["===== END"]:
    if ln.startswith("===== "):
        if sec:
            print(f"{sec['name']:<58} {sec['mode']:<16} {sec['verdict']:<8} rc={sec['rc']}  " + " ".join(sorted(set(sec['f']), key=lambda s: (s[:5], int(s.split('@')[1])))))
        parts = ln[6:].split(" ", 1)
        sec = {"name": re.sub(r"_(gqa|3wg|fp8).*?(_fixed)?(\.diag)?\.tir$", r"\2\3", parts[0]), "mode": parts[1] if len(parts) > 1 else "", "verdict": "?", "rc": "?", "f": []}
        continue
    if sec is None:
        continue
    m = re.match(r"^\S+\.tir:(\d+):\d+: (AG\d+) ", ln)
    if m:
        sec["f"].append(f"{m.group(2)}@{m.group(1)}")
    m = re.match(r"^\S+\.tir: (buggy|clean|unknown)$", ln)
    if m:
        sec["verdict"] = m.group(1)
    m = re.match(r"^exit status: (\d+)", ln)
    if m:
        sec["rc"] = m.group(1)
