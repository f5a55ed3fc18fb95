"""The held-out corpus of TileLang 0.1.11's printing (corpus/unseen_v0111: its own examples, lowered by
tilelang 0.1.11 at tag v0.1.11) keeps the verdicts recorded in corpus/unseen_v0111/expect.json. Each
definite finding is judged against the TIR in corpus/unseen_v0111/README.md. A change of verdict is a
change to read, then record with `python corpus/expect_unseen.py --dir corpus/unseen_v0111
--skip-timed-out`.

Cheap in CI: kernels whose recorded check took more than FAST_S seconds are marked slow."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

V0111 = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_v0111")
FILES = V0111.files


def test_v0111_corpus_is_there():
    assert len(FILES) >= 200
    assert "cd37ed5fc35ae7a60a1277c8eb49028174ac51e6" in (V0111.folder / "README.md").read_text()
    assert sorted(V0111.expect) == [p.name for p in FILES]
    assert sorted(V0111.times) == [p.name for p in FILES]


@pytest.mark.parametrize("tir", V0111.params())
def test_v0111_kernel_keeps_its_verdict(tir: Path):
    V0111.check_against_record(tir)
