"""Launch and shared-memory budgets (AG5xx): exact figures against the architecture tables and
the H200 measurements in bench/resources/."""
from pathlib import Path

from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.checks.resources import Budget, budget_rows, congruence, misaligned
from asyncguard.cli import main
from asyncguard.models.arch import SM75, SM80, SM86, SM89, SM90, SM100, lookup

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
RES = CORPUS / "resources"


def _check(name: str, arch: str | None = None, text: str | None = None):
    path = RES / f"{name}.tir"
    return check_text(text if text is not None else path.read_text(), str(path), arch=arch)


def _only(report, code):
    found = [f for f in report.findings if f.rule.code == code]
    assert len(found) == 1, [(f.rule.code, f.line) for f in report.findings]
    return found[0]


# ---------------------------------------------------------------- the architecture table
def test_per_block_and_per_sm_figures():
    assert (SM75.smem_per_sm, SM75.smem_per_block_optin) == (65536, 65536)
    assert (SM80.smem_per_sm, SM80.smem_per_block_optin) == (167936, 166912)
    assert (SM86.smem_per_sm, SM86.smem_per_block_optin) == (102400, 101376)
    assert (SM89.smem_per_sm, SM89.smem_per_block_optin) == (102400, 101376)
    assert (SM90.smem_per_sm, SM90.smem_per_block_optin) == (233472, 232448)   # H200 measured
    assert (SM100.smem_per_sm, SM100.smem_per_block_optin) == (233472, 232448)
    for a in (SM80, SM86, SM89, SM90, SM100):
        assert a.reserved_per_block == 1024 and a.static_cap == 49152
        assert a.smem_per_sm - a.smem_per_block_optin == 1024
    assert [a.max_threads_per_sm for a in (SM75, SM80, SM86, SM89, SM90, SM100)] == \
        [1024, 2048, 1536, 1536, 2048, 2048]
    assert [a.max_blocks_per_sm for a in (SM75, SM80, SM86, SM89, SM90, SM100)] == [16, 32, 16, 24, 32, 32]
    assert all(a.regs_per_sm == 65536 and a.regs_per_thread == 255 for a in (SM75, SM80, SM90))


def test_lookup():
    assert lookup("sm_80") is SM80 and lookup("sm89") is SM89 and lookup("9.0") is SM90
    a = lookup({"arch": "sm_90a", "kind": "cuda"})
    assert a.name == "sm_90a" and a.arch_specific and a.smem_per_block_optin == 232448
    assert lookup("sm_100a").arch_specific and not lookup("sm_100").arch_specific
    assert lookup("sm_61") is None and lookup(None) is None


def test_carveout_rounds_up_to_a_supported_size():
    # measured on an H200: 50% -> 132 KiB (7 blocks of 16 KiB), 25% -> 64 KiB (3 blocks)
    assert SM90.carveout_bytes(50) == 132 * 1024
    assert SM90.carveout_bytes(25) == 64 * 1024
    assert SM90.carveout_bytes(100) == 233472
    assert SM86.carveout_bytes(50) == 64 * 1024


def test_occupancy_matches_h200_measurements():
    """cudaOccupancyMaxActiveBlocksPerMultiprocessor on an H200 (bench/resources/smem_probe.cu)."""
    dyn_only = Budget("k", SM90, 128, 0, 0, 0, "x", 0, "", 0, 0)
    assert [dyn_only.blocks_smem(d) for d in (16384, 32768, 49152, 65536, 98304, 116736)] == \
        [13, 6, 4, 3, 2, 1]
    assert dyn_only.occupancy(8192) == 16                     # 2048 threads / 128
    tilelang = Budget("k", SM90, 256, 48, 976, 0, "x", 0, "", 0, 0)   # static reported as 1024
    assert tilelang.blocks_smem(16384) == 12 and tilelang.blocks_smem(100000) == 2
    assert tilelang.occupancy(16384) == 8
    assert tilelang.max_request_for(1) == 231424              # measured max dynamic attribute


# ---------------------------------------------------------------- the corpus failures, exact numbers
def test_232464_over_232448_on_sm90():
    f = _only(_check("static16_dyn_limit_sm90"), "AG503")
    assert f.line == 8
    w = f.witness
    assert (w["dynamic"], w["static"], w["padding"], w["required"], w["limit"]) == \
        (232448, 16, 0, 232464, 232448)
    assert "dynamic 232448 + static 16 = 232464 required > 232448" in f.message
    ok = _check("static16_dyn_fits_sm90")
    assert ok.verdict == "clean" and ok.kernels[0].resources["total"] == 232448


def test_tilelang_padding_counts_on_sm90a():
    f = _only(_check("tilelang_padding_over_limit_sm90a"), "AG503")
    w = f.witness
    assert (w["dynamic"], w["static"], w["padding"], w["required"], w["limit"]) == \
        (231936, 48, 976, 232960, 232448)


