"""The unseen corpus (corpus/unseen: kernels of TileLang's own tests, lowered by tilelang 0.1.15, held out
from asyncguard's development) keeps the verdicts recorded in corpus/unseen/expect.json, each finding of
which is judged against the TIR in corpus/unseen/RESULTS.md. A change of verdict is a change to read, then
record with `python corpus/expect_unseen.py`.

Cheap in CI: the kernels whose recorded check (corpus/unseen/results.json) took more than FAST_S seconds
are marked slow, the rest run in about a second each."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

UNSEEN = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen")
FILES = UNSEEN.files


def test_unseen_corpus_is_there():
    assert len(FILES) >= 40
    assert "a35008a42531c62b976ae4cec3855d4383db0f3c" in (UNSEEN.folder / "MANIFEST.md").read_text()
    assert sorted(UNSEEN.expect) == [p.name for p in FILES]
    assert sorted(UNSEEN.times) == [p.name for p in FILES]


@pytest.mark.parametrize("tir", UNSEEN.params())
def test_unseen_kernel_keeps_its_verdict(tir: Path):
    UNSEEN.check_against_record(tir)
