"""bench/sanitizer_table.py: the doc's run-time sums, one GPU vs all per part, disagreement texts."""
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _table():
    spec = importlib.util.spec_from_file_location("sanitizer_table", ROOT / "bench" / "sanitizer_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _row(kernel, verdict="pass", static="clean", rules=(), mismatches=0, replay=None):
    return {"kernel": kernel, "static": static, "static_rules": list(rules), "status": "ran",
            "verdict": verdict, "trace": {"mismatches": mismatches, "count_mismatches": 0,
                                          "sink_mismatches": 0, "reads": 64},
            "racecheck": {"hazards": 0}, "synccheck": {"hazards": 0}, "replay": replay or []}


def test_one_gpu_vs_all_counts_verdict_changes_apart_from_count_changes():
    table = _table()
    two = [_row("a", "fail", "buggy", ["AG201"], mismatches=10), _row("b"),
           _row("c", "pass", "buggy", ["AG201"])]
    one = [_row("a", "fail", "buggy", ["AG201"], mismatches=12), _row("b"),
           _row("c", "fail", "buggy", ["AG201"], mismatches=3)]
    lines: list = []
    assert table.same_rows(two, one, lines.append, only_verdicts=True) == 2
    assert lines[0] == "3 kernels in both; 2 differ, 1 of them in verdict or agreement"
    assert len(lines) == 2 and lines[1].strip().startswith("c:")      # a's counts only: not listed


def test_the_run_times_sum_all_gpus_and_one_gpu_apart(tmp_path):
    table = _table()
    for name, secs in (("corpus", 30), ("variants1of2", 180), ("corpus_gpus1", 40), ("variants1of2_gpus1", 250)):
        (tmp_path / f"gate_{name}.time").write_text(f"{name} {secs} s, exit 1, GPUS=0\n")
        (tmp_path / f"gate_{name}.json").write_text(json.dumps([_row("k")]))
    lines: list = []
    table.doc(tmp_path, lines.append)
    assert "| all parts on all GPUs | | 210 s (3.5 min) | |" in lines
    assert "| all parts on one GPU | | 290 s (4.8 min) | |" in lines
    assert sum(x.startswith("One GPU vs all: ") for x in lines) == 2      # corpus and variants1of2


def test_every_disagreement_kind_of_the_fifth_session_has_its_reason():
    table = _table()
    loop_head = _row("corpus/variants/copy_pipelined_sm90a_nows_s2__drop-loop-head-barrier_L20.tir::main_kernel",
                     static="buggy", rules=["AG402"])
    assert "TMA store" in table.explain(loop_head)         # not a wgmma: the AG402 text names both
    after_wait = _row("corpus/variants/x__drop-barrier-after-wait_L25.tir", static="buggy", rules=["AG102"])
    assert table.explain(after_wait).startswith("AG102: ")
    mask = _row("corpus/handwritten/blocksparse_attn_sm90a.tir::blocksparse_flashattn_kernel",
                static="buggy", rules=["AG401"])
    assert "mask value 1" in table.explain(mask)
    other = _row("corpus/variants/y.tir", static="buggy", rules=["AG101"])
    assert table.explain(other).startswith("UNEXPLAINED")
