"""AG510: an instruction family the kernel's target cannot assemble (wgmma off sm_90a, setmaxnreg off
the `a`/`f` targets, tcgen05 off sm_100/103/110 `a`/`f`). Two texts that differ only in the target's
suffix get different answers for AG510 and the same for everything else."""
import re
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.models.arch import PROBED, TARGET_FEATURES

ROOT = Path(__file__).resolve().parent.parent
HOPPER = ROOT / "corpus/field/gemm__example_gemm_autotune_pass_configs__main_gc_1__sm_90a.tir"   # wgmma + setmaxnreg
BLACKWELL = ROOT / "corpus/field/gemm_tcgen05__gemm_tcgen5mma__matmul__sm_100a.tir"              # tcgen05
PROBE = ROOT / "bench/resources/arch_features/probe.txt"


def retarget(path: Path, arch: str) -> str:
    text = path.read_text()
    old = re.search(r'"arch": "(sm_\w+)"', text).group(1)
    return text.replace(f'"arch": "{old}"', f'"arch": "{arch}"')


def ag510(report) -> dict:
    """family -> (line, call) of each AG510."""
    return {f.witness["family"]: (f.line, f.witness["call"]) for f in report.findings if f.rule.code == "AG510"}


def others(report) -> set:
    return {(f.rule.code, f.line) for f in report.findings if f.rule.code != "AG510"}


def test_plain_sm90_has_no_wgmma_nor_setmaxnreg():
    specific = check_text(HOPPER.read_text(), "k.tir")
    plain = check_text(retarget(HOPPER, "sm_90"), "k.tir")
    assert specific.verdict == "clean" and not ag510(specific)
    # the first call of each family, once per kernel
    assert ag510(plain) == {"setmaxnreg": (33, "T.set_max_nreg"), "wgmma": (55, "T.warpgroup_arrive")}
    assert plain.verdict == "warnings" and others(plain) == others(specific)
    msg = next(f.message for f in plain.findings if f.witness["family"] == "wgmma")
    assert "only for sm_90a" in msg and "a build for sm_90 fails" in msg


def test_arch_override_is_the_target():
    plain = retarget(HOPPER, "sm_90")
    assert not ag510(check_text(plain, "k.tir", arch="sm_90a"))
    # and the override can take the suffix away too
    assert set(ag510(check_text(HOPPER.read_text(), "k.tir", arch="sm_90"))) == {"wgmma", "setmaxnreg"}


@pytest.mark.parametrize("arch,expected", [
    ("sm_120a", {"wgmma"}),                   # consumer Blackwell has setmaxnreg, no wgmma
    ("sm_100a", {"wgmma"}),                   # datacenter Blackwell: wgmma is gone
    ("sm_121f", {"wgmma"}),
    ("sm_89", {"wgmma", "setmaxnreg"}),
    ("sm_130a", set()),                       # not probed: not judged
])
def test_hopper_kernel_on_other_targets(arch, expected):
    assert set(ag510(check_text(retarget(HOPPER, arch), "k.tir"))) == expected


@pytest.mark.parametrize("arch,flagged", [("sm_100a", False), ("sm_100f", False), ("sm_110a", False),
                                          ("sm_100", True), ("sm_120a", True)])
def test_tcgen05_targets(arch, flagged):
    rep = check_text(retarget(BLACKWELL, arch), "k.tir")
    assert ("tcgen05" in ag510(rep)) is flagged


def test_table_is_what_ptxas_said():
    """models/arch.py TARGET_FEATURES is bench/resources/arch_features/probe.sh's output (nvcc 13.0)."""
    seen = {}
    for line in PROBE.read_text().splitlines():
        fam, sep, targets = line.partition(":")
        if sep and fam in TARGET_FEATURES:
            seen[fam] = frozenset(targets.split())
    assert seen == TARGET_FEATURES
    assert all(t in PROBED for ts in TARGET_FEATURES.values() for t in ts)
