"""Regenerate the corpus's expectation files and single-bug variants.

    python corpus/build.py            # writes corpus/variants/*.tir and every *.expect.json

Expectations for real and hand-written kernels are written by hand (EXPECT below); variants are
derived from the clean real kernels with `asyncguard.mutants`, and their expected findings are
the checker's, reviewed when they change (git diff), and constrained by the mutation kind.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.mutants import EXPECTED_RULES, mutations

HERE = Path(__file__).parent


def findings_of(text: str, path: str) -> tuple[str, list]:
    rep = check_text(text, path)
    return rep.verdict, sorted({(f.rule.code, f.line) for f in rep.findings})


def write_expect(tir: Path, verdict: str, findings, extra=None) -> None:
    doc = {"verdict": verdict, "findings": [{"rule": r, "line": ln} for r, ln in findings]}
    doc.update(extra or {})
    tir.with_suffix(".expect.json").write_text(json.dumps(doc, indent=1) + "\n")


# Clean hand-written bases whose mbarrier mutations become variants too: the fixed sm_100a
# (tcgen05) kernels. Their TileLang originals are buggy (corpus/handwritten, docs/model.md), so
# only these corrected copies can carry single-bug variants.
HANDWRITTEN_BASES = ("gemm_tcgen05_sm100a_wait_before_refill", "fa_gqa_fwd_sm100a_release_after_commit")
MBARRIER_KINDS = ("drop-mbarrier-wait", "flip-parity", "drop-arrive")


def main() -> int:
    only = sys.argv[1:]   # kernel names: add their variants, keep everything else
    out, benign_dir = HERE / "variants", HERE / "redundant"
    for d in (out, benign_dir):
        d.mkdir(exist_ok=True)
        for old in d.glob("*"):
            if not only or any(old.name.startswith(o + "__") for o in only):
                old.unlink()
    survivors = []
    bases = sorted((HERE / "real").glob("*.tir")) + [HERE / "handwritten" / f"{n}.tir" for n in HANDWRITTEN_BASES]
    for src in bases:
        if only and src.stem not in only:
            continue
        text = src.read_text()
        verdict, _ = findings_of(text, str(src))
        if verdict != "clean" or "ptx_cp_async" not in text and "tvm_storage_sync" not in text:
            continue
        if "_dynamic_k_" in src.name:   # symbolic sizes: each check runs many sizes; see tests/test_prover.py
            continue
        handwritten = src.parent.name == "handwritten"
        for m in mutations(text):
            if handwritten and m.kind not in MBARRIER_KINDS:
                continue
            name = f"{src.stem}__{m.kind}_L{m.line}.tir"
            vtext = m.apply(text)
            v, found = findings_of(vtext, name)
            rules = {r for r, _ in found}
            if v == "clean":   # the mutation removed a redundant sync: not a bug, kept as evidence
                vpath = benign_dir / name
            else:
                vpath = out / name
                if not rules & EXPECTED_RULES[m.kind]:
                    survivors.append((name, v, found))
            vpath.write_text(vtext)
            write_expect(vpath, v, found, {"origin": f"{src.parent.name}/{src.name}", "mutation": m.kind,
                                           "mutated_line": m.line, "description": m.description})
    for name, v, found in survivors:
        print(f"not flagged as expected: {name}: {v} {found}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
