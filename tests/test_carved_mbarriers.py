"""mbarriers carved out of ordinary shared memory (a `uint64` view of `shared.dyn`, as hand-written
kernels place them): followed like `shared.barrier` elements, named by byte address, and an access
of a valid one's 8 bytes is AG423 (PTX ISA, mbarrier.inval: "An mbarrier object must be invalidated
before using its memory location for any other purpose"; DeepEP #399, corpus/trackers_r11)."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent
R11 = ROOT / "corpus" / "trackers_r11"

KERNEL = '''@T.prim_func
def carved(src: T.handle("uint8", "global"), dst: T.handle("uint8", "global")):
    T.func_attr({"dyn_shared_memory_buf": 4096, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 32, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 32)
    buf_dyn_shmem = T.alloc_buffer((4096,), "uint8", scope="shared.dyn")
    data = T.decl_buffer((2048,), "uint8", data=buf_dyn_shmem.data, scope="shared.dyn")
    mbar: T.handle("uint64", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 2048)
    mbar_1 = T.decl_buffer((32,), "uint64", data=mbar, scope="shared.dyn")
    BEFORE_INIT
    if tx == 0:
        INIT
        T.fence_proxy_async()
        T.ptx_fence_barrier_init()
    T.tvm_storage_sync("shared")
    for it in range(2):
        if tx == 0:
            T.tma_load(T.tvm_access_ptr(T.type_annotation("uint8"), buf_dyn_shmem.data, 0, 1024, 2), T.tvm_access_ptr(T.type_annotation("uint8"), src, it * 1024, 1024, 1), mbar_1[0], 1024, 0)
            T.ptx_arrive_barrier_expect_tx(mbar_1[0], 1024)
        T.mbarrier_wait_parity(mbar_1[0], it % 2)
        dst_1 = T.decl_buffer((2048,), "uint8", data=dst)
        dst_1[it * 1024 + tx] = data[tx]
        AFTER_READ
        T.tvm_storage_sync("shared")
'''


def kernel(before="T.evaluate(0)", init="T.ptx_init_barrier_thread_count(mbar_1[0], 1)", after="T.evaluate(0)"):
    return KERNEL.replace("BEFORE_INIT", before).replace("INIT", init).replace("AFTER_READ", after)


def line_of(src, needle):
    return next(i for i, ln in enumerate(src.splitlines(), 1) if needle in ln)


def race_or_worse(report):
    return {(f.rule.code, f.line) for f in report.findings if f.rule.kind != "unsupported"}


def test_a_carved_barrier_is_followed_like_a_declared_one():
    src = kernel()
    assert check_text(src).verdict == "clean"
    # the same protocol broken three ways: each found as on a shared.barrier element
    no_wait = src.replace("T.mbarrier_wait_parity(mbar_1[0], it % 2)", "T.evaluate(0)")
    assert ("AG401", line_of(src, "dst_1[it * 1024 + tx]")) in race_or_worse(check_text(no_wait))
    flipped = src.replace("it % 2)", "(it + 1) % 2)")
    assert "AG408" in {c for c, _ in race_or_worse(check_text(flipped))}
    short = src.replace("T.ptx_arrive_barrier_expect_tx(mbar_1[0], 1024)", "T.ptx_arrive_barrier_expect_tx(mbar_1[0], 512)")
    assert "AG407" in {c for c, _ in race_or_worse(check_text(short))}


def test_a_store_to_a_valid_barrier_is_AG423_and_one_before_its_init_is_not():
    store = "if tx == 5:\n            mbar_1[0] = T.uint64(0)"
    after = kernel(after=store)
    r = check_text(after)
    (f,) = [f for f in r.findings if f.rule.code == "AG423"]
    assert f.rule.kind == "invalid" and f.line == line_of(after, "mbar_1[0] = T.uint64(0)")
    assert "mbar_1[0]" in f.message and "line 11" in f.message   # the barrier and its init
    # the same bytes written by the initializing thread before the init: memory reused, no finding
    before = kernel(before="if tx == 0:\n        mbar_1[0] = T.uint64(0)")
    assert check_text(before).verdict == "clean"
    # another word of the view, no barrier there: no finding
    other = kernel(after=store.replace("mbar_1[0] = T.uint64(0)", "mbar_1[1] = T.uint64(0)"))
    assert not [f for f in check_text(other).findings if f.rule.code == "AG423"]


def test_one_barrier_per_warp_by_address():
    src = kernel().replace("mbar_1[0]", "mbar_1[tx // 32 * 2]")
    assert check_text(src).verdict == "clean"


def test_more_carved_barriers_than_the_pool_is_unknown():
    many = "for k in range(17):\n            T.ptx_init_barrier_thread_count(mbar_1[k + 1], 1)\n        " \
           "T.ptx_init_barrier_thread_count(mbar_1[0], 1)"
    r = check_text(kernel(init=many))
    assert r.verdict == "unknown"
    assert any("more than 16 mbarriers carved" in f.message for f in r.findings)


@pytest.mark.parametrize("fixed", [False, True])
def test_deepep399_barrier_inside_the_tma_destination(fixed):
    path = R11 / ("deepep399_dispatch_mbarrier_inside_tma_destination_sm90a" + ("_fixed" if fixed else "") + ".tir")
    src = path.read_text()
    r = check_text(src, str(path))
    if fixed:
        assert r.verdict == "clean"
    else:
        lines = {f.line for f in r.findings if f.rule.code == "AG423"}
        assert line_of(src, "T.tma_load(") in lines and r.verdict == "buggy"
