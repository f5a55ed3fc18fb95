"""The unseen corpus (corpus/unseen: kernels of TileLang's own tests, lowered by tilelang 0.1.15, held out
from asyncguard's development) keeps the verdicts recorded in corpus/unseen/expect.json, each finding of
which is judged against the TIR in corpus/unseen/RESULTS.md. A change of verdict is a change to read, then
record with `python corpus/expect_unseen.py`.

Cheap in CI: the kernels whose recorded check (corpus/unseen/results.json) took more than FAST_S seconds
are marked slow, the rest run in about a second each."""
import json
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

UNSEEN = Path(__file__).resolve().parent.parent / "corpus" / "unseen"
FILES = sorted(UNSEEN.glob("*.tir"))
EXPECT = json.loads((UNSEEN / "expect.json").read_text())
TIMES = {r["file"]: r["wall_s"] for r in json.loads((UNSEEN / "results.json").read_text())["kernels"]}
FAST_S = 3.0


def test_unseen_corpus_is_there():
    assert len(FILES) >= 40
    assert "a35008a42531c62b976ae4cec3855d4383db0f3c" in (UNSEEN / "MANIFEST.md").read_text()
    assert sorted(EXPECT) == [p.name for p in FILES]
    assert sorted(TIMES) == [p.name for p in FILES]


def _param(p: Path):
    marks = [pytest.mark.slow] if TIMES.get(p.name, FAST_S + 1) > FAST_S else []
    return pytest.param(p, id=p.stem, marks=marks)


@pytest.mark.parametrize("tir", [_param(p) for p in FILES])
def test_unseen_kernel_keeps_its_verdict(tir: Path):
    rep = check_text(tir.read_text(), str(tir))
    found = [[r, ln] for r, ln in sorted({(f.rule.code, f.line) for f in rep.findings
                                          if f.rule.kind != "unsupported"})]
    assert (rep.verdict, found) == (EXPECT[tir.name]["verdict"], EXPECT[tir.name]["findings"])
