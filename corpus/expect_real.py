"""Write NAME.expect.json for corpus/real and corpus/handwritten from the checker's current
output. Run it only after reviewing every change of verdict by hand (git diff shows them)."""
import json
import sys
from pathlib import Path

from asyncguard.analyze import check_text

HERE = Path(__file__).parent

for d in sys.argv[1:] or ("real", "handwritten"):
    for tir in sorted((HERE / d).glob("*.tir")):
        rep = check_text(tir.read_text(), str(tir))
        doc = {"verdict": rep.verdict,
               "findings": [{"rule": r, "line": ln} for r, ln in sorted(
                   {(f.rule.code, f.line) for f in rep.findings if f.rule.kind != "unsupported"})]}
        if rep.verdict == "unknown":
            doc["unsupported_lines"] = sorted({f.line for f in rep.findings if f.rule.kind == "unsupported"})
        old = tir.with_suffix(".expect.json")
        if old.exists() and json.loads(old.read_text()) != doc:
            print(f"{tir.relative_to(HERE)}: {json.loads(old.read_text())['verdict']} -> {doc['verdict']}")
        old.write_text(json.dumps(doc, indent=1) + "\n")
