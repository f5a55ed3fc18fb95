"""Check every .tir of corpus/unseen_users3 with asyncguard, one file at a time, exactly as
`cd /tmp && nice -n 10 python -m asyncguard check --no-cache FILE`, and write HELPER_RESULTS.md and helper_results.json
(verdict = the word after "FILE: " on asyncguard's summary line; exit status; wall time).

    python corpus/unseen_users3/check_users3.py
"""
import glob
import json
import os
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def git(*a):
    return subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True).stdout.strip()


def main():
    rows = []
    for p in sorted(glob.glob(os.path.join(HERE, "*.tir"))):
        t0 = time.time()
        r = subprocess.run(["nice", "-n", "10", "python", "-m", "asyncguard", "check", "--no-cache", p],
                           cwd="/tmp", capture_output=True, text=True, timeout=900)
        wall = round(time.time() - t0, 2)
        out = r.stdout + r.stderr
        m = re.search(re.escape(p) + r": (\w+)\s*$", out, re.M)
        verdict = m.group(1) if m else f"(no verdict line, exit {r.returncode})"
        rules = sorted(set(re.findall(r": (AG\d{3}) ", out)))
        rows.append({"file": os.path.basename(p), "verdict": verdict, "exit": r.returncode, "wall_s": wall,
                     "rules": rules, "output": out.replace(HERE + "/", "")})
        print(f"{os.path.basename(p)}: {verdict} exit {r.returncode} {wall}s {' '.join(rules)}", flush=True)
    json.dump(rows, open(os.path.join(HERE, "helper_results.json"), "w"), indent=1)
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    with open(os.path.join(HERE, "HELPER_RESULTS.md"), "w") as f:
        f.write("# unseen_users3: asyncguard verdicts\n\n")
        f.write(f"`git -C /work/main rev-parse HEAD`: `{git('rev-parse', 'HEAD')}`\n\n")
        st = git("status", "--short", "asyncguard")
        f.write("`git -C /work/main status --short asyncguard`: " + (f"\n```\n{st}\n```\n" if st else "(empty)\n") + "\n")
        f.write(f"Checked {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, one file at a time: "
                "`cd /tmp && nice -n 10 python -m asyncguard check --no-cache FILE`.\n\n")
        f.write("Counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" (of {len(rows)})\n\n")
        f.write("| file | verdict | exit | wall s | rules |\n|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| `{r['file']}` | {r['verdict']} | {r['exit']} | {r['wall_s']} | {' '.join(r['rules'])} |\n")
        f.write("\n## Full outputs (non-clean)\n\n")
        for r in rows:
            if r["verdict"] != "clean":
                f.write(f"### `{r['file']}`\n\n```\n{r['output'].rstrip()}\n```\n\n")


if __name__ == "__main__":
    main()
