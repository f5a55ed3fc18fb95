"""The second held-out corpus (corpus/unseen_wide: TileLang 0.1.15's lowerings of every test file of
TileLang's testing/python tree that compiles a kernel, up to 4 parameter sets per test;
`python corpus/lower_unseen.py --wide`) keeps the verdicts recorded in corpus/unseen_wide/expect.json.
Each definite finding is judged against the TIR in corpus/unseen_wide/README.md. A change of verdict
is a change to read, then record with `python corpus/expect_unseen.py --dir corpus/unseen_wide`.

Cheap in CI: kernels whose recorded check took more than FAST_S seconds are marked slow."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

WIDE = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide")
FILES = WIDE.files


def test_wide_corpus_is_there_and_new():
    assert len(FILES) >= 250
    assert "a35008a4" in (WIDE.folder / "README.md").read_text()
    assert sorted(WIDE.expect) == [p.name for p in FILES]
    assert sorted(WIDE.times) == [p.name for p in FILES]
    # nothing the other held-out and field corpora already have (lower_unseen.py drops those)
    assert not WIDE.also_in("field", "field_sizes", "field_sm120", "unseen")


@pytest.mark.parametrize("tir", WIDE.params())
def test_wide_kernel_keeps_its_verdict(tir: Path):
    WIDE.check_against_record(tir)
