"""tcgen05.dealloc ends its allocation (docs/model.md "Deallocation"): a tensor-memory access not
ordered before it races with it. The cta_group::2 form is AG420 by default (the PTX ISA: the pair
"must synchronize Tensor Memory accesses before attempting to collectively deallocate"); the
single-CTA form, where the ISA states no rule, is AG421 under `--strict tmem` (TIRx-kernels#19,
Triton PR 7994)."""
import pathlib

from asyncguard.analyze import Limits, check_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIELD = ROOT / "corpus" / "field"
TIRX19 = ROOT / "corpus" / "trackers_r3" / "tirx19_tmem_dealloc_before_cg_warps_done_sm100a"
GEMM_2CTA = FIELD / "gemm_tcgen05__gemm_tcgen5mma_ws__gemm_2cta__sm_100a.tir"


def found(text, strict=()):
    rep = check_text(text, limits=Limits(strict=strict))
    return rep.verdict, sorted({(f.rule.code, f.line) for f in rep.findings}), rep.findings


def dealloc_moved_before_the_epilogue_wait() -> str:
    """TileLang's 2-CTA GEMM with warp 0's dealloc moved from after the final cluster_sync to
    before the epilogue's wait on tmem_full: the MMAs may still write the accumulator."""
    lines = GEMM_2CTA.read_text().splitlines()
    d = next(i for i, x in enumerate(lines) if "ptx_deallocate_tensor_memory" in x)
    block = lines[d - 1:d + 1]
    del lines[d - 1:d + 1]
    w = next(i for i, x in enumerate(lines) if "T.mbarrier_wait_parity(tmem_full_1[0], 0)" in x)
    lines[w:w] = ["    " + x for x in block]
    return "\n".join(lines) + "\n"


def test_the_2cta_gemm_deallocates_after_its_cluster_barrier():
    for strict in ((), ("tmem",)):
        assert found(GEMM_2CTA.read_text(), strict)[:2] == ("clean", [])


def test_2cta_dealloc_before_the_accumulator_is_acquired():
    text = dealloc_moved_before_the_epilogue_wait()
    verdict, rules, findings = found(text)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "ptx_deallocate_tensor_memory" in x)
    assert verdict == "buggy" and rules == [("AG420", line)]
    assert "the tcgen05.mma at line" in findings[0].message and "accumulator, lane 0 column 0" in findings[0].message


def test_tirx_19_is_strict_tmem():
    buggy = (TIRX19.parent / (TIRX19.name + ".tir")).read_text()
    fixed = (TIRX19.parent / (TIRX19.name + "_fixed.tir")).read_text()
    assert found(buggy)[:2] == ("clean", [])
    verdict, rules, findings = found(buggy, ("tmem",))
    assert verdict == "buggy" and rules == [("AG421", 33)]
    assert findings[0].witness["first"]["line"] == 30 or findings[0].witness["second"]["line"] == 30
    assert found(fixed, ("tmem",))[:2] == ("clean", [])


def test_tilelang_gqa_forward_deallocates_from_the_producer_warp():
    # TileLang 0.1.15's sm_100 flash attention: warp 0 frees S_tmem and D_tmem after its loads,
    # unordered with the MMAs and the consumers' tcgen05.ld (docs/model.md "Deallocation")
    text = (FIELD / "flash_attention_sm100__gqa_fwd_bshd__flashattn__sm_100a.tir").read_text()
    default = found(text)[1]
    strict = found(text, ("tmem",))[1]
    assert not any(code in ("AG420", "AG421") for code, _ in default)
    assert sorted(set(strict) - set(default)) == [("AG421", 196), ("AG421", 197)]


def test_fix_puts_a_named_barrier_over_the_role_that_deallocates():
    # a block barrier inside `if tx >= 128` would hang threads 0..127: the repair's barrier for a
    # thread-dependent branch is `bar.sync ID, N` over the threads that reach it (TIRx-kernels#19's fix)
    from asyncguard.repair import repair_text
    text = (TIRX19.parent / (TIRX19.name + ".tir")).read_text()
    r = repair_text(text, str(TIRX19), limits=Limits(strict=("tmem",)))
    assert r.status == "fixed"
    added = [b for b in r.new_text.splitlines() if b not in text.splitlines()]
    assert added == ['        T.tvm_storage_sync("shared", 15, 128)']
    assert found(r.new_text, ("tmem",))[:2] == ("clean", [])


def test_threads_reaching_a_gap():
    from asyncguard.repair.tree import Gap, Tree
    tree = Tree((TIRX19.parent / (TIRX19.name + ".tir")).read_text())
    dealloc = next(s for s in tree.stmts if type(s).__name__ == "ExprStmt"
                   and "ptx_deallocate_tensor_memory" in tree.src(s))
    bi, i = tree.where[id(dealloc)]
    assert tree.threads_at(Gap(bi, i)) == 32            # inside `if tx // 32 == 4` under `tx >= 128`
    outer = tree.blocks[bi].parent
    assert tree.threads_at(Gap(*tree.where[id(outer)])) == 128   # the `tx >= 128` branch


TS_NONZERO = ROOT / "corpus" / "unseen_tests_sm100" / \
    "language__language_tcgen05_sliced_operands__test_tcgen05_ts_nonzero_c_m_n_origins_compile__sm_100a.tir"


def test_an_opt_in_dealloc_race_does_not_hide_a_default_unwritten_read():
    # TileLang's compile-only TS MMA test (lowered for sm_100a): the MMA at line 27 reads B_shared and
    # its tensor-memory A operand, which nothing wrote, and is never committed before the dealloc.
    # The dealloc race is AG421, opt-in; by default the unwritten read (AG417) is still reported.
    verdict, rules, _ = found(TS_NONZERO.read_text())
    assert verdict == "buggy" and ("AG417", 27) in rules and ("AG411", 27) in rules
    assert not any(code == "AG421" for code, _ in rules)
    _, strict_rules, _ = found(TS_NONZERO.read_text(), ("tmem",))
    # under --strict tmem both are reported
    assert ("AG417", 27) in strict_rules and any(c == "AG421" for c, _ in strict_rules)
