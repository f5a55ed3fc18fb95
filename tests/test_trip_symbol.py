"""A trip count decided by two cu_seqlens pairs and the block index together (causal varlen
attention: `min(bx * 2 + (kv_len - q_len + 191) // 64, (kv_len + 63) // 64)`) is one symbolic
size, proved for every value (engine/loaded_numbers.py `_trip_symbol`); each run loads values z3 picks
to give it, so a finding's witness names them."""
import textwrap
from pathlib import Path

from asyncguard.analyze import check_text

SIZES = Path(__file__).resolve().parent.parent / "corpus" / "field_sizes"
CAUSAL = "flash_attention__example_mha_fwd_varlen__b2_h4_s512_d64_b128x64_s2_t256_causal__flashattn__"
SM80 = SIZES / (CAUSAL + "sm_80.tir")
SM90 = SIZES / (CAUSAL + "sm_90a.tir")

MINI = '''# from tvm.script import tirx as T
@T.prim_func
def k(Q: T.handle("int32", "global"), K: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 4, "blockIdx.y": 2, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 4)
    b = T.launch_thread("blockIdx.y", 2)
    tx = T.launch_thread("threadIdx.x", 64)
    Q_1 = T.decl_buffer((3,), "int32", data=Q)
    K_1 = T.decl_buffer((3,), "int32", data=K)
    G_1 = T.decl_buffer((1048576,), data=G)
    C_1 = T.decl_buffer((1048576,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    q_start: T.int32 = Q_1[b]
    q_end: T.int32 = Q_1[b + 1]
    k_start: T.int32 = K_1[b]
    k_end: T.int32 = K_1[b + 1]
    for kk in range({trips}):
        S[tx + kk % 2 * 64] = G_1[kk * 64 + tx + k_start]
        T.tvm_storage_sync("shared")
        C_1[tx + kk * 64] = S[63 - tx + kk % 2 * 64]
{tail}'''
TRIPS = "T.min(bx * 2 + (k_end - k_start - q_end + q_start + 63) // 64, (k_end - k_start + 63) // 64)"


def mini(tail: str = "") -> str:
    return MINI.replace("{trips}", TRIPS).replace(
        "{tail}", textwrap.indent(textwrap.dedent(tail).strip() + "\n", "    ") if tail else "")


def lengths(witness: dict, buf: str, b: int = 0) -> int:
    return witness["inputs"][f"{buf}[{b + 1}]"] - witness["inputs"][f"{buf}[{b}]"]


def test_a_trip_count_of_two_pairs_and_the_block_index_is_proved_for_every_value():
    rep = check_text(mini())
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every trips(line 17) >= 0" in scope
    assert "decided by Q_1[b + 1] - Q_1[b], K_1[b + 1] - K_1[b]" in scope
    assert "one block stands for every block" in scope or "blocks checked" not in scope


def test_a_branch_that_is_the_trip_count_at_least_one_reads_as_that_and_its_race_has_values():
    # `0 < A and 0 < kv_len` is `min(A, (kv_len + 63) // 64) >= 1`: after a first trip, thread 0's
    # store races with thread 63's read of the last trip (no barrier after the loop)
    rep = check_text(mini("""
        if 0 < bx * 2 + (k_end - k_start - q_end + q_start + 63) // 64 and 0 < k_end - k_start:
            S[tx] = T.float32(0)
    """))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.code == "AG201")
    assert race.line == 22
    assert lengths(race.witness, "K_1") > 0   # the branch is taken: at least one key
    assert race.witness["sizes"]["trips(line 17)"] >= 1


def test_a_shared_address_reading_the_trip_count_outside_its_loops_stays_unknown():
    # at a negative trip count the address would differ from the one at 0: not proved
    rep = check_text(mini(f"S[tx + {TRIPS} % 2 * 64] = T.float32(0)"))
    assert rep.verdict == "unknown"
    assert any("reads it where it runs at 0" in s for s in rep.kernels[0].scope)


def test_causal_varlen_attention_sm80_is_clean_for_every_sequence_length():
    rep = check_text(SM80.read_text(), str(SM80))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every trips(line 110) >= 0" in scope
    assert "one block stands for every block" in scope


