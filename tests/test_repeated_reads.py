"""A plain shared read that repeats one checked since nothing else changed is not checked again
(state/memory.py `Memory._read_key`): the findings are those of a full check (a race found later
on the read may name the first repeat's iteration instead of the last's), and the shortcut does
fire where a SIMT GEMM reads each element once per inner iteration."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text
from asyncguard.engine.state.memory import Memory

from _kernels import kernel64

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

def kernel(body: str) -> str:
    return kernel64(body)


def findings(text: str, name: str, skip: bool, monkeypatch) -> tuple:
    """(verdict, every finding as rule, line, col, message, witness; how many reads were skipped)."""
    skipped = []
    access = Memory.access

    def counting(self, task, ev, s):
        made = self.next_id
        access(self, task, ev, s)
        # a read that made no record (a plain read's record is always made otherwise)
        skipped.append(ev.kind == "read" and ev.tids.size > 0 and self.next_id == made)
    monkeypatch.setattr(Memory, "skip_repeated_reads", skip)
    monkeypatch.setattr(Memory, "access", counting)
    rep = check_text(text, name)
    return (rep.verdict, [(f.rule.code, f.line, f.col, f.message, str(f.witness)) for f in rep.findings],
            sum(skipped))


@pytest.mark.parametrize("name", ["simt_gemm_f16_s3_async_order021.tir",   # TVM's under-wait (found-bugs 24)
                                  "upstream_async_producer_interleaving.tir"])
def test_same_findings_with_and_without_the_shortcut(name, monkeypatch):
    text = (CORPUS / "unseen_tvm" / name).read_text()
    full = findings(text, name, False, monkeypatch)
    short = findings(text, name, True, monkeypatch)
    assert full[0] == short[0] == "buggy"
    assert full[1] == short[1] and full[1]
    assert full[2] == 0
    if name.startswith("simt_gemm"):
        # its `k_1, i_2, j_2` loops read each A element for every j_2 and each B element for
        # every i_2: 7 of 8 reads repeat (about 39,000 skipped since its thread masks stopped
        # stopping the block-alike proof and the k_0 loop's skip: 4 of 16 blocks run, 6 of 30
        # k_0 iterations each; over 100,000 before)
        assert short[2] > 30_000


def test_a_write_between_two_repeats_is_still_a_race(monkeypatch):
    """Warp 0 reads S[tx] four times; warp 1 writes S[tx - 32] meanwhile, with no barrier: the
    write moves the machine's epoch, so whichever order the machine runs them in, the pair races."""
    body = """
S[tx] = A[tx]
T.tvm_storage_sync("shared")
if tx < 32:
    for j in range(4):
        acc[0] = acc[0] + S[tx]
    B[tx] = acc[0]
else:
    S[tx - 32] = A[tx]
"""
    full = findings(kernel(body), "write_between.tir", False, monkeypatch)
    short = findings(kernel(body), "write_between.tir", True, monkeypatch)
    assert full[0] == short[0] == "buggy" and short[2] == 3
    assert [f[:3] for f in full[1]] == [f[:3] for f in short[1]] == [("AG201", 16, 9)]
    # the read's record is the first of the four (j=0), the full check's the last (j=3): the
    # write races with each, and the witness names one
    assert "(j=3) and thread 32" in full[1][0][3] and "(j=0) and thread 32" in short[1][0][3]


def test_a_barrier_between_repeats_orders_the_next_write(monkeypatch):
    """The same reads with a barrier before the write: clean both ways, and the shortcut skipped
    the three repeats."""
    body = """
S[tx] = A[tx]
T.tvm_storage_sync("shared")
for j in range(4):
    acc[0] = acc[0] + S[tx]
T.tvm_storage_sync("shared")
S[63 - tx] = A[tx]
"""
    full = findings(kernel(body), "barrier_between.tir", False, monkeypatch)
    short = findings(kernel(body), "barrier_between.tir", True, monkeypatch)
    assert full[:2] == short[:2] and full[0] == "clean"
    assert short[2] == 3
