"""The held-out corpus of older printing (corpus/unseen_versions: TileLang 0.1.8's own examples, lowered
by tilelang 0.1.8 at tag v0.1.8) keeps the verdicts recorded in corpus/unseen_versions/expect.json. Each
definite finding is judged against the TIR in corpus/unseen_versions/README.md. A change of verdict is a
change to read, then record with `python corpus/expect_unseen.py --dir corpus/unseen_versions
--skip-timed-out`.

Cheap in CI: kernels whose recorded check took more than FAST_S seconds are marked slow."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

VERSIONS = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions")
FILES = VERSIONS.files


def test_versions_corpus_is_there():
    assert len(FILES) >= 200
    assert "41b25527cd672434f88eeea7e056d8d7c0d4faa4" in (VERSIONS.folder / "README.md").read_text()
    assert sorted(VERSIONS.expect) == [p.name for p in FILES]
    assert sorted(VERSIONS.times) == [p.name for p in FILES]


@pytest.mark.parametrize("tir", VERSIONS.params())
def test_versions_kernel_keeps_its_verdict(tir: Path):
    VERSIONS.check_against_record(tir)
