"""`asyncguard fix`: repairs to clean, minimal and proved so, byte-exact edits, idempotence,
atomic writes, refusals, and the opt-in redundant-sync lint.

The whole variant corpus is repaired by `python bench/repair_variants.py` (figures in the
README); here a sample: the smallest kernels of every mutation kind.
"""
from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.cli import main
from asyncguard.repair.redundant import lint_text, remove_redundant
from asyncguard.repair import Edit, apply_edits, repair_text
from asyncguard.repair.edits import split_lines
from asyncguard.repair.search import count_site
from asyncguard.repair.write import FileChanged, atomic_write, digest

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "corpus" / "variants"


# a dropped remote arrive (on a peer CTA's mbarrier) would need the peer's rank back: repair
# offers local statements and the cluster barrier only (README, "Repairs")
NOT_REPAIRED = {"drop-remote-arrive"}


def _sample(per_kind: int = 3) -> list[Path]:
    by = collections.defaultdict(list)
    for p in sorted(VARIANTS.glob("*.tir")):
        meta = json.loads(p.with_suffix(".expect.json").read_text())
        if meta["mutation"] not in NOT_REPAIRED:
            by[meta["mutation"]].append(p)
    out = []
    for kind in sorted(by):
        out += sorted(by[kind], key=lambda p: (p.stat().st_size, p.name))[:per_kind]
    return out


SAMPLE = _sample()


def test_sample_covers_every_mutation_kind():
    kinds = {json.loads(p.with_suffix(".expect.json").read_text())["mutation"] for p in SAMPLE}
    every = {json.loads(p.read_text())["mutation"] for p in VARIANTS.glob("*.expect.json")} - NOT_REPAIRED
    assert kinds == every and len(SAMPLE) >= 40


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.stem)
def test_variant_repaired_to_clean_with_one_line_and_proved_minimal(path):
    text = path.read_text()
    rep = repair_text(text, str(path))
    assert rep.status == "fixed", rep.message
    assert check_text(rep.new_text, str(path)).verdict == "clean"
    # one statement for a one-line bug (inserted, or an existing one changed)
    assert rep.fix.inserted + rep.fix.changed == 1, rep.fix.edits
    # the proof: every removal / raise brings a finding back
    assert rep.fix.safety == "proved" and rep.fix.proof and all(codes for _, _, codes in rep.fix.proof)
    _assert_only_edited_lines_differ(text, rep.new_text, rep.fix.edits)


def _assert_only_edited_lines_differ(old, new, edits):
    _, lmap = apply_edits(old, edits)
    old_lines, new_lines = split_lines(old), split_lines(new)
    changed = {e.line for e in edits if not e.inserts}
    kept = [new_lines[i] for i, o in enumerate(lmap) if o is not None and o not in changed]
    want = [ln for n, ln in enumerate(old_lines, 1) if n not in changed]
    if any(e.op == "insert-after" and e.line == len(old_lines) for e in edits) and \
            not old.endswith("\n"):
        # a statement after a last line without newline: that line gains the file's newline
        kept[-1], want[-1] = kept[-1].rstrip("\r\n"), want[-1]
    assert "".join(kept) == "".join(want)


@pytest.mark.parametrize("name", ["copy_pipelined_sm90a_s2__drop-mbarrier-wait_L38",
                                  "gemm_sm90a_ws_s1_128x128x64__drop-mbarrier-wait_L34"])
def test_mbarrier_wait_is_not_repaired_into_a_run_ahead(name):
    """The sanitizer gate caught earlier repairs of these variants faulting on an H200: the wait
    went inside the elected branch (127 consumers arrive ahead) or below the next expect_tx.
    Such a placement is AG412 now; the repair must make every thread's contribution safe."""
    path = ROOT / "corpus" / "variants" / f"{name}.tir"
    r = repair_text(path.read_text(), str(path))
    assert r.status == "fixed" and r.fix.inserted == 1
    assert check_text(r.new_text, str(path)).verdict == "clean"
    lines = r.new_text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln not in path.read_text().splitlines())
    assert "expect_tx" not in lines[at - 1], "the wait must precede the expect_tx"


def test_minimality_by_hand():
    """Independently of the proof the search records: remove each inserted statement, raise each
    wait count the fix sets -> the checker finds something again."""
    path = ROOT / "corpus" / "handwritten" / "row_copy_no_wait.tir"
    text = path.read_text()
    rep = repair_text(text, str(path))
    assert rep.status == "fixed" and rep.fix.inserted == 2
    for e in rep.fix.edits:
        rest = [x for x in rep.fix.edits if x != e]
        assert check_text(apply_edits(text, rest)[0]).findings, f"{e} is not needed"
        site = count_site(e)
        if site is not None:
            n, set_count = site
            raised = [set_count(n + 1) if x == e else x for x in rep.fix.edits]
            assert check_text(apply_edits(text, raised)[0]).findings, f"{e}: count can grow"


