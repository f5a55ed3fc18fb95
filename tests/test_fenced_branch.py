"""A branch on a loaded number whose outcome may change between loop iterations, checked taken
every time because its arm is fenced (engine/loaded_numbers.py `_fenced_branch`, docs/model.md
"Data-dependent values"). The kernel is TileLang 0.1.15's grouped mxfp8 block-scaled 2-CTA GEMM
(corpus/field), whose epilogue stages a full tile through shared memory and a TMA store and
stores a ragged one straight to global memory; its tile loop is cut from 14 to 2 tiles (the
protocol is the same at every count)."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine.inputs import numbers_enumerated
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"
GROUPED = (FIELD / "blockscaled_gemm_sm100__grouped_gemm_mxfp8_blockscaled_1d1d__"
           "grouped_mxfp8_blockscaled_gemm_2cta_persistent__sm_100a.tir").read_text()
SHORT = GROUPED.replace("T.unroll(14)", "T.unroll(2)")
NAMED = 'T.tvm_storage_sync("shared.dyn", 4, 128)\n'
BRANCH = "if (w * 74 + bx // 2) % 8 * 256 + T.block_rank_in_cluster() * 128 < offsets_1["


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def without_nth(text: str, needle: str, n: int) -> str:
    """`text` with the line holding the n-th (0-based) occurrence of `needle` removed."""
    at = -1
    for _ in range(n + 1):
        at = text.index(needle, at + 1)
    start = text.rindex("\n", 0, at) + 1
    return text[:start] + text[text.index("\n", at) + 1:]


def test_the_epilogue_branch_is_reduced_as_fenced():
    program = elaborate(parse(GROUPED).functions[0])
    line = line_of(GROUPED, BRANCH)
    assert program.numeric.problem is None
    assert program.numeric.reduced == [(line, "fenced")]
    assert [span.line for span, _, _ in program.fenced_arms] == [line]


def test_a_kernel_whose_only_number_branch_was_reduced_enumerates_nothing():
    # so its loops are planned and its blocks proved alike as without loaded numbers
    program = elaborate(parse(GROUPED).functions[0])
    assert program.numeric is not None and not numbers_enumerated(program)


def problem_of(text: str) -> str | None:
    program = elaborate(parse(text).functions[0])
    assert (program.numeric.problem is None) == bool(program.fenced_arms)
    return program.numeric.problem


ELSE = "                                    else:\n"
WAIT = "T.tma_store_wait(0, T.bool(True))\n"


def test_an_other_arm_that_synchronizes_is_not_fenced():
    text = GROUPED.replace(ELSE, ELSE + ' ' * 40 + 'T.tvm_storage_sync("shared.dyn", 5, 128)\n', 1)
    assert text != GROUPED and problem_of(text).startswith(f"line {line_of(text, BRANCH)}:")


def test_an_arm_whose_tma_store_is_not_waited_is_not_fenced():
    text = GROUPED.replace(WAIT, "T.tma_store_wait(1, T.bool(True))\n", 1)
    assert text != GROUPED and problem_of(text).startswith(f"line {line_of(text, BRANCH)}:")


def test_an_arm_barrier_used_outside_it_is_not_fenced():
    anchor = "T.ptx_arrive_cluster_barrier(tmem_empty_1[0], 0)\n"
    text = GROUPED.replace(anchor, anchor + ' ' * 36 + NAMED, 1)
    assert text != GROUPED and problem_of(text).startswith(f"line {line_of(text, BRANCH)}:")


def test_the_unedited_arm_is_fenced():
    assert problem_of(GROUPED) is None


def test_the_grouped_gemm_is_clean_for_every_outcome_pattern():
    report = check_text(SHORT)
    assert report.verdict == "clean", [f.message for f in report.findings]
    line = line_of(SHORT, BRANCH)
    assert any(f"lines [{line}]: branches on a loaded number" in s and "fenced" in s
               for s in report.kernels[0].scope)
    # its K loops sit in a `for w` tile loop with no plan: they settle like loops in a while loop
    # (Machine._plan's `settles`), the first tile's skipping from its second period, the second
    # tile's (pipeline full) from its first
    k_line = line_of(SHORT, "                        for k in range(64):")
    skips = [s for s in report.kernels[0].scope if s.startswith(f"loop at line {k_line} (64 iterations)")]
    assert [s.split(":")[1].split(",")[0].strip() for s in skips] == \
        ["iterations 25..48 skipped", "iterations 13..48 skipped"], skips


def test_an_arm_not_opened_by_its_barrier_is_not_fenced():
    # without the barrier before its stores, the order between two kept instances could rest on
    # a barrier of an instance a pattern leaves out: not fenced. At 14 tiles (14 cells, past a
    # block's 64 patterns) the branch is then unknown, not guessed; at 2 tiles its copies per
    # iteration are enumerated (loaded_numbers.py `_unrolled_conditions`) and the race a pattern runs
    # into is found, with the cells that show it
    assert problem_of(without_nth(GROUPED, NAMED, 0)).startswith(f"line {line_of(GROUPED, BRANCH)}:")
    text = without_nth(SHORT, NAMED, 0)
    assert elaborate(parse(text).functions[0]).fenced_arms == []
    report = check_text(text)
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG402" and "offsets_1[" in f.message for f in report.findings), \
        [f.message for f in report.findings]


def test_an_arm_opened_by_an_arrive_alone_is_not_fenced():
    # bar.arrive does not wait: the arriving threads' stores are not ordered after the others'
    # previous instance (at 2 tiles the branch's copies per iteration are enumerated instead)
    for tiles, text in ((14, GROUPED), (2, SHORT)):
        text = text.replace(NAMED, "T.named_barrier_arrive(4, 128)\n", 1)
        program = elaborate(parse(text).functions[0])
        assert program.fenced_arms == []
        if tiles == 14:
            assert program.numeric.problem.startswith(f"line {line_of(text, BRANCH)}: a branch on a loaded number")
        else:
            assert program.numeric.problem is None
            assert line_of(text, BRANCH) in {line for _, line in program.numeric.conditions}


def test_a_race_inside_the_fenced_arm_is_still_found():
    # the barrier between the threads' stores and the elected thread's TMA store dropped
    report = check_text(without_nth(SHORT, NAMED, 1))
    assert report.verdict == "buggy"
    assert any(f.rule.code == "AG201" for f in report.findings)


def test_an_access_outside_the_arm_to_its_bytes_makes_it_unknown():
    # the arm's shared bytes must be its own: the machine checks what the syntax cannot
    anchor = "T.ptx_arrive_cluster_barrier(tmem_empty_1[0], 0)\n"
    indent = " " * 36
    text = SHORT.replace(anchor, anchor + indent + 'C_outside = T.decl_buffer((8192,), "bfloat16", '
                         'data=C_shared, scope="shared.dyn")\n' + indent +
                         'C_local_1[0] = T.Cast("float32", C_outside[tx])\n', 1)
    assert text != SHORT
    report = check_text(text)
    assert report.verdict == "unknown"
    assert any(f.rule.code == "AG001" and "its arm, touches shared bytes an access" in f.message
               for f in report.findings)
