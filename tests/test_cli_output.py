"""Terminal output (caret, colour, NO_COLOR, pipes), --jobs, the progress bar, --witness-svg."""
import json
import os
import pty
import select
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from _toolbelt import CORPUS, ROOT, racy, run

RING = CORPUS / "handwritten" / "ring2_wait_too_large.tir"
ESC = "\x1b["


def run_on_tty(args, which="stdout", env=None):
    """Run asyncguard with stdout or stderr on a pseudo-terminal; returns (rc, tty text, other)."""
    master, slave = pty.openpty()
    kw = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, which: slave}
    proc = subprocess.Popen([sys.executable, "-m", "asyncguard", *map(str, args)], env=env,
                            text=False, **kw)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    other = (proc.stderr if which == "stdout" else proc.stdout).read()
    rc = proc.wait()
    os.close(master)
    return rc, b"".join(chunks).decode(), other.decode()


def env(**kw):
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    e["TERM"] = "xterm-256color"
    e.update(kw)
    return e


def test_piped_output_is_plain_with_a_caret():
    p = run("check", RING)
    assert p.returncode == 1 and ESC not in p.stdout
    lines = p.stdout.splitlines()
    i = next(i for i, line in enumerate(lines) if ": AG101 " in line)
    assert lines[i].startswith(f"{RING}:23:56: AG101 [race] ")
    assert lines[i + 1].startswith("     23 | ")
    src_col = lines[i + 1].index("|") + 2
    assert lines[i + 2].index("^") - src_col == 55              # under column 56


def test_colour_on_a_terminal():
    rc, out, _ = run_on_tty(["check", RING], env=env())
    assert rc == 1
    assert f"{ESC}1;31mAG101{ESC}0m" in out and f"{ESC}1;32m^{ESC}0m" in out


def test_no_color_is_respected_on_a_terminal():
    rc, out, _ = run_on_tty(["check", RING], env=env(NO_COLOR="1"))
    assert rc == 1 and "AG101" in out and ESC not in out


def test_color_flag_forces():
    assert ESC in run("check", "--color", "always", RING).stdout
    rc, out, _ = run_on_tty(["check", "--color", "never", RING], env=env())
    assert "AG101" in out and ESC not in out


def test_jobs_gives_the_same_result_in_the_same_order():
    d = CORPUS / "handwritten"
    serial = json.loads(run("check", "--format", "json", d).stdout)
    parallel = json.loads(run("check", "--format", "json", "--jobs", "3", d).stdout)
    assert [f["path"] for f in parallel["files"]] == sorted(str(p) for p in d.rglob("*.tir"))
    assert parallel == serial


def test_progress_bar_on_a_terminal_for_many_files(tmp_path):
    for i in range(10):
        (tmp_path / f"k{i}.tir").write_text(racy())
    rc, err, out = run_on_tty(["check", tmp_path], which="stderr", env=env())
    assert rc == 1 and "10/10" in err and "[" + "#" * 30 + "]" in err
    assert "\r" in err and "10/10" not in out
    assert "10/10" not in run("check", tmp_path).stderr                 # not when piped
    rc, err, _ = run_on_tty(["check", "--no-progress", tmp_path], which="stderr", env=env())
    assert "10/10" not in err
    few = tmp_path / "few"
    few.mkdir()
    (few / "k.tir").write_text(racy())
    rc, err, _ = run_on_tty(["check", few], which="stderr", env=env())
    assert "1/1" not in err                                              # few files: no bar


def svg_text(path) -> str:
    root = ET.parse(path).getroot()            # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))


def test_witness_svg_draws_lanes_events_and_the_missing_edge(tmp_path):
    target = tmp_path / "w.svg"
    p = run("check", "--witness-svg", target, RING)
    assert p.returncode == 1
    written = sorted(tmp_path.glob("*.svg"))
    assert [w.name for w in written] == ["w-2.svg", "w.svg"]      # one per finding
    text = svg_text(tmp_path / "w-2.svg")                         # AG101: threads 127 and 0
    assert "thread 127" in text and "thread 0" in text
    for event in ("cp.async", "commit_group", "wait_group(2)", "__syncthreads", "read",
                  "first access", "second access", "no happens-before", "copy in flight"):
        assert event in text, event
    assert "line 23 · k=0" in text and "line 14 · s=0" in text
    assert "missing: thread 127's copy at line 14 is in group 0" in text


