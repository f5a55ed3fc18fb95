"""Kernels printed by TVM itself (not TileLang's lowering): corpus/unseen_tvm, made by TVM's own
software pipeliner, dlight and hand schedules (docs/model.md "TVM's own pipelines")."""
from pathlib import Path

import pytest

from asyncguard.analyze import check_text

TVM = Path(__file__).resolve().parent.parent / "corpus" / "unseen_tvm"

HEAD = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A: T.handle("float32", "global"), B: T.handle("float32", "global")):
        T.func_attr({"target": T.target({"arch": "sm_80", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "thread_extent": {"threadIdx.x": 64}})
        A_1 = T.decl_buffer((64,), data=A)
        B_1 = T.decl_buffer((64,), data=B)
        threadIdx_x = T.launch_thread("threadIdx.x", 64)
        S = T.alloc_buffer((128,), scope="shared")
'''


def kernel(body: str) -> str:
    return HEAD + "".join(f"        {line}\n" for line in body.strip().splitlines())


def check(text: str, name: str = "tvm.tir"):
    return check_text(text, name)


def rules(rep) -> set:
    return {(f.rule.code, f.line) for f in rep.findings}


def lines_of(name: str) -> list:
    return (TVM / name).read_text().split("\n")


def test_the_dtype_first_builtin_copies_with_element_offsets_and_ldmatrix_reads_each_lanes_row():
    """`T.ptx_cp_async("float16", buf.data, off, A, src_off, 16)` into a uint8 dynamic buffer
    (offsets in bytes) and `T.ptx_ldmatrix(.., T.address_of(buf_1[base]), lane_off)`: TVM's 2-stage
    tensor-core GEMM is clean; without its wait the ldmatrix reads race the copies, and without
    the barrier before the refill the copy overwrites a stage a warp still reads."""
    name = "mma_gemm_s2_async.tir"
    lines = lines_of(name)
    assert check("\n".join(lines), name).verdict == "clean"
    wait = next(k for k, ln in enumerate(lines) if 'async_wait_inflight_count", 1)' in ln)
    assert "async_wait_queue_scope" in lines[wait - 1]
    rep = check("\n".join(lines[:wait - 1] + lines[wait + 1:]), name)
    assert rep.verdict == "buggy" and {r for r, _ in rules(rep)} == {"AG101", "AG103"}
    sync = next(k for k, ln in enumerate(lines) if 'T.tvm_storage_sync("shared.dyn")' in ln)
    rep = check("\n".join(lines[:sync] + lines[sync + 1:]), name)
    assert rep.verdict == "buggy"
    overwrite = [f for f in rep.findings if f.rule.code == "AG103"]
    assert overwrite and all("ptx_ldmatrix" in f.message or "reads at line" in f.message for f in overwrite)


def test_a_false_predicate_stores_zeros_synchronously():
    """TVM's predicated cp.async (ptx.cc): `@p cp.async; @!p st.shared` of zeros. Threads whose
    predicate is false wrote before the barrier; the others' copies are not waited for, so only
    they race, and a wait makes it clean."""
    copy = 'T.ptx_cp_async("float32", S.data, threadIdx_x, A, threadIdx_x, 4, threadIdx_x < 16)'
    body = f"""
{copy}
T.ptx_commit_group()
T.tvm_storage_sync("shared")
B_1[threadIdx_x] = S[63 - threadIdx_x]
"""
    rep = check(kernel(body))
    assert rep.verdict == "buggy", [f.message for f in rep.findings]
    races = [f for f in rep.findings if f.rule.code == "AG101"]
    # the copying threads are 0..15: the witness names one of them as the copy's issuer
    assert races and all(any(f"thread {t}'s cp.async at line 13" in f.message for t in range(16))
                         for f in races)
    # and only those 16 leave a copy in flight at exit
    assert any(f.rule.code == "AG104" and f.message.startswith("16 thread(s)") for f in rep.findings)
    waited = body.replace("T.ptx_commit_group()", "T.ptx_commit_group()\nT.ptx_wait_group(0)")
    assert check(kernel(waited)).verdict == "clean"
    # every thread predicated off: only synchronous stores, ordered by the barrier
    assert check(kernel(body.replace("threadIdx_x < 16", "threadIdx_x < 0"))).verdict == "clean"


def test_the_async_queue_is_the_attrs_value():
    """codegen_cuda.cc reads the queue from the attr's value (`op->value`) and refuses any queue
    but 0; the node operand means nothing."""
    body = """
with T.attr(0, "async_commit_queue_scope", 0):
    T.ptx_cp_async("float32", S.data, threadIdx_x, A, threadIdx_x, 4)
with T.attr(0, "async_wait_queue_scope", 0):
    T.attr(0, "async_wait_inflight_count", 0)
    T.tvm_storage_sync("shared")
    B_1[threadIdx_x] = S[63 - threadIdx_x]
"""
    assert check(kernel(body)).verdict == "clean"
    assert check(kernel(body.replace('T.attr(0, "async_wait_queue_scope"', 'T.attr(1, "async_wait_queue_scope"'))
                 ).verdict == "clean"
    rep = check(kernel(body.replace('"async_wait_queue_scope", 0', '"async_wait_queue_scope", 1')))
    assert rep.verdict == "unknown"
    assert any("async queue 1" in f.message for f in rep.findings)


def test_a_strided_vector_reads_each_lane():
    """`S[e : e + 64 : 32]` (TVM's Ramp(e, 32, 2), dlight's SIMT GEMM): elements e and e + 32."""
    body = """
S[threadIdx_x] = A_1[threadIdx_x]
T.tvm_storage_sync("shared")
L = T.alloc_buffer((2,), scope="local")
L[0:2] = S[threadIdx_x // 2:threadIdx_x // 2 + 64:32]
B_1[threadIdx_x] = L[0] + L[1]
"""
    assert check(kernel(body)).verdict == "clean"
    rep = check(kernel(body.replace('T.tvm_storage_sync("shared")\n', "")))
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" and f.line == 15 for f in rep.findings), [f.message for f in rep.findings]
    # a lane past what any thread wrote: the second lane of threads >= 64 reads S[64..95], never written
    beyond = check(kernel(body.replace("threadIdx_x // 2 + 64:32]", "threadIdx_x // 2 + 96:32]")))
    assert beyond.verdict != "clean"


def test_dlight_simt_gemm_with_strided_loads_is_clean_and_its_barrier_matters():
    name = "dlight_matmul_f32_simt.tir"
    lines = lines_of(name)
    assert check("\n".join(lines), name).verdict == "clean"
    syncs = [k for k, ln in enumerate(lines) if "T.tvm_storage_sync(" in ln]
    found = set()
    for k in syncs:
        found.add(check("\n".join(lines[:k] + lines[k + 1:]), name).verdict)
    assert "buggy" in found


@pytest.mark.parametrize("name", ["upstream_cp_async_in_if_then_else.tir",
                                  "upstream_async_producer_interleaving.tir"])
def test_tvms_pipeliner_under_waits_when_a_copy_follows_its_consumer(name):
    """TVM's InjectSoftwarePipeline (order [0, 2, 1]): the prologue commits A and B as one group
    per stage, the loop commits them as two, and the wait counts assume two per stage, so
    `wait_group 5` at i = 1 leaves the prologue's copy of stage 1 in flight while it is read
    (docs/found-bugs.md)."""
    rep = check((TVM / name).read_text(), name)
    assert rep.verdict == "buggy"
    codes = {f.rule.code for f in rep.findings}
    assert "AG101" in codes and codes <= {"AG101", "AG103"}


def test_dlights_wmma_gemm_reads_and_writes_whole_tiles():
    """`tvm_load_matrix_sync` / `tvm_store_matrix_sync` (models/wmma.py): warp-collective tile accesses
    of `stride`-apart rows, the fragment kind from its handle's scope. dlight's tensor-core GEMM is
    clean; without the barrier before the accumulator's store the store overwrites a stage another
    warp's wmma load still reads, and without the one after it the plain read-back races the store."""
    name = "dlight_matmul_f16_tensorcore.tir"
    lines = lines_of(name)
    assert check("\n".join(lines), name).verdict == "clean"
    store = next(k for k, ln in enumerate(lines) if "T.tvm_store_matrix_sync(" in ln)
    before = max(k for k in range(store) if "T.tvm_storage_sync(" in lines[k])
    after = next(k for k in range(store, len(lines)) if "T.tvm_storage_sync(" in lines[k])
    rep = check("\n".join(lines[:before] + lines[before + 1:]), name)
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" and f"line {store}" in f.message for f in rep.findings)   # shifted up one
    rep = check("\n".join(lines[:after] + lines[after + 1:]), name)
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" and f"line {store + 1}" in f.message for f in rep.findings)


def test_fix_lowers_tvms_wait_count_to_the_one_that_covers_the_prologue():
    """`fix` on entry 24's kernel: the loop's `async_wait_inflight_count 5` becomes 4 (two groups per
    stage from the loop on, but the prologue's stage 1 is the second group), and the result checks
    clean."""
    from asyncguard.repair import repair_text
    name = "upstream_cp_async_in_if_then_else.tir"
    text = (TVM / name).read_text()
    rep = repair_text(text, name)
    assert rep.status == "fixed"
    old = 'T.attr(0, "async_wait_inflight_count", 5)'
    assert text.count(old) == 1 and rep.new_text == text.replace(old, old.replace("5)", "4)"))
    assert check(rep.new_text, name).verdict == "clean"


def test_tvms_wait_group_0_leaves_uncommitted_copies_in_flight():
    """TVM's codegen prints `T.ptx_wait_group(0)` as `cp.async.wait_group 0`, which waits for
    committed groups only; TileLang's prints `cp.async.wait_all` (tests/test_engine.py). A TVM
    kernel that waits before committing reads its copies unlanded; committing first is clean."""
    body = """
T.ptx_cp_async("float32", S.data, threadIdx_x, A, threadIdx_x, 4)
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
B_1[threadIdx_x] = S[63 - threadIdx_x]
"""
    rep = check(kernel(body))
    assert rep.verdict == "buggy"
    assert {f.rule.code for f in rep.findings} >= {"AG101"}
    committed = body.replace("T.ptx_wait_group(0)", "T.ptx_commit_group()\nT.ptx_wait_group(0)")
    assert check(kernel(committed)).verdict == "clean"


BUILTINS = TVM.parent / "unseen_tvm_builtins"


def test_ldmatrix_from_a_plain_buffer_pointer_reads_other_lanes_rows():
    """TVM's upstream ldmatrix test (`A_shared.data` and a per-lane offset): each lane stores its
    column of rows, then ldmatrix reads rows other lanes stored, with nothing between (a race;
    upstream later added a barrier). With the barrier it is clean."""
    text = (BUILTINS / "ldmatrix_x4.tir").read_text()
    rep = check(text, "ldmatrix_x4.tir")
    assert rep.verdict == "buggy"
    assert any(f.rule.code == "AG201" and f.line == 19 for f in rep.findings)   # the ldmatrix's line
    call = next(ln for ln in text.splitlines() if "T.ptx_ldmatrix(" in ln)
    indent = call[:len(call) - len(call.lstrip())]
    synced = text.replace(call, f'{indent}T.tvm_storage_sync("shared")\n{call}', 1)
    assert check(synced, "ldmatrix_x4.tir").verdict == "clean"


def _fenced(text: str) -> str:
    """The init followed by its fence and a block barrier (what TVM's test kernels lack)."""
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if "ptx_init_barrier_thread_count" in ln)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    return "\n".join(lines[:i + 1] + [indent + "T.ptx_fence_barrier_init()", indent + 'T.tvm_storage_sync("shared")']
                     + lines[i + 1:])


def test_tvms_indexed_mbarrier_builtins_and_bulk_copy():
    """`T.create_barriers(1)` declares `barrier[2]`; `ptx_init_barrier_thread_count(0, 32)`,
    `ptx_cp_async_bulk(.., 256, 0)`, `ptx_arrive_barrier_expect_tx(0, 256)` and `ptx_wait_barrier(0)`
    (parity 0) name it by index. TVM's test kernel lets every thread init and use the barrier with
    nothing ordering the inits (AG403); with a fence and a barrier after the init it is clean;
    without the expect_tx the copies' bytes complete a phase that never expected them (AG407);
    without the wait the reads race the bulk copy (AG401)."""
    text = (BUILTINS / "cp_async_bulk.tir").read_text()
    assert {f.rule.code for f in check(text).findings} == {"AG403"}
    fixed = _fenced(text)
    assert check(fixed).verdict == "clean"
    line = next(ln for ln in fixed.splitlines() if "ptx_arrive_barrier_expect_tx(0, 256)" in ln)
    rep = check(fixed.replace(line, line.replace("ptx_arrive_barrier_expect_tx(0, 256)", "ptx_arrive_barrier(0)")))
    assert rep.verdict == "buggy" and "AG407" in {f.rule.code for f in rep.findings}   # bytes never expected
    wait = next(ln for ln in fixed.splitlines() if "ptx_wait_barrier(0)" in ln)
    rep = check(fixed.replace(wait + "\n", ""))
    assert rep.verdict == "buggy" and "AG401" in {f.rule.code for f in rep.findings}
