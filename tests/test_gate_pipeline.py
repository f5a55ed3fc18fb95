"""`asyncguard sanitize` end to end on the CPU: the GPU pieces (device query, compiler, launcher,
compute-sanitizer) replaced by stand-ins that return what a correct GPU would (the reference's
own trace), so every step of the command -- preparation, dedup, compile, launch, replay,
sanitizer, judging, printing, JSON, JUnit -- runs here. A parse-rejected file, a kernel that
faults and one the gate cannot emit are in the same run: none of them changes another's row."""
import json
from pathlib import Path

import pytest

from asyncguard import cli
from asyncguard.emit import gate
from asyncguard.emit.prepare import expected_run

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "gate_kernels"


class FakeGpu:
    name, cc, arch = "Fake H200", (9, 0), "sm_90a"


def fake_compile(job):
    source, name, arch, out = job
    Path(out).write_text(source)
    return out, "fake", None


@pytest.fixture
def fake_gpu(monkeypatch):
    seen = {}
    real_prepare = gate.prepare

    def prepare(*a, **kw):
        cases = real_prepare(*a, **kw)
        seen.update({c.id: c for c in cases})
        return cases

    def run_isolated(plans, work, gpus, timeout, progress=None, command=None, per_gpu=1, on_result=None):
        out = {}
        for i, p in enumerate(plans):
            base = p["id"].split("#replay")[0]
            if "faulting" in base:
                out[p["id"]] = {"error": "kernel: CUDA_ERROR_ILLEGAL_ADDRESS", "fault": True, "gpu": gpus[i % len(gpus)]}
                continue
            run = expected_run(seen[base])
            if "#replay" in p["id"]:          # the delayed schedule reads a different value
                t = int(run["counts"][0].argmax())
                run["trace"][0, t, 0] ^= 1
            run.update(attrs={}, not_taken=[], seconds=0.001, gpu=gpus[i % len(gpus)])
            out[p["id"]] = run
            if on_result is not None:
                on_result(p["id"], run)
            if progress:
                progress(len(out), len(plans))
        return out

    monkeypatch.setattr(gate, "prepare", prepare)
    monkeypatch.setattr(gate, "visible_gpus", lambda limit=0: ["0", "1"][: limit or 2])
    monkeypatch.setattr(gate, "Gpu", FakeGpu)
    monkeypatch.setattr(gate, "compile_job", fake_compile)
    monkeypatch.setattr(gate, "run_isolated", run_isolated)
    monkeypatch.setattr("asyncguard.emit.launcher.run_isolated", run_isolated)
    monkeypatch.setattr(gate, "find_sanitizer", lambda: "/bin/true")
    monkeypatch.setattr(gate, "_sanitize_one", lambda san, tool, plan, work, timeout, g: {
        "hazards": 0, "errors": 0, "warnings": 0, "finished": True, "excerpt": [], "launch_error": None})
    return seen


def test_the_whole_command_with_a_fault_a_parse_error_and_a_skip(tmp_path, fake_gpu, capsys):
    (tmp_path / "bad.tir").write_text("@T.prim_func\ndef f(:\n")
    faulting = tmp_path / "faulting.tir"
    faulting.write_text((KERNELS / "xyz_cp_async_ring.tir").read_text())
    files = [str(KERNELS / "ws_uneven_128c_32p.tir"), str(KERNELS / "named_barrier_pingpong_race.tir"),
             str(tmp_path / "bad.tir"), str(faulting), str(ROOT / "corpus" / "real" / "gemm_sm90a_cluster_multicast.tir")]
    out_json = tmp_path / "r.json"
    rc = cli.main(["sanitize", "--jobs", "2", "--replay", "--json", str(out_json), "--junit", str(tmp_path / "j.xml"),
                   "--keep", str(tmp_path / "work")] + files)
    printed = capsys.readouterr()
    rows = {r["kernel"].split("/")[-1]: r for r in json.loads(out_json.read_text())}
    assert rc == 1                                          # the faulting kernel fails the run
    assert rows["ws_uneven_128c_32p.tir::main_kernel"]["verdict"] == "pass"
    assert rows["bad.tir::<file>"]["verdict"] == "skip" and "InputError" in rows["bad.tir::<file>"]["why"][0]
    assert rows["faulting.tir::xyz_ring"]["verdict"] == "fail"
    assert "ILLEGAL_ADDRESS" in rows["faulting.tir::xyz_ring"]["error"]
    assert "FAULT" in printed.err and "faulting.tir::xyz_ring" in printed.err and "ILLEGAL_ADDRESS" in printed.err
    assert rows["gemm_sm90a_cluster_multicast.tir::main_kernel"]["verdict"] == "skip"
    race = rows["named_barrier_pingpong_race.tir::pingpong_race"]
    assert race["static"] == "buggy" and race["verdict"] == "fail" and race["agree"] == "yes"
    assert race["why"][0].startswith("replay: ")
    assert race["replay"] and all(x["confirmed"] == "replay" for x in race["replay"]), race["replay"]
    assert "prepared file" in printed.err and "kernel(s) in" in printed.err    # progress and the figure
    assert 'skipped="2"' in (tmp_path / "j.xml").read_text()
    assert "Traceback" not in printed.err + printed.out


