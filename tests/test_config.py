"""[tool.asyncguard] in the checked repository's pyproject.toml, and flags over it."""
import json

import pytest
from _toolbelt import BARRIER_LINE, READ_LINE, codes, racy, run

from asyncguard.config import Config, ConfigError, Resolver, find, load


def project(tmp_path, table: str, files=("k.tir",)):
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "kernels"\n\n{table}\n')
    out = []
    for rel in files:
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(racy())
        out.append(f)
    return out


def found(*args, cwd=None):
    p = run("check", "--format", "json", *args, cwd=cwd)
    assert p.returncode in (0, 1), p.stderr
    return codes(json.loads(p.stdout))


def test_ignore_from_the_nearest_pyproject(tmp_path):
    (f,) = project(tmp_path, '[tool.asyncguard]\nignore = ["AG301"]', ["src/deep/k.tir"])
    assert found(f) == [("AG201", READ_LINE)]


def test_select_prefix_and_name(tmp_path):
    (f,) = project(tmp_path, '[tool.asyncguard]\nselect = ["AG3"]')
    assert found(f) == [("AG301", BARRIER_LINE)]
    (tmp_path / "pyproject.toml").write_text('[tool.asyncguard]\nselect = ["shared-memory-race"]\n')
    assert found(f) == [("AG201", READ_LINE)]


def test_per_file_ignores_globs(tmp_path):
    legacy, new = project(tmp_path, '[tool.asyncguard]\n[tool.asyncguard.per-file-ignores]\n'
                          '"legacy/*.tir" = ["AG201"]\n"k2.tir" = ["AG3"]',
                          ["legacy/k.tir", "sub/k2.tir"])
    assert found(legacy) == [("AG301", BARRIER_LINE)]
    assert found(new) == [("AG201", READ_LINE)]          # bare name: matches the basename anywhere


def test_command_line_overrides_config(tmp_path):
    (f,) = project(tmp_path, '[tool.asyncguard]\nignore = ["AG201"]')
    assert found(f) == [("AG301", BARRIER_LINE)]
    # --select replaces the config's selection (and its ignores), like ruff
    assert found(f, "--select", "AG201") == [("AG201", READ_LINE)]
    # --ignore removes from what the config selected
    assert found(f, "--ignore", "AG301") == []


def test_explicit_config_file(tmp_path):
    (f,) = project(tmp_path, "")
    other = tmp_path / "elsewhere.toml"
    other.write_text('[tool.asyncguard]\nignore = ["AG2"]\n')
    assert found(f) == [("AG201", READ_LINE), ("AG301", BARRIER_LINE)]
    assert found(f, "--config", other) == [("AG301", BARRIER_LINE)]


def test_pyproject_without_the_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.asyncguard]\nignore = ["AG301"]\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert find(inner) == tmp_path / "pyproject.toml"


def test_arch_and_assumptions_are_stored(tmp_path):
    project(tmp_path, '[tool.asyncguard]\narch = "sm_90a"\n[tool.asyncguard.assumptions]\n'
                      'K = "K >= 1"\nN = "N % 128 == 0"')
    cfg = load(tmp_path / "pyproject.toml")
    assert cfg.arch == "sm_90a" and cfg.assumptions == {"K": "K >= 1", "N": "N % 128 == 0"}
    assert Resolver(arch="sm_80").for_file(tmp_path / "k.tir").arch == "sm_80"   # flag wins
    assert Resolver().for_file(tmp_path / "k.tir").arch == "sm_90a"


@pytest.mark.parametrize("table, needle", [
    ('[tool.asyncguard]\nselect = ["AG999"]', "unknown rule selector 'AG999'"),
    ('[tool.asyncguard]\nselct = ["AG1"]', "unknown key(s): selct"),
    ('[tool.asyncguard]\nselect = "AG1', "invalid TOML"),
])
def test_bad_config_is_an_input_error(tmp_path, table, needle):
    (f,) = project(tmp_path, table)
    p = run("check", f)
    assert p.returncode == 2 and needle in p.stderr and "pyproject.toml" in p.stderr


def test_bad_flag_selector_exits_2(tmp_path):
    (f,) = project(tmp_path, "")
    p = run("check", "--select", "AG1,nonsense", f)
    assert p.returncode == 2 and "unknown rule selector 'nonsense'" in p.stderr


def test_enabled_rules_follow_ruff_order():
    cfg = Config(select=("AG1",), ignore=("AG104",)).with_cli(ignore=["AG103"])
    assert cfg.enabled_rules() == {"AG101", "AG102"}
    with pytest.raises(ConfigError):
        Config(ignore=("AGX",)).enabled_rules()
