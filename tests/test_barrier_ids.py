"""Named barriers beyond a literal id and count (docs/model.md "Named barriers: the 2-argument
form, surplus arrivals, per-thread ids"): TileLang's `T.sync_threads(id)` (`bar.sync id, 0`),
barrier ids computed per thread, and the unseen_wide kernels that exercise them."""
import pathlib
import textwrap

import pytest

from asyncguard.analyze import check_text

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "corpus" / "unseen_wide"
ARCHS = ("sm_80", "sm_90a")

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(C: T.handle("float32", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": {threads}, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    C_1 = T.decl_buffer((1024,), "float32", data=C)
    tx = T.launch_thread("threadIdx.x", {threads})
    S = T.alloc_buffer((1024,), "float32", scope="shared")
'''


def kernel(body: str, threads: int = 256) -> str:
    return HEAD.format(threads=threads) + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    ")


def outcome(text: str):
    rep = check_text(text)
    return rep.verdict, sorted({f.rule.code for f in rep.findings}), rep


# ------------------------------------------------------------ A: the 2-argument form
@pytest.mark.parametrize("arch", ARCHS)
def test_variable_barrier_id_corpus_kernel(arch):
    """`T.sync_threads(1)` then `T.sync_threads(1, 128)` with 256 threads: the first is every
    thread on barrier 1 (completes); the second gets 256 arrivals for a count of 128 (AG302)."""
    text = (CORPUS / f"language__language_sync_threads__test_sync_threads_with_variable_barrier_id__{arch}.tir").read_text()
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG302"])
    (f,) = rep.findings
    assert f.line == 14 and "expects 128 threads but 256 arrive" in f.message
    assert f.witness["barrier_id"] == 1 and f.witness["expected"] == 128


def test_two_argument_barrier_orders_a_write_and_a_read():
    text = kernel("""
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared", 1)
        C_1[tx] = S[255 - tx]
    """)
    assert outcome(text)[:2] == ("clean", [])


def test_without_the_two_argument_barrier_a_race():
    text = kernel("""
        S[tx] = T.float32(1)
        C_1[tx] = S[255 - tx]
    """)
    assert outcome(text)[:2] == ("buggy", ["AG201"])


def test_two_argument_barrier_waits_for_every_thread():
    """`bar.sync 1, 0` is every thread of the CTA: reached by half of them while the other half
    waits at `__syncthreads`, neither completes (AG302 on barrier 1, AG301 on barrier 0)."""
    text = kernel("""
        if tx < 128:
            T.tvm_storage_sync("shared", 1)
        T.tvm_storage_sync("shared")
    """)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG301", "AG302"])
    (named,) = [f for f in rep.findings if f.rule.code == "AG302"]
    assert named.line == 9 and "named barrier 1" in named.message and "never come" in named.message


def test_two_argument_barrier_with_exited_threads():
    """The other half exits instead: the hardware does not wait for exited threads (PTX ISA), so
    the message is AG301's "need not hang" one, as for `__syncthreads`."""
    text = kernel("""
        if tx < 128:
            T.tvm_storage_sync("shared", 1)
    """)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG301"])
    (f,) = rep.findings
    assert "bar.sync 1, 0" in f.message and "need not hang" in f.message
    assert f.witness["exited"] == "128..255"


def test_two_argument_barrier_with_id_0_is_syncthreads():
    text = kernel("""
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared", 0)
        C_1[tx] = S[255 - tx]
    """)
    assert outcome(text)[:2] == ("clean", [])


# ------------------------------------------------------------ B: ids computed per thread
@pytest.mark.parametrize("arch", ARCHS)
def test_computed_barrier_id_corpus_kernel(arch):
    """`bar.sync tid % 4, 256`: the lanes of every warp name four barriers. AG301: undefined per
    the ISA (a warp's arrival), an illegal instruction on an H200, 64 of 256 per barrier."""
    text = (CORPUS / f"language__language_sync_threads__test_sync_threads_with_computed_barrier_id__{arch}.tir").read_text()
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG301"])
    (f,) = rep.findings
    assert f.line == 14 and "lanes of one warp" in f.message and "illegal instruction" in f.message
    assert f.witness["threads_per_id"] == {"0": 64, "1": 64, "2": 64, "3": 64}
    assert len(f.witness["warps"]) == 8
    assert f.witness["warps"][0]["ids"]["1"].startswith("1, 5, 9")
    assert any("nothing after it was checked" in s for k in rep.kernels for s in k.scope)


def test_per_warp_ids_with_matching_counts_are_clean():
    """id = tx // 128 + 1, count 128: warps 0-3 on barrier 1, warps 4-7 on barrier 2, each
    complete; each half reads only what its own half wrote."""
    text = kernel("""
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared", tx // 128 + 1, 128)
        C_1[tx] = S[tx // 128 * 128 + (tx + 1) % 128]
    """)
    assert outcome(text)[:2] == ("clean", [])


def test_per_warp_ids_do_not_order_the_other_half():
    """The same, reading the other half's writes: barrier 1 does not wait for warps 4-7."""
    text = kernel("""
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared", tx // 128 + 1, 128)
        C_1[tx] = S[255 - tx]
    """)
    assert outcome(text)[:2] == ("buggy", ["AG201"])


def test_per_warp_ids_with_a_count_that_is_never_reached():
    """id = tx // 128 + 1 with count 256: each barrier gets 128 of 256 (a hang, AG302; one
    finding per statement, the first barrier's)."""
    text = kernel("""
        T.tvm_storage_sync("shared", tx // 128 + 1, 256)
    """)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG302"])
    (f,) = rep.findings
    assert f.witness["barrier_id"] == 1 and f.witness["arrivals"][0]["threads"] == "0..127"
    assert "never come" in f.message


def test_per_warp_ids_with_too_small_a_count():
    """id = tx // 128 + 1 with count 64: 128 arrive at each (AG302, surplus)."""
    text = kernel("""
        T.tvm_storage_sync("shared", tx // 128 + 1, 64)
    """)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG302"])
    assert all("expects 64 threads but 128 arrive" in f.message for f in rep.findings)


PRODUCER_CONSUMER = """
    if tx >= 128:
        S[tx - 128] = T.float32(1)
        T.named_barrier_arrive((tx - 128) // 64 + 1, 128)
    else:
        T.named_barrier_sync(tx // 64 + 1, 128)
        C_1[tx] = S[{read}]
"""


def test_per_warp_ids_by_arrive_and_sync():
    """Producer warps 4-5 arrive on barrier 1 and 6-7 on barrier 2 (one computed id); consumer
    warps 0-1 sync on barrier 1 and 2-3 on barrier 2: each consumer half reads its producers'."""
    text = kernel(PRODUCER_CONSUMER.format(read="tx // 64 * 64 + 63 - tx % 64"))
    assert outcome(text)[:2] == ("clean", [])


def test_per_warp_ids_by_arrive_and_sync_reading_the_other_pair():
    text = kernel(PRODUCER_CONSUMER.format(read="127 - tx"))
    assert outcome(text)[:2] == ("buggy", ["AG201"])


# ------------------------------------------------------------ C: a let pinned by tl.assume
ASSUME_HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(topk_idx: T.handle("int32", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    topk_idx_1 = T.decl_buffer((4,), "int32", data=topk_idx)
    tx = T.launch_thread("threadIdx.x", 128)
    _tmp1 = T.alloc_buffer(({size},), "int32", scope="shared.dyn")
'''
ADDS = '''
for _tmp in range(2):
    _tmp2: T.int32 = T.if_then_else(_tmp < 1, topk_idx_1[_tmp * 2], 0)
    T.attr({cond}, "tl.assume", "Assume: {cond}")
    T.atomic_add_elem_op(T.tvm_access_ptr(T.type_annotation("int32"), _tmp1.data, _tmp2, 1, 3), 1)
'''


def assume_kernel(before: str = "", cond: str = "0 <= _tmp2 and _tmp2 < 1", size: int = 1) -> str:
    body = textwrap.dedent(before).strip() + "\n" + ADDS.format(cond=cond).strip() + "\n"
    return ASSUME_HEAD.format(size=size) + textwrap.indent(body.strip() + "\n", "    ")


@pytest.mark.parametrize("arch", ARCHS)
def test_no_hoist_multiple_let_corpus_kernel(arch):
    """`T.assume(0 <= _tmp2 < 1)` pins the loaded index to 0: the shared atomics are at a known
    address; they add to a word no write reached (AG417), and the scope says what was assumed."""
    text = (CORPUS / f"transform__transform_loop_unswitching__test_no_hoist_multiple_let__{arch}.tir").read_text()
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("buggy", ["AG417"])
    assert rep.findings[0].line == 17
    (scope,) = [s for k in rep.kernels for s in k.scope if "tl.assume" in s]
    assert scope.startswith("line 15: _tmp2 = 0, the one value the kernel's tl.assume at line 16 admits")


def test_pinned_index_initialized_and_ordered_is_clean():
    text = assume_kernel("""
        if tx == 0:
            _tmp1[0] = 0
        T.tvm_storage_sync("shared")
    """)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("clean", [])
    assert any("_tmp2 = 0" in s and "tl.assume" in s for k in rep.kernels for s in k.scope)


def test_pinned_index_initialized_without_a_barrier_races():
    text = assume_kernel("""
        if tx == 0:
            _tmp1[0] = 0
    """)
    assert outcome(text)[:2] == ("buggy", ["AG201"])


def test_assumption_admitting_several_values_stays_unknown():
    text = assume_kernel("""
        if tx < 4:
            _tmp1[tx] = 0
        T.tvm_storage_sync("shared")
    """, cond="0 <= _tmp2 and _tmp2 < 4", size=4)
    verdict, codes, rep = outcome(text)
    assert (verdict, codes) == ("unknown", ["AG001"])
    assert not any("tl.assume" in s for k in rep.kernels for s in k.scope)


def test_assumption_about_another_name_pins_nothing():
    text = assume_kernel("""
        if tx == 0:
            _tmp1[0] = 0
        T.tvm_storage_sync("shared")
    """, cond="0 <= _tmp and _tmp < 1")
    assert outcome(text)[:2] == ("unknown", ["AG001"])


def test_gate_skeleton_prints_the_two_argument_form_as_bar_sync_id_0(tmp_path):
    """The sanitizer gate's CUDA skeleton prints `tvm_storage_sync("shared", 1)` as TileLang does:
    `bar.sync 1, 0` (ag_bar_sync(1, 0)), not an index error on a third argument."""
    from asyncguard.emit.prepare import prepare_file
    path = tmp_path / "two_arg.tir"
    path.write_text(kernel("""
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared", 1)
        C_1[tx] = S[255 - tx]
    """))
    (c,) = prepare_file(0, str(path))
    assert c.skip is None and c.static == "clean"
    assert "ag_bar_sync(1LL, 0);  // line 9" in c.emitted.source
