"""Loops of AllReduce calls skip their periods (docs/model.md "Plain records superseded"; issue 17).

TileLang's `tl::AllReduce<..., tl::NamedBarrier<N>>::run(x, workspace)` (models/extern.py) reads
the workspace at `lane ^ 128`, `lane ^ 64`, `lane ^ 32`, ...: one statement, several range arrays,
every call the same ones. Its reads by threads that never synchronize with the rest of the block
(the other warp-specialized role) stayed live, one per level and call, so a loop of such calls
never repeated its state and ran every iteration; the pooled MQA (field_sm120) ran 32 of them, 6
named barriers each, per iteration of its size loop, for 29 trip counts (25 s). A later record of
exactly the same read-only ranges supersedes the earlier one (state/memory.py `_supersede_plain`),
and in a kernel with symbolic sizes a loop of fixed trips is planned like in any other kernel
(engine/machine.py `_long`)."""
import pathlib

from asyncguard.analyze import check_text

ROOT = pathlib.Path(__file__).resolve().parent.parent

CLEAN = '''# a warp-specialized reduction: 256 threads reduce through a shared workspace (tl::AllReduce over a
# named barrier) 32 times while 128 others wait at the block's final barrier
@T.prim_func
def allreduce_rows(Out: T.handle("float32", "global")):
    Out_1 = T.decl_buffer((1024,), data=Out)
    bx = T.launch_thread("blockIdx.x", 1)
    buf_dyn_shmem = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    workspace: T.handle("float32", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    acc = T.alloc_buffer((32,), scope="local")
    tx = T.launch_thread("threadIdx.x", 384)
    if 128 <= tx:
        for i in T.unroll(32):
            acc[i] = T.call_extern("float32", "tl::AllReduce<tl::SumOp, 256, 32, 128, tl::NamedBarrier<256>>::run", acc[i], T.tvm_access_ptr(T.type_annotation("float32"), workspace, 0, 256, 3))
    T.tvm_storage_sync("shared")
    Out_1[tx] = acc[0]
'''

# role A writes the workspace while role B reduces through it, with no barrier between
RACE = CLEAN.replace('''    T.tvm_storage_sync("shared")
    Out_1''', '''    else:
        workspace_1 = T.decl_buffer((256,), data=workspace, scope="shared.dyn")
        workspace_1[tx] = T.float32(0.0)
    T.tvm_storage_sync("shared")
    Out_1''')

# the reduction loop inside a loop of symbolic trip count n
SIZED = CLEAN.replace('def allreduce_rows(Out: T.handle("float32", "global")):',
                      'def allreduce_rows(Out: T.handle("float32", "global"), n: T.int32):').replace(
    "        for i in T.unroll(32):\n            acc[i]",
    "        for k in range(n):\n            for i in T.unroll(32):\n                acc[i]")


def scope_of(rep) -> list:
    return [line for k in rep.kernels for line in k.scope]


def test_reduction_loop_skips():
    rep = check_text(CLEAN)
    assert rep.verdict == "clean"
    assert "loop at line 12 (32 iterations): iterations 2..30 skipped, proved periodic with period 1" in scope_of(rep)


def test_race_on_the_workspace_still_found_when_skipping():
    rep = check_text(RACE)
    assert rep.verdict == "buggy"
    assert sorted({(f.rule.code, f.line) for f in rep.findings}) == [("AG201", 13), ("AG201", 16)]
    assert any("iterations 2..30 skipped" in line for line in scope_of(rep))


def test_fixed_loop_inside_a_size_loop_skips():
    assert SIZED != CLEAN
    rep = check_text(SIZED)
    assert rep.verdict == "clean"
    lines = scope_of(rep)
    assert lines[0].startswith("proved for every n >= 1")
    assert any(line.startswith("loop at line 13 (32 iterations): periods skipped in the sizes' runs")
               for line in lines)


def test_pooled_mqa_skips_its_reduction_loop():
    """The field_sm120 kernel keeps its one finding (AG503: 117,760 bytes of shared memory where
    sm_120 has 101,376) and skips the 32 AllReduce calls of each iteration."""
    path = ROOT / "corpus" / "field_sm120" / "dsa_hisa__pool_mqa_fp8__pool_mqa_attn_return_logits_fp8__sm_120.tir"
    rep = check_text(path.read_text(), str(path))
    assert (rep.verdict, sorted({f.rule.code for f in rep.findings})) == ("buggy", ["AG503"])
    assert any(line.startswith("loop at line 96 (32 iterations): periods skipped in the sizes' runs")
               for line in scope_of(rep))


def test_a_size_run_whose_fixed_loop_skips_disagree_runs_again_without_them(monkeypatch):
    """analyze.py: when a size's run planned loops of constant bounds and their skips disagreed,
    the size runs again with only what was planned before (`plan_fixed=False`): forced here, the
    kernel keeps its verdict and no fixed loop skips."""
    import asyncguard.analyze as analyze
    monkeypatch.setattr(analyze, "_fixed_skips_mixed", lambda result, sizes: True)
    rep = check_text(SIZED)
    assert rep.verdict == "clean"
    lines = scope_of(rep)
    assert lines[0].startswith("proved for every n >= 1")
    assert not any("periods skipped" in line for line in lines)


def test_which_size_runs_count_as_mixed():
    """Outcomes (span, trips, skipped from, to, how) of the loops of constant bounds decide; the
    size loops' own (too few trips to skip in short sizes) do not, nor loops that neither wait
    nor release anybody."""
    from collections import namedtuple
    from types import SimpleNamespace

    from asyncguard.analyze import _fixed_skips_mixed
    from asyncguard.engine.machine import RunResult
    span = namedtuple("span", "line")
    fixed, other, size_loop = (span(n) for n in (13, 20, 12))
    sizes = SimpleNamespace(induction=SimpleNamespace(loop_lines={12: (1, 2, 2)}))

    def result(*outcomes, sync_free=(), mixed=False, loose=(fixed,)):
        r = RunResult()
        r.accelerated = list(outcomes)
        r.sync_free = set(sync_free)
        r.skips_mixed = mixed
        r.loose = set(loose)   # the skip had another thread running outside a loop beside it
        return r
    skipped = (fixed, 32, 2, 30, "proved periodic with period 1")
    assert not _fixed_skips_mixed(result(skipped, (size_loop, 3, None, None, "not skipped: too few")), sizes)
    assert _fixed_skips_mixed(result(skipped, (other, 32, None, None, "not skipped")), sizes)
    assert not _fixed_skips_mixed(result(skipped, (other, 32, None, None, "not skipped"), sync_free={other}), sizes)
    assert _fixed_skips_mixed(result(skipped, mixed=True), sizes)
    # a skip no thread outside a matched loop could have followed (machine.py `_loose`) does not
    # disagree with the loop that ran every iteration
    assert not _fixed_skips_mixed(result(skipped, (other, 32, None, None, "not skipped"), loose=()), sizes)
