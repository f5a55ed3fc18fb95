"""The gate's launcher isolation, without a GPU: a stand-in launcher program that faults, hangs
or dies on chosen kernels. Every other kernel still gets its own run; the faulting kernel gets
its fault; kernels are spread over several "GPUs" with the same results as over one."""
import sys
import textwrap

import pytest

from asyncguard.emit.launcher import run_isolated

FAKE = textwrap.dedent('''
    import json, os, sys, time
    import numpy as np
    sys.path.insert(0, {root!r})
    from asyncguard.emit.launcher import save_run
    work = sys.argv[1]
    print("@@AGSAN READY fake", flush=True)
    for line in sys.stdin:
        p = json.loads(line)
        if "fault" in p["id"]:
            print("@@AGSAN FAIL " + p["id"] + "\\tkernel: CUDA_ERROR_ILLEGAL_ADDRESS", flush=True)
            sys.exit(3)
        if "hang" in p["id"]:
            time.sleep(60)
        if "dies" in p["id"]:
            os._exit(9)
        n = p["threads_total"]
        run = dict(trace=np.full((1, n, 1), n, np.uint32), counts=np.ones((1, n), np.uint32),
                   sink=np.zeros((1, 16), np.uint8), timeouts=0, overruns=0, attrs={{}}, not_taken=[],
                   seconds=0.0)
        run["attrs"]["gpu"] = os.environ.get("CUDA_VISIBLE_DEVICES")
        save_run(__import__("pathlib").Path(work, p["kernel"] + ".npz"), run)
        print("@@AGSAN DONE " + p["id"], flush=True)
''')


@pytest.fixture
def fake(tmp_path):
    from pathlib import Path
    script = tmp_path / "fake_launcher.py"
    script.write_text(FAKE.format(root=str(Path(__file__).resolve().parent.parent)))
    return [sys.executable, str(script)]


def _plans(names):
    return [{"id": n, "kernel": f"k{i}_{n}", "threads_total": 32 + i} for i, n in enumerate(names)]


def test_a_fault_a_hang_and_a_crash_change_no_other_result(tmp_path, fake):
    names = ["ok1", "fault", "ok2", "hang", "ok3", "dies", "ok4"]
    out = run_isolated(_plans(names), tmp_path, ["0"], timeout=3, command=fake)
    assert set(out) == set(names)
    for i, n in enumerate(names):
        if n.startswith("ok"):
            assert "error" not in out[n], out[n]
            assert out[n]["trace"].shape == (1, 32 + i, 1) and int(out[n]["trace"][0, 0, 0]) == 32 + i
    assert "ILLEGAL_ADDRESS" in out["fault"]["error"] and out["fault"]["fault"]
    assert "hang" in out["hang"]["error"] and "3 s" in out["hang"]["error"]
    assert "died" in out["dies"]["error"]


def test_two_gpus_give_the_same_results_as_one(tmp_path, fake):
    names = [f"ok{i}" for i in range(8)] + ["fault"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = run_isolated(_plans(names), tmp_path / "a", ["0"], timeout=5, command=fake)
    two = run_isolated(_plans(names), tmp_path / "b", ["0", "1"], timeout=5, command=fake)
    assert set(one) == set(two) == set(names)
    for n in names:
        if "error" in one[n]:
            assert one[n]["error"] == two[n]["error"]
        else:
            assert (one[n]["trace"] == two[n]["trace"]).all()
    assert {two[n]["attrs"]["gpu"] for n in names if "error" not in two[n]} == {"0", "1"}


def test_a_stale_result_file_is_never_read(tmp_path, fake):
    # a result left by an earlier run under the same name must not stand in for this run's
    plans = _plans(["dies"])
    from asyncguard.emit.launcher import save_run
    import numpy as np
    save_run(tmp_path / (plans[0]["kernel"] + ".npz"),
             dict(trace=np.zeros((1, 1, 1), np.uint32), counts=np.zeros((1, 1), np.uint32),
                  sink=np.zeros((1, 16), np.uint8), timeouts=0, overruns=0, attrs={}, not_taken=[], seconds=0))
    out = run_isolated(plans, tmp_path, ["0"], timeout=5, command=fake)
    assert "error" in out["dies"]
    assert not (tmp_path / (plans[0]["kernel"] + ".npz")).exists()


def _task(x):
    import os
    import time
    if x == 1:
        os._exit(7)              # the interpreter dies (a segfault, the OOM killer)
    if x == 2:
        time.sleep(100)          # stuck where the alarm cannot reach (a native call)
    if x == 3:
        raise ValueError("boom")
    return [x] * 3


def test_preparation_children_that_die_hang_or_raise_cost_only_their_own_file():
    from asyncguard.emit.prepare import run_forked
    out = run_forked(_task, [(i,) for i in range(6)], jobs=3, hard_limit=3)
    assert out[0] == [0, 0, 0] and out[4] == [4, 4, 4] and out[5] == [5, 5, 5]
    assert "died (exit code 7)" in out[1] and "killed after 3 s" in out[2] and out[3] == "ValueError: boom"


def test_a_sanitizer_run_that_times_out_takes_its_children_with_it(tmp_path):
    import stat
    import time
    from pathlib import Path
    from asyncguard.emit.gate import run_sanitizer
    pidfile = tmp_path / "child.pid"
    tool = tmp_path / "fake-sanitizer"
    tool.write_text(f"#!/bin/sh\necho started\nsleep 100 &\necho $! > {pidfile}\nwait\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    t0 = time.time()
    text = run_sanitizer(str(tool), "racecheck", tmp_path / "p.json", "0", timeout=2)
    assert time.time() - t0 < 20 and "started" in text and "timed out" in text
    pid = int(pidfile.read_text())
    time.sleep(0.5)
    status = Path(f"/proc/{pid}/status")
    # the launcher under the tool is gone too (or a zombie waiting for whoever adopted it)
    assert not status.exists() or "\nState:\tZ" in status.read_text()
