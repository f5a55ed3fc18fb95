"""Sizes kept in registers and lets (engine/program.py `_forward_size_registers`): TileLang users
write `n_iters[0] = (seq_end[0] + 63) // 64` with `seq_end[0] = num_tokens` (`T.alloc_var`) and
`left = k * 64` (QwenLM/FlashQLA, corpus/unseen_users3). The provers read such a register or let as
its one reaching value, so the kernel is proved for every size as the same kernel written with the
expressions inline is; a branch whose arms touch the same shared bytes decides nothing they compare
(engine/nodes.py `same_arms`)."""
from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.engine.nodes import PLoop, statements
from asyncguard.engine.program import elaborate
from asyncguard.parse import parse

KERNEL = '''@T.prim_func
def chunked(A: T.handle("float16", "global"), B: T.handle("float16", "global"), K: T.int32):
    T.func_attr({"dyn_shared_memory_buf": 256, "target": T.target({"arch": "sm_80", "kind": "cuda"}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    tx = T.launch_thread("threadIdx.x", 64)
    buf = T.alloc_buffer((256,), "uint8", scope="shared.dyn")
    S = T.decl_buffer((128,), "float16", data=buf.data, scope="shared.dyn")
    A_1 = T.decl_buffer((K,), "float16", data=A)
    B_1 = T.decl_buffer((K,), "float16", data=B)
    seq_end = T.alloc_buffer((1,), "int32", scope="local.var")
    n_iters = T.alloc_buffer((1,), "int32", scope="local.var")
    seq_end_1 = T.decl_buffer((1,), "int32", data=seq_end.data, scope="local.var")
    n_iters_1 = T.decl_buffer((1,), "int32", data=n_iters.data, scope="local.var")
    seq_end_1[0] = K
    n_iters_1[0] = seq_end_1[0] // 64
    for k in range(n_iters_1[0]):
        left: T.int32 = k * 64
        S[k % 2 * 64 + tx] = A_1[left + tx]
        T.tvm_storage_sync("shared")
        B_1[left + tx] = S[k % 2 * 64 + 63 - tx]
'''
INLINE = KERNEL.replace("    for k in range(n_iters_1[0]):", "    for k in range(K // 64):")
SINGLE = KERNEL.replace("k % 2 * 64", "0")
TAIL = KERNEL.replace("    n_iters_1[0] = seq_end_1[0] // 64\n", "    n_iters_1[0] = (seq_end_1[0] + 63) // 64\n").replace(
    "        S[k % 2 * 64 + tx] = A_1[left + tx]\n",
    "        if left + 64 <= seq_end_1[0]:\n            S[k % 2 * 64 + tx] = A_1[left + tx]\n"
    "        else:\n            S[k % 2 * 64 + tx] = T.float16(0)\n")


def size_scope(report):
    (kernel,) = report.kernels
    return next(line for line in kernel.scope if "K" in line and "proved" in line)


def findings(report):
    return sorted((f.rule.code, f.line) for f in report.findings)


def test_a_size_in_a_register_is_proved_like_the_size_inline():
    kept, inline = check_text(KERNEL), check_text(INLINE)
    assert kept.verdict == inline.verdict == "clean"
    assert size_scope(kept).startswith("proved for every K >= 1")
    assert size_scope(kept) == size_scope(inline)


def test_a_race_is_found_for_every_size_through_the_register():
    r = check_text(SINGLE)
    assert r.verdict == "buggy" and ("AG201", 17) in findings(r)
    assert size_scope(r).startswith("proved for every K >= 1")


def test_a_full_or_partial_tile_branch_with_the_same_accesses_decides_nothing():
    r = check_text(TAIL)
    assert r.verdict == "clean" and size_scope(r).startswith("proved for every K >= 1")


def _loop_and_reads(src):
    program = elaborate(parse(src).functions[0])
    loop = next(s for s in statements(program.body) if isinstance(s, PLoop))
    reads = [x for s in statements(loop.body) if getattr(s, "src", None) is not None
             for e in (s.src if isinstance(s.src, tuple) else (s.src,)) if e is not None
             for x in ir.nodes(e) if isinstance(x, ir.Subscript) and getattr(x.value, "name", "") == "n_iters_1"]
    return loop, reads


def test_only_the_reaching_store_is_read_as_a_value():
    # the loop bound reads the store before the loop; inside the loop, which stores it, it is a register
    src = KERNEL.replace("        B_1[left + tx] = S[k % 2 * 64 + 63 - tx]\n",
                         "        B_1[left + tx] = S[k % 2 * 64 + 63 - tx]\n"
                         "        if n_iters_1[0] < 4:\n            B_1[tx] = S[tx]\n"
                         "        n_iters_1[0] = n_iters_1[0] - 1\n")
    loop, reads = _loop_and_reads(src)
    assert not any(isinstance(x, ir.Subscript) for x in ir.nodes(loop.src[1]))   # K // 64
    assert "K" in {x.name for x in ir.nodes(loop.src[1]) if isinstance(x, ir.Var)}
    assert reads, "the in-loop read after a store in the loop must stay a register read"


def test_a_read_bound_that_grows_with_the_size_is_monotone():
    # `if left + tx < K: B[..] = S[..]` (a blind arm: shared reads alone) holds at a K, and at every
    # larger K of the same trip counts: the largest value of each trip-count vector runs too
    # (prover/sizes.py `_monotone_arms`); `K - 1 < left + tx` does not grow with K
    from asyncguard.engine.nodes import PIf
    from asyncguard.prover.induction import size_loops
    from asyncguard.prover.sizes import _monotone_arms
    grows = TAIL.replace("        B_1[left + tx] = S[k % 2 * 64 + 63 - tx]\n",
                         "        if left + tx < seq_end_1[0]:\n            B_1[left + tx] = S[k % 2 * 64 + 63 - tx]\n")
    for text, expected in ((grows, True), (grows.replace("left + tx < seq_end_1[0]", "seq_end_1[0] - 1 < left + tx"),
                                           False)):
        program = elaborate(parse(text).functions[0])
        trips = [lp.src[1] for lp in size_loops(program, "K")]
        guard = next(s for s in statements(program.body) if isinstance(s, PIf) and s.blind_arm)
        assert (id(guard.src) in _monotone_arms(program, "K", trips, [])) is expected
