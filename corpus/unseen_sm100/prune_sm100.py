"""Prune corpus/unseen_sm100 after `corpus/lower_field.py --generic-archs sm_100a --out corpus/unseen_sm100`:
drop .tir texts byte-identical (sha256) to any .tir elsewhere under corpus/, and texts with no shared-memory
storage scope (no "shared..." string at all). lower_field already keeps each text once within this directory.

    python corpus/unseen_sm100/prune_sm100.py [--dry-run]

Writes the dropped names to corpus/unseen_sm100/pruned.json."""
import glob
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)


def main(here: str = HERE):
    """Prune the held-out corpus in `here` (another one reuses this: corpus/unseen_sm8x)."""
    dry = "--dry-run" in sys.argv
    others = set()
    for p in glob.glob(os.path.join(CORPUS, "**", "*.tir"), recursive=True):
        if os.path.dirname(os.path.abspath(p)) != here:
            others.add(hashlib.sha256(open(p, "rb").read()).hexdigest())
    dropped = {"identical_to_other_corpus": [], "no_shared_scope": []}
    for p in sorted(glob.glob(os.path.join(here, "*.tir"))):
        b = open(p, "rb").read()
        if hashlib.sha256(b).hexdigest() in others:
            dropped["identical_to_other_corpus"].append(os.path.basename(p))
        elif b"shared" not in b:
            dropped["no_shared_scope"].append(os.path.basename(p))
        else:
            continue
        if not dry:
            os.remove(p)
    for k, v in dropped.items():
        print(f"{k}: {len(v)}")
        for f in v:
            print("  " + f)
    if not dry:
        with open(os.path.join(here, "pruned.json"), "w") as f:
            json.dump(dropped, f, indent=1)


if __name__ == "__main__":
    main()
