"""How held-out corpus/unseen_archs is: compare each kept .tir (KERNEL__sm_90.tir, KERNEL__sm_75.tir, ...)
with the lowering of the same kernel in corpus/field/ for the nearest field arch (sm_90 -> sm_90a,
sm_75 -> sm_80, sm_103a/sm_120a/sm_121a -> sm_100a/sm_120 where present) after replacing the arch string,
and count the instruction families each text uses.

    python corpus/unseen_archs/heldout_archs.py [--json]"""
import difflib
import glob
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)
NEAREST = {"sm_90": ["field/{s}__sm_90a.tir"], "sm_75": ["field/{s}__sm_80.tir"],
           "sm_103a": ["unseen_sm100/{s}__sm_100a.tir"], "sm_120a": ["field_sm120/{s}__sm_120.tir"],
           "sm_121a": ["field_sm120/{s}__sm_120.tir"]}
FAMILIES = {"cp.async": r"T\.ptx_cp_async\b|cp_async", "tma": r"T\.tma_(load|store)", "mbarrier": r"mbarrier",
            "wgmma": r"wgmma", "setmaxnreg": r"set_max_nreg|setmaxnreg|warpgroup_reg", "ldmatrix": r"ldmatrix",
            "mma.sync": r"T\.ptx_mma\b", "stmatrix": r"stmatrix", "fence.proxy": r"fence_proxy"}


def norm(text, arch):
    return re.sub(r'"sm_\d+a?"', '"ARCH"', text) if arch else text


def ndiff(a, b):
    return sum(1 for l in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
               if l[:1] in "+-" and not l.startswith(("+++", "---")))


def main():
    rows = []
    for p in sorted(glob.glob(os.path.join(HERE, "*.tir"))):
        name = os.path.basename(p)
        stem, arch = name[:-4].rsplit("__", 1)
        raw = open(p).read()
        text = norm(raw, arch)
        row = {"file": name, "arch": arch, "families": sorted(k for k, r in FAMILIES.items() if re.search(r, raw))}
        row["vs_nearest"] = "no sibling"
        for pat in NEAREST.get(arch, []):
            q = os.path.join(CORPUS, pat.format(s=stem))
            if os.path.exists(q):
                t = norm(open(q).read(), "x")
                row["vs_nearest"] = ("same up to arch" if t == text else f"diff {ndiff(t, text)}") + " " + pat.split("__")[-1][:-4]
                break
        rows.append(row)
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(f"{r['vs_nearest']:28} {','.join(r['families']):40} {r['file']}")
    for arch in sorted({r["arch"] for r in rows}):
        rs = [r for r in rows if r["arch"] == arch]
        print(arch, len(rs), dict(Counter(r["vs_nearest"].split(" ")[0] if not r["vs_nearest"].startswith("same")
                                          else "same" for r in rs)),
              "families:", dict(Counter(f for r in rs for f in r["families"])))


if __name__ == "__main__":
    main()
