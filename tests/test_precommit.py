"""The `asyncguard` hook from .pre-commit-hooks.yaml, run by real pre-commit on a temporary repo."""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _toolbelt import CLEAN, ROOT, racy

yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit")
PRE_COMMIT = shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None or shutil.which("git") is None,
                                reason="pre-commit (dev extra) and git are needed to run the hook")


def hook(hook_id: str = "asyncguard") -> dict:
    (h,) = [h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == hook_id]
    return h


def sh(*args, cwd, env=None):
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env)


def env_for(tmp_path):
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), NO_COLOR="1",
               ASYNCGUARD_CACHE_DIR=str(tmp_path / "asyncguard-cache"),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    # the `asyncguard` script of the interpreter running the tests comes first on PATH
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def make_repo(tmp_path, files: dict) -> Path:
    repo = tmp_path / "kernels"
    repo.mkdir()
    sh("git", "init", "-q", cwd=repo)
    for name, text in files.items():
        (repo / name).write_text(text)
    h = hook()
    # `repo: local` with the published hook's own id, entry and file pattern; `language: system`
    # uses the asyncguard installed here instead of building a fresh virtualenv from PyPI.
    local = {k: h[k] for k in ("id", "name", "entry", "files", "types") if k in h}
    local["language"] = "system"
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    sh("git", "add", ".", cwd=repo)
    return repo


def test_hook_definition():
    h = hook()
    assert h["id"] == "asyncguard" and h["entry"] == "asyncguard check"
    assert h["files"] == r"\.(tir|py)$" and h["language"] == "python"


def test_hook_fails_on_a_racy_kernel_and_passes_a_clean_one(tmp_path):
    env = env_for(tmp_path)
    repo = make_repo(tmp_path, {"racy.tir": racy(), "ok.tir": CLEAN, "notes.txt": "not a kernel"})
    p = sh(PRE_COMMIT, "run", "--all-files", cwd=repo, env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "asyncguard" in p.stdout and "Failed" in p.stdout
    assert "racy.tir:12:" in p.stdout and "AG201" in p.stdout and "AG301" in p.stdout
    assert "ok.tir: clean" in p.stdout and "notes.txt" not in p.stdout
    # a commit is refused while the race is there ...
    sh(PRE_COMMIT, "install", cwd=repo, env=env)
    assert sh("git", "commit", "-qm", "racy", cwd=repo, env=env).returncode != 0
    # ... and accepted once the findings are suppressed on their lines
    (repo / "racy.tir").write_text(racy(read="  # asyncguard: ignore[AG201]",
                                        barrier="  # asyncguard: ignore[AG301]"))
    sh("git", "add", ".", cwd=repo)
    c = sh("git", "commit", "-qm", "suppressed", cwd=repo, env=env)
    assert c.returncode == 0, c.stdout + c.stderr
    assert "Passed" in c.stdout + c.stderr


def test_hook_skips_when_no_tir_files(tmp_path):
    env = env_for(tmp_path)
    repo = make_repo(tmp_path, {"README.md": "# kernels\n"})
    p = sh(PRE_COMMIT, "run", "--all-files", cwd=repo, env=env)
    assert p.returncode == 0 and "(no files to check)Skipped" in p.stdout


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="try-repo needs this checkout's git history")
def test_published_hook_via_try_repo(tmp_path):
    """The hook exactly as published (`language: python`): pre-commit builds its own virtualenv
    from this checkout's HEAD and runs it, as a user's `repo:` entry would."""
    env = env_for(tmp_path)
    repo = tmp_path / "user"
    repo.mkdir()
    sh("git", "init", "-q", cwd=repo)
    (repo / "racy.tir").write_text(racy())
    (repo / "ok.tir").write_text(CLEAN)
    sh("git", "add", ".", cwd=repo)
    p = sh(PRE_COMMIT, "try-repo", str(ROOT), "asyncguard", "--ref", "HEAD", "--all-files",
           cwd=repo, env=env)
    out = p.stdout + p.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip("pre-commit could not build the hook's virtualenv (no package registry?)")
    assert p.returncode == 1, out
    assert "- hook id: asyncguard" in out and "racy.tir:12:" in out and "ok.tir: clean" in out


@pytest.mark.skipif(importlib.util.find_spec("tilelang") is None,
                    reason="TileLang is not importable (pip install 'asyncguard[tilelang]')")
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="try-repo needs this checkout's git history")
def test_tilelang_repository_via_try_repo(tmp_path):
    """A TileLang kernel repository (kernels as .py, [tool.asyncguard.tilelang] in its
    pyproject.toml) with the published `asyncguard-tilelang` hook, which runs the asyncguard
    installed in the repository's environment: the seeded race fails the hook, the clean
    kernels pass, and a non-kernel .py file is not imported."""
    env = env_for(tmp_path)
    repo = tmp_path / "tl-kernels"
    shutil.copytree(ROOT / "tests" / "fixtures" / "tilelang_repo", repo)
    (repo / "setup_helpers.py").write_text("raise SystemExit('never imported: no tilelang here')\n")
    sh("git", "init", "-q", cwd=repo)
    sh("git", "add", ".", cwd=repo)
    p = sh(PRE_COMMIT, "try-repo", str(ROOT), "asyncguard-tilelang", "--ref", "HEAD", "--all-files",
           cwd=repo, env=env)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "- hook id: asyncguard-tilelang" in out and "Failed" in out
    assert "kernels/transpose.py::transpose[M=1024,N=1024,block=32,threads=128]@sm_80:" in out
    assert "AG201" in out and "python: kernels/transpose.py:12 (kernel transpose)" in out
    for clean in ("kernels/reduce.py::row_sum@sm_80: clean", "kernels/reduce.py::row_sum@sm_90a: clean",
                  "]@sm_80: clean", "]@sm_90a: clean"):
        assert clean in out
    assert "setup_helpers" not in out
    # the race fixed (TileLang's sync pass back on): the hook passes
    t = repo / "kernels" / "transpose.py"
    t.write_text(t.read_text().replace('@tilelang.jit(pass_configs={"tl.disable_thread_storage_sync": True})',
                                       "@tilelang.jit"))
    sh("git", "add", ".", cwd=repo)
    p = sh(PRE_COMMIT, "try-repo", str(ROOT), "asyncguard-tilelang", "--ref", "HEAD", "--all-files",
           cwd=repo, env=env)
    assert p.returncode == 0 and "Passed" in p.stdout, p.stdout + p.stderr
