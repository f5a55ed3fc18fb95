"""A short run of the fuzz harness (bench/fuzz.py): generated kernels and mutated corpus files
never raise a traceback, bad input always names path:line:col, the CLI exits 0, 1 or 2.
The long run (10,000+ cases, figures in docs/hardening.md) is `python bench/fuzz.py`."""
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("agfuzz", ROOT / "bench" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
sys.modules["agfuzz"] = fuzz
_spec.loader.exec_module(fuzz)

pytestmark = pytest.mark.slow
SHORT = settings(max_examples=25, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
LIMITS = fuzz.Limits(max_steps=50_000, max_seconds=5)


@SHORT
@given(fuzz.kernels())
def test_generated_kernels_never_crash(text):
    row = fuzz.run_case(text, limits=LIMITS)
    assert row["failure"] is None, row["failure"] + "\n" + text
    assert row["internal"] is None, row["internal"] + "\n" + text


@SHORT
@given(fuzz.corpus_mutants())
def test_mutated_corpus_files_never_crash(case):
    desc, data = case
    row = fuzz.run_case(data, limits=LIMITS)
    assert row["failure"] is None, f"{desc}: {row['failure']}"


@pytest.mark.parametrize("name,data", [
    ("truncated", (ROOT / "corpus/handwritten/ring2.tir").read_text()[:700]),
    ("nul", "# x\n\x00@T.prim_func\n"),
    ("not-utf8", b"# from tvm.script import tirx as T\n\xff\xfe\n"),
    ("deep-parens", "x = " + "(" * 20000 + "1" + ")" * 20000 + "\n"),
    ("python", "import os\nprint(os.getcwd())\n"),
    ("empty", ""),
])
def test_cli_bad_input_exits_2_with_position(tmp_path, name, data):
    res = fuzz.run_cli(data, str(tmp_path))
    assert res["failure"] is None, res["failure"]
    assert res["rc"] in (0, 1, 2)
