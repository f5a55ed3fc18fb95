"""The field corpus (corpus/field: TileLang's own examples lowered by tilelang 0.1.15) is well-formed input:
every kernel parses, so `asyncguard check` on it exits 0 or 1, never 2 (bad input). Verdicts are not
asserted here (corpus/field/RESULTS.md records them; bench/field.py measures them)."""
import json
from pathlib import Path

import pytest

from asyncguard.parse import InputError, parse

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
FILES = sorted(FIELD.glob("*.tir"))

def test_field_corpus_is_there():
    assert len(FILES) >= 40
    manifest = (FIELD / "MANIFEST.md").read_text()
    assert "a35008a42531c62b976ae4cec3855d4383db0f3c" in manifest
    results = json.loads((FIELD / "results.json").read_text())
    assert sorted(r["file"] for r in results["kernels"]) == sorted(p.name for p in FILES)


@pytest.mark.slow
@pytest.mark.parametrize("tir", FILES, ids=lambda p: p.stem)
def test_field_kernel_parses(tir: Path):
    try:
        module = parse(tir.read_text(), str(tir))
    except InputError as e:
        pytest.fail(f"{tir.name}: {e}")
    assert module is not None