def test_sm89_limit_and_arch_override():
    f = _only(_check("over_limit_sm89"), "AG503")
    assert (f.witness["required"], f.witness["limit"]) == (102400, 101376)
    # the sm_90 kernel that fits exactly does not fit on sm_89 (--arch overrides the target attr)
    f = _only(_check("static16_dyn_fits_sm90", arch="sm_89"), "AG503")
    assert (f.witness["arch"], f.witness["required"], f.witness["limit"]) == ("sm_89", 232448, 101376)


def test_sm120_and_sm103_have_their_own_limits():
    # consumer Blackwell (CC 12.0) has the 8.6/8.9 shared memory, not the data-center 10.x one
    f = _only(_check("static16_dyn_fits_sm90", arch="sm_120"), "AG503")
    assert (f.witness["arch"], f.witness["required"], f.witness["limit"]) == ("sm_120", 232448, 101376)
    ok = _check("static16_dyn_fits_sm90", arch="sm_103a")
    assert ok.verdict == "clean" and ok.kernels[0].resources["total"] == 232448


def test_sm80_limit_exact_boundary():
    text = (RES / "static16_dyn_fits_sm90.tir").read_text().replace('"sm_90"', '"sm_80"')
    at = text.replace("232432", str(166912 - 16))
    assert not [f for f in _check("x", text=at).findings if f.rule.code == "AG503"]
    over = text.replace("232432", str(166912 - 15))
    f = _only(_check("x", text=over), "AG503")
    assert (f.witness["required"], f.witness["limit"]) == (166913, 166912)


def test_dynamic_request_smaller_than_views():
    f = _only(_check("dyn_zero_views_80k_sm80"), "AG501")
    assert f.line == 3 and f.witness["dynamic"] == 0 and f.witness["need"] == 81920


def test_no_opt_in_above_48k():
    f = _only(_check("dyn_64k_no_optin_sm89"), "AG502")
    assert f.witness["attribute"] == 49152 and f.witness["dynamic"] == 65536
    assert _check("dyn_64k_opted_in_sm89").verdict == "clean"


def test_static_over_48k():
    f = _only(_check("static_over_48k_sm80"), "AG504")
    assert f.line == 12 and f.witness["static"] == 49168
    text = (RES / "static_over_48k_sm80.tir").read_text().replace('"sm_80"', '"sm_90a"')
    assert not [f for f in _check("x", text=text).findings if f.rule.code == "AG504"]


def test_over_request_costs_occupancy():
    f = _only(_check("over_request_sm90"), "AG505")
    assert (f.witness["blocks"], f.witness["blocks_at_need"], f.witness["keep_request"]) == (1, 8, 28160)


def test_carveout_too_small():
    f = _only(_check("carveout_small_sm90"), "AG506")
    assert (f.witness["carveout_bytes"], f.witness["fit"], f.witness["min_blocks"]) == (65536, 3, 4)


def test_alignment_rules():
    f = _only(_check("cp_async_misaligned_sm80"), "AG507")
    assert (f.line, f.witness["address"], f.witness["bytes"], f.witness["threads"]) == (13, 8, 16, 32)
    f = _only(_check("tma_misaligned_sm90a"), "AG508")
    assert f.witness["align"] == 128 and f.witness["residue"] == 64
    f = _only(_check("tma_swizzle128_misaligned_sm90a"), "AG508")
    assert f.witness["align"] == 1024 and f.witness["residue"] % 1024 == 512
    # the fixed kernel (box at byte 128): no AG508, whatever the TMA model says about the rest
    fixed = (RES / "tma_misaligned_sm90a.tir").read_text().replace("A_shared, 32, 4096, 2)", "A_shared, 64, 4096, 2)") \
        .replace("8256", "8320").replace("4128", "4160").replace("tx + 32]", "tx + 64]")
    assert not [f for f in _check("x", text=fixed).findings if f.rule.kind == "resource"]
    # a 1-D bulk store (no tensor map) needs 16-byte addresses, not a box's 128
    assert _check("bulk_store_16_aligned_sm90a").verdict == "clean"
    text = (RES / "bulk_store_16_aligned_sm90a.tir").read_text().replace("O_shared, 8, 256, 1)", "O_shared, 4, 256, 1)")
    f = _only(_check("x", text=text), "AG508")
    assert f.witness["align"] == 16 and f.witness["residue"] == 8 and "1-D bulk copy" in f.message
    f = _only(_check("mbarrier_misaligned_sm90a"), "AG509")
    assert f.line == 17 and f.witness["residue"] % 8 == 4 and f.witness["also_used_at"] == [22, 23]


