"""The held-out corpus of users' kernels (corpus/unseen_users: TileLang kernels from public repositories
other than TileLang's, lowered by tilelang 0.1.15) keeps the verdicts recorded in
corpus/unseen_users/expect.json. Only the kernels of licensed repositories are committed (results.json
also records the others' verdicts); each definite finding is judged in corpus/unseen_users/README.md, and
the GDT2 findings are confirmed on the H200 (docs/found-bugs.md, entries 20-22). A change of verdict is a
change to read, then record with `python corpus/expect_unseen.py --dir corpus/unseen_users`."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

USERS = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_users")
FILES = USERS.files


def test_users_corpus_is_there():
    assert len(FILES) >= 30
    assert "1d9372ce82be80be8c109da9d2c89351fc89c92a" in (USERS.folder / "README.md").read_text()
    assert sorted(USERS.expect) == [p.name for p in FILES]
    assert set(USERS.times) >= {p.name for p in FILES}


@pytest.mark.parametrize("tir", USERS.params())
def test_users_kernel_keeps_its_verdict(tir: Path):
    USERS.check_against_record(tir)
