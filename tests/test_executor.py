"""`--executor dask://HOST:PORT`: the runner's units (check, fix, lowering of .py kernels) on a
real Dask cluster the test starts (LocalCluster: 2 worker processes), with the same results as
`--jobs`."""
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from _toolbelt import CORPUS, run

distributed = pytest.importorskip("distributed", reason="Dask distributed (dev extra) runs the cluster")

FILES = sorted((CORPUS / "real").glob("gemm_sm80_s*_128x128x32*.tir"))[:4] + \
    sorted((CORPUS / "real").glob("transpose_shared_*.tir"))[:2]
FIXTURE = Path(__file__).parent / "fixtures" / "tilelang_repo"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c.scheduler_address.replace("tcp://", "dask://")


def test_check_on_a_cluster_equals_jobs(cluster):
    assert len(FILES) >= 4
    jobs = run("check", "--no-cache", "--format", "json", "--jobs", "2", *FILES)
    dask = run("check", "--no-cache", "--format", "json", "--executor", cluster, *FILES)
    assert dask.returncode == jobs.returncode, dask.stderr
    assert json.loads(dask.stdout) == json.loads(jobs.stdout)
    assert {f["verdict"] for f in json.loads(dask.stdout)["files"]} >= {"clean", "buggy"}


def test_fix_on_a_cluster_equals_jobs(cluster, tmp_path):
    racy = [f for f in FILES if "nosync" in f.name][:2]
    assert racy
    jobs = run("fix", "--jobs", "2", *racy)
    dask = run("fix", "--executor", cluster, *racy)
    assert dask.returncode == jobs.returncode == 1, dask.stderr
    assert dask.stdout == jobs.stdout and "+" in dask.stdout


def test_a_bad_executor_is_an_input_error():
    p = run("check", "--executor", "ray://x", CORPUS / "handwritten" / "neighbour_exchange.tir")
    assert p.returncode == 2 and "expected dask://HOST:PORT" in p.stderr
    # a scheduler that does not answer: the same error (the CLI waits 30 s for it; 2 s here)
    from asyncguard.executors import ExecutorError, open_executor
    with pytest.raises(ExecutorError, match="cannot reach the Dask scheduler"):
        with open_executor("dask://127.0.0.1:9", connect_timeout=2):
            pass


@pytest.mark.skipif(importlib.util.find_spec("tilelang") is None,
                    reason="TileLang is not importable (pip install 'asyncguard[tilelang]')")
def test_lowering_py_kernels_on_a_cluster(cluster, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    args = ["check", "--no-cache", "--format", "json", "--arch", "sm_80",
            "kernels/transpose.py", "kernels/reduce.py"]
    jobs = run(*args, "--jobs", "2", cwd=repo)
    dask = run(*args, "--executor", cluster, cwd=repo)
    assert dask.returncode == jobs.returncode == 1, dask.stderr
    assert json.loads(dask.stdout) == json.loads(jobs.stdout)


def test_any_executor_and_a_lost_unit_is_an_input_error(tmp_path):
    """The runner takes any concurrent.futures.Executor; a unit the executor fails on (a worker
    died) becomes an error for its file."""
    from concurrent.futures import Executor, Future, ThreadPoolExecutor

    from asyncguard.analyze import Limits
    from asyncguard.config import Resolver
    from asyncguard.runner import check_paths

    ok = CORPUS / "handwritten" / "neighbour_exchange.tir"
    with ThreadPoolExecutor(2) as pool:
        results, errors = check_paths([str(ok), str(FILES[0])], Limits(), Resolver(), executor=pool)
    assert errors == [] and [r.error for r in results] == [None, None]
    assert [r.report.verdict for r in results] == ["clean", "clean"]

    class Lost(Executor):
        def submit(self, fn, *args, **kwargs):
            fut = Future()
            fut.set_exception(RuntimeError("worker 'tcp://10.0.0.2:4000' died"))
            return fut

    results, _ = check_paths([str(ok)], Limits(), Resolver(), executor=Lost())
    assert results[0].error == ("the executor failed on this file: RuntimeError: "
                                "worker 'tcp://10.0.0.2:4000' died", 1, 1)
