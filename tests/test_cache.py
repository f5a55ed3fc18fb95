"""The results cache: a second run of an unchanged text reads the stored report; anything that
changes the text, the options or asyncguard's own source misses; --no-cache bypasses it."""
import json
import os

from _toolbelt import CLEAN, racy, run

from asyncguard import cache, runner
from asyncguard.analyze import Limits
from asyncguard.config import Config


def _entries(d):
    return sorted(p for p in d.rglob("*.pickle"))


def test_second_run_reads_the_cache_and_gives_the_same_report(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    k = tmp_path / "k.tir"
    k.write_text(racy())
    first = runner.check_file(str(k), Limits(), Config(), cache_dir=str(d))
    assert len(_entries(d)) == 1
    calls = []
    monkeypatch.setattr(runner, "check_text", lambda *a, **kw: calls.append(a))
    second = runner.check_file(str(k), Limits(), Config(), cache_dir=str(d))
    assert calls == []                                        # the checker did not run
    as_rows = lambda r: [(f.rule.code, f.line, f.col, f.message) for f in r.report.findings]
    assert as_rows(second) == as_rows(first)
    assert second.report.findings[0].rule is first.report.findings[0].rule   # the registry's Rule


def test_key_covers_text_options_and_code(monkeypatch):
    base = cache.key("text", {"arch": None})
    assert cache.key("text ", {"arch": None}) != base
    assert cache.key("text", {"arch": "sm_90a"}) != base
    cache.code_digest.cache_clear()
    monkeypatch.setattr(cache, "__version__", "9.9.9")
    assert cache.key("text", {"arch": None}) != base
    cache.code_digest.cache_clear()


def test_same_text_under_another_name_reports_that_name(tmp_path):
    d = str(tmp_path / "cache")
    a, b = tmp_path / "a.tir", tmp_path / "b.tir"
    a.write_text(racy())
    b.write_text(racy())
    runner.check_file(str(a), Limits(), Config(), cache_dir=d)
    rb = runner.check_file(str(b), Limits(), Config(), cache_dir=d)
    assert rb.report.path == str(b) and {f.path for f in rb.report.findings} == {str(b)}


def test_suppressions_and_selection_apply_after_the_cache(tmp_path):
    d = str(tmp_path / "cache")
    k = tmp_path / "k.tir"
    k.write_text(racy())
    runner.check_file(str(k), Limits(), Config(), cache_dir=d)
    quiet = runner.check_file(str(k), Limits(), Config().with_cli(ignore=["AG2", "AG3"]), cache_dir=d)
    assert quiet.report.findings == []


def test_timeouts_are_not_stored(tmp_path):
    d = tmp_path / "cache"
    k = tmp_path / "k.tir"
    k.write_text(CLEAN)
    res = runner.check_file(str(k), Limits(max_steps=3), Config(), cache_dir=str(d))
    assert [f.rule.code for f in res.report.findings] == ["AG002"]      # the engine's step limit
    assert _entries(d) == []


def test_cli_uses_the_env_dir_and_no_cache_bypasses_it(tmp_path):
    env = dict(os.environ, ASYNCGUARD_CACHE_DIR=str(tmp_path / "c"))
    k = tmp_path / "k.tir"
    k.write_text(racy())
    p = run("check", "--no-cache", "--format", "json", k, env=env)
    assert p.returncode == 1 and not (tmp_path / "c").exists()
    p1 = run("check", "--format", "json", k, env=env)
    p2 = run("check", "--format", "json", k, env=env)
    assert len(_entries(tmp_path / "c")) == 1
    assert json.loads(p1.stdout) == json.loads(p2.stdout) == json.loads(p.stdout)