def test_largest_wait_count_is_chosen():
    path = ROOT / "corpus" / "handwritten" / "ring3_wait_too_large.tir"
    rep = repair_text(path.read_text(), str(path))
    (e,) = rep.fix.edits
    assert e.op == "replace" and count_site(e)[0] == 2    # 3 is the bug; 1 and 0 are also safe


def test_barrier_never_inside_thread_dependent_branch_and_hoisted():
    path = ROOT / "corpus" / "handwritten" / "gemm_ab_alias.tir"
    rep = repair_text(path.read_text(), str(path))
    assert rep.status == "fixed" and rep.fix.inserted == 1
    assert "hoisted" in rep.fix.edits[0].why


def test_bytes_preserved_crlf_tabs_no_final_newline():
    src = (VARIANTS / "copy_pipelined_sm80_s1__drop-wait_L20.tir").read_text()
    lines = src.split("\n")
    tabbed = "\n".join(("\t" * ((len(ln) - len(ln.lstrip(" "))) // 4)) + ln.lstrip(" ") for ln in lines)
    for text in (src.replace("\n", "\r\n").rstrip("\r\n"), tabbed.rstrip("\n")):
        rep = repair_text(text, "k.tir")
        assert rep.status == "fixed", rep.message
        new = rep.new_text
        assert not new.endswith("\n")
        _assert_only_edited_lines_differ(text, new, rep.fix.edits)
        for e in rep.fix.edits:
            if e.inserts:
                assert e.indent.strip(" \t") == "" and (("\t" in e.indent) == ("\t" in text))
        if "\r\n" in text:
            assert new.count("\n") == new.count("\r\n")
        assert repair_text(new, "k.tir").status == "clean"


def test_apply_edits_insert_after_last_line_without_newline():
    text = "a\r\nb"
    new, lmap = apply_edits(text, [Edit(2, "insert-after", "c", "  ")])
    assert new == "a\r\nb\r\n  c" and lmap == [1, 2, None]


def test_fix_cli_diff_write_idempotent(tmp_path, capsys):
    src = VARIANTS / "copy_pipelined_sm80_s2__drop-commit_L18.tir"
    f = tmp_path / "k.tir"
    f.write_bytes(src.read_bytes())
    assert main(["fix", str(f)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- a/") and "+" in out and "T.ptx_commit_group()" in out
    assert f.read_bytes() == src.read_bytes()           # no --write: untouched
    assert main(["fix", "--write", str(f)]) == 1
    after = f.read_bytes()
    assert after != src.read_bytes() and check_text(after.decode()).verdict == "clean"
    assert main(["fix", "--write", str(f)]) == 0        # idempotent: nothing left to fix
    assert f.read_bytes() == after
    assert main(["check", str(f)]) == 0


def test_fix_cli_unrepairable_leaves_file(tmp_path, capsys):
    src = ROOT / "corpus" / "handwritten" / "plain_race_and_barriers.tir"
    f = tmp_path / "k.tir"
    f.write_bytes(src.read_bytes())
    assert main(["fix", "--write", str(f)]) == 1
    err = capsys.readouterr().err
    assert "cannot repair" in err and "AG301" in err and "left unchanged" in err
    assert f.read_bytes() == src.read_bytes()


def test_fix_cli_stops_at_its_time_budget_and_leaves_the_file(tmp_path, capsys):
    # found-bugs entry 19's varlen backward: every check runs 23 input patterns over 21 lengths,
    # and the search ran past 10 minutes; with a budget it stops, says so, and writes nothing
    src = ROOT / "corpus" / "found-bugs" / "gqa_bwd_varlen_atomic_sm90a.tir"
    f = tmp_path / "k.tir"
    f.write_bytes(src.read_bytes())
    assert main(["fix", "--write", "--timeout", "0.001", str(f)]) == 1
    err = capsys.readouterr().err
    assert "no repair proved within the time budget" in err and "left as it is" in err
    assert err.count("AG401") == 4                      # the unedited kernel's findings, listed
    assert f.read_bytes() == src.read_bytes()


def test_a_repair_within_its_budget_is_the_repair_without_one():
    src = VARIANTS / "copy_pipelined_sm80_s2__drop-commit_L18.tir"
    text = src.read_text()
    bounded, free = repair_text(text, str(src), seconds=600), repair_text(text, str(src))
    assert bounded.status == free.status == "fixed" and bounded.new_text == free.new_text
    assert repair_text(text, str(src), seconds=1e-9).status == "timeout"


def test_fix_cli_input_error(tmp_path, capsys):
    f = tmp_path / "bad.tir"
    f.write_text("def (:\n")
    assert main(["fix", str(f)]) == 2
    assert main(["fix", str(tmp_path / "missing.tir")]) == 2


def test_atomic_write_refuses_changed_file(tmp_path):
    f = tmp_path / "k.tir"
    f.write_text("old\n")
    d = digest(f.read_bytes())
    with pytest.raises(FileChanged):
        atomic_write(str(f), "new\n", d, _before_replace=lambda tmp: f.write_text("edited\n"))
    assert f.read_text() == "edited\n"
    assert [p.name for p in tmp_path.iterdir()] == ["k.tir"]     # no temporary left behind


def test_atomic_write_interrupted_leaves_original(tmp_path):
    f = tmp_path / "k.tir"
    f.write_text("old\n")

    def boom(tmp):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        atomic_write(str(f), "new\n", digest(f.read_bytes()), _before_replace=boom)
    assert f.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["k.tir"]


def test_atomic_write_killed_mid_write_leaves_original(tmp_path):
    f = tmp_path / "k.tir"
    f.write_text("old\n")
    code = ("import sys, time; from asyncguard.repair.write import atomic_write, digest\n"
            f"p = {str(f)!r}\n"
            "atomic_write(p, 'new\\n' * 100000, digest(open(p, 'rb').read()),"
            " _before_replace=lambda t: (print('ready', flush=True), time.sleep(60)))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout.readline().strip() == b"ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert f.read_text() == "old\n"


def test_redundant_lint_is_opt_in(capsys):
    path = str(ROOT / "corpus" / "real" / "copy_pipelined_sm80_s2.tir")
    assert main(["check", path]) == 0
    assert "AG60" not in capsys.readouterr().out
    assert main(["check", "--redundant", path]) == 1
    out = capsys.readouterr().out
    assert "AG601" in out


def test_redundant_lint_proofs_and_removal():
    path = ROOT / "corpus" / "real" / "copy_pipelined_sm80_s2.tir"
    text = path.read_text()
    found = lint_text(text, str(path))
    assert found and all(f.rule.severity == "warning" for f in found)
    for f in found:   # each one alone: removing it keeps the kernel clean
        lines = split_lines(text)
        assert "tvm_storage_sync" in lines[f.line - 1] or "wait" in lines[f.line - 1]
    new, edits = remove_redundant(text, str(path))
    assert edits and check_text(new).verdict == "clean"
    assert lint_text(new, str(path)) == []               # nothing redundant is left


def test_buggy_kernel_is_not_linted():
    path = VARIANTS / "copy_pipelined_sm80_s2__drop-commit_L18.tir"
    assert lint_text(path.read_text(), str(path)) == []


def test_one_shot_mbarrier_wait_is_repaired():
    """A dropped one-shot wait on a constant parity (flash attention's Q barrier)."""
    import subprocess
    import sys
    path = Path(__file__).resolve().parent.parent / "corpus" / "variants" / \
        "fa_fwd_sm90a_ws_s1__drop-mbarrier-wait_L78.tir"
    p = subprocess.run([sys.executable, "-m", "asyncguard", "fix", str(path)], capture_output=True, text=True)
    added = [ln for ln in p.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    # hoisted out of the unrolled wgmma loop it was first placed in: one wait, not one per wgmma
    assert added == ["+" + " " * 20 + "T.mbarrier_wait_parity(mbarrier_1[4], 0)"], p.stdout + p.stderr


def test_an_epilogue_waits_for_every_load_issued_with_the_one_it_overwrites():
    """Found bug 19 (docs/found-bugs.md): a block whose loops run no iteration writes dK/dV over
    the K and V loads in flight. The witness names one load (K, mbarrier 16, phase 0); the V load
    issued with it under the same elected branch completes on mbarrier 17. The repair waits for
    both, once, before the epilogue's loop, as the fixed kernel in corpus/found-bugs/ does."""
    path = ROOT / "corpus" / "found-bugs" / "gqa_bwd_varlen_atomic_sm90a.tir"
    r = repair_text(path.read_text(), str(path))
    assert r.status == "fixed" and r.fix.safety == "proved", r.message
    added = [(e.op, e.text, e.indent) for e in r.fix.edits]
    assert added == [("insert-before", f"T.mbarrier_wait_parity(mbarrier_1[{b}], 0)", " " * 12)
                     for b in (16, 17)]
    assert check_text(r.new_text).verdict == "clean"
