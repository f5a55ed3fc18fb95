"""What the gate changed to fit the corpus plus every variant in ten minutes, and the naive-GEMV
same-value store (issue 15 items 4 and 6, the fourth session's list). CPU only: the launcher is a
stand-in process, nvcc compiles where present."""
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from asyncguard.emit import reference
from asyncguard.emit.cuda import SPIN_LIMIT, SPIN_LIMIT_PREDICTED_HANG
from asyncguard.emit.gate import plain_run_shows
from asyncguard.emit.launcher import run_isolated
from asyncguard.emit.prepare import (MAX_LAUNCH_SECONDS, SECONDS_PER_WAIT, compare, expected_run,
                                     launch_limit, prepare_file)

ROOT = Path(__file__).resolve().parent.parent
GEMV = ROOT / "corpus" / "field" / "gemv__example_gemv__naive_gemv__sm_80.tir"


@pytest.fixture(scope="module")
def gemv():
    if not GEMV.exists():
        pytest.skip("corpus/field not lowered in this checkout")
    (c,) = prepare_file(0, str(GEMV))
    assert c.skip is None, c.skip
    return c


def test_a_store_of_one_value_in_every_thread_writes_one_pattern(gemv):
    # `A_shared_1[tk] = A_1[bk * 128 + tk]`: no thread in the value, so every thread stores the
    # same element with the same value (benign for the checker). The skeleton wrote a per-thread
    # pattern there, so on the H200 the threads' stores differed (131,072 reads, racecheck 2)
    src = gemv.emitted.source
    line27 = [ln for ln in src.splitlines() if "// line 27:" in ln]
    line28 = [ln for ln in src.splitlines() if "// line 28:" in ln]
    assert line27 and all("ag_write_uniform(" in ln for ln in line27)
    assert line28 and all("ag_write(ag," in ln for ln in line28)     # B_shared[tn * 128 + tk]: per thread


