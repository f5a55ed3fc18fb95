"""Prune corpus/unseen_users2 after lower_users2.py: drop texts byte-identical (sha256) to any .tir elsewhere under
corpus/, and texts with no shared scope, with corpus/unseen_sm100/prune_sm100.py's `main` run on this directory
(as corpus/unseen_users/prune_users.py does).

    python corpus/unseen_users2/prune_users2.py [--dry-run]

Writes the dropped names to corpus/unseen_users2/pruned.json."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen_sm100"))
import prune_sm100  # noqa: E402

if __name__ == "__main__":
    prune_sm100.main(HERE)
