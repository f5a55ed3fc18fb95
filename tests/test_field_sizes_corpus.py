"""The sizes corpus (corpus/field_sizes: TileLang's own examples lowered at sizes and configs other than
their defaults, by tilelang 0.1.15; corpus/lower_sizes.py) keeps the verdicts recorded in
corpus/field_sizes/expect.json, each finding of which is judged against the TIR in
corpus/field_sizes/README.md. A change of verdict is a change to read, then record with
`python corpus/expect_unseen.py --dir corpus/field_sizes --skip-timed-out`.

Cheap in CI: the kernels whose recorded check (corpus/field_sizes/results.json) took more than FAST_S
seconds are marked slow, the rest run in about a second each. A kernel whose recorded check stopped at
the time limit is not pinned (expect.json says why; none in the current record)."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

SIZES = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "field_sizes")
FIELD = SIZES.folder.parent / "field"
FILES = SIZES.files


def test_sizes_corpus_is_there_and_new():
    assert len(FILES) >= 80
    assert "a35008a42531c62b976ae4cec3855d4383db0f3c" in (SIZES.folder / "MANIFEST.md").read_text()
    assert sorted(SIZES.expect) == [p.name for p in FILES]
    assert sorted(SIZES.times) == [p.name for p in FILES]
    # only lowerings the field corpus lacks (lower_sizes.py drops byte-identical ones)
    field = {p.read_text() for p in FIELD.glob("*.tir")}
    assert not [p.name for p in FILES if p.read_text() in field]


@pytest.mark.parametrize("tir", SIZES.params())
def test_sizes_kernel_keeps_its_verdict(tir: Path):
    SIZES.check_against_record(tir)