def test_witness_for_a_hang_and_html(tmp_path):
    target = tmp_path / "w.html"
    run("check", "--witness-svg", target, CORPUS / "handwritten" / "plain_race_and_barriers.tir")
    page = target.read_text()
    assert page.count("<svg") == 2 and "AG201" in page and "AG301" in page
    assert "threads 0..63 (64)" in page and "never arrive" in page and "threads 64..127" in page


def test_witness_svg_renders_to_png(tmp_path):
    cairosvg = pytest.importorskip("cairosvg", reason="cairosvg (dev extra) renders SVG to PNG")
    run("check", "--witness-svg", tmp_path / "w.svg", RING)
    png = tmp_path / "w.png"
    try:
        cairosvg.svg2png(url=str(tmp_path / "w-2.svg"), write_to=str(png))
    except OSError as e:          # libcairo missing
        pytest.skip(f"cairo not available: {e}")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > 1000 and 250 < height < 800


def test_docs_example_png_exists():
    assert (ROOT / "docs" / "witness-example.png").read_bytes()[:4] == b"\x89PNG"


def test_directory_recursion_only_tir(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "k.tir").write_text(racy())
    (tmp_path / "a" / "notes.txt").write_text("no")
    doc = json.loads(run("check", "--format", "json", tmp_path).stdout)
    assert [f["path"] for f in doc["files"]] == [str(tmp_path / "a" / "b" / "k.tir")]


def test_witness_shows_where_a_copy_landed(tmp_path):
    """AG102: the copy did land (wait_group(0)); what is missing is the barrier after it."""
    kernel = CORPUS / "variants" / "gemm_sm80_s1_128x128x32__drop-barrier-after-wait_L30.tir"
    run("check", "--witness-svg", tmp_path / "g.svg", kernel)
    text = svg_text(tmp_path / "g.svg")
    assert "the copy lands here" in text and "copy in flight until this wait" in text
    assert "wait_group(0)" in text and "thread 8" in text and "thread 32" in text
    ring = tmp_path / "r.svg"
    run("check", "--witness-svg", ring, RING)
    assert "copy in flight (not yet landed)" in svg_text(tmp_path / "r-2.svg")
    assert "the copy lands here" not in svg_text(tmp_path / "r-2.svg")


def ag406_kernel(tmp_path):
    """The real WS GEMM with its producer's arrive_expect_tx (line 42) duplicated: AG406 at line 43."""
    lines = (CORPUS / "real" / "gemm_sm90a_ws_s3_256x128x64_2wg.tir").read_text().splitlines(True)
    assert "T.ptx_arrive_barrier_expect_tx(" in lines[41]
    k = tmp_path / "k.tir"
    k.write_text("".join(lines[:42] + lines[41:]))
    return k


def test_mbarrier_overflow_witness_draws_and_reports(tmp_path):
    """AG406's witness ("phase_arrivals") once crashed --witness-svg and --format sarif."""
    k = ag406_kernel(tmp_path)
    p = run("check", "--witness-svg", tmp_path / "w.svg", "--format", "sarif", k)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "AG406" in {r["ruleId"] for r in json.loads(p.stdout)["runs"][0]["results"]}
    texts = [svg_text(f) for f in sorted(tmp_path.glob("*.svg"))]
    text = next(t for t in texts if "AG406" in t)
    assert "arrive (1)" in text and "surplus arrive (1)" in text and "line 42" in text
    assert "init count 1, 2 arrivals in phase 0" in text
    doc = json.loads(run("check", "--format", "json", k).stdout)
    (f,) = [f for f in doc["files"][0]["findings"] if f["rule"] == "AG406"]
    assert f["line"] == 43 and "arrivals" not in f["witness"]
    assert f["witness"]["phase_arrivals"] == [{"line": 42, "count": 1}, {"line": 43, "count": 1}]
