"""What an arrival the system performs releases (docs/model.md "What a system-performed arrival
releases"). PTX ISA, program order of async operations: the arrive-on of
`cp.async.mbarrier.arrive` "is ordered with respect to the memory operations performed by all
prior cp.async operations initiated by the same thread, but not to those of any other instruction
issued by the thread"; tcgen05.commit's is likewise tied to the tcgen05 operations it tracks. So
a producer's plain store that only such an arrival hands over is a race (TileLang's DeepSeek V3.2
sparse MLA forward: `is_kv_valid`), while the producer's passage of its own waits still counts
(a waiter lapped or not: the commit-driven GEMM pipelines stay clean)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_vocab import kernel  # noqa: E402

from asyncguard.analyze import check_text  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

FLAG = '''
    mbar = T.alloc_buffer((1,), "uint64", scope="shared.barrier")
    flag = T.alloc_buffer((32,), "int32", scope="shared")
    if tx == 0:
        T.ptx_init_barrier_thread_count(mbar[0], {count})
    T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    if tx < 32:
        flag[tx] = 1
        T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S, tx * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("float16"), A, tx * 8, 8, 1), 8)
        T.ptx_cp_async_barrier_noinc(mbar[0]){release}
    else:
        T.mbarrier_wait_parity(mbar[0], 0)
        C[tx] = S[tx * 4 - 128] + T.Cast("float16", flag[tx - 32])
'''


def found(text):
    rep = check_text(text)
    return rep.verdict, sorted({(f.rule.code, f.line) for f in rep.findings}), rep.findings


def line_of(text, needle):
    return next(i for i, x in enumerate(text.splitlines(), 1) if needle in x)


def test_a_store_handed_over_by_cp_async_arrive_only_is_a_race():
    text = kernel(FLAG.format(count=32, release=""))
    verdict, rules, findings = found(text)
    assert verdict == "buggy" and rules == [("AG201", line_of(text, "C[tx] = S[tx * 4 - 128]"))]
    f = findings[0]
    assert f.witness["first"]["line"] == line_of(text, "flag[tx] = 1")
    assert f.witness["system_arrival"] == {"line": line_of(text, "barrier_noinc"), "mbarrier": "mbar[0]",
                                           "op": "cp.async.mbarrier.arrive"}
    assert "releases only its asynchronous copies" in f.message


def test_a_release_arrive_after_the_store_orders_it():
    # each producer thread also arrives itself (release): the init counts both arrivals
    text = kernel(FLAG.format(count=64, release="\n        T.ptx_arrive_barrier(mbar[0])"))
    verdict, rules, _ = found(text)
    assert verdict == "clean", rules


def test_commit_pipelines_stay_clean():
    # a tcgen05.commit-driven GEMM whose MMA warp waits on full and commits empty: the producer
    # knows the MMA warp passed its wait through the commit (no lapped waiter)
    for name in ("gemm_tcgen05__gemm_tcgen5mma_ws__gemm_2cta__sm_100a.tir",
                 "aws__gemm__gemm__sm_100a.tir"):
        rep = check_text((ROOT / "corpus" / "field" / name).read_text())
        assert rep.verdict == "clean", [(f.rule.code, f.line) for f in rep.findings]
