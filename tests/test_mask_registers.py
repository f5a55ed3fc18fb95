"""A block mask of more than 8 entries copied into registers by an unrolled loop of vector loads
(engine/program.py `MAX_MASK_REGISTER_ELEMS`, `Elaborator._register_slice_store`): TileLang's
block-sparse attention over 8192 keys in blocks of 64 copies its 128-entry mask row with
`for i in T.unroll(8): m[i * 16:i * 16 + 16] = T.Cast("int8x16", T.Cast("boolx16", M[...]))`.
Its branches are then branches on loaded cells like those of the 8-block kernels, and the kernel
gets a verdict (it was `unknown`: "cannot evaluate a value loaded from memory")."""
from pathlib import Path

from asyncguard.analyze import check_text
from asyncguard.engine.program import Elaborator
from asyncguard.engine.scopes import scoped_lets
from asyncguard.parse import parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
LARGE = CORPUS / "unseen_large" / \
    "blocksparse_attention__example_tilelang_block_sparse_attn__s8192_h32_d128_ds128_noncausal__blocksparse_flashattn__sm_80.tir"
SPARSE_GEMM = CORPUS / "field" / "gemm_sp__example_gemm_sp__matmul_sp_fp16.gemm_sp_fp16__sm_90a.tir"
BARRIER_LINE = 146   # the barrier between the K tile's last read and its refill for k + 1


def _elaborator(path: Path) -> Elaborator:
    func = scoped_lets(parse(path.read_text(), str(path)).functions[0])
    el = Elaborator(func)
    el.block(func.body)   # (the views are declared as the body is elaborated)
    return el


def test_the_128_entry_mask_row_is_a_register_and_the_kernel_is_clean():
    rep = check_text(LARGE.read_text(), str(LARGE))
    assert rep.verdict == "clean", [f.message for f in rep.findings]
    scope = " ".join(rep.kernels[0].scope)
    assert "data-dependent branches on BlockSparseMask_1 treated as unknown inputs" in scope
    assert "128 value(s) met" in scope


def test_the_refill_without_its_barrier_races():
    lines = LARGE.read_text().split("\n")
    assert lines[BARRIER_LINE - 1].strip() == 'T.tvm_storage_sync("shared.dyn")'
    del lines[BARRIER_LINE - 1]
    rep = check_text("\n".join(lines), "mutant.tir")
    assert rep.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in rep.findings} == {("AG201", BARRIER_LINE + 2)}


def test_only_mask_copies_make_a_large_register():
    # the 128-entry mask is evaluated; a sparse GEMM's 16-entry metadata fragment, loaded from
    # shared memory, is data and stays outside the registers (its loop keeps its skip)
    el = _elaborator(LARGE)
    mask = next(v for n, v in el.views.items() if n.startswith("block_mask"))
    assert el.register_of(mask) is not None and el.register_of(mask)[2] == 128
    el = _elaborator(SPARSE_GEMM)
    meta = next(v for n, v in el.views.items() if n.startswith("E_local"))
    assert el.register_of(meta) is None
    rep = check_text(SPARSE_GEMM.read_text(), str(SPARSE_GEMM))
    assert rep.verdict == "clean"
    assert any("skipped" in line for line in rep.kernels[0].scope)
