"""Write DIR/expect.json (each kernel's verdict and definite findings) from the checker's current output,
for tests/test_unseen_corpus.py (DIR corpus/unseen, the default) and tests/test_field_sizes_corpus.py
(DIR corpus/field_sizes). Run it only after reading every change of verdict against the TIR (the corpus's
RESULTS.md / README.md records the judgement of each finding); it prints the changes.

    PYTHONPATH=$PWD python corpus/expect_unseen.py [--dir corpus/field_sizes --skip-timed-out]

One file, not NAME.expect.json beside each kernel: tests/test_corpus.py picks those up, and these corpora
are held out (their kernels are judged here, not pinned as the engine's own fixtures).

--skip-timed-out: a kernel whose recorded check (DIR/results.json) stopped at the time limit (AG002
"more than --timeout") gets {"skip": why} instead: with no time limit its check runs far longer, and
with one its outcome depends on the machine's load."""
import argparse
import json
from pathlib import Path

from asyncguard.analyze import check_text

UNSEEN = Path(__file__).parent / "unseen"


def expectation(tir: Path) -> dict:
    rep = check_text(tir.read_text(), str(tir))
    return {"verdict": rep.verdict,
            "findings": [[r, ln] for r, ln in sorted(
                {(f.rule.code, f.line) for f in rep.findings if f.rule.kind != "unsupported"})]}


def timed_out(directory: Path) -> dict:
    """file -> the AG002 message of its recorded check, for checks that stopped at the time limit."""
    path = directory / "results.json"
    if not path.exists():
        return {}
    out = {}
    for rec in json.loads(path.read_text())["kernels"]:
        for f in rec["findings"]:
            if f["rule"] == "AG002" and "--timeout" in f["message"]:
                out[rec["file"]] = f["message"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=UNSEEN)
    ap.add_argument("--skip-timed-out", action="store_true")
    args = ap.parse_args()
    path = args.dir / "expect.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    skip = timed_out(args.dir) if args.skip_timed_out else {}
    new = {}
    for tir in sorted(args.dir.glob("*.tir")):
        if tir.name in skip:
            new[tir.name] = {"skip": "its recorded check stopped at the time limit: " + skip[tir.name][:120]}
        else:
            new[tir.name] = expectation(tir)
        if tir.name in old and old[tir.name] != new[tir.name]:
            print(f"{tir.name}: {old[tir.name]} -> {new[tir.name]}")
    path.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
