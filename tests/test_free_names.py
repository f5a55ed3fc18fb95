"""`free_names` answers dependence questions (a thread index? a block index? a size?). The `T` of
`T.min(...)` or `T.Cast(...)` names TVMScript's namespace, a function, never a value: counting it
made every expression printed with a TVMScript call look as if it read an unknown name."""
from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.engine.exprs import free_names
from asyncguard.parse import parse


def expr(text: str):
    fn = parse(f"@T.prim_func\ndef _():\n    {text}\n", "<e>").functions[0]
    return fn.body[0].expr


def test_a_dotted_callee_is_not_a_free_name():
    assert free_names(expr("T.min(bx * 2 + i, n)")) == {"bx", "i", "n"}
    assert free_names(expr('T.Cast("int64", bx) * T.int64(512)')) == {"bx"}
    assert free_names(expr("cuda.__shfl_sync(mask, x, 0)")) == {"mask", "x"}


def test_a_variable_named_T_in_an_argument_is_still_a_free_name():
    e = ir.Call(ir.Attr(ir.Var("T"), "min"), (ir.Var("T"), ir.Var("n")), ())
    assert free_names(e) == {"T", "n"}


# TileLang's Megatron KL kernel in small: a symbolic grid whose block index addresses the mask
# cells through `T.Cast("int64", bx)`. Every load of a block reads F(bx) + G(tile, tx): which
# loads share a cell is the same in every block, so one block stands for all.
KERNEL = '''# from tvm.script import tirx as T
@T.prim_func
def k(Out: T.handle("float32", "global"), X: T.handle("float32", "global"), Mask: T.handle("int8", "global"), seq_len: T.int32):
    T.func_attr({{"thread_extent": {{"blockIdx.x": seq_len, "threadIdx.x": 256, "threadIdx.y": 1, "threadIdx.z": 1}}, "tl.readonly_param_indices": [1, 2]}})
    Out_1 = T.decl_buffer((seq_len * 512,), data=Out)
    X_1 = T.decl_buffer((seq_len * 512,), data=X)
    Mask_1 = T.decl_buffer((seq_len * 512,), "int8", data=Mask)
    bx = T.launch_thread("blockIdx.x", seq_len)
    S = T.alloc_buffer((256,), scope="shared")
    valid = T.alloc_buffer((1,), "int8", scope="local")
    tx = T.launch_thread("threadIdx.x", 256)
    for tile in range(2):
        valid[0] = T.Cast("int8", T.Cast("bool", Mask_1[T.Cast("int64", bx) * T.int64(512) + T.Cast("int64", tile) * T.int64(256) + T.Cast("int64", tx)]))
        T.tvm_storage_sync("shared")
        S[tx] = T.if_then_else(T.Cast("bool", valid[0]), X_1[T.Cast("int64", bx) * T.int64(512) + T.Cast("int64", tile) * T.int64(256) + T.Cast("int64", tx)], T.float32(0.0))
{sync}
        Out_1[T.Cast("int64", bx) * T.int64(512) + T.Cast("int64", tile) * T.int64(256) + T.Cast("int64", tx)] = S[255 - tx]
'''


def test_a_block_index_inside_a_cast_moves_every_load_alike():
    r = check_text(KERNEL.format(sync='        T.tvm_storage_sync("shared")'), "k.tir")
    assert r.verdict == "clean", [f.message for f in r.findings]


def test_the_same_kernel_without_its_barrier_is_a_race_for_every_block():
    r = check_text(KERNEL.format(sync=""), "k.tir")
    assert r.verdict == "buggy"
    assert {(f.rule.code, f.line) for f in r.findings if f.rule.kind != "unsupported"} == {("AG201", 17)}   # the read of S[255 - tx]
