"""A shared buffer whose only stores copy a read-only parameter (`S[v] = P[f(v)]`) is read, for its
value, as the parameter's element it holds (engine/program.py `_forward_copies`); its loads stay
shared accesses, and a write of its bytes by anything else makes the reading a note
(state/memory.py `_forwarded_bytes`). The kernel is TileOPs' split MHA decode as TileLang 0.1.15
lowers it for sm_90a (corpus/unseen_users2): `split_length_shared[tx] = split_length[tx]`, then
`loop_range = (split_length_shared[sid] + 63) // 64` bounds the producer's and the consumer's loops."""
from pathlib import Path

from asyncguard.analyze import check_text

KERNEL = Path(__file__).resolve().parent.parent / \
    "corpus/unseen_users2/tileops__drv_tileops_mha_decode__func.mha_decode_split__sm_90a.tir"
COPY = "            split_length_shared_1[thread_binding] = split_length_1[thread_binding]\n"
BARRIER_AFTER_COPY = ('        T.attr([128, 128], "kWarpSpecializationScope", 0)\n'
                      '        T.tvm_storage_sync("shared.dyn")\n')


def check(text: str):
    return check_text(text, "k.tir")


def test_the_copy_is_read_as_the_parameter_and_the_kernel_is_proved():
    rep = check(KERNEL.read_text())
    assert rep.verdict == "clean"
    scope = " ".join(s for k in rep.kernels for s in k.scope)
    assert "split_length_shared_1 read as the parameter it copies, split_length_1" in scope
    assert "split_length_1[sid]" in scope and "symbolic size" in scope   # a length, every value


def test_the_reads_stay_shared_accesses():
    text = KERNEL.read_text()
    assert BARRIER_AFTER_COPY in text
    rep = check(text.replace(BARRIER_AFTER_COPY, '        T.attr([128, 128], "kWarpSpecializationScope", 0)\n', 1))
    races = [f for f in rep.findings if f.rule.code == "AG201" and "split_length_shared" in f.message]
    # both branches' reads (lines 64 and 84, one line up without the barrier) race the copy
    assert {f.line for f in races} == {63, 83}


def test_a_second_kind_of_store_leaves_the_value_unknown():
    text = KERNEL.read_text()
    assert COPY in text
    other = COPY.replace("split_length_1[thread_binding]", "split_length_1[thread_binding] + 1")
    rep = check(text.replace(COPY, COPY + "        T.tvm_storage_sync(\"shared\")\n" + other.replace("            ", "        ", 1), 1))
    assert rep.verdict == "unknown"
    assert any("loop_range" in f.message for f in rep.findings if f.rule.code == "AG001")


def test_another_view_writing_the_copy_bytes_is_a_note():
    # O_shared moved down over the copy's last 8 bytes: the epilogue's stores into O_shared write them
    text = KERNEL.read_text()
    moved = text.replace("T.handle_add_byte_offset(buf_dyn_shmem.data, 16)", "T.handle_add_byte_offset(buf_dyn_shmem.data, 8)", 1)
    assert moved != text
    rep = check(moved)
    notes = [f for f in rep.findings if f.rule.code == "AG001" and "is read as split_length_1" in f.message]
    assert notes and "writes its bytes too" in notes[0].message
    assert rep.verdict != "clean"
