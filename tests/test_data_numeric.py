"""Numbers loaded from read-only global memory (NSA's selected block index, varlen cu_seqlens):
unknown inputs, proved for every value they may take (engine/inputs.py, engine/program.py)."""
import textwrap
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
NSA_DECODE = FIELD / "deepseek_nsa__example_tilelang_nsa_decode__native_sparse_attention__sm_80.tir"
VARLEN_FWD = FIELD / "flash_attention__example_gqa_bwd_tma_reduce_varlen__flashattn_fwd.flash_fwd__sm_90a.tir"


def without_line(path: Path, line: int, expect: str) -> str:
    lines = path.read_text().splitlines(keepends=True)
    assert lines[line - 1].strip() == expect
    return "".join(lines[:line - 1] + lines[line:])


def test_nsa_decode_branches_on_the_selected_block_for_every_value():
    rep = check_text(NSA_DECODE.read_text(), str(NSA_DECODE))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("numbers loaded from BlockIndices_1" in s and "every outcome pattern checked" in s
               for s in rep.kernels[0].scope)


def test_nsa_decode_without_the_barrier_before_v_overwrites_q_is_a_race():
    # V_shared aliases Q_shared; line 85's barrier orders line 61's Q reads before line 88's V store
    text = without_line(NSA_DECODE, 85, 'T.tvm_storage_sync("shared.dyn")')
    rep = check_text(text)
    race = next(f for f in rep.findings if f.rule.code == "AG201")
    assert race.line == 87   # line 88 of the original
    assert race.witness["inputs"] == {"BlockIndices_1[0]": 0}   # a selected block: i_s >= 0


def test_varlen_forward_is_proved_for_every_key_length():
    rep = check_text(VARLEN_FWD.read_text(), str(VARLEN_FWD))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every k_end_idx - k_start_idx >= 0" in scope
    assert "cu_seqlens_k_1[bz + 1] - cu_seqlens_k_1[bz]" in scope


def test_varlen_forward_without_the_barrier_before_the_v_wgmma_is_a_race():
    text = without_line(VARLEN_FWD, 108, 'T.tvm_storage_sync("shared.dyn")')
    rep = check_text(text)
    assert ("AG201", 114) in {(f.rule.code, f.line) for f in rep.findings}


HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(Idx: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 2, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 2)
    tx = T.launch_thread("threadIdx.x", 64)
    Idx_1 = T.decl_buffer((2,), "int32", data=Idx)
    G_1 = T.decl_buffer((4096,), data=G)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