def test_two_gpus_and_one_give_the_same_rows(tmp_path, fake_gpu, capsys):
    files = [str(KERNELS / "ws_uneven_2wg_1warp.tir"), str(KERNELS / "named_barrier_pingpong.tir")]
    rows = []
    for n in (1, 2):
        out = tmp_path / f"r{n}.json"
        # batches of 2: the stand-in sanitizer (/bin/true) prints no summary, so every kernel of a
        # batch is run again alone -- the fallback path
        assert cli.main(["sanitize", "--jobs", "1", "--gpus", str(n), "--sanitizer-batch", "2",
                         "--json", str(out)] + files) == 0
        rows.append({r["kernel"]: (r["verdict"], r["trace"]["mismatches"], r["agree"]) for r in json.loads(out.read_text())})
    assert rows[0] == rows[1] and all(v[0] == "pass" for v in rows[0].values())


def test_synccheck_is_not_run_on_the_counting_cp_async_arrive(tmp_path, fake_gpu, capsys, monkeypatch):
    """synccheck 2025.3 reports 'Missing wait' after every cp.async.mbarrier.arrive without .noinc
    and stops the kernel; the H200 follows the PTX ISA (bench/sanitizer_h200/2026-12-03-session26/
    probe). Its reports on such a kernel are not counted; racecheck's and the trace still are."""
    def sanitize(san, tool, plan, work, timeout, g):
        bad = tool == "synccheck"
        return {"hazards": 64 if bad else 0, "errors": 64 if bad else 0, "warnings": 0, "finished": not bad,
                "excerpt": ["========= Barrier error detected. Missing wait."] if bad else [],
                "launch_error": "kernel: CUDA_ERROR_LAUNCH_FAILED" if bad else None}
    monkeypatch.setattr(gate, "_sanitize_one", sanitize)
    files = [str(KERNELS / "cp_async_mbarrier_counting.tir"), str(KERNELS / "cp_async_mbarrier_noinc.tir")]
    out = tmp_path / "r.json"
    cli.main(["sanitize", "--jobs", "1", "--json", str(out)] + files)
    rows = {r["kernel"].split("/")[-1]: r for r in json.loads(out.read_text())}
    counting = rows["cp_async_mbarrier_counting.tir::cp_async_counting"]
    assert counting["verdict"] == "pass" and counting["agree"] == "yes"
    assert counting["synccheck"]["not_run"].startswith("not run: synccheck reports 'Missing wait'")
    noinc = rows["cp_async_mbarrier_noinc.tir::cp_async_noinc"]
    assert noinc["verdict"] == "fail" and noinc["why"] == ["synccheck: 64 report(s)"]   # still counted there


RACE_A = """========= Warning: Race reported between Read access at agns_ag3_a::ag_read(AgState &, long long, long long)+0x2570 in ag3_a.cu:40
=========     and Write access at agns_ag3_a::ag_cp_async(AgState &, long long, long long, bool)+0x1570 in ag3_a.cu:57 [65536 hazards]
=========     and Write access at agns_ag3_a::ag_cp_async(AgState &, long long, long long, bool)+0x15e0 in ag3_a.cu:57 [65536 hazards]"""
RACE_B = """========= Error: Race reported between Write access at agns_ag7_b::ag_write(AgState &, long long, long long)+0x100 in ag7_b.cu:52
=========     and Read access at agns_ag7_b::ag_read(AgState &, long long, long long)+0x200 in ag7_b.cu:40 [128 hazards]"""


def _batch_text(blocks, summary, ends=("a", "b", "c")):
    marks = "\n".join(f"@@AGSAN BEGIN {k}\n@@AGSAN RESULT {k} timeouts=0\n@@AGSAN END {k}" for k in ends)
    return "========= COMPUTE-SANITIZER\n" + marks + "\n" + "\n".join(blocks) + "\n" + summary + "\n"


PLANS3 = [{"id": "a", "kernel": "ag3_a"}, {"id": "b", "kernel": "ag7_b"}, {"id": "c", "kernel": "ag9_c"}]


def test_batched_racecheck_reports_are_attributed_by_skeleton_file():
    text = _batch_text([RACE_A, RACE_B, RACE_B.replace("0x100", "0x180")],
                       "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)")
    out, ok = gate.attribute_reports("racecheck", text, PLANS3)
    assert ok
    assert (out["a"]["hazards"], out["a"]["warnings"], out["b"]["hazards"], out["b"]["errors"], out["c"]["hazards"]) \
        == (1, 1, 2, 2, 0)
    assert all(r["finished"] for r in out.values())


def test_batched_reports_that_do_not_add_up_are_not_trusted():
    text = _batch_text([RACE_A], "========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)")
    assert not gate.attribute_reports("racecheck", text, PLANS3)[1]
    api = "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API call to cuCtxSynchronize."
    text = _batch_text([api], "========= ERROR SUMMARY: 1 error")
    assert not gate.attribute_reports("synccheck", text, PLANS3)[1]      # an error naming no kernel
    text = _batch_text([], "========= ERROR SUMMARY: 0 errors", ends=("a",))
    out, ok = gate.attribute_reports("synccheck", text, PLANS3)
    assert ok and out["a"]["finished"] and not out["b"]["finished"]     # b and c run again alone


def test_synccheck_blocks_are_attributed_too():
    sync = """========= Barrier error detected. Missing wait.
=========     at agns_ag7_b::ag_mbar_arrive(unsigned long long *)+0x1060 in ag7_b.cu:96
=========     by thread (224,0,0) in block (4,0,0)"""
    out, ok = gate.attribute_reports("synccheck", _batch_text([sync, sync], "========= ERROR SUMMARY: 2 errors"), PLANS3)
    assert ok and out["b"]["hazards"] == 2 and out["a"]["hazards"] == 0
