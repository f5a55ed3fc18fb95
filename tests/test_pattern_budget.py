"""The outcome-pattern search's budget (analyze.py): once one block's search stopped short the
verdict is `unknown` whatever the rest find, so each later search runs its first pattern only,
and the long value of a size plan without proof (`_long_unproved`) runs patterns past its first
only within the budget, for one block. Before, the old warp-specialized split-KV decode ran 64
patterns of 4,148 iterations each (184 s), and the block-sparse attention below 64 patterns for
each of its blocks and sizes."""
import re
from pathlib import Path

from asyncguard.analyze import check_text

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _codes(report):
    return sorted({(f.rule.code, f.line) for f in report.findings})


def test_the_long_run_of_a_plan_without_proof_runs_its_first_pattern_for_one_block():
    text = (CORPUS / "unseen_versions" / "blocksparse_attention__example_tilelang_sparse_gqa_decode_"
            "varlen_mask__flashattn__sm_90a.tir").read_text()
    report = check_text(text, "decode.tir")
    assert report.verdict == "unknown"
    notes = [f.message for f in report.findings if f.rule.code == "AG002"]
    assert len(notes) == 1 and "the long run of a size plan without proof" in notes[0], notes
    scope = " ".join(report.kernels[0].scope)
    assert "larger trip counts: unknown" in scope and "4148" in scope


def test_after_a_search_stops_short_the_bugs_of_first_patterns_are_still_found():
    """TileLang's block-sparse attention (sm_90a, 128x64 tiles, causal): its output-tile race
    (found-bugs) is found, and the search note stands."""
    text = (CORPUS / "field_sizes" / "blocksparse_attention__example_tilelang_block_sparse_attn__"
            "b128x64_s2_t256_causal__blocksparse_flashattn__sm_90a.tir").read_text()
    report = check_text(text, "bsa.tir")
    assert report.verdict == "buggy"
    codes = _codes(report)
    assert ("AG401", 174) in codes and ("AG401", 178) in codes, codes
    assert any(f.rule.code == "AG002" and "outcome patterns for one block" in f.message
               for f in report.findings)
    # the first block's search stopped short; the later blocks and sizes ran one pattern each
    # (without that cap, 1,127 patterns in all)
    runs = re.search(r"only the first (\d+) outcome patterns", " ".join(report.kernels[0].scope))
    assert runs is not None and int(runs.group(1)) < 400, runs


def _drive(search, cells: int, outcome):
    """Run `search` on a fake kernel that meets `cells` cells, every one with both outcomes
    mattering, and records `outcome(values)` for each run."""
    seen = []
    for inputs in search:
        values = tuple(inputs.value(("M", k), f"M[{k}]", both=True) for k in range(cells))
        seen.append(outcome(values))
    return seen


def test_the_all_false_pattern_runs_second_and_only_once():
    from asyncguard.engine.inputs import ALL_FALSE_EARLY, InputSearch
    n = ALL_FALSE_EARLY + 2
    # a budget of 10 runs: depth-first alone reaches all-false only at run n + 1
    runs = _drive(InputSearch(limit=10), n, lambda v: v)
    assert runs[0] == (1,) * n and runs[1] == (0,) * n
    full = _drive(InputSearch(limit=1 << 12), n, lambda v: v)
    assert len(full) == 2 ** n and len(set(full)) == 2 ** n   # every pattern, none twice
    # below the threshold the order is the plain depth-first one
    few = _drive(InputSearch(limit=1 << 12), ALL_FALSE_EARLY - 1, lambda v: v)
    assert few[1] == (0,) + (1,) * (ALL_FALSE_EARLY - 2)
