"""Registers computed from data that nothing checked reads (engine/program.py
`_drop_dead_registers`): their stores are not run, and branches and loops left around nothing
else are skipped, so a data-dependent register that only feeds global memory or other such
registers no longer makes a kernel `unknown`. A register that decides a shared address or a
barrier still does."""
import textwrap
from pathlib import Path

from _variants import assert_variants_flagged

from asyncguard.analyze import check_text
from asyncguard.mutants import mutations

FIELD = Path(__file__).resolve().parent.parent / "corpus" / "field"

HEAD = '''# from tvm.script import tirx as T
@T.prim_func
def k(G: T.handle("int32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    G_1 = T.decl_buffer((64,), "int32", data=G)
    C_1 = T.decl_buffer((64,), data=C)
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((128,), scope="shared.dyn")
    n = T.alloc_buffer((1,), "int32", scope="local.var")
    n[0] = 0
    if G_1[tx] != 0:
        n[0] = 1
'''


def kernel(body: str):
    return check_text(HEAD + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    "), "k.tir")


def field(name: str):
    path = FIELD / name
    return path.read_text(), check_text(path.read_text(), str(path))


def test_a_data_register_that_only_feeds_global_memory_decides_nothing():
    rep = kernel('''
        S[tx] = T.float32(1)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[63 - tx] + T.Cast("float32", n[0])
    ''')
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    assert any(s.startswith("registers n decide nothing checked") and "lines [11]" in s
               for s in rep.kernels[0].scope)
    racy = kernel('''
        S[tx] = T.float32(1)
        C_1[tx] = S[63 - tx] + T.Cast("float32", n[0])
    ''')
    assert racy.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in racy.findings} == {("AG201", 14)}


def test_a_data_register_deciding_a_shared_address_or_a_barrier_stays_unknown():
    for body in ('''
        S[tx + n[0]] = T.float32(1)
        T.tvm_storage_sync("shared")
        C_1[tx] = S[tx]
    ''', '''
        if n[0] == 1:
            T.tvm_storage_sync("shared")
        S[tx] = T.float32(1)
        C_1[tx] = S[63 - tx]
    '''):
        rep = kernel(body)
        assert rep.verdict == "unknown"
        assert {f.rule.code for f in rep.findings} == {"AG001"}
        assert not any(s.startswith("registers") for s in rep.kernels[0].scope)


def test_sparse_metadata_compression_is_clean():
    # TileLang's gemm_sp compress kernel: nz_count (how many of 4 loaded values are non-zero)
    # picks which nz_idx element is written and decides branches over register stores only;
    # the kernel has no shared memory and no barrier, so no single-bug mutant exists
    for arch in ("sm_80", "sm_90a"):
        text, rep = field(f"gemm_sp__example_gemm_sp__compress_fn.compress_8bit_16bit_ordered_metadata__{arch}.tir")
        assert rep.verdict == "clean", [f.message for f in rep.findings]
        assert any(s.startswith("registers meta_local, nz_count, nz_idx decide nothing checked")
                   for s in rep.kernels[0].scope)
        assert mutations(text) == []


def test_sparse_gqa_decode_with_a_has_valid_block_flag_is_clean_and_its_dropped_barriers_found():
    # has_valid_block (set under `if 0 <= block_index`) only decides float register updates, and
    # the combine kernel's max_split only decides which float registers accumulate
    for name in ("varlen_indice", "paged"):
        text, rep = field(f"blocksparse_attention__example_tilelang_sparse_gqa_decode_{name}__flashattn__sm_80.tir")
        assert rep.verdict == "clean", [f.message for f in rep.findings]
        scope = [s for k in rep.kernels for s in k.scope]
        assert any(s.startswith("registers has_valid_block decide nothing checked") for s in scope)
        assert any(s.startswith("registers max_split decide nothing checked") for s in scope)
        assert any("proved for every num_split >= 1" in s for s in scope)
        assert_variants_flagged(text, {("drop-barrier", 133), ("drop-barrier", 207)})
