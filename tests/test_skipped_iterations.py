"""Loops whose iterations a loaded, block-uniform cell switches on or off, where a true
iteration's effect depends on which iteration it is (engine/loaded_numbers.py `_iteration_choice`,
"pattern" mode): every pattern of outcomes is run as it is. A short constant loop was already
written out condition by condition (`_unrolled_conditions`, kept here as the reference); a
loop of symbolic length has only its first PATTERN_ITERATIONS iterations varied and is
`unknown` unless a run finds a bug, whose witness names the cells' values."""
from pathlib import Path

from asyncguard.analyze import check_text

DATA = Path(__file__).resolve().parent / "data" / "skipped_iterations"
VERSIONS = Path(__file__).resolve().parent.parent / "corpus" / "unseen_versions"
PAGED_018 = "blocksparse_attention__example_tilelang_sparse_gqa_decode_paged__flashattn__sm_90a.tir"

# the warp-specialized kernel's parities: from the loop variable (TileLang 0.1.8's lowering),
# or from a phase counter that only a true iteration advances
PARITY_FROM_K = dict(PRODUCER_PARITY="T.bitwise_xor(k % 2, 1)", CONSUMER_PARITY="k % 2",
                     PRODUCER_COUNT="", CONSUMER_COUNT="")
PARITY_FROM_COUNT = dict(PRODUCER_PARITY="T.bitwise_xor(p_phase[0] % 2, 1)",
                         CONSUMER_PARITY="c_phase[0] % 2",
                         PRODUCER_COUNT="p_phase[0] = p_phase[0] + 1",
                         CONSUMER_COUNT="c_phase[0] = c_phase[0] + 1")
BARRIER = 'T.tvm_storage_sync("shared")'


def kernel(name: str, trips: str = "3", **subs) -> str:
    """The template `name` with its loop length (a constant, or a symbolic size's name)."""
    text = (DATA / name).read_text()
    symbolic = not trips.isdigit()
    subs.setdefault("PARAMS", f", {trips}: T.int32" if symbolic else "")
    subs.setdefault("CELLS", trips if symbolic else "16")
    subs["TRIPS"] = trips
    if "p_phase" in subs.get("PRODUCER_COUNT", ""):
        text = text.replace('    mbarrier = T.alloc_buffer(',
                            '    p_phase = T.alloc_buffer((1,), "int32", scope="local")\n'
                            '    c_phase = T.alloc_buffer((1,), "int32", scope="local")\n'
                            '    p_phase[0] = 0\n    c_phase[0] = 0\n'
                            '    mbarrier = T.alloc_buffer(', 1)
    for key, value in subs.items():
        text = text.replace(key, value)
    return text


def codes(rep) -> set:
    return {(f.rule.code, f.line) for f in rep.findings}


def scope_of(rep) -> str:
    return " ".join(s for k in rep.kernels for s in k.scope)


def test_a_short_constant_loop_is_proved_for_every_pattern():
    # the stage is k % 2, the barriers inside the branch: clean whatever iterations are skipped
    # (three iterations are written out condition by condition: every combination, 8 runs)
    rep = check_text(kernel("synced_stages.tir", "3", SECOND_BARRIER=BARRIER))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert "every outcome pattern checked (8 run(s))" in scope_of(rep)


def test_a_race_only_a_skipped_iteration_exposes_is_found_with_its_cells():
    # without the second barrier, iteration k + 2 rewrites stage k % 2 while iteration k's reads
    # may run: with every iteration taken, iteration k + 1's barrier orders them; a skip does not
    rep = check_text(kernel("synced_stages.tir", "3", SECOND_BARRIER=""))
    assert codes(rep) == {("AG201", 17)}
    assert rep.findings[0].witness["inputs"] == {"block_indices_1[0]": 0, "block_indices_1[1]": -1,
                                                 "block_indices_1[2]": 0}
    # of symbolic length (new: `unknown` before), found the same way with the loop's own cells
    rep = check_text(kernel("synced_stages.tir", "N", SECOND_BARRIER=""))
    assert rep.verdict == "buggy"
    # (AG001 at 6: the lengths past those run are not proved, the loop cannot skip its iterations)
    assert codes(rep) == {("AG201", 17), ("AG001", 14), ("AG001", 6)}
    race = next(f for f in rep.findings if f.rule.code == "AG201")
    cells = race.witness["inputs"]
    assert -1 in cells.values() and len(cells) == race.witness["sizes"]["N"]


def test_a_long_or_symbolic_loop_is_never_proved_by_patterns():
    for trips in ("8", "N"):
        rep = check_text(kernel("synced_stages.tir", trips, SECOND_BARRIER=BARRIER))
        assert rep.verdict == "unknown", trips
        f = next(f for f in rep.findings if f.line == 14)
        assert f.rule.code == "AG001"
        assert "only the outcomes of its first 3 iterations were varied" in f.message
        # (and, of symbolic length, AG001 at 6: the lengths past those run are not proved)
        assert {(g.rule.code, g.line) for g in rep.findings} == \
            ({("AG001", 14)} if trips == "8" else {("AG001", 14), ("AG001", 6)})


def test_parities_from_the_loop_variable_desynchronize_after_a_skip():
    # the consumer's wait for parity k % 2 after a skipped iteration returns on the phase the
    # barrier already shows, before the next copy lands (at N: new, `unknown` before)
    for trips in ("3", "N"):
        rep = check_text(kernel("ws_parity_from_k.tir", trips, **PARITY_FROM_K))
        assert rep.verdict == "buggy", trips
        found = codes(rep)
        assert ("AG409", 34) in found and ("AG417", 36) in found, found
        skipped = [f for f in rep.findings if f.rule.code == "AG417"][0].witness["inputs"]
        assert -1 in skipped.values() and 0 in skipped.values()


def test_parities_from_a_phase_counter_are_proved_by_counts():
    # the same kernel with counters only a true iteration advances: a true iteration does the
    # same whichever k it is, so the counted reduction proves every pattern of a length. Of
    # symbolic length, the loop cannot skip (each iteration's branches read their own cell), so
    # lengths past those run are not proved: `unknown`, AG001 alone (it was `clean` with a
    # "checked for" scope until the forty-fifth session)
    rep = check_text(kernel("ws_parity_from_k.tir", "3", **PARITY_FROM_COUNT))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    rep = check_text(kernel("ws_parity_from_k.tir", "N", **PARITY_FROM_COUNT))
    assert rep.verdict == "unknown"
    assert {(f.rule.code, f.line) for f in rep.findings} == {("AG001", 6)}


def test_tilelang_018_sparse_paged_decode_desynchronizes_its_parities():
    # TileLang 0.1.8's warp-specialized lowering of the sparse paged GQA decode: parities
    # `k % 4 // 2` on barriers `k % 2`, both sides under `if 0 <= logical_block_idx`
    rep = check_text((VERSIONS / PAGED_018).read_text())
    assert rep.verdict == "buggy"
    found = codes(rep)
    assert {("AG417", 135), ("AG417", 181), ("AG001", 88), ("AG001", 119)} <= found, found
    # K is read at k = 2 before any copy reached it: iterations 0 and 1 skipped, so the
    # consumer's wait for parity 1 on a fresh barrier returns at once
    unread = next(f for f in rep.findings if (f.rule.code, f.line) == ("AG417", 135))
    assert "(k=2, ki=0)" in unread.message
    assert sorted(unread.witness["inputs"].values()) == [-1, -1, 0]
    # and with every block selected, the producer's next K copy lands in the one K stage while
    # the previous iteration's wgmma may still read it (the lowering's single buffer)
    assert ("AG401", 135) in found
