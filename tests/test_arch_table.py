"""Targets the per-architecture table (models/arch.py) does not know get no limits, and the scope
says so; sm_110 and sm_121 take the figures of NVIDIA's libcudacxx arch traits."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.models.arch import lookup

MLA = Path(__file__).resolve().parent.parent / "corpus" / "unseen_archs" / "sm103_121" / \
    "deepseek_mla__example_mla_decode__flashattn.main_no_split__sm_121a.tir"


def test_thor_and_gb10_have_the_libcudacxx_figures():
    # NVIDIA/cccl arch_traits<sm_110>: sm_100's shared memory, 1536 threads and 24 blocks per SM;
    # arch_traits<sm_121>: every figure of sm_120 (models/arch.py [CCCL])
    thor, b200 = lookup("sm_110a"), lookup("sm_100a")
    assert thor.cc == (11, 0) and thor.arch_specific
    assert thor.smem_per_block_optin == b200.smem_per_block_optin
    assert (thor.max_threads_per_sm, thor.max_blocks_per_sm) == (1536, 24)
    gb10, rtx = lookup("sm_121a"), lookup("sm_120")
    assert gb10.cc == (12, 1) and gb10.arch_specific
    assert (gb10.smem_per_sm, gb10.smem_per_block_optin, gb10.max_threads_per_sm) == \
        (rtx.smem_per_sm, rtx.smem_per_block_optin, rtx.max_threads_per_sm) == (100 * 1024, 99 * 1024, 1536)


def test_a_gb10_kernel_over_its_shared_memory_is_refused():
    # TileLang's MLA decode lowered for sm_121a asks 231,424 dynamic bytes: over GB10's 99 KB per
    # block (it came back clean while sm_121 was not in the table)
    rep = check_text(MLA.read_text(), MLA.name)
    assert any(f.rule.code == "AG503" for f in rep.findings)
    assert not any("not in asyncguard's table" in s for k in rep.kernels for s in k.scope)


def test_an_unknown_target_says_its_limits_were_not_checked():
    text = MLA.read_text().replace('"arch": "sm_121a"', '"arch": "sm_72"')
    assert '"arch": "sm_72"' in text
    rep = check_text(text, MLA.name)
    assert not any(f.rule.code.startswith("AG50") for f in rep.findings)
    scope = [s for k in rep.kernels for s in k.scope]
    assert any(s.startswith("target sm_72: not in asyncguard's table") for s in scope), scope
    # 231,424 dynamic bytes: over CC 12.0's 99 KB per block when checked against it
    rep = check_text(text, MLA.name, arch="sm_120")
    assert any(f.rule.code == "AG503" for f in rep.findings)
    assert not any("not in asyncguard's table" in s for k in rep.kernels for s in k.scope)


def test_orin_v100_and_cc88_have_the_libcudacxx_figures():
    # NVIDIA/cccl arch_traits<sm_87>, <sm_70>, <sm_88> (models/arch.py [CCCL-T])
    orin, v100, cc88, ga10x = lookup("sm_87"), lookup("sm_70"), lookup("sm_88"), lookup("sm_86")
    assert (orin.smem_per_sm, orin.smem_per_block_optin, orin.max_threads_per_sm, orin.max_blocks_per_sm) == \
        (164 * 1024, 163 * 1024, 1536, 16)
    assert (v100.smem_per_sm, v100.smem_per_block_optin, v100.reserved_per_block) == (96 * 1024, 96 * 1024, 0)
    assert (cc88.cc, cc88.smem_per_block_optin, cc88.max_blocks_per_sm) == ((8, 8), ga10x.smem_per_block_optin, 16)
    assert lookup("sm_72") is None


def test_an_orin_launch_over_its_shared_memory_is_refused():
    # the MLA decode's 231,424 dynamic bytes: over Orin's 163 KB per block, and its limits checked
    rep = check_text(MLA.read_text(), MLA.name, arch="sm_87")
    assert any(f.rule.code == "AG503" and "sm_87" in f.message for f in rep.findings), \
        [f.message for f in rep.findings]
    assert not any("not in asyncguard's table" in s for k in rep.kernels for s in k.scope)



def test_tcgen05_on_orin_does_not_build():
    # ptxas 13.0 refuses tcgen05 for sm_87 (bench/resources/arch_features/probe.txt): a 2-CTA
    # tcgen05 GEMM lowered for sm_100a and checked for Orin is AG510, and its 213 KB AG503
    path = Path(__file__).resolve().parent.parent / "corpus" / "field" / \
        "gemm_tcgen05__gemm_tcgen5mma_ws_persistent__gemm_persistent_2cta__sm_100a.tir"
    rep = check_text(path.read_text(), path.name, arch="sm_87")
    codes = {f.rule.code for f in rep.findings}
    assert {"AG510", "AG503"} <= codes, [f.message for f in rep.findings]
