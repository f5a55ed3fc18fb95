"""Targets the per-architecture table (models/arch.py) does not know get no limits, and the scope
says so; sm_110 takes the 10.0 figures (NVIDIA's libcudacxx arch traits)."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.models.arch import lookup

MLA = Path(__file__).resolve().parent.parent / "corpus" / "unseen_archs" / "sm103_121" / \
    "deepseek_mla__example_mla_decode__flashattn.main_no_split__sm_121a.tir"


def test_sm110_has_the_100_figures():
    a, b = lookup("sm_110a"), lookup("sm_100a")
    assert a.cc == (11, 0) and a.arch_specific
    assert (a.smem_per_block_optin, a.max_threads_per_sm) == (b.smem_per_block_optin, b.max_threads_per_sm)
    assert lookup("sm_121a") is None


def test_an_unknown_target_says_its_limits_were_not_checked():
    text = MLA.read_text()
    rep = check_text(text, MLA.name)
    assert not any(f.rule.code.startswith("AG50") for f in rep.findings)
    scope = [s for k in rep.kernels for s in k.scope]
    assert any(s.startswith("target sm_121a: not in asyncguard's table") for s in scope), scope
    # 231,424 dynamic bytes: over CC 12.0's 99 KB per block when checked against it
    rep = check_text(text, MLA.name, arch="sm_120")
    assert any(f.rule.code == "AG503" for f in rep.findings)
    assert not any("not in asyncguard's table" in s for k in rep.kernels for s in k.scope)
