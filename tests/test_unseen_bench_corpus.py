"""The third held-out corpus (corpus/unseen_bench: TileLang 0.1.15's lowerings of the kernels of
TileLang's benchmark/ tree, made and triaged in one session; corpus/unseen_bench/README.md) keeps
the verdicts recorded in corpus/unseen_bench/expect.json. Its one finding is judged in the README.
A change of verdict is a change to read, then record with
`python corpus/expect_unseen.py --dir corpus/unseen_bench`."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

BENCH = PinnedCorpus(Path(__file__).resolve().parent.parent / "corpus" / "unseen_bench")
FILES = BENCH.files


def test_bench_corpus_is_there_and_new():
    assert len(FILES) >= 40
    assert "a35008a4" in (BENCH.folder / "README.md").read_text()
    assert sorted(BENCH.expect) == [p.name for p in FILES]
    assert not BENCH.also_in("field", "field_sizes", "field_sm120", "unseen", "unseen_wide", "real")


@pytest.mark.parametrize("tir", BENCH.params())
def test_bench_kernel_keeps_its_verdict(tir: Path):
    BENCH.check_against_record(tir)
