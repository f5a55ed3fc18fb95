"""`asyncguard check kernels/*.py`: TileLang modules are imported in a child process, their
kernels lowered on the CPU per arch, and the device TIR checked (needs TileLang: skipped
without it). The fixture repository has a GEMM factory configured in pyproject.toml, a
module-level prim_func, and a transpose whose factory turns TileLang's sync pass off (the
seeded race)."""
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from _toolbelt import run

from asyncguard.frontends.tilelang_lower import comment_arg_sets, parse_args_comment

FIXTURE = Path(__file__).parent / "fixtures" / "tilelang_repo"
needs_tilelang = pytest.mark.skipif(importlib.util.find_spec("tilelang") is None,
                                    reason="TileLang is not importable (pip install 'asyncguard[tilelang]')")
GEMM = "kernels/gemm.py::matmul[M=512,N=512,K=512,block_M=128,block_N=128,block_K=32,num_stages=3,threads=128]"
TRANSPOSE = "kernels/transpose.py::transpose[M=1024,N=1024,block=32,threads=128]"


def test_args_comments_are_literals_only():
    assert parse_args_comment('M=1024, dtype="float16", tile=(8, 8)') == \
        {"M": 1024, "dtype": "float16", "tile": (8, 8)}
    with pytest.raises(ValueError):
        parse_args_comment("M=os.getenv('M')")
    lines = ["# asyncguard: args(M=1)", "# asyncguard: args(M=2)", "@tilelang.jit", "def f(M):"]
    assert comment_arg_sets(lines, 3) == [{"M": 1}, {"M": 2}]


@pytest.fixture
def repo(tmp_path):
    dst = tmp_path / "repo"
    shutil.copytree(FIXTURE, dst)
    return dst


@needs_tilelang
def test_the_fixture_repository(repo, tmp_path):
    p = run("check", "--no-cache", "--format", "json", "kernels", "--emit-tir", tmp_path / "tir", cwd=repo)
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    verdicts = {f["path"]: f["verdict"] for f in doc["files"]}
    assert verdicts == {f"{GEMM}@sm_80": "clean", f"{GEMM}@sm_90a": "clean",
                        "kernels/reduce.py::row_sum@sm_80": "clean",
                        "kernels/reduce.py::row_sum@sm_90a": "clean",
                        f"{TRANSPOSE}@sm_80": "buggy", f"{TRANSPOSE}@sm_90a": "buggy"}
    (bug,) = [f for f in doc["files"] if f["path"] == f"{TRANSPOSE}@sm_80"][0]["findings"]
    w = bug["witness"]
    assert bug["rule"] == "AG201" and bug["kind"] == "race"
    assert (w["kernel"], w["arch"], w["args"]["block"]) == ("transpose", "sm_80", 32)
    assert w["python"] == "kernels/transpose.py:12"          # the factory's def line
    # the TIR written reproduces the finding on its own
    tir = Path(w["tir_file"])
    assert tir.name == "transpose.transpose.0.sm_80.tir" and tir.parent == tmp_path / "tir"
    again = json.loads(run("check", "--no-cache", "--format", "json", tir).stdout)
    (f,) = again["files"][0]["findings"]
    assert (f["rule"], f["line"], f["col"]) == (bug["rule"], bug["line"], bug["col"])


@needs_tilelang
def test_text_output_names_kernel_args_arch_tir_line_and_python_line(repo):
    p = run("check", "--no-cache", "kernels/transpose.py", "--arch", "sm_80", cwd=repo)
    assert p.returncode == 1
    head = p.stdout.splitlines()[0]
    assert head.startswith(f"{TRANSPOSE}@sm_80:") and "AG201" in head
    assert "S_1[" in p.stdout.splitlines()[1]                 # the TIR line, under the header
    assert "  python: kernels/transpose.py:12 (kernel transpose)" in p.stdout
    assert "sm_90a" not in p.stdout                           # --arch: lowered for it only


@needs_tilelang
def test_mixed_tir_and_py_and_cache_reuse(repo, tmp_path):
    shutil.copy(Path(__file__).parent.parent / "corpus" / "handwritten" / "neighbour_exchange.tir",
                repo / "kernels" / "exchange.tir")
    env = dict(__import__("os").environ, ASYNCGUARD_CACHE_DIR=str(tmp_path / "cache"))
    first = run("check", "--format", "json", "kernels/reduce.py", "kernels/exchange.tir", cwd=repo, env=env)
    second = run("check", "--format", "json", "kernels/reduce.py", "kernels/exchange.tir", cwd=repo, env=env)
    assert first.returncode == second.returncode == 0, first.stderr
    assert json.loads(first.stdout) == json.loads(second.stdout)
    assert [f["path"] for f in json.loads(first.stdout)["files"]] == \
        ["kernels/reduce.py::row_sum@sm_80", "kernels/reduce.py::row_sum@sm_90a", "kernels/exchange.tir"]
    assert len(list((tmp_path / "cache").rglob("*.pickle"))) == 3


def _one_module(repo, text: str, extra_config: str = ""):
    (repo / "kernels" / "broken.py").write_text(text)
    if extra_config:
        cfg = repo / "pyproject.toml"
        cfg.write_text(cfg.read_text().replace("[tool.asyncguard.tilelang]\n",
                                               "[tool.asyncguard.tilelang]\n" + extra_config + "\n"))
    return run("check", "--no-cache", "kernels/broken.py", cwd=repo)


@needs_tilelang
def test_import_error_is_an_input_error_not_a_traceback(repo):
    p = _one_module(repo, "import tilelang\nimport no_such_module_here\n")
    assert p.returncode == 2 and "Traceback" not in p.stderr + p.stdout
    assert p.stderr.startswith("kernels/broken.py:2:1: error: importing the module failed: "
                               "ModuleNotFoundError")


@needs_tilelang
def test_factory_without_arguments_and_failing_lowering_name_the_kernel(repo):
    p = _one_module(repo, (FIXTURE / "kernels" / "gemm.py").read_text().replace("def matmul", "def other"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "kernels/broken.py::other: a @tilelang.jit factory needs an argument set" in p.stderr
    bad = '# asyncguard: args(M=1024, N=1024, block=32, threads=128, dtype="float7")\n'
    p = _one_module(repo, (FIXTURE / "kernels" / "transpose.py").read_text()
                    .replace("# asyncguard: args(M=1024, N=1024, block=32, threads=128)\n", bad))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    # float7 is a TVM dtype, so the kernel builds; lowering it fails inside TVM
    assert p.stderr.startswith("kernels/broken.py:12:1: error: kernels/broken.py::transpose"
                               "[M=1024,N=1024,block=32,threads=128,dtype=float7]@sm_80: lowering failed: ")


@needs_tilelang
def test_a_module_that_hangs_is_stopped(repo):
    p = _one_module(repo, "import tilelang\nimport time\ntime.sleep(600)\n", "timeout = 5")
    assert p.returncode == 2
    assert "took more than 5 s" in p.stderr and "Traceback" not in p.stderr


def test_without_tilelang_a_py_kernel_is_an_input_error(repo, tmp_path):
    """A Python whose import system cannot find tilelang (a sitecustomize hides it)."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\nclass _Hide:\n    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'tilelang':\n            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _Hide())\n")
    import os
    root = str(Path(__file__).parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hide), root]))
    p = run("check", "--no-cache", "kernels/gemm.py", cwd=repo, env=env)
    assert p.returncode == 2
    assert "checking .py kernels needs TileLang" in p.stderr and "asyncguard[tilelang]" in p.stderr