def test_the_reference_reads_the_uniform_value_whichever_thread_wrote_last(gemv):
    # iteration bk writes A_shared_1[tk] as every thread's (bk * 128 + tk)-th execution of the
    # site: the bytes are pattern(useed(0, bk * 128 + tk)) whoever lands last; every thread's
    # reads of A_shared at line 31 are exactly those checksums
    (ref,) = gemv.refs
    want = set()
    for bk in range(8):
        for tk in range(128):
            a = 32768 + 2 * tk
            seed = int(reference.useed_array(0, np.array([bk * 128 + tk]))[0])
            want.add(reference.fnv(reference.pattern(seed, np.arange(a, a + 2))))
    for t in (0, 1, 77, 127):
        got = {h for h, line in ref.reads[t] if line == 31}
        assert want <= got
    assert compare(gemv, expected_run(gemv))["mismatches"] == 0


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_the_uniform_store_skeleton_compiles(gemv, tmp_path):
    f = tmp_path / f"{gemv.emitted.kernel}.cu"
    f.write_text(gemv.emitted.source)
    r = subprocess.run(["nvcc", "-arch=sm_90a", "-c", "-o", str(tmp_path / "k.o"), str(f)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_later_waits_poll_briefly_once_a_wait_gave_up():
    (c,) = prepare_file(0, str(ROOT / "corpus" / "real" / "gemm_sm90a_ws_s2_128x128x64.tir"))
    src = c.emitted.source
    assert "AG_SPIN_AFTER_TIMEOUT : AG_SPIN_LIMIT" in src
    assert f"#define AG_SPIN_LIMIT {SPIN_LIMIT}u" in src        # clean: the full limit
    assert c.plan["waits"] > 0


def test_a_predicted_mbarrier_deadlock_gets_the_short_first_wait():
    path = ROOT / "corpus" / "variants" / "gemm_sm90a_ws_s2_128x128x64__expect-tx-halved_L40.tir"
    cases = prepare_file(0, str(path))
    stuck = [c for c in cases if c.refs and any(r.stuck_waits for r in c.refs)]
    assert stuck, [(c.id, c.skip) for c in cases]
    for c in stuck:
        assert f"#define AG_SPIN_LIMIT {SPIN_LIMIT_PREDICTED_HANG}u" in c.emitted.source


def test_the_launch_limit_grows_with_the_pipeline():
    assert launch_limit({"waits": 0}, 60) == 60
    assert launch_limit({"waits": 512}, 60) == pytest.approx(512 * SECONDS_PER_WAIT)
    assert launch_limit({"waits": 10 ** 6}, 60) == MAX_LAUNCH_SECONDS
    assert launch_limit({}, 30) == 30


def test_replays_run_only_where_the_plain_run_showed_nothing():
    ok = {"status": "ran", "trace": {"mismatches": 0, "count_mismatches": 0, "sink_mismatches": 0}, "timeouts": 0}
    assert not plain_run_shows(ok)
    assert plain_run_shows(dict(ok, timeouts=3))
    assert plain_run_shows(dict(ok, trace={"mismatches": 5}))
    assert plain_run_shows({"status": "launch failed", "error": "kernel: LAUNCH_FAILED"})
    assert not plain_run_shows({"status": "compile failed"})


def test_the_vectorised_compare_counts_exactly(gemv):
    run = expected_run(gemv)
    run["trace"][0, 5, 3] ^= 1
    run["counts"][0, 9] += 1
    tr = compare(gemv, run)
    assert tr["mismatches"] == 1 and tr["count_mismatches"] == 1
    assert tr["where"] == [(5, gemv.refs[0].reads[5][3][1])]


FAKE = textwrap.dedent("""
    import json, os, sys, time
    from pathlib import Path
    work = Path(sys.argv[-1])
    (work / f"start.{os.getpid()}").write_text(repr(time.time()))
    time.sleep(float(os.environ.get("AG_FAKE_START", "0")))
    print("@@AGSAN READY fake", flush=True)
    for line in sys.stdin:
        p = json.loads(line)
        (work / f"served.{p['id']}").write_text(str(os.getpid()))
        if "fault" in p["id"]:
            (work / f"fault.{p['id']}").write_text(repr(time.time()))
            print("@@AGSAN FAIL " + p["id"] + "\\tkernel: CUDA_ERROR_LAUNCH_FAILED", flush=True)
            sys.exit(3)
        import numpy as np
        from asyncguard.emit.launcher import save_run
        save_run(work / (p["kernel"] + ".npz"), {"trace": np.zeros((1, 1, 1), np.uint32),
                 "counts": np.zeros((1, 1), np.uint32), "sink": np.zeros((1, 16), np.uint8),
                 "timeouts": 0, "overruns": 0, "attrs": {}, "not_taken": [], "seconds": 0.0})
        print("@@AGSAN DONE " + p["id"], flush=True)
""")


def test_a_fault_is_isolated_and_the_spare_launcher_takes_over(tmp_path, monkeypatch):
    # every fault ends its launcher (a sticky error); a spare started beside it takes the next
    # kernel, so a start-up (seconds of Python and CUDA) is not paid after each fault
    fake = tmp_path / "fake_launcher.py"
    fake.write_text(FAKE)
    monkeypatch.setenv("AG_FAKE_START", "0.5")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    names = ["a", "fault1", "b", "fault2", "c", "fault3", "d"]
    plans = [{"id": n, "kernel": f"k_{n}"} for n in names]
    out = run_isolated(plans, tmp_path, ["0"], timeout=20, command=[sys.executable, str(fake)])
    assert {k for k, v in out.items() if "error" in v} == {"fault1", "fault2", "fault3"}
    assert all("LAUNCH_FAILED" in out[f"fault{i}"]["error"] for i in (1, 2, 3))
    assert all("trace" in out[k] for k in "abcd")

    def pid(k):
        return (tmp_path / f"served.{k}").read_text()
    assert len({pid(k) for k in ("a", "b", "c", "d")}) == 4      # a fresh process after each fault
    for before, after in (("fault1", "b"), ("fault2", "c"), ("fault3", "d")):
        started = float((tmp_path / f"start.{pid(after)}").read_text())
        assert started < float((tmp_path / f"fault.{before}").read_text())   # started ahead: the spare


def test_several_launchers_per_gpu_give_the_same_results(tmp_path, monkeypatch):
    fake = tmp_path / "fake_launcher.py"
    fake.write_text(FAKE)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    plans = [{"id": n, "kernel": f"k_{n}"} for n in ["a", "fault", "b", "c", "d", "e"]]
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    one = run_isolated(plans, tmp_path / "1", ["0"], timeout=20, command=[sys.executable, str(fake)])
    two = run_isolated(plans, tmp_path / "2", ["0", "1"], timeout=20, command=[sys.executable, str(fake)],
                       per_gpu=2)
    assert {k: "error" in v for k, v in one.items()} == {k: "error" in v for k, v in two.items()}


def _table():
    import importlib.util
    spec = importlib.util.spec_from_file_location("sanitizer_table", ROOT / "bench" / "sanitizer_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_ten_minute_figure_sums_the_corpus_and_every_variants_part(tmp_path):
    table = _table()
    rows = [{"kernel": "k"}]

    def part(name, secs, rc="1,", gpus=2):
        (tmp_path / f"gate_{name}.time").write_text(f"{name} {secs} s, exit {rc} GPUS=0 JOBS=16\n")
        (tmp_path / f"gate_{name}.json").write_text(json.dumps(rows * 3))
        (tmp_path / f"gate_{name}.log").write_text(f"asyncguard sanitize: NVIDIA H200 (sm_90a) x {gpus}; 3 kernel(s)\n")
    part("corpus", 60)
    part("variants1of2", 200)
    part("variants2of2", 210)
    part("corpus_gpus1", 90, gpus=1)
    part("variants1of2_gpus1", 300, gpus=1)
    part("variants2of2_gpus1", 280, "124", gpus=1)
    two, one = table.corpus_and_variants(tmp_path)
    assert "on all GPUs (2 GPU(s)): 9 kernels in 470 s" in two and ": within 10 minutes" in two
    assert "on one GPU (1 GPU(s)): 9 kernels in 670 s" in one and "NOT within 10 minutes" in one
    assert "cut or failed to run: variants2of2_gpus1" in one
    (tmp_path / "gate_variants2of2.time").unlink()          # a part missing: no figure for it
    assert len(table.corpus_and_variants(tmp_path)) == 1


def test_the_tools_start_during_the_launches_but_after_the_long_ones(monkeypatch):
    from types import SimpleNamespace

    from asyncguard.emit import gate
    calls = []

    def fake_batch(san, tool, batch, work, timeout, gpu):
        calls.append((tool, tuple(p["id"] for p in batch), gpu))
        return {p["id"]: {"hazards": 0, "finished": True} for p in batch}
    monkeypatch.setattr(gate, "_sanitize_batch", fake_batch)
    by_id = {k: SimpleNamespace(result={}) for k in "abcde"}
    args = SimpleNamespace(sanitizer_timeout=60, sanitizer_batch=2, sanitizer_jobs=4)
    feed = gate._SanitizerFeed("cs", Path("."), ["0", "1"], args, by_id, hold=["long"])
    for k in "abc":
        feed.add({"id": k})
    assert not feed.futs                       # the long launch is still running
    feed.launched("long")
    assert len(feed.futs) == 2                 # a and b: one racecheck and one synccheck process
    feed.add({"id": "d"})
    feed.add({"id": "e"})
    assert feed.finish(lambda n, total: None) == 10
    assert sorted(ids for _, ids, _ in calls) == sorted([("a", "b")] * 2 + [("c", "d")] * 2 + [("e",)] * 2)
    assert {g for _, _, g in calls} == {"0", "1"}
    assert all(set(by_id[k].result) == {"racecheck", "synccheck"} for k in "abcde")
