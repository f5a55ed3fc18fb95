"""Data-dependent, block-uniform control flow: a truth value loaded from read-only global memory
(a block-sparse mask) is an unknown input, and the kernel is checked for every outcome pattern."""
import textwrap
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine.inputs import Inputs, InputSearch

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "handwritten"


def report(name: str):
    path = CORPUS / name
    return check_text(path.read_text(), str(path))


def test_search_runs_every_pattern_of_the_cells_it_meets_once():
    seen = []
    search = InputSearch(limit=64)
    for inputs in search:
        vals = tuple(inputs.value(c, f"M[{c}]", both=True) for c in range(3))
        seen.append(vals)
    assert sorted(seen) == sorted({(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)})
    assert search.runs == 8 and not search.truncated


def test_search_stops_at_its_limit_and_says_so():
    search = InputSearch(limit=4)
    for inputs in search:
        for c in range(3):
            inputs.value(c, f"M[{c}]", both=True)
    assert search.runs == 4 and search.truncated


def test_past_its_limit_a_search_runs_on_while_the_runs_stay_cheap():
    def run(search, cost):
        for inputs in search:
            for c in range(8):
                inputs.value(c, f"M[{c}]", both=True)
            search.spent += cost   # what analyze.py adds after each run
        return search
    cheap = run(InputSearch(limit=64, more_runs=1024, more_steps=60_000), 100)
    assert cheap.runs == 256 and not cheap.truncated
    dear = run(InputSearch(limit=64, more_runs=1024, more_steps=60_000), 1000)
    assert dear.runs == 64 and dear.truncated   # 64 runs already spent more than the budget
    capped = run(InputSearch(limit=64, more_runs=100, more_steps=60_000), 1)
    assert capped.runs == 100 and capped.truncated


def test_a_pipelined_block_sparse_gemm_with_its_mask_in_a_register_gets_every_pattern():
    # TileLang's test_blocksparse_matmul (testing/python/language, sm_90a): the mask of the next
    # k-block is loaded into a register in iteration k and decides iteration k + 1's wgmma, so
    # its 8 cells make 2^8 patterns, past the 64 a search runs first (it was unknown, AG002)
    path = CORPUS.parent / "unseen" / "language__language_pipeline__test_blocksparse_matmul__sm_90a.tir"
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("every outcome pattern checked (256 run(s))" in s for s in rep.kernels[0].scope)


def test_cells_that_only_guard_accesses_are_taken_not_enumerated():
    search = InputSearch()
    for inputs in search:
        assert inputs.value(0, "M[0]", both=False) == 1
    assert search.runs == 1
    assert Inputs().alternatives() == []


def test_block_sparse_ring_is_clean_for_every_mask():
    # every statement of both loops sits under the mask cell: the 4 counts stand for the 8 patterns
    rep = report("blocksparse_ws_ring.tir")
    assert rep.verdict == "clean"
    scope = " ".join(rep.kernels[0].scope)
    assert "every outcome pattern checked (4 run(s))" in scope
    assert "one run per count covers every pattern" in scope


def test_a_bug_only_a_mixed_mask_shows_is_found_with_its_pattern():
    # the consumer advances its phase outside the mask's branch: a false iteration does
    # something, so the loop is not searched by count, and every pattern runs
    rep = report("blocksparse_ws_ring_counts_skipped.tir")
    assert rep.verdict == "buggy"
    assert any("every outcome pattern checked (8 run(s))" in s for s in rep.kernels[0].scope)
    hang = next(f for f in rep.findings if f.rule.code == "AG408")
    assert hang.line == 41
    pattern = hang.witness["inputs"]
    assert 0 in pattern.values() and 1 in pattern.values()   # mixed: some tiles skipped, some not


def test_a_mask_address_that_differs_between_threads_stays_unknown():
    rep = report("blocksparse_ws_ring_thread_mask.tir")
    assert rep.verdict == "unknown"
    assert "differs between threads" in rep.findings[0].message


