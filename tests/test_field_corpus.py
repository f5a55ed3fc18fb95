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


def _lowering():
    import importlib.util
    spec = importlib.util.spec_from_file_location("corpus_lowering", FIELD.parent / "lowering.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_keep_distinct_keeps_each_text_once_and_only_the_text_it_hashed(tmp_path):
    """corpus/lowering.keep_distinct: byte-identical TIR is kept once (the later record points at the kept
    name); a second text under a taken name gets base_2; a child's temporary file rewritten after its record
    was hashed (another run in the same scratch directory) is not copied into the corpus."""
    lowering = _lowering()
    scratch, out = tmp_path / "scratch", tmp_path / "out"
    scratch.mkdir()
    out.mkdir()
    texts = {"a": "kernel A\n", "a_again": "kernel A\n", "b": "kernel B\n", "stale": "kernel S\n"}
    for name, text in texts.items():
        (scratch / f"{name}.tir").write_text(text)
    recs = {name: {"file": str(scratch / f"{name}.tir")} for name in texts}
    recs["stale"]["sha"] = lowering.sha256_text("what the child lowered\n")   # hashed before the rewrite
    (out / "old.tir").write_text("no record keeps this\n")
    kept = lowering.keep_distinct([("k", recs["a"]), ("k2", recs["a_again"]), ("k", recs["b"]),
                                   ("s", recs["stale"])], str(out), remove_stale=True)
    assert kept == {"k", "k_2", "s"}
    assert recs["a_again"]["duplicate_of"] == "k" and recs["a_again"]["name"] is None
    assert (out / "k.tir").read_text() == "kernel A\n" and (out / "k_2.tir").read_text() == "kernel B\n"
    assert not (out / "s.tir").exists() and not (out / "old.tir").exists()
