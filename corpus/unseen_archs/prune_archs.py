"""Prune corpus/unseen_archs after `corpus/unseen_archs/lower_archs.py --generic-archs sm_90,sm_75 --out
corpus/unseen_archs`: drop texts byte-identical to any .tir elsewhere under corpus/ and texts with no shared
scope, as corpus/unseen_sm100/prune_sm100.py does (its `main`, run on this directory).

    python corpus/unseen_archs/prune_archs.py [--dry-run]

Writes the dropped names to corpus/unseen_archs/pruned.json."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen_sm100"))
import prune_sm100  # noqa: E402

if __name__ == "__main__":
    prune_sm100.main(HERE)
