"""The held-out probes added in sessions 28 to 31 keep the verdicts recorded in their expect.json (each definite
finding judged against the TIR in the corpus's README; a change of verdict is a change to read, then
record with `python corpus/expect_unseen.py --dir DIR [--skip-timed-out]`):

- corpus/unseen_versions: TileLang 0.1.8's examples lowered by tilelang 0.1.8 (tag v0.1.8);
- corpus/unseen_v0111: TileLang 0.1.11's examples lowered by tilelang 0.1.11 (tag v0.1.11);
- corpus/unseen_users: TileLang kernels from public repositories other than TileLang's, lowered by 0.1.15.
  Only the licensed repositories' kernels are committed (results.json records the others' verdicts);
- corpus/unseen_tvm (session 29): kernels lowered by TVM itself (the TVM 0.25.dev0 TileLang 0.1.15 bundles:
  its software pipeliner, dlight, hand schedules), not by TileLang;
- corpus/unseen_tvm_builtins (session 29): TVMScript kernels of apache/tvm's own tests (at bc1a904e) that use
  TVM's PTX builtins, lowered by that TVM, and single-bug variants of them;
- corpus/unseen_users2 (session 30): kernels of tile-ai/TileOPs and Anjiang-Wei/tilelang_PTX lowered by 0.1.15;
- corpus/unseen_newer (session 30): the TileLang tests and examples that pull requests after a35008a4 add,
  lowered by 0.1.15;
- corpus/unseen_archs (session 30): TileLang's generic examples lowered by 0.1.15 for sm_90 (no `a`) and sm_75;
- corpus/unseen_tests_sm100 (session 31): TileLang's own tests (the unseen_wide selection) lowered for sm_100a only.
- corpus/unseen_upstream (session 32): example versions in TileLang's open and recently closed pull requests (none newer
  on main than a35008a4), lowered by 0.1.15.
- corpus/unseen_passcfg2 (sessions 38-39): the examples under five more user pass configs (the aggressive
  shared-memory merge, no elect.sync, no loop unswitching, no wgmma, cp.async), lowered by 0.1.15.
- corpus/unseen_large (session 42): the examples at production sizes (8192^3 GEMMs, 8K-32K sequences).

Cheap in CI: kernels whose recorded check took more than FAST_S seconds are marked slow."""
from pathlib import Path

import pytest

from _pinned import PinnedCorpus

ROOT = Path(__file__).resolve().parent.parent / "corpus"
# folder -> (a commit its README names, the fewest kernels, every kernel timed in results.json)
PROBES = {
    "unseen_versions": ("41b25527cd672434f88eeea7e056d8d7c0d4faa4", 200, True),
    "unseen_v0111": ("cd37ed5fc35ae7a60a1277c8eb49028174ac51e6", 200, True),
    "unseen_users": ("1d9372ce82be80be8c109da9d2c89351fc89c92a", 30, False),
    "unseen_tvm": ("0.25.dev0", 50, True),
    "unseen_tvm_builtins": ("bc1a904ec1ad89454ee6577d66cde1268b8f6bc8", 30, True),
    "unseen_users2": ("52dbc0865316ad4f722cb54631e0d2d0ba3e86c0", 70, True),
    "unseen_newer": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 6, True),
    "unseen_archs": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 80, True),
    "unseen_tests_sm100": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 200, True),
    "unseen_upstream": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 15, True),
    "unseen_passcfg2": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 80, True),
    "unseen_large": ("a35008a42531c62b976ae4cec3855d4383db0f3c", 35, True),
}
CORPORA = {name: PinnedCorpus(ROOT / name) for name in PROBES}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_probe_is_there(name):
    corpus, (commit, fewest, all_timed) = CORPORA[name], PROBES[name]
    names = [p.name for p in corpus.files]
    assert len(names) >= fewest
    assert commit in (corpus.folder / "README.md").read_text()
    assert sorted(corpus.expect) == names
    assert (sorted(corpus.times) == names) if all_timed else (set(corpus.times) >= set(names))


@pytest.mark.parametrize("name,tir", [pytest.param(name, p.values[0], id=f"{name}/{p.id}", marks=p.marks)
                                      for name in sorted(PROBES) for p in CORPORA[name].params()])
def test_probe_kernel_keeps_its_verdict(name, tir: Path):
    CORPORA[name].check_against_record(tir)
