"""The fourth held-out corpus (corpus/unseen_sm100: TileLang 0.1.15's lowerings of the generic
examples of TileLang's examples/ tree for sm_100a, made and triaged in one session;
corpus/unseen_sm100/README.md) keeps the verdicts recorded in corpus/unseen_sm100/expect.json.
Each of its findings is judged in the README (every one a defect already in docs/found-bugs.md).
A change of verdict is a change to read, then record with
`python corpus/expect_unseen.py --dir corpus/unseen_sm100`."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

SM100 = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_sm100")
FILES = SM100.files


def test_sm100_corpus_is_there_and_new():
    assert len(FILES) >= 90
    assert all(p.name.endswith("__sm_100a.tir") for p in FILES)
    assert "a35008a4" in (SM100.folder / "README.md").read_text()
    assert sorted(SM100.expect) == [p.name for p in FILES]
    assert not SM100.also_in("field", "field_sizes", "field_sm120", "unseen", "unseen_wide", "unseen_bench", "real")


@pytest.mark.parametrize("tir", SM100.params())
def test_sm100_kernel_keeps_its_verdict(tir: Path):
    SM100.check_against_record(tir)
