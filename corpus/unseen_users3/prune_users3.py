"""Prune corpus/unseen_users3 after `corpus/unseen_users3/lower_users3.py`: drop texts byte-identical (sha256) to any
.tir elsewhere under corpus/, and texts with no shared scope, as corpus/unseen_sm100/prune_sm100.py does (its
`main`, run on this directory).

    python corpus/unseen_users3/prune_users3.py [--dry-run]

Writes the dropped names to corpus/unseen_users3/pruned.json."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen_sm100"))
import prune_sm100  # noqa: E402

if __name__ == "__main__":
    prune_sm100.main(HERE)
