"""A corpus whose verdicts are pinned (corpus/unseen, corpus/field_sizes): its files, what
expect.json recorded for each (corpus/expect_unseen.py writes it), and the outcome a check is
compared with. Shared by the tests that keep those verdicts."""
import json
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

FAST_S = 3.0   # a kernel whose recorded check took longer is marked slow


class PinnedCorpus:
    def __init__(self, folder: Path):
        self.folder = folder
        self.files = sorted(folder.glob("*.tir"))
        self.expect = json.loads((folder / "expect.json").read_text())
        self.times = {r["file"]: r["wall_s"] for r in json.loads((folder / "results.json").read_text())["kernels"]}

    def params(self) -> list:
        """One pytest param per file, marked slow where its recorded check took over FAST_S."""
        return [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if self.times.get(p.name, FAST_S + 1) > FAST_S else [])
                for p in self.files]

    def also_in(self, *corpora: str) -> list:
        """The names of this corpus's files whose text a file of the named corpora (folders
        beside it) has too: a held-out corpus must have none."""
        others = {p.read_text() for d in corpora for p in (self.folder.parent / d).glob("*.tir")}
        return [p.name for p in self.files if p.read_text() in others]

    def check_against_record(self, tir: Path) -> None:
        """The check's verdict and (rule, line) findings are those recorded (a recorded `skip`:
        the kernel is not pinned, for the reason given)."""
        expect = self.expect[tir.name]
        if "skip" in expect:
            pytest.skip(expect["skip"])
        rep = check_text(tir.read_text(), str(tir))
        found = [[r, ln] for r, ln in sorted({(f.rule.code, f.line) for f in rep.findings
                                              if f.rule.kind != "unsupported"})]
        assert (rep.verdict, found) == (expect["verdict"], expect["findings"])
