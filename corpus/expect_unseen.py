"""Write corpus/unseen/expect.json (each unseen kernel's verdict and definite findings) from the checker's
current output, for tests/test_unseen_corpus.py. Run it only after reading every change of verdict against
the TIR (corpus/unseen/RESULTS.md records the judgement of each finding); it prints the changes.

    PYTHONPATH=$PWD python corpus/expect_unseen.py

One file, not NAME.expect.json beside each kernel: tests/test_corpus.py picks those up, and this corpus
is held out (its kernels are judged here, not pinned as the engine's own fixtures)."""
import json
from pathlib import Path

from asyncguard.analyze import check_text

UNSEEN = Path(__file__).parent / "unseen"


def expectation(tir: Path) -> dict:
    rep = check_text(tir.read_text(), str(tir))
    return {"verdict": rep.verdict,
            "findings": [[r, ln] for r, ln in sorted(
                {(f.rule.code, f.line) for f in rep.findings if f.rule.kind != "unsupported"})]}


def main() -> None:
    path = UNSEEN / "expect.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    new = {}
    for tir in sorted(UNSEEN.glob("*.tir")):
        new[tir.name] = expectation(tir)
        if tir.name in old and old[tir.name] != new[tir.name]:
            print(f"{tir.name}: {old[tir.name]} -> {new[tir.name]}")
    path.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
