"""A branch the engine cannot decide whose arms only store registers (engine/machine.py
`_registers_only`): a per-thread arg-max, `if scores[i] == amax[0]: idx[0] = T.min(idx[0], i)`
(deepseek-ai/TileKernels' MoE top-k gate, corpus/unseen_users3). Neither arm has an access or a
barrier, so neither is run and the registers they may store are unknown from there: a later use
that decides something is `unknown` where it stands, and the rest of the kernel is checked."""
from pathlib import Path

from asyncguard.analyze import check_text

ROOT = Path(__file__).resolve().parent.parent
TOPK_GATE = ROOT / "corpus" / "unseen_users3" / "tilekernels__drv_tilekernels_moe__get_topk_gate_kernel.topk_gate_kernel__sm_90a.tir"

KERNEL = '''@T.prim_func
def argmax(X: T.handle("float32", "global"), Out: T.handle("int32", "global")):
    T.func_attr({"dyn_shared_memory_buf": 256, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 64)
    buf = T.alloc_buffer((256,), "uint8", scope="shared.dyn")
    S = T.decl_buffer((64,), "int32", data=buf.data, scope="shared.dyn")
    X_1 = T.decl_buffer((64,), data=X)
    Out_1 = T.decl_buffer((64,), "int32", data=Out)
    best = T.alloc_buffer((1,), scope="local")
    idx = T.alloc_buffer((1,), "int32", scope="local")
    best[0] = X_1[tx]
    idx[0] = 0
    if X_1[63 - tx] > best[0]:
        idx[0] = 1
    S[ADDRESS] = idx[0]
    T.tvm_storage_sync("shared")
    Out_1[tx] = S[63 - tx]
'''


def test_a_register_only_branch_on_data_is_passed():
    r = check_text(KERNEL.replace("ADDRESS", "tx"))
    assert r.verdict == "clean"
    assert any("only stores registers" in s for s in r.kernels[0].scope)


def test_the_register_deciding_an_address_is_unknown_where_it_is_used():
    src = KERNEL.replace("ADDRESS", "tx + idx[0]")
    r = check_text(src)
    assert r.verdict == "unknown"
    assert {f.line for f in r.findings} == {15}


def test_a_race_after_it_is_still_found():
    src = KERNEL.replace("ADDRESS", "tx").replace('    T.tvm_storage_sync("shared")\n', "")
    r = check_text(src)
    assert r.verdict == "buggy" and {f.rule.code for f in r.findings} == {"AG201"}


def test_the_moe_top_k_gate():
    r = check_text(TOPK_GATE.read_text(), str(TOPK_GATE))
    assert r.verdict == "clean", [f.message[:120] for f in r.findings]