def test_causal_varlen_attention_sm80_without_its_pipeline_barrier_is_a_race():
    lines = SM80.read_text().splitlines(keepends=True)
    assert lines[113].strip() == 'T.tvm_storage_sync("shared")'
    rep = check_text("".join(lines[:113] + lines[114:]))
    assert rep.verdict == "buggy"
    assert any(f.rule.kind == "race" and "cu_seqlens_k_1[1]" in f.witness.get("inputs", {})
               for f in rep.findings)


def test_causal_varlen_attention_sm90a_with_no_key_writes_o_over_q_still_in_flight():
    # the empty-KV bug of the non-causal varlen kernels (docs/found-bugs.md): with no key the
    # consumer never waits on the Q load's mbarrier, and O_shared aliases Q_shared
    rep = check_text(SM90.read_text(), str(SM90))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.code == "AG401")
    assert race.line == 149
    assert lengths(race.witness, "cu_seqlens_k_1") == 0
    # waiting for Q before the epilogue (every consumer thread) mends it
    lines = SM90.read_text().splitlines(keepends=True)
    assert lines[146].strip() == 'T.tvm_storage_sync("shared.dyn", 3, 256)'
    mended = lines[:146] + ["            T.mbarrier_wait_parity(mbarrier_1[8], 0)\n"] + lines[146:]
    rep = check_text("".join(mended))
    assert rep.verdict == "clean", [f.message for f in rep.findings]