def test_lowered_block_sparse_gemm_is_clean_and_a_dropped_barrier_is_found():
    rep = report("blocksparse_gemm_sm80.tir")
    assert rep.verdict == "clean"
    assert any("checked taken" in s for s in rep.kernels[0].scope)
    bug = report("blocksparse_gemm_sm80_drop_barrier.tir")
    assert sorted({(f.rule.code, f.line) for f in bug.findings}) == [("AG201", 67), ("AG201", 69)]


HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(M: T.handle("int8", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    M_1 = T.decl_buffer((4,), "int8", data=M)
    C_1 = T.decl_buffer((64,), data=C)
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((128,), scope="shared.dyn")
'''


def kernel(body: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def test_a_barrier_under_a_mask_is_the_same_for_every_thread():
    # block-uniform: all threads take the same side, so the barrier never diverges
    text = kernel("""
        S[tx] = T.float32(1)
        if T.Cast("bool", M_1[2]):
            T.tvm_storage_sync("shared")
            C_1[tx] = S[63 - tx]
    """)
    rep = check_text(text)
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_mask_the_kernel_writes_is_not_an_input():
    text = kernel("""
        M_1[0] = T.int8(1)
        if T.Cast("bool", M_1[2]):
            S[tx] = T.float32(1)
            T.tvm_storage_sync("shared")
    """)
    rep = check_text(text)
    assert rep.verdict == "unknown" and "also writes" in rep.findings[0].message


def test_a_mask_value_used_as_a_number_decides_a_uniform_branch_for_every_value():
    # a number, not a truth value: both outcomes of `M[2] > 1` are run (tests/test_data_numeric.py)
    text = kernel("""
        if M_1[2] > T.int8(1):
            S[tx] = T.float32(1)
            T.tvm_storage_sync("shared")
        C_1[tx] = T.Cast("float32", M_1[1] + M_1[2])
    """)
    rep = check_text(text)
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("numbers loaded from M_1" in s and "2 in all" in s for s in rep.kernels[0].scope)


def test_a_mask_value_used_as_a_number_under_a_thread_condition_stays_unknown():
    text = kernel("""
        if M_1[2] > T.Cast("int8", tx):
            S[tx] = T.float32(1)
            T.tvm_storage_sync("shared")
    """)
    assert check_text(text).verdict == "unknown"


def test_a_race_under_one_outcome_is_reported():
    # when the mask is set the barrier is skipped: the neighbour read races with its write
    text = kernel("""
        S[tx] = T.float32(1)
        if not T.Cast("bool", M_1[1]):
            T.tvm_storage_sync("shared")
        C_1[tx] = S[63 - tx]
    """)
    rep = check_text(text)
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.kind == "race")
    assert race.witness["inputs"] == {"M_1[1]": 1}


def test_block_sparse_attention_mask_copied_into_registers():
    # the mask row travels global -> registers (a truth-cast vector copy) -> branch conditions
    rep = report("blocksparse_attn_sm80.tir")
    assert rep.verdict == "clean"
    assert any("every outcome pattern checked" in s for s in rep.kernels[0].scope)


def test_block_sparse_attention_sm90a_overwrites_q_while_it_may_land_for_an_empty_mask_row():
    rep = report("blocksparse_attn_sm90a.tir")
    found = sorted({(f.rule.code, f.line) for f in rep.findings})
    assert found == [("AG401", 172), ("AG401", 176)]
    first = next(f for f in rep.findings if f.line == 172)
    assert set(first.witness["inputs"].values()) == {0}   # no block of the row is set
    assert report("blocksparse_attn_sm90a_q_wait_hoisted.tir").verdict == "clean"


BLOCKS = '''# from tvm.script import tirx as T
@T.prim_func
def k(M: T.handle("int8", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 4, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    M_1 = T.decl_buffer((16,), "int8", data=M)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    for k in range(2):
        S[tx] = T.float32(1)
        if T.Cast("bool", M_1[bx * 4 + k]):
            T.tvm_storage_sync("shared")
        if T.Cast("bool", M_1[{second}]):
            C_1[tx] = S[63 - tx]
        T.tvm_storage_sync("shared")
'''


def test_one_block_stands_for_all_when_blocks_differ_only_in_the_cells_they_read():
    rep = check_text(BLOCKS.replace("{second}", "bx * 4 + k + 1"))
    assert rep.kernels[0].blocks == [{"blockIdx.x": 0}]
    assert any("stands for every block" in s for s in rep.kernels[0].scope)
    # k = 0 reads cells 0 and 1, k = 1 reads 1 and 2: cell 1 skipped the barrier but guards the read
    assert rep.verdict == "buggy"


def test_blocks_that_address_the_mask_differently_are_all_checked():
    # cells bx * 4 + k and 12 - bx * 4 + k coincide in some blocks and not in others
    rep = check_text(BLOCKS.replace("{second}", "12 - bx * 4 + k"))
    assert len(rep.kernels[0].blocks) == 4
    assert rep.verdict == "buggy"


# ---- loops whose iterations a mask cell skips whole: searched by count (engine/loop_sizes.py
# _count_loops): TileLang's warp-specialized block-sparse GEMM for sm_90a, 32 cells per block
FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
BLOCKSPARSE_SM90 = FIELD / "blocksparse_gemm__example_blocksparse_gemm__blocksparse_matmul__sm_90a.tir"


def test_lowered_warp_specialized_block_sparse_gemm_is_clean_for_every_mask_by_its_counts():
    rep = check_text(BLOCKSPARSE_SM90.read_text(), str(BLOCKSPARSE_SM90))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "32 value(s) met, every outcome pattern checked (33 run(s))" in scope
    assert "BlockMask_1 only decide whole loop iterations" in scope


def test_its_single_bug_variants_are_found_with_the_count_that_shows_them():
    from _variants import assert_variants_flagged

    def witness_names_the_inputs(rep):
        assert all("inputs" in f.witness for f in rep.findings if f.rule.kind != "unsupported")
    assert_variants_flagged(BLOCKSPARSE_SM90.read_text(), {("flip-parity", 60), ("drop-mbarrier-wait", 42)},
                            witness_names_the_inputs)


def test_a_loop_whose_variable_decides_a_shared_address_is_not_searched_by_count():
    # the stage is k % 2, not a counter advanced under the mask: which iterations run decides
    # which stage each tile uses, so patterns with one count differ, and every pattern runs
    original = (CORPUS / "blocksparse_ws_ring.tir").read_text()
    text = original.replace("phase[0] % 2 * 512, 512, 2)", "k % 2 * 512, 512, 2)")
    assert text != original
    rep = check_text(text)
    scope = " ".join(rep.kernels[0].scope)
    assert "one run per count" not in scope
    assert "every outcome pattern checked (8 run(s))" in scope or rep.verdict != "clean"


WIDE = CORPUS.parent / "unseen_wide"


def test_all_of_and_any_of_over_a_global_mask_are_unknown_truth_values():
    # TileLang's test_block_sparse_matmul_global (testing/python/language, sm_80): `if T.all_of(
    # T.tvm_access_ptr(.., BlockMask, off, 2, 1), 2)` guards the copies and the MMAs of a k-block;
    # each call is one truth value of the run (its range and reduction are the key), taken where it
    # only guards shared accesses. It was unknown ("cannot evaluate value of T.all_of")
    for kind in ("all_of", "any_of"):
        path = WIDE / f"language__language_{kind}__test_block_sparse_matmul_global__sm_80.tir"
        rep = check_text(path.read_text(), str(path))
        assert rep.verdict == "clean", [f.message for f in rep.findings]
        assert any("data-dependent branches on BlockMask" in s for s in rep.kernels[0].scope)
    lines = path.read_text().splitlines(keepends=True)
    assert lines[45].strip() == 'T.tvm_storage_sync("shared.dyn")'
    rep = check_text("".join(lines[:45] + lines[46:]), str(path))
    assert rep.verdict == "buggy" and {f.rule.code for f in rep.findings} == {"AG201"}


def test_any_of_over_a_shared_copy_of_the_mask_guarding_closed_wgmma_arms_is_taken():
    # the mask copied into shared memory first, read only by any_of guards of arms that fence,
    # issue, commit and wait for their own wgmma (engine/program.py `_shared_masks_taken`,
    # `_closed_wgmma_arm`): unknown until session 26, now one run
    path = WIDE / "language__language_any_of__test_block_sparse_matmul_shared__sm_90a.tir"
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("only holds truth-cast copies of BlockMask" in s for k in rep.kernels for s in k.scope)


MEGATRON_INDEXER_BWD = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_users" /
                        "megatron_lm__drv_megatron_dsa__tl_indexer_bwd_impl.tl_indexer_bwd_kernel__sm_80.tir")


def test_a_branch_whose_arms_reread_what_its_condition_read_decides_nothing():
    """Megatron's DSA indexer backward: `if -1 < idx[t] < n: ... atomicAdd(&dIndexK[idx[t] * 128 ..], v)`
    with `idx` in shared memory. The arms only read the element the condition read (through int64
    casts), so whether they run changes nothing (`_echoes_condition`): clean. An arm that reads
    another element depends on the data: unknown."""
    text = MEGATRON_INDEXER_BWD.read_text()
    assert check_text(text, str(MEGATRON_INDEXER_BWD)).verdict == "clean"
    line = text.split("\n")[137]
    old = 'T.Cast("int64", thread_binding) % T.int64(32) // T.int64(4)])'
    assert "atomic_add_elem_op" in line and line.count(old) == 1
    moved = line.replace(old, 'T.Cast("int64", thread_binding) % T.int64(32) // T.int64(4) + T.int64(1)])')
    rep = check_text(text.replace(line, moved), str(MEGATRON_INDEXER_BWD))
    assert rep.verdict == "unknown"
    assert any(f.line == 135 and "branch condition" in f.message for f in rep.findings)


MEGATRON_SPARSE_MLA_BWD = (Path(__file__).resolve().parent.parent / "corpus" / "unseen_users" /
                           "megatron_lm__drv_megatron_dsa__bwd.sparse_mla_bwd_kernel__sm_90a.tir")


def test_a_guard_on_a_loaded_index_around_atomics_reading_shared_addends_is_taken():
    """Megatron's sparse MLA backward: `idx = Indices[..]; if 0 <= idx: if idx < seq_len_kv:
    atomic_addx4(&dKV[idx ..], &acc_dkv_shared[..])`. The atomic only reads its addends from shared
    memory (an access, no synchronization), so the guards are checked taken by every thread, as
    around a load or store: clean, where it was unknown (the branch was a problem, and
    seq_len_kv's proof was refuted at it). With the barrier before the atomics dropped, the same
    reading finds the race on the addends."""
    text = MEGATRON_SPARSE_MLA_BWD.read_text()
    rep = check_text(text, str(MEGATRON_SPARSE_MLA_BWD))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("lines [247, 248, 252, 253" in s and "only guard shared accesses" in s
               for s in rep.kernels[0].scope)
    lines = text.split("\n")
    assert lines[243].strip() == 'T.tvm_storage_sync("shared.dyn")' and "atomic_addx4" in lines[248]
    rep = check_text("\n".join(lines[:243] + lines[244:]), str(MEGATRON_SPARSE_MLA_BWD))
    assert rep.verdict == "buggy"
    races = [f for f in rep.findings if f.rule.code == "AG201"]
    assert any(f.line == 248 and "acc_dkv_shared" in f.message and "line 240" in f.message for f in races)