'''


def kernel(body: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def test_a_loaded_number_that_only_addresses_global_memory_does_not_make_the_kernel_unknown():
    rep = check_text(kernel("""
        j: T.int32 = Idx_1[bx]
        S[tx] = G_1[j * 64 + tx]
        T.tvm_storage_sync("shared")
        C_1[tx] = S[63 - tx]
    """))
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_barrier_skipped_for_some_loaded_values_is_found_with_the_value():
    rep = check_text(kernel("""
        j: T.int32 = Idx_1[bx]
        S[tx] = T.float32(1)
        if j < 3 and 0 <= j:
            T.tvm_storage_sync("shared")
        C_1[tx] = S[63 - tx]
    """))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.kind == "race")
    value = race.witness["inputs"][f"Idx_1[{race.witness.get('block', {}).get('blockIdx.x', 0)}]"]
    assert not 0 <= value < 3


def test_the_same_branch_twice_on_one_loaded_value_is_never_split():
    # both conditions read the same cell: no run takes one barrier and skips the other
    rep = check_text(kernel("""
        j: T.int32 = Idx_1[bx]
        S[tx] = T.float32(1)
        if 0 <= j:
            T.tvm_storage_sync("shared")
        if 0 <= j:
            C_1[tx] = S[63 - tx]
    """))
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_loaded_number_that_decides_a_shared_address_stays_unknown():
    rep = check_text(kernel("""
        j: T.int32 = Idx_1[bx]
        S[j] = T.float32(1)
        T.tvm_storage_sync("shared")
    """))
    assert rep.verdict == "unknown"
    assert any("shared address" in s for s in rep.kernels[0].scope)


LENGTH = '''# from tvm.script import tirx as T
@T.prim_func
def k(Lens: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 4, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    Lens_1 = T.decl_buffer((4,), "int32", data=Lens)
    G_1 = T.decl_buffer((1048576,), data=G)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    n: T.int32 = (Lens_1[bx] + 63) // 64
    for kk in range(n):
        S[tx] = G_1[kk * 64 + tx]
        T.tvm_storage_sync("shared")
        C_1[tx] = S[63 - tx]
{tail}'''


def test_a_length_loaded_from_one_cell_is_a_symbolic_size_proved_for_every_value():
    rep = check_text(LENGTH.replace("{tail}", "        T.tvm_storage_sync(\"shared\")\n"))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every Lens_1[bx] >= 0" in scope and "(a length)" in scope


def test_a_length_cell_at_a_cast_block_index_is_a_symbolic_size_too():
    # TileLang prints 64-bit indices, `Lens_1[T.Cast("int64", bx)]`: `T` names TVMScript's
    # namespace, not a value, so the cell is still one per block (it was unknown)
    text = LENGTH.replace("{tail}", "        T.tvm_storage_sync(\"shared\")\n")
    text = text.replace("(Lens_1[bx] + 63)", '(Lens_1[T.Cast("int64", bx)] + 63)')
    rep = check_text(text)
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert 'proved for every Lens_1[T.Cast(int64, bx)] >= 0' in " ".join(rep.kernels[0].scope)


def test_a_length_loaded_from_one_cell_with_a_race_from_the_second_tile_is_found():
    # without the second barrier, tile kk + 1 overwrites what tile kk's neighbours still read
    rep = check_text(LENGTH.replace("{tail}", ""))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.kind == "race")
    assert race.witness["sizes"]["Lens_1[bx]"] > 64   # at least two tiles


def column_kernel(column: str) -> str:
    """LENGTH with an 8-column row R and, after the loop, thread 0 writing R[column]."""
    text = LENGTH.replace("    S = T.alloc_buffer((128,), scope=\"shared.dyn\")",
                          "    S = T.alloc_buffer((128,), scope=\"shared.dyn\")\n"
                          "    R = T.alloc_buffer((8,), scope=\"shared.dyn\")")
    return text.replace("{tail}", "        T.tvm_storage_sync(\"shared\")\n"
                                  "    if tx == 0 and 1 <= n:\n"
                                  f"        R[{column}] = T.float32(0)\n")


def test_a_length_that_decides_a_shared_address_is_bounded_by_the_buffer_it_indexes():
    # the per-tile column of a logits row (flash decoding): the row has 8 columns, so the kernel
    # is meant for lengths up to 8 * 64; larger lengths would write past the row
    rep = check_text(column_kernel("n - 1"))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("at most 512: the largest for which the shared access at line 19" in s   # R[n - 1]
               for s in rep.kernels[0].scope), rep.kernels[0].scope


# ---- loaded numbers followed through registers and shared memory (sparse MLA's is_kv_valid)
GATHER = '''# from tvm.script import tirx as T
@T.prim_func
def k(Idx: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 2, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 2)
    tx = T.launch_thread("threadIdx.x", 64)
    Idx_1 = T.decl_buffer((128,), "int32", data=Idx)
    G_1 = T.decl_buffer((4096,), data=G)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    valid = T.alloc_buffer((8,), "int8", scope="shared")
    idx_local = T.alloc_buffer((1,), "int32", scope="local.var")
    idx_local[0] = Idx_1[bx * 64 + {cell}]
    valid[tx // 8] = T.Cast("int8", idx_local[0] <= 5)
    T.tvm_storage_sync("shared")
    if T.Cast("bool", valid[tx // 8]):
        S[tx] = G_1[idx_local[0] * 64 + tx]
{tail}'''


def gather(cell: str = "tx // 8", tail: str = "    T.tvm_storage_sync(\"shared\")\n    C_1[tx] = S[63 - tx]\n"):
    return check_text(GATHER.replace("{cell}", cell).replace("{tail}", tail))


def test_a_register_holding_a_loaded_number_only_as_data_and_a_branch_on_it_via_shared_memory():
    # the register feeds a stored value and a global address; the branch on the shared flag only
    # guards a shared store, so it is checked taken by every thread
    rep = gather()
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("checked taken by every thread" in s for s in rep.kernels[0].scope)


def test_threads_that_store_to_one_flag_from_one_cell_store_one_value():
    # the 8 threads of a group write valid[tx // 8] from Idx[.. + tx // 8]: one value, no race;
    # from Idx[.. + tx] the 8 values may differ: a real write-write race
    assert not [f for f in gather().findings if f.rule.code == "AG201"]
    rep = gather(cell="tx")
    assert ("AG201", 14) in {(f.rule.code, f.line) for f in rep.findings}


def test_the_shared_flag_branch_without_its_barrier_is_a_race():
    rep = gather(tail="    C_1[tx] = S[63 - tx]\n")
    assert rep.verdict == "buggy"
    assert ("AG201", 18) in {(f.rule.code, f.line) for f in rep.findings}   # C_1[tx] = S[63 - tx]


def test_a_register_holding_a_loaded_number_that_decides_a_barrier_stays_unknown():
    text = GATHER.replace("{cell}", "tx // 8").replace("{tail}", "")
    text = text.replace("        S[tx] = G_1[idx_local[0] * 64 + tx]",
                        "        T.tvm_storage_sync(\"shared\")")
    text = text.replace("    if T.Cast(\"bool\", valid[tx // 8]):", "    if idx_local[0] <= 5:")
    rep = check_text(text)
    assert rep.verdict == "unknown"
    assert any("held in idx_local" in s for s in rep.kernels[0].scope), rep.kernels[0].scope


SPARSE_MLA = FIELD / "deepseek_v32__sparse_mla_fwd_pipelined__sparse_mla_fwd__sm_90a.tir"


def test_sparse_mla_gathers_under_a_loaded_flag_and_its_own_findings_are_the_only_ones():
    # the producer loads each row index into a register, stores `index <= q_i` into is_kv_valid
    # (8 threads per flag, one cell: one value) and cp.asyncs the row under that flag: taken.
    # What is left: sum_exp_shared written by consumer 0 after its last release (line 184) and
    # read by consumer 1 after its last acquire (line 231) with nothing between (the example's
    # source has no barrier there either), and cp.async data read by wgmma with no
    # fence.proxy.async (the shape of the MLA-decode finding in docs/found-bugs.md)
    rep = check_text(SPARSE_MLA.read_text(), str(SPARSE_MLA))
    found = {(f.rule.code, f.line) for f in rep.findings}
    # (line 223: consumer 1's wgmma, whose only fence on the path is consumer 0's: the strict
    # reading, AG418, tests/test_field_false_alarms.py). And the flag itself: consumers read it
    # (line 90) after waiting on bar_k_ready, which only the producer's cp.async.mbarrier.arrive
    # completes, and that arrival releases its copies, not its store (docs/model.md "What a
    # system-performed arrival releases")
    assert found == {("AG201", 90), ("AG201", 231), ("AG405", 102), ("AG405", 116), ("AG405", 130)}
    race = next(f for f in rep.findings if (f.rule.code, f.line) == ("AG201", 231))
    assert "sum_exp_shared" in race.message and "line 184" in race.message
    flag = next(f for f in rep.findings if (f.rule.code, f.line) == ("AG201", 90))
    assert "is_kv_valid" in flag.message and "line 255" in flag.message
    assert flag.witness["system_arrival"]["op"] == "cp.async.mbarrier.arrive"
    assert any("lines [257]" in s and "checked taken" in s for s in rep.kernels[0].scope)


def test_sparse_mla_without_the_barrier_between_the_flag_store_and_its_branch_is_a_race():
    text = without_line(SPARSE_MLA, 256, 'T.tvm_storage_sync("shared", 3, 128)')
    rep = check_text(text)
    race = next(f for f in rep.findings if f.rule.code == "AG201" and f.line == 256)
    assert "is_kv_valid" in race.message and "line 255" in race.message


def test_sparse_mla_without_the_producer_wait_for_a_free_stage_overwrites_it():
    from asyncguard.mutants import EXPECTED_RULES, mutations
    text = SPARSE_MLA.read_text()
    m = next(m for m in mutations(text) if (m.kind, m.line) == ("drop-mbarrier-wait", 250))
    rep = check_text(m.apply(text))
    assert ("AG103", 258) in {(f.rule.code, f.line) for f in rep.findings}   # the cp.async refill
    assert {f.rule.code for f in rep.findings} & EXPECTED_RULES[m.kind]


def test_a_length_bounded_through_a_tvmscript_call_in_the_shared_address():
    # the same column written through `T.max(n - 1, 0)`: `T` is TVMScript's namespace, not a
    # name the bound must range over (it made the bound unknown: "cannot bound (name T)")
    rep = check_text(column_kernel("T.max(n - 1, 0)"))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any("at most 512: the largest for which the shared access at line 19" in s
               for s in rep.kernels[0].scope), rep.kernels[0].scope


# A tile count kept in a one-element register (MInference's `block_count[0] = BlockCount[...]`):
# stored once at the top of the kernel from a block-uniform cell, it is a let written as a store
# (engine/loaded_numbers.py `_register_lets`), so the count is a symbolic size like a loaded length.
COUNTED_TILES = textwrap.dedent('''\
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def counted_tiles_kernel(A: T.handle("float16", "global"), TileCount: T.handle("int32", "global"), Out: T.handle("float16", "global")):
        T.func_attr({"calling_conv": 2, "target": T.target({"arch": "sm_80", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "tir.is_global_func": T.bool(True), "tir.noalias": T.bool(True)})
        A_1 = T.decl_buffer((1048576,), "float16", data=A)
        TileCount_1 = T.decl_buffer((16,), "int32", data=TileCount)
        Out_1 = T.decl_buffer((2048,), "float16", data=Out)
        bx = T.launch_thread("blockIdx.x", 16)
        A_shared = T.alloc_buffer((1024,), "float16", scope="shared")
        n_tiles = T.alloc_buffer((1,), "int32", scope="local.var")
        acc = T.alloc_buffer((8,), "float16", scope="local")
        tx = T.launch_thread("threadIdx.x", 128)
        n_tiles_1 = T.decl_buffer((1,), "int32", data=n_tiles.data, scope="local.var")
        n_tiles_1[0] = TileCount_1[15 - bx]
        for i in range(8):
            acc[i] = T.float16(0.0)
        for k in range(n_tiles_1[0]):
            T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), A_shared.data, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, bx * 65536 + k * 1024 + tx * 8, 8, 1), 8)
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            T.tvm_storage_sync("shared")
            for i in range(8):
                acc[i] = acc[i] + A_shared[1023 - tx * 8 - i]
            T.tvm_storage_sync("shared")
        for i in range(8):
            Out_1[bx * 128 + tx * 8 + i] = acc[i]
''')
STORE = "        n_tiles_1[0] = TileCount_1[15 - bx]\n"
MINFERENCE = FIELD.parent / "field_sizes" / (
    "minference__example_vertical_slash_sparse_attn__b1_h2_s1024_d64_v128_s32__"
    "tl_vs_sparse_flashattn.vs_sparse_flashattn_ws__sm_90a.tir")


def test_a_count_held_in_a_register_is_proved_for_every_value():
    rep = check_text(COUNTED_TILES)
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert rep.kernels[0].scope[0].startswith("proved for every TileCount_1[15 - bx] >= 0")


def test_a_count_held_in_a_register_still_finds_the_refill_race():
    lines = COUNTED_TILES.splitlines(keepends=True)
    last = max(i for i, x in enumerate(lines) if x.strip() == 'T.tvm_storage_sync("shared")')
    rep = check_text("".join(lines[:last] + lines[last + 1:]))
    assert rep.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in rep.findings} == {("AG103", 22)}


def _unknown_reason(text: str) -> str:
    rep = check_text(text)
    assert rep.verdict == "unknown", [f.message for f in rep.findings]
    return rep.findings[0].message


def test_a_register_that_is_not_one_block_uniform_store_stays_unknown():
    # stored again under a thread condition, read before its store, loaded at a thread-dependent
    # address, stored inside a loop: the register may differ between threads or over time
    variants = [
        STORE + "        if tx < 64:\n            n_tiles_1[0] = TileCount_1[bx]\n",
        '        Out_1[bx] = T.Cast("float16", n_tiles_1[0])\n' + STORE,
        "        n_tiles_1[0] = TileCount_1[tx % 16]\n",
        "        for j in range(1):\n            n_tiles_1[0] = TileCount_1[15 - bx]\n",
    ]
    for v in variants:
        assert STORE in COUNTED_TILES
        assert "register n_tiles[0] has no known value" in _unknown_reason(COUNTED_TILES.replace(STORE, v))


def test_minference_vertical_slash_attention_is_checked_for_its_counts_up_to_12():
    # two counts in registers (block_count, column_count) bound its loops, read as sizes; its
    # synchronization state never repeats, so no induction covers counts past 12 and nothing
    # bounds them: checked up to 12, unknown beyond (it was `clean` with that scope until the
    # forty-fifth session)
    rep = check_text(MINFERENCE.read_text(), str(MINFERENCE))
    assert rep.verdict == "unknown"
    assert [f.rule.code for f in rep.findings] == ["AG001"]
    assert "not proved for every value" in rep.findings[0].message
    scope = " ".join(rep.kernels[0].scope)
    assert "checked for BlockCount_1[by * 16 + 15 - bx] in {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}" in scope
    assert "(a length loaded from BlockCount_1[by * 16 + 15 - bx]) is a symbolic size" in scope
    assert "(a length loaded from ColumnCount_1[by * 16 + 15 - bx]) is a symbolic size" in scope


# ---------------------------------------------------------------- trip counts registers fold
# DeepSeek V3.2's lightning indexer (TileLang's example, sm_90a): the producer and the consumers
# each fold 4 loaded bounds into `cu_k_s_min[0]` / `cu_k_e_max[0]` and loop
# `(cu_k_e_max[0] + 255 - cu_k_s_min[0]) // 256` times (engine/loaded_numbers.py `_fold_trips`)
INDEXER = FIELD / "deepseek_v32__fp8_lighting_indexer__mqa_attn_return_logits__sm_90a.tir"


def _indexer_variant(edit):
    lines = INDEXER.read_text().split("\n")
    edit(lines)
    return "\n".join(lines)


def test_a_trip_count_folded_alike_from_loaded_numbers_is_one_symbolic_size():
    report = check_text(INDEXER.read_text())
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = " ".join(report.kernels[0].scope)
    assert "trips(line 60) (the trip count (cu_k_e_max_1[0] + 255 - cu_k_s_min_1[0]) // 256 of the " \
           "loops at lines [60, 75]" in scope
    assert "proved for every trips(line 60) >= 0" in scope


@pytest.mark.parametrize("line,old,new,rule", [
    (61, "T.bitwise_xor(nbn_i % 6 // 3, 1)", "nbn_i % 6 // 3", "AG408"),   # producer's parity flipped
    (82, "T.mbarrier_wait_parity(mbarrier_1[6], 0)", "T.evaluate(0)", "AG401"),   # Q tile read unwaited
    (83, "T.mbarrier_wait_parity(mbarrier_1[nbn_i % 3], nbn_i % 6 // 3)", "T.evaluate(0)", "AG401"),
])
def test_the_folded_trip_count_kernel_keeps_its_bugs(line, old, new, rule):
    def edit(lines):
        assert old in lines[line - 1]
        lines[line - 1] = lines[line - 1].replace(old, new)
    assert rule in {f.rule.code for f in check_text(_indexer_variant(edit)).findings}


def _producer_bound(lines):
    lines[59] = lines[59].replace("+ 255", "+ 127")


def _thread_address(lines):
    lines[56] = lines[56].replace('T.Cast("int64", bq_i)]', 'T.Cast("int64", bq_i) + T.Cast("int64", tx % 2)]')


def _consumer_fold(lines):
    k = [n for n, line in enumerate(lines) if "cu_k_e_max_1[0] = T.max(" in line][1]
    lines[k] = lines[k].replace("T.max(cu_k_e_max_1[0]", "T.min(cu_k_e_max_1[0]")


def _restored_before_the_loop(lines):
    lines.insert(59, " " * 12 + "cu_k_e_max_1[0] = cu_k_e_max_1[0] + 0")


@pytest.mark.parametrize("edit", [_producer_bound, _thread_address, _consumer_fold, _restored_before_the_loop])
def test_a_trip_count_not_shown_the_same_everywhere_stays_unknown(edit):
    # loops whose counts differ, a fold reading a thread-dependent address, folds that differ,
    # or a store between the fold and the loop (not followed): no one symbol stands for them
    report = check_text(_indexer_variant(edit))
    assert report.verdict == "unknown"
    assert "AG001" in {f.rule.code for f in report.findings}


def test_blocks_of_a_folded_trip_count_kernel_are_proved_alike():
    # the registers are data the runs never read, so the block-alike proof still applies
    text = (FIELD.parent / "field_sizes" /
            "dsa_hisa__pool_mqa_fp8__h32_bn128_s2_t256__pool_mqa_attn_return_logits_fp8__sm_90a.tir").read_text()
    report = check_text(text)
    assert report.verdict == "clean"
    assert "proved to run as block {'blockIdx.x': 0}" in " ".join(report.kernels[0].scope)


# a block of one query (`bq1` / `block_Q = 1`): TVM drops the fold's `for bq_i in range(1)`, so each
# register is folded by one straight store that reads its own known value (`e_max[0] = -2**31;
# e_max[0] = T.max(e_max[0], min(CuSeqLenKE[bx], seq_len_kv))`): a fold of one step
SIZES_DIR = FIELD.parent / "field_sizes"
INDEXER_BQ1 = SIZES_DIR / "deepseek_v32__fp8_lighting_indexer__h32_bn256_s0_t512_bq1__mqa_attn_return_logits__sm_90a.tir"
POOL_BQ1 = SIZES_DIR / "dsa_hisa__pool_mqa_fp8__h128_bn64_s1_t128__pool_mqa_attn_return_logits_fp8__sm_90a.tir"


def _edited(path: Path, line: int, old: str, new: str) -> str:
    lines = path.read_text().split("\n")
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    return "\n".join(lines)


@pytest.mark.parametrize("path,line,lines", [(INDEXER_BQ1, 45, "[45]"), (POOL_BQ1, 51, "[51, 63]")])
def test_a_fold_of_one_step_without_its_loop_is_one_symbolic_size(path, line, lines):
    report = check_text(path.read_text(), str(path))
    assert report.verdict == "clean", [f.message for f in report.findings]
    scope = " ".join(report.kernels[0].scope)
    assert f"trips(line {line}) (the trip count " in scope and f"of the loops at lines {lines}, registers" in scope
    assert f"proved for every trips(line {line}) >= 0" in scope


@pytest.mark.parametrize("path,line,old,new,rule", [
    # the indexer (no pipeline): the wgmma reads the K tile the threads stored, with no barrier between
    (INDEXER_BQ1, 61, 'T.tvm_storage_sync("shared.dyn")', "T.evaluate(0)", "AG201"),
    # pooled MQA (warp-specialized): the consumers read the K tile without waiting for its TMA load
    (POOL_BQ1, 71, "T.mbarrier_wait_parity(mbarrier_1[0], nbn_i % 2)", "T.evaluate(0)", "AG401"),
])
def test_a_fold_of_one_step_kernel_keeps_its_bugs(path, line, old, new, rule):
    report = check_text(_edited(path, line, old, new))
    assert report.verdict == "buggy", [f.message for f in report.findings]
    assert rule in {f.rule.code for f in report.findings}


@pytest.mark.parametrize("path,line,old,new", [
    # the one-step fold reads a thread-dependent address: threads may fold different counts
    (INDEXER_BQ1, 40, 'CuSeqLenKE_1[T.Cast("int64", seq_len_i)]', 'CuSeqLenKE_1[T.Cast("int64", seq_len_i) + tx % 2]'),
    # the producer's and the consumers' one-step folds differ (max / min): two counts
    (POOL_BQ1, 60, "T.max(cu_k_e_max_1[0]", "T.min(cu_k_e_max_1[0]"),
    # the register is stored again from itself, but with nothing known before (no initial store)
    (INDEXER_BQ1, 38, "cu_k_e_max_1[0] = -2147483648", "T.evaluate(0)"),
])
def test_a_fold_of_one_step_not_shown_the_same_everywhere_stays_unknown(path, line, old, new):
    report = check_text(_edited(path, line, old, new))
    assert report.verdict == "unknown", [f.message for f in report.findings]
    assert "AG001" in {f.rule.code for f in report.findings}
