"""Every corpus kernel against the verdict and findings stored beside it."""
import json
from pathlib import Path

import pytest

from asyncguard.analyze import Limits, check_text
from asyncguard.diagnostics import RULES
from asyncguard.mutants import EXPECTED_KINDS, EXPECTED_RULES

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*.tir") if p.with_suffix(".expect.json").exists())


def _id(p: Path) -> str:
    return str(p.relative_to(CORPUS))


@pytest.mark.parametrize("tir", FILES, ids=_id)
def test_corpus_file(tir: Path):
    expect = json.loads(tir.with_suffix(".expect.json").read_text())
    report = check_text(tir.read_text(), str(tir))
    assert report.verdict == expect["verdict"]
    found = sorted({(f.rule.code, f.line) for f in report.findings if f.rule.kind != "unsupported"})
    assert found == sorted((f["rule"], f["line"]) for f in expect["findings"])
    if "strict" in expect:
        # an opt-in reading (docs/model.md) that the upstream bug is an instance of
        strict = expect["strict"]
        under = check_text(tir.read_text(), str(tir), limits=Limits(strict=tuple(strict["readings"])))
        assert under.verdict == strict["verdict"]
        assert sorted({(f.rule.code, f.line) for f in under.findings if f.rule.kind != "unsupported"}) == \
            sorted((f["rule"], f["line"]) for f in strict["findings"])
    if expect["verdict"] == "unknown" and "unsupported_lines" in expect:
        assert sorted({f.line for f in report.findings if f.rule.kind == "unsupported"}) == \
            expect["unsupported_lines"]
    if "mutation" in expect and tir.parent.name == "variants":
        # a single-bug variant: flagged as a race by a rule that fits the mutation
        rules = {f.rule.code for f in report.findings}
        assert rules & EXPECTED_RULES[expect["mutation"]]
        kinds = {RULES[r].kind for r in rules & EXPECTED_RULES[expect["mutation"]]}
        assert kinds <= EXPECTED_KINDS[expect["mutation"]]


def test_every_real_sm80_kernel_without_symbolic_sizes_is_clean():
    """Zero false alarms: TileLang's own synchronization is correct on these kernels."""
    real = sorted((CORPUS / "real").glob("*sm80*.tir"))
    assert len(real) >= 20
    for tir in real:
        if "_nosync" in tir.name or "dynamic" in tir.name:
            continue
        assert check_text(tir.read_text(), str(tir)).verdict == "clean", tir.name


def test_variants_cover_every_mutation_kind():
    kinds = {json.loads(p.read_text())["mutation"] for p in (CORPUS / "variants").glob("*.expect.json")}
    assert {"drop-wait", "raise-wait", "drop-commit", "drop-barrier-after-wait",
            "drop-loop-head-barrier"} <= kinds
