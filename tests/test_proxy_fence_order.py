"""Where a fence.proxy.async sits relative to the barrier that hands generic writes to an
async-proxy reader (docs/model.md "The async proxy"; pytorch/ao#4278 in corpus/trackers_r2).

- A writer's fence after the barrier orders nothing for the TMA issuer that passed the barrier
  before it: AG405 by default (the fenced record used to be dropped at the fence, so the
  finding was missed).
- Only the issuer fences, after the barrier: accepted by default (TileLang's and nvFuser's
  TMA-store epilogues), AG419 with `--strict proxy` (the CUDA guide's pattern wants every writer's
  fence before the barrier).
"""
import pathlib

from asyncguard.analyze import Limits, check_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAIR = ROOT / "corpus" / "trackers_r2" / "ao4278_mxfp8_fence_after_syncthreads_sm100a"

TILE = '''@T.prim_func
def store_tile(out_desc: T.handle("uint8x128", "grid_constant"), X: T.handle("uint8", "global")):
    T.func_attr({"dyn_shared_memory_buf": 4096, "target": T.target({"arch": "sm_90a", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 128, "threadIdx.y": 1, "threadIdx.z": 1}})
    X_1 = T.decl_buffer((4096,), "uint8", data=X)
    tx = T.launch_thread("threadIdx.x", 128)
    buf_dyn_shmem = T.alloc_buffer((4096,), "uint8", scope="shared.dyn")
    out_sh: T.handle("uint8", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
    out_sh_1 = T.decl_buffer((4096,), "uint8", data=out_sh, scope="shared.dyn")
    for i in range(32):
        out_sh_1[tx * 32 + i] = X_1[tx * 32 + i]
FENCES
    if tx == 0:
        T.tma_store(out_desc, T.tvm_access_ptr(T.type_annotation("uint8"), out_sh, 0, 4096, 1), 0, 0)
        T.tma_store_arrive()
        T.tma_store_wait(0, T.bool(True))
'''

BEFORE = '''    T.fence_proxy_async()
    T.tvm_storage_sync("shared")'''
ISSUER_AFTER = '''    T.tvm_storage_sync("shared")
    if tx == 0:
        T.fence_proxy_async()'''
# thread 0 fences its own writes before the barrier; the others fence after it, too late
OTHERS_AFTER = '''    if tx == 0:
        T.fence_proxy_async()
    T.tvm_storage_sync("shared")
    if tx != 0:
        T.fence_proxy_async()'''


def run(fences: str, strict=()):
    rep = check_text(TILE.replace("FENCES", fences), limits=Limits(strict=strict))
    return rep.verdict, sorted({(f.rule.code, f.line) for f in rep.findings})


def store_line(fences: str) -> int:
    return TILE.replace("FENCES", fences).splitlines().index(
        next(x for x in TILE.splitlines() if "T.tma_store(" in x)) + 1


def test_every_writer_fences_before_the_barrier():
    assert run(BEFORE) == ("clean", [])
    assert run(BEFORE, ("proxy",)) == ("clean", [])


def test_fences_after_the_barrier_by_the_writers_are_too_late():
    verdict, found = run(OTHERS_AFTER)
    assert verdict == "buggy" and found == [("AG405", store_line(OTHERS_AFTER))]


def test_issuer_fence_after_the_barrier_is_strict_only():
    assert run(ISSUER_AFTER) == ("clean", [])
    verdict, found = run(ISSUER_AFTER, ("proxy",))
    assert verdict == "buggy" and found == [("AG419", store_line(ISSUER_AFTER))]


def test_ao_4278_pair_under_the_strict_reading():
    buggy = (PAIR.parent / (PAIR.name + ".tir")).read_text()
    fixed = (PAIR.parent / (PAIR.name + "_fixed.tir")).read_text()
    assert check_text(buggy).verdict == "clean"     # the default reading accepts the issuer's fence
    rep = check_text(buggy, limits=Limits(strict=("proxy",)))
    assert [(f.rule.code, f.line) for f in rep.findings] == [("AG419", 21)]
    assert "thread 0's, after it acquired them" in rep.findings[0].message
    assert check_text(fixed, limits=Limits(strict=("proxy",))).verdict == "clean"
