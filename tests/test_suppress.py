"""Inline `# asyncguard: ignore[...]` suppressions and AG901 for unused ones."""
import json

from _toolbelt import BARRIER_LINE, READ_LINE, WRITE_LINE, codes, racy, run

from asyncguard.suppress import parse_suppressions


def check(tmp_path, text, *flags):
    f = tmp_path / "k.tir"
    f.write_text(text)
    p = run("check", "--format", "json", *flags, f)
    return p, codes(json.loads(p.stdout))


def test_baseline_has_a_race_and_a_hang(tmp_path):
    p, found = check(tmp_path, racy())
    assert found == [("AG201", READ_LINE), ("AG301", BARRIER_LINE)]
    assert p.returncode == 1


def test_code_suppression_removes_only_that_finding(tmp_path):
    p, found = check(tmp_path, racy(read="  # asyncguard: ignore[AG201]"))
    assert found == [("AG301", BARRIER_LINE)]


def test_list_name_and_bare_suppressions(tmp_path):
    _, found = check(tmp_path, racy(read="  # asyncguard: ignore[AG101, shared-memory-race]",
                                    barrier="  # asyncguard: ignore"))
    # AG101 named in the list suppressed nothing: reported as unused, the rest is silenced
    assert found == [("AG901", READ_LINE)]


def test_everything_suppressed_exits_0(tmp_path):
    p, found = check(tmp_path, racy(read="  # asyncguard: ignore[AG201]",
                                    barrier="  # asyncguard: ignore[AG301]"))
    assert found == [] and p.returncode == 0
    assert json.loads(p.stdout)["files"][0]["verdict"] == "clean"


def test_unused_suppression_is_a_warning(tmp_path):
    p, found = check(tmp_path, racy(write="  # asyncguard: ignore[AG201]"))
    assert ("AG901", WRITE_LINE) in found and ("AG201", READ_LINE) in found
    f = next(f for f in json.loads(p.stdout)["files"][0]["findings"] if f["rule"] == "AG901")
    assert f["severity"] == "warning" and f["kind"] == "invalid"
    assert f["witness"]["codes"] == ["AG201"] and f["col"] == len("    S[tx] = X_1[tx]  ") + 1


def test_unknown_rule_in_suppression_is_reported(tmp_path):
    p, found = check(tmp_path, racy(read="  # asyncguard: ignore[AG201,AG777]"))
    assert ("AG201", READ_LINE) not in found
    msgs = [f["message"] for f in json.loads(p.stdout)["files"][0]["findings"] if f["rule"] == "AG901"]
    assert msgs == ["suppression names unknown rule(s): AG777"]


def test_unused_suppression_can_itself_be_ignored(tmp_path):
    _, found = check(tmp_path, racy(write="  # asyncguard: ignore[AG201]"), "--ignore", "AG901")
    assert found == [("AG201", READ_LINE), ("AG301", BARRIER_LINE)]


def test_suppression_of_a_disabled_rule_is_not_unused(tmp_path):
    _, found = check(tmp_path, racy(read="  # asyncguard: ignore[AG201]"), "--ignore", "AG201")
    assert found == [("AG301", BARRIER_LINE)]


def test_comment_in_a_string_is_not_a_suppression():
    text = 'x = "# asyncguard: ignore[AG201]"\ny = 1  # asyncguard: ignore[AG101]\n'
    sups = parse_suppressions(text)
    assert list(sups) == [2] and sups[2].codes == ("AG101",)
