"""A branch checked taken every time (its arm holds accesses alone) takes its real outcome where the
run chose the number it reads for another branch (engine/loaded_numbers.py `_decide_like_enumerated`):
SeerAttention's sparse GQA decode (corpus/unseen_users3, MIT) writes the first stage's K tile under
`0 <= block_indices[s]` and reads it in the loop's first iteration under the same test of the same
cell, so the pattern that skips the write skips the read."""
from pathlib import Path

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent
SEER = ROOT / "corpus" / "unseen_users3" / "seerattn__drv_seerattn_sparse_gqa_decode__main__sm_80.tir"


def test_the_read_follows_the_write_on_the_same_cell():
    src = SEER.read_text()
    assert "            if 0 <= i_s_6:\n" in src.splitlines(keepends=True)[145]
    r = check_text(src, str(SEER))
    assert r.verdict == "clean", [f.message[:160] for f in r.findings]


def test_a_read_whose_guard_is_dropped_reads_unwritten_bytes():
    lines = SEER.read_text().splitlines(keepends=True)
    lines[145] = lines[145].replace("if 0 <= i_s_6:", "if True:")
    src = "".join(lines)
    r = check_text(src, str(SEER))
    assert r.verdict == "buggy"
    assert any(f.rule.code == "AG417" and f.line == 153 for f in r.findings)