def test_congruence():
    k, i = ir.Var("k"), ir.Var("i")
    c = lambda v: ir.Const(v)  # noqa: E731
    e = ir.BinOp("+", ir.BinOp("*", ir.BinOp("%", k, c(3)), c(8192)), ir.BinOp("*", i, c(4096)))
    assert congruence(e) == (0, 4096)
    assert congruence(ir.BinOp("+", e, c(32))) == (32, 4096)
    assert misaligned(32 * 2, 4096 * 2, 128) and not misaligned(0, 8192, 128)
    assert not misaligned(4, 1, 8)          # unknown: never reported


# ---------------------------------------------------------------- real kernels and the table
def test_real_kernels_have_no_resource_findings():
    for tir in sorted((CORPUS / "real").glob("*.tir")):
        rep = check_text(tir.read_text(), str(tir))
        assert not [f for f in rep.findings if f.rule.kind == "resource"], tir.name


def test_real_kernel_figures_by_hand():
    # gemm_sm80_s3_128x128x32: 49152 dynamic, no static; sm_80 167936 per SM:
    # 167936 // (49152 + 1024) = 3 blocks; 167936 // 3 - 1024 = 54954 -> 54912 (128-B units)
    r = budget_rows((CORPUS / "real/gemm_sm80_s3_128x128x32.tir").read_text(), "g")[0]
    assert (r["static"], r["pad"], r["dynamic"], r["total"], r["limit"]) == (0, 0, 49152, 49152, 166912)
    assert (r["blk/SM smem"], r["blk/SM thr"], r["blk/SM"], r["keep<="]) == (3, 16, 3, 54912)
    # gemm_sm90a_ws_s3_128x128x64: 6 mbarriers = 48 static bytes, padded to 1024 before the
    # 1024-aligned dynamic buffer; 98304 + 1024 = 99328; 233472 // (99328 + 1024) = 2;
    # 233472 // 2 - 1024 - 1024 = 114688; threads: 2048 // 256 = 8
    r = budget_rows((CORPUS / "real/gemm_sm90a_ws_s3_128x128x64.tir").read_text(), "g")[0]
    assert (r["static"], r["pad"], r["dynamic"], r["total"], r["limit"]) == (48, 976, 98304, 99328, 232448)
    assert (r["blk/SM smem"], r["blk/SM thr"], r["blk/SM"], r["keep<="]) == (2, 8, 2, 114688)


def test_cli_resources_table(capsys):
    path = str(RES / "over_request_sm90.tir")
    assert main(["check", "--resources", path]) == 1
    out = capsys.readouterr().out
    assert "blk/SM" in out and "over_request_sm90.tir" in out and "28160" in out
    main(["check", "--resources", "--arch", "sm_89", str(RES / "static16_dyn_fits_sm90.tir")])
    out = capsys.readouterr().out
    assert "AG503" in out and "101376" in out


def test_sub_byte_elements_take_half_a_byte_in_the_dynamic_budget():
    # TileLang's own test (testing/python/components, test_single_dynamic_fp4_allocation_uses_packed_size):
    # 127 float4_e2m1fn elements take 64 bytes, which is what the kernel asks for; counted as one
    # byte each they made a false AG501 ("127 bytes are needed"), on int4 / uint4 kernels too
    path = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide" /
            "components__cuda_shared_memory_alias_codegen__test_single_dynamic_fp4_allocation_uses_packed_size__sm_80.tir")
    text = path.read_text()
    assert '"dyn_shared_memory_buf": 64,' in text
    assert check_text(text, str(path)).verdict == "clean"
    small = check_text(text.replace('"dyn_shared_memory_buf": 64,', '"dyn_shared_memory_buf": 63,'), str(path))
    assert {f.rule.code for f in small.findings} == {"AG501"}


def test_a_launch_over_the_limit_is_reported_when_the_run_loses_its_paths():
    """Megatron's sparse MLA backward lowered for sm_80 asks for more shared memory than an sm_80
    block may have (AG503). With a barrier in place of the first atomic its loaded-index guards
    enclose (`if 0 <= idx: if idx < seq_len_kv: ...`), a branch on a loaded number decides
    synchronization and stops the run (`unknown` there; the kernel as lowered is judged whole
    since session 29: tests/test_data_dependent.py). The launch's own request does not depend on
    those paths: AG503 stays (checks/resources.py LAUNCH_RULES)."""
    tir = CORPUS / "unseen_users" / "megatron_lm__drv_megatron_dsa__bwd.sparse_mla_bwd_kernel__sm_80.tir"
    lines = tir.read_text().split("\n")
    k = next(i for i, ln in enumerate(lines) if "T.atomic_addx4_elem_op" in ln)
    indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
    rep = check_text("\n".join(lines[:k] + [indent + 'T.tvm_storage_sync("shared")'] + lines[k + 1:]), str(tir))
    assert any(f.rule.code == "AG001" and "branch condition" in f.message for f in rep.findings)
    assert rep.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in rep.findings if f.rule.kind != "unsupported"} == {("AG503", 8)}
