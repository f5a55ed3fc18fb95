"""A split kernel's trip count read from several loaded cells (engine/loaded_numbers.py
`_cell_trip_symbol`), a page-table entry as a TMA coordinate (Elaborator.value_term, models/tma.py
`_value_key`), and an `if_then_else` arm that is never taken (engine/exprs.py `_lazy_select`).

Found on TileOPs' paged GQA decode (corpus/unseen_users2, TileLang 0.1.15, sm_90a): each split
runs `clamp(ceil(seqlen[b] / 64) - split[b, s - 1] // 64, 0, blocks in split s)` iterations, so
no one cell is a length and the kernel was `unknown`. The kernel in tests/data is that kernel
reduced: its consumer waits for Q's TMA load only inside the loop (`if k == 0`), so a split
with no KV block writes O, which shares Q's bytes, while the load may still be in flight."""
from pathlib import Path

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "data" / "paged_split_trips_sm90a.tir"
CONDITIONAL_Q_WAIT = ("                if k_global == 0:\n"
                      "                    T.mbarrier_wait_parity(mbarrier_1[8], 0)\n")
ZERO = "            acc_1[0] = T.float32(0.0)\n"


def _fixed() -> str:
    text = KERNEL.read_text()
    assert CONDITIONAL_Q_WAIT in text and ZERO in text
    return text.replace(CONDITIONAL_Q_WAIT, "").replace(
        ZERO, ZERO + "            T.mbarrier_wait_parity(mbarrier_1[8], 0)\n")


def _rules(report) -> set:
    return {(f.rule.code, f.line) for f in report.findings}


def test_a_split_with_no_kv_block_races_with_the_q_load():
    report = check_text(KERNEL.read_text(), str(KERNEL))
    assert report.verdict == "buggy"
    assert _rules(report) == {("AG401", 79), ("AG401", 81)}
    first = report.findings[0]
    # the witness: an empty sequence; the cell `split_length[-1]` the untaken arm would read
    # is not named
    assert first.witness["inputs"] == {"split_length_1[0]": 0, "real_seqlen_kv_1[0]": 0}
    scope = [line for k in report.kernels for line in k.scope]
    assert any(line.startswith("trips(line 54) (the trip count") and "split_length_1[bid * 16 + sid]"
               in line for line in scope), scope


def test_waiting_for_q_before_the_loop_is_clean():
    """Clean only where the two TMA loads of V's tile (one page-table entry, one box) are seen
    to write the same values: the entry is data-dependent, so only its term is equal."""
    report = check_text(_fixed(), str(KERNEL))
    assert report.verdict == "clean", [f.message for f in report.findings]


def test_two_loads_not_shown_to_copy_one_box_still_race():
    """Another coordinate, or another expression of the page table (unequal terms say nothing,
    even where a block's values agree)."""
    text = _fixed()
    second_v = ("T.tma_load(V_desc, mbarrier_1[k_global % 2 + 4], T.tvm_access_ptr(T.type_annotation("
                "\"float16\"), V_shared, k_global % 2 * 2048, 2048, 2), 0, page * 64, 0)")
    assert second_v in text
    for other in ("page * 64 + 64", "block_table_1[bid * 32 + k_global] * 64"):
        report = check_text(text.replace(second_v, second_v.replace("page * 64, 0)", f"{other}, 0)")),
                            str(KERNEL))
        assert ("AG103", 63) in _rules(report), (other, [f.message for f in report.findings])


def test_a_dropped_release_is_found_at_every_split():
    release = "                T.ptx_arrive_barrier(mbarrier_1[k_global % 2 + 6])\n"
    text = _fixed()
    assert release in text
    report = check_text(text.replace(release, ""), str(KERNEL))
    assert _rules(report) == {("AG408", 56), ("AG408", 71)}, [f.message for f in report.findings]


def test_a_let_that_read_a_register_is_not_expanded_later():
    """`page` reads a register that changes right after it, and `page_next` is the same
    expression after the change: expanding `page` at the first V load would read the new value,
    and that load (entry k) would look like the second one (`page_next`, entry k + 1). A let expands into its term only where it reads global parameters alone."""
    text = _fixed()
    let = ("                page: T.int32 = T.if_then_else(k_global + start_block_sid < 32, "
           "block_table_1[bid * 32 + k_global + start_block_sid], 0)\n")
    assert let in text
    entry = "T.if_then_else(k_global + start_block_sid < 32, block_table_1[bid * 32 + k_global + start_block_sid], 0)"
    moved = entry.replace("k_global + start_block_sid", "slot_1[0]")
    text = text.replace(let, "                slot_1[0] = k_global\n" + let.replace(entry, moved)
                        + "                slot_1[0] = slot_1[0] + 1\n"
                        + let.replace(entry, moved).replace("page:", "page_next:"))
    text = text.replace("0, page * 64, 0)\n        else:", "0, page_next * 64, 0)\n        else:")
    text = text.replace('        acc = T.alloc_buffer((1,), scope="local")\n',
                        '        acc = T.alloc_buffer((1,), scope="local")\n'
                        '        slot = T.alloc_buffer((1,), "int32", scope="local")\n')
    text = text.replace('        acc_1 = T.decl_buffer((1,), data=acc.data, scope="local")\n',
                        '        acc_1 = T.decl_buffer((1,), data=acc.data, scope="local")\n'
                        '        slot_1 = T.decl_buffer((1,), "int32", data=slot.data, scope="local")\n')
    # four iterations, every block alike: this is about the coordinates, not the trip count
    bound = text[text.index("for k_global in range(") + len("for k_global in range("):]
    bound = bound[:bound.index(":\n") - 1]
    text = text.replace(f"for k_global in range({bound}):", "for k_global in range(4):")
    assert text.count("for k_global in range(4):") == 2
    assert text.count("slot_1[0]") == 7 and text.count("page_next") == 2
    report = check_text(text, str(KERNEL))
    race = [f for f in report.findings if (f.rule.code, f.line) == ("AG103", 68)]
    # at the first iteration already (expanded after the change, the two would differ only where
    # `slot < 32` fails, at the last entry)
    assert race and "at line 68 (k_global=0)" in race[0].message, [f.message for f in report.findings]
