"""The command line: exit codes, text and JSON output."""
import json
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def run(*args):
    return subprocess.run([sys.executable, "-m", "asyncguard", *args], capture_output=True, text=True)


def test_clean_kernel_exits_0():
    p = run("check", str(CORPUS / "real" / "gemm_sm80_s3_128x128x32.tir"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[0].endswith(": clean")   # then the scope lines, if any


def test_buggy_kernel_text_output():
    path = CORPUS / "handwritten" / "rotated_no_empty_commits.tir"
    p = run("check", str(path))
    assert p.returncode == 1
    first = p.stdout.splitlines()[0]
    assert first.startswith(f"{path}:20:") and " AG101 [race] " in first
    assert "missing:" in p.stdout and "first :" in p.stdout and "second:" in p.stdout


def test_json_has_the_required_fields():
    p = run("check", "--format", "json", str(CORPUS / "handwritten" / "ring2_wait_too_large.tir"))
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    (f0,) = doc["files"]
    assert f0["verdict"] == "buggy"
    for f in f0["findings"]:
        assert {"rule", "kind", "severity", "path", "line", "col", "message", "witness"} <= set(f)
        assert f["kind"] in ("race", "hang", "invalid", "resource", "unsupported")
        assert f["severity"] in ("error", "warning", "note")
        assert isinstance(f["witness"], dict)


def test_directory_argument_recurses():
    p = run("check", "--format", "json", str(CORPUS / "handwritten"))
    doc = json.loads(p.stdout)
    assert len(doc["files"]) == len(list((CORPUS / "handwritten").glob("*.tir")))


def test_check_help():
    """Every help string survives argparse's %-formatting (a bare '%' once broke --help)."""
    p = run("check", "--help")
    assert p.returncode == 0 and "--witness-svg" in p.stdout and "'K % 32" in p.stdout, p.stderr


def test_explain_and_rules():
    p = run("explain", "AG101")
    assert p.returncode == 0 and "## What it does" in p.stdout
    p = run("rules")
    assert "AG101" in p.stdout and "AG201" in p.stdout
    assert run("explain", "AG999").returncode == 2
