"""DeepSeek sparse MLA backward (TileLang's dsa_sparse_finetune example, corpus/field_sizes/): the
token's offsets and top-k indices are loaded numbers that guard its final shared reads, and its
dKV accumulation is a global atomic whose value operand is read from shared memory."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.mutants import mutations

SIZES = Path(__file__).resolve().parent.parent / "corpus" / "field_sizes"
BWD = "dsa_sparse_finetune__sparse_mla_bwd__bwd_h64_topk128__bwd__{}.tir"


def _text(arch: str) -> str:
    return (SIZES / BWD.format(arch)).read_text()


def test_branches_on_loaded_numbers_around_shared_reads_are_taken_and_the_sizes_proved():
    # `if bos + max_kv_i < S and 0 <= bos + max_kv_i:` (bos = Offsets[TokenIndices[bx, 0]]) only
    # guards dQ's shared reads: every thread takes it, and S no longer meets a loaded number
    rep = check_text(_text("sm_90a"))
    scope = rep.kernels[0].scope
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any(s.startswith("proved for every size") and "proved for every S >= 1" in s for s in scope)
    assert any(s.startswith("lines [222, 224, 225, 226, 229, 230, 231, 240]: branches on a loaded number "
                            "that only guard shared accesses were checked taken by every thread") for s in scope)


def test_on_sm_80_the_kernel_needs_more_shared_memory_than_the_device_has():
    rep = check_text(_text("sm_80"))
    assert rep.verdict == "buggy"
    assert [(f.rule.code, f.line) for f in rep.findings] == [("AG503", 8)]
    assert "184320 required > 166912 device limit" in rep.findings[0].message


@pytest.mark.parametrize("line, rules", [(221, {("AG201", 226), ("AG201", 231)})])
def test_the_atomic_value_read_from_shared_memory_races_without_its_barrier(line, rules):
    # `T.atomic_addx4_elem_op(&dKV[...], acc_dkv_shared_2[a:a + 4])` reads the tile the threads
    # stored just before; the barrier at line 221 orders those stores before the reads
    text = _text("sm_90a")
    mutant = next(m for m in mutations(text) if (m.kind, m.line) == ("drop-barrier", line))
    rep = check_text(mutant.apply(text))
    assert rep.verdict == "buggy"
    assert rules <= {(f.rule.code, f.line) for f in rep.findings}
