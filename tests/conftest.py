from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


@pytest.fixture
def corpus():
    return CORPUS


@pytest.fixture(autouse=True)
def _own_results_cache(tmp_path_factory, monkeypatch):
    """Each test gets an empty results cache (never the user's): a test that patches the engine
    must see the engine run, not a report stored by another test."""
    monkeypatch.setenv("ASYNCGUARD_CACHE_DIR", str(tmp_path_factory.mktemp("asyncguard-cache")))