def test_a_branch_on_one_pair_beside_the_trip_count_keeps_the_trip_count_in_every_combination():
    # the tail barrier is only there for short queries: for q_len >= 1000 and a first trip,
    # thread 0's store races with the last trip's reads. A long query moves the trip count
    # (kv_len - q_len): the witness's values must still give the run's trip count
    rep = check_text(mini("""
        if q_end - q_start < 1000:
            T.tvm_storage_sync("shared")
        S[tx] = T.float32(0)
    """))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.code == "AG201")
    w = race.witness
    q_len, k_len = lengths(w, "Q_1"), lengths(w, "K_1")
    assert q_len >= 1000
    bx = w.get("block", {}).get("blockIdx.x", 0)
    trips = min(bx * 2 + (k_len - q_len + 63) // 64, (k_len + 63) // 64)
    assert trips == w["sizes"]["trips(line 17)"] >= 1


def test_a_trip_count_a_window_bounds_is_checked_up_to_its_largest_value():
    # `min(A, B) // 64 - max(0, A' // 64)`: a sliding window keeps it at most 4; larger sizes
    # are no launch (no loaded values give them), so the checked values end at the bound, and
    # they are every value the bound allows (an upper bound no longer stops the induction's step:
    # prover/induction.py `const_bound`), so the plan is proved
    path = SIZES / ("attention_sink__example_gqa_sink_fwd_varlen__g4_h8_d64_w128_b64x64_s2_t128_causal__"
                    "flashattn_sink__sm_90a.tir")
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "buggy"   # the empty-KV race of the unwindowed kernels
    assert {f.rule.code for f in rep.findings if f.rule.kind == "race"} == {"AG401"}
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every trips(line 68) >= 0" in scope
    assert "checked trips(line 68) in {0, 1, 2, 3, 4}" in scope
    assert "never above 4" in scope


def test_a_windowed_pipeline_slot_written_apart_from_the_trip_count_reads_the_trip_count():
    # sm_80, 2 stages: the slot `(A // 64 + k - max(0, ..)) % 2` is `(E + k) % 2` with E the trip
    # count `A // 64 - max(0, ..)` (z3), so the window's first key block decides nothing else
    path = SIZES / ("attention_sink__example_gqa_sink_fwd_varlen__g4_h8_d64_w128_b64x64_s2_t128_causal__"
                    "flashattn_sink__sm_80.tir")
    rep = check_text(path.read_text(), str(path))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "one block stands for every block" in scope
    assert "proved for every trips(line 118) >= 0" in scope
    assert "checked trips(line 118) in {0, 1, 2, 3, 4}" in scope


# ---- a trip count of one loaded cell and the block index (split paged MLA decode:
# `total_blocks // 4 + ite(bz < total_blocks % 4, 1, 0)`, engine/loaded_numbers.py `_cell_trip_symbol`)
PAGED = SIZES / ("deepseek_mla__example_mla_decode_paged__b2_h128_kv2048_n64_h64_split4_bs64__"
                 "mla_decode_tilelang.main_split__sm_80.tir")
SPLIT = '''# from tvm.script import tirx as T
@T.prim_func
def k(L: T.handle("int32", "global"), G: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"blockIdx.x": 2, "blockIdx.z": 4, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 2)
    bz = T.launch_thread("blockIdx.z", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    L_1 = T.decl_buffer((2,), "int32", data=L)
    G_1 = T.decl_buffer((1048576,), data=G)
    C_1 = T.decl_buffer((1048576,), data=C)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    total: T.int32 = (L_1[bx] + 63) // 64
    for kk in range({start}total // 4 + T.if_then_else(bz < total % 4, 1, 0)):
        S[tx + kk % 2 * 64] = G_1[kk * 64 + tx + bz * 4096]
{sync}        C_1[tx + kk * 64] = S[63 - tx + kk % 2 * 64]
{tail}'''


def split(start: str = "", sync: bool = True, tail: str = "") -> str:
    return SPLIT.replace("{start}", start).replace(
        "{sync}", '        T.tvm_storage_sync("shared")\n' if sync else "").replace(
        "{tail}", textwrap.indent(textwrap.dedent(tail).strip() + "\n", "    ") if tail else "")


def test_a_trip_count_of_one_cell_and_the_block_index_is_proved_for_every_value():
    rep = check_text(split())
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every trips(line 13) >= 0" in scope
    assert "decided by L_1[bx]" in scope
    assert "a loop count; a negative one runs no iteration" in scope


def test_a_trip_count_of_one_cell_without_its_barrier_is_a_race():
    rep = check_text(split(sync=False))
    assert rep.verdict == "buggy"
    race = next(f for f in rep.findings if f.rule.code == "AG201")
    assert race.witness["sizes"]["trips(line 13)"] >= 1


def test_the_cell_in_a_shared_address_apart_from_the_trip_count_stays_unknown():
    rep = check_text(split(tail="S[tx + total % 2 * 64] = T.float32(0)"))
    assert rep.verdict == "unknown"
    assert any("apart from the trip count" in s for s in rep.kernels[0].scope)


def test_the_trip_count_in_a_shared_address_outside_its_loop_stays_unknown():
    rep = check_text(split(tail="S[tx + (total // 4 + T.if_then_else(bz < total % 4, 1, 0)) % 2 * 64] = T.float32(0)"))
    assert rep.verdict == "unknown"
    assert any("reads it where it runs at 0" in s for s in rep.kernels[0].scope)


def test_a_loop_whose_start_reads_the_cell_stays_unknown():
    # the loop variable (a shared slot `kk % 2`) then depends on the cell beyond the count
    rep = check_text(split(start="total // 4, "))
    assert rep.verdict == "unknown"


def test_two_loops_with_different_counts_of_the_cell_stay_unknown():
    rep = check_text(split(tail="""
        if tx < 32:
            for j in range(total // 4 + 1):
                S[tx] = T.float32(0)
                T.tvm_storage_sync("shared")
    """))
    assert rep.verdict == "unknown"


def test_split_paged_mla_decode_is_definite_and_its_only_finding_is_the_shared_memory_limit():
    rep = check_text(PAGED.read_text(), str(PAGED))
    assert rep.verdict == "buggy"
    # 231424 bytes of dynamic shared memory exceed sm_80's opt-in maximum, as for the
    # no-split sibling of the same sizes; nothing about synchronization
    assert {f.rule.code for f in rep.findings} == {"AG503"}
    scope = " ".join(rep.kernels[0].scope)
    assert "proved for every trips(line 127) >= 0" in scope
    assert "decided by cache_seqlens_1[bx]" in scope


def test_split_paged_mla_decode_without_its_pipeline_barrier_is_a_race():
    lines = PAGED.read_text().splitlines(keepends=True)
    assert lines[205].strip() == 'T.tvm_storage_sync("shared.dyn")'   # line 206, inside the loop
    rep = check_text("".join(lines[:205] + lines[206:]))
    assert rep.verdict == "buggy"
    assert any(f.rule.kind == "race" for f in rep.findings), [f.rule.code for f in rep.findings]
