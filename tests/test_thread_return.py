"""`T.thread_return()` (models/control.py): a whole block that leaves early is followed (its
threads exit); part of a block leaving while the rest goes on to a barrier is `unknown`
(deepseek-ai/TileKernels' `if num_expand_tokens <= bx: T.thread_return()`, corpus/unseen_users3)."""
from asyncguard.analyze import check_text

KERNEL = '''@T.prim_func
def early(A: T.handle("float32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 256, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 4, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    buf = T.alloc_buffer((256,), "uint8", scope="shared.dyn")
    S = T.decl_buffer((64,), "float32", data=buf.data, scope="shared.dyn")
    A_1 = T.decl_buffer((256,), "float32", data=A)
    if COND:
        T.thread_return()
    S[tx] = A_1[bx * 64 + tx]
    T.tvm_storage_sync("shared")
    A_1[bx * 64 + tx] = S[63 - tx]
'''


def test_a_whole_block_returning_early_is_followed():
    r = check_text(KERNEL.replace("COND", "2 <= bx"))
    assert r.verdict == "clean"


def test_a_race_after_the_early_return_is_still_found():
    src = KERNEL.replace("COND", "2 <= bx").replace('    T.tvm_storage_sync("shared")\n', "")
    r = check_text(src)
    assert r.verdict == "buggy" and {f.rule.code for f in r.findings} == {"AG201"}


def test_part_of_a_block_returning_before_a_barrier_is_unknown():
    r = check_text(KERNEL.replace("COND", "32 <= tx"))
    assert r.verdict == "unknown"
    assert any("T.thread_return by some threads" in f.message for f in r.findings)
