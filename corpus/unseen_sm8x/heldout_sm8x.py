"""How held-out corpus/unseen_sm8x is: for each kept .tir (KERNEL__sm_86.tir / KERNEL__sm_89.tir), compare
it with the sm_80 lowering of the same kernel in corpus/field/ (KERNEL__sm_80.tir) after replacing the arch
string ("sm_86"/"sm_89" -> "sm_80"), and with the other sm_8x arch of this directory.

    python corpus/unseen_sm8x/heldout_sm8x.py [--json]

Prints per kernel: same (identical after the replacement), diff N (N differing lines, difflib), or no sm_80
sibling; and whether the sm_86 and sm_89 texts are identical up to the arch string."""
import difflib
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIELD = os.path.join(os.path.dirname(HERE), "field")


def norm(text, arch):
    return text.replace(f'"{arch}"', '"ARCH"')


def ndiff(a, b):
    return sum(1 for l in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
               if l[:1] in "+-" and not l.startswith(("+++", "---")))


def main():
    rows = []
    for p in sorted(glob.glob(os.path.join(HERE, "*.tir"))):
        name = os.path.basename(p)
        stem, arch = name[:-4].rsplit("__", 1)
        text = norm(open(p).read(), arch)
        row = {"file": name, "arch": arch}
        s80 = os.path.join(FIELD, f"{stem}__sm_80.tir")
        if os.path.exists(s80):
            t80 = norm(open(s80).read(), "sm_80")
            row["vs_sm80"] = "same" if t80 == text else f"diff {ndiff(t80, text)}"
        else:
            row["vs_sm80"] = "no sm_80 sibling"
        other = {"sm_86": "sm_89", "sm_89": "sm_86"}.get(arch)
        po = os.path.join(HERE, f"{stem}__{other}.tir")
        row["vs_other_sm8x"] = ("same" if os.path.exists(po) and norm(open(po).read(), other) == text
                                else "differs" if os.path.exists(po) else "absent")
        rows.append(row)
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(f"{r['vs_sm80']:18} {r['vs_other_sm8x']:8} {r['file']}")
    from collections import Counter
    for arch in ("sm_86", "sm_89"):
        c = Counter(("same" if r["vs_sm80"] == "same" else "diff" if r["vs_sm80"].startswith("diff")
                     else "none") for r in rows if r["arch"] == arch)
        print(arch, dict(c))
    print("sm_86 vs sm_89:", dict(Counter(r["vs_other_sm8x"] for r in rows if r["arch"] == "sm_86")))


if __name__ == "__main__":
    main()
