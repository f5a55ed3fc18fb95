"""Every thread storing the same value into the same shared bytes is not a race (TileLang's naive
GEMV example does it); any way the value may differ between threads keeps the race."""
import pytest

from asyncguard.analyze import check_text

KERNEL = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float16", "global"), C: T.handle("float16", "global")):
    T.func_attr({{"thread_extent": {{"threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}}}})
    A_1 = T.decl_buffer((4096,), "float16", data=A)
    C_1 = T.decl_buffer((4096,), "float16", data=C)
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.alloc_buffer((128,), "float16", scope="shared")
    for k in range(2):
        {let}
        for i in range(128):
            S[i] = {value}
        T.tvm_storage_sync("shared")
        C_1[bx * 128 + k * 64 + tx] = S[tx]
        T.tvm_storage_sync("shared")
{tail}'''


def verdict_and_rules(value: str, let: str = "j = k", tail: str = ""):
    r = check_text(KERNEL.format(value=value, let=let, tail=tail), "k.tir")
    return r.verdict, sorted({f.rule.code for f in r.findings})


@pytest.mark.parametrize("value", [
    "A_1[bx * 256 + k * 128 + i]",                  # uniform address of a read-only parameter
    "T.Cast(\"float16\", T.float32(2.0) * T.Cast(\"float32\", A_1[j * 128 + i]))",  # through a let
    "T.float16(0.0)",
])
def test_one_value_in_every_thread_is_not_a_race(value):
    assert verdict_and_rules(value) == ("clean", [])


@pytest.mark.parametrize("let,clean", [
    ("v: T.float16 = A_1[bx * 256 + k]", True),    # a let assigned once from a uniform load
    ("v: T.float16 = A_1[bx * 256 + tx]", False),  # its address depends on the thread
    ("v: T.float16 = A_1[k]\n        v = A_1[tx]", False),   # assigned twice: no one expression
])
def test_a_let_of_a_loaded_value_is_one_value_when_its_definition_is(let, clean):
    verdict, rules = verdict_and_rules("v", let)
    assert (verdict, rules) == ("clean", []) if clean else "AG201" in rules


@pytest.mark.parametrize("value,let,tail", [
    ("A_1[bx * 256 + i + tx]", "j = k", ""),              # the address depends on the thread
    ("A_1[j * 128 + i]", "j = k + tx", ""),                # through a let that depends on it
    ("T.Cast(\"float16\", tx)", "j = k", ""),
    ("A_1[bx * 256 + i]", "j = k", "    A_1[tx] = T.float16(1.0)"),   # the kernel writes A
])
def test_a_value_that_may_differ_between_threads_is_a_race(value, let, tail):
    verdict, rules = verdict_and_rules(value, let, tail)
    assert verdict == "buggy" and "AG201" in rules


def test_one_value_into_overlapping_but_different_ranges_is_still_a_race():
    # thread t stores A[0:4] into S[2t:2t+4]: neighbours overlap on two elements, and there
    # they store different elements of the value
    text = KERNEL.format(value="A_1[0:4]", let="j = k", tail="").replace(
        "for i in range(128):\n            S[i] = A_1[0:4]", "S[tx * 2:tx * 2 + 4] = A_1[0:4]")
    r = check_text(text, "k.tir")
    assert "AG201" in {f.rule.code for f in r.findings}


@pytest.mark.parametrize("value,clean", [
    ("T.exp2(Sh[i])", True),        # a shared element at one address, through pure math
    ("Sh[i] + T.Cast(\"float16\", tx)", False),   # the thread index in the value itself
])
def test_a_value_read_from_one_shared_element_is_one_value(value, clean):
    # every thread stores exp2(Sh[i]) into S[i]: both read one element in one barrier interval
    text = KERNEL.format(value=value, let="j = k", tail="").replace(
        '    S = T.alloc_buffer((128,), "float16", scope="shared")\n',
        '    S = T.alloc_buffer((128,), "float16", scope="shared")\n'
        '    Sh = T.alloc_buffer((128,), "float16", scope="shared")\n'
        '    Sh[tx] = A_1[tx]\n    Sh[tx + 64] = A_1[tx + 64]\n    T.tvm_storage_sync("shared")\n')
    r = check_text(text, "k.tir")
    if clean:
        assert r.verdict == "clean", [f.message for f in r.findings]
    else:
        assert "AG201" in {f.rule.code for f in r.findings}


def test_the_per_address_proof_is_asked_only_where_ranges_meet(monkeypatch):
    """`same_value_per_address` (a z3 query, seconds on a swizzled fp64 GEMM's smem fill) is read
    only by the self clash check, and only where two threads' ranges meet: a store whose threads
    never meet (each thread its own element) does not ask it; one where they do asks it once."""
    from asyncguard.engine import program
    asked = []
    real = program.same_value_per_address

    def counting(el, target, value):
        asked.append(target.span.line if target.span else None)
        return real(el, target, value)
    monkeypatch.setattr(program, "same_value_per_address", counting)
    own = KERNEL.format(value="A_1[tx]", let="j = k", tail="").replace(
        "for i in range(128):\n            S[i] =", "for i in range(2):\n            S[i * 64 + tx] =")
    r = check_text(own, "k.tir")
    assert (r.verdict, asked) == ("clean", [])
    assert verdict_and_rules("A_1[tx]") == ("buggy", ["AG201"]) and len(asked) == 1


def test_a_loop_variable_of_a_bound_built_with_tvmscript_calls_is_one_value():
    # `range(T.min(T.max(n, 1), 4))`: every thread runs the same iterations, so k is one value in
    # every thread (`T` names TVMScript's namespace, not a value: it was read as one, and the
    # stores of k below were a write-write race of one statement)
    text = '''# from tvm.script import tirx as T
@T.prim_func
def k(C: T.handle("float32", "global"), n: T.int32):
    T.func_attr({"thread_extent": {"blockIdx.x": 1, "threadIdx.x": 64, "threadIdx.y": 1, "threadIdx.z": 1}})
    bx = T.launch_thread("blockIdx.x", 1)
    tx = T.launch_thread("threadIdx.x", 64)
    C_1 = T.decl_buffer((64,), data=C)
    S = T.alloc_buffer((4,), scope="shared.dyn")
    for k in range(T.min(T.max(n, 1), 4)):
        S[k] = T.Cast("float32", k)
    T.tvm_storage_sync("shared")
    C_1[tx] = S[0]
'''
    r = check_text(text, "k.tir")
    assert r.verdict == "clean", [f.message for f in r.findings]
    r = check_text(text.replace("T.Cast(\"float32\", k)", "T.Cast(\"float32\", k + tx)"), "k.tir")
    assert "AG201" in {f.rule.code for f in r.findings}   # a value that differs between threads


ROW_KERNEL = '''# from tvm.script import tirx as T
@T.prim_func
def k(A: T.handle("float32", "global"), C: T.handle("float32", "global")):
    T.func_attr({"thread_extent": {"threadIdx.x": 8, "threadIdx.y": 16, "threadIdx.z": 1}})
    A_1 = T.decl_buffer((128,), "float32", data=A)
    C_1 = T.decl_buffer((128,), "float32", data=C)
    tx = T.launch_thread("threadIdx.x", 8)
    ty = T.launch_thread("threadIdx.y", 16)
    Sh = T.alloc_buffer((128,), "float32", scope="shared")
    R = T.alloc_buffer((16,), "float32", scope="shared")
    m = T.alloc_buffer((1,), "float32", scope="local")
    Sh[ty * 8 + tx] = A_1[ty * 8 + tx]
    m[0] = T.float32(-3.0e38)
    T.tvm_storage_sync("shared")
    for it in range(4):
        if it * 4 + ty < 32:
            m[0] = T.max(m[0], Sh[it * 32 + ty])
    T.tvm_storage_sync("shared")
    R[ty] = m[0]
    T.tvm_storage_sync("shared")
    C_1[ty * 8 + tx] = R[tx]'''


@pytest.mark.parametrize("edit, clean", [
    (None, True),   # the 8 lanes of a row store the row's maximum: one value per row
    (("Sh[it * 32 + ty]", "Sh[it * 32 + ty + tx]"), False),       # each lane its own element
    (("m[0] = T.float32(-3.0e38)", "m[0] = T.Cast(\"float32\", tx)"), False),   # its own start
    (("    T.tvm_storage_sync(\"shared\")\n    R[ty]",             # a write through another view
      "    m_1 = T.decl_buffer((1,), \"float32\", data=m.data, scope=\"local\")\n"
      "    m_1[0] = T.Cast(\"float32\", tx)\n    T.tvm_storage_sync(\"shared\")\n    R[ty]"), False),
    (("    T.tvm_storage_sync(\"shared\")\n    R[ty]",             # a pointer to m handed out
      "    T.call_extern(\"handle\", \"touch\", m.data)\n    T.tvm_storage_sync(\"shared\")\n    R[ty]"), None),
])
def test_a_float_register_stored_by_the_lanes_of_a_row_is_one_value_when_its_definitions_are(edit, clean):
    # flashinfer#1661's merge-states kernel (corpus/trackers_r12): `s_smem[ty] = st.m` by the 8
    # lanes of each row, the running maximum of shared elements at addresses of ty alone. The
    # engine does not evaluate float registers, so their definitions are read from the text
    text = ROW_KERNEL if edit is None else ROW_KERNEL.replace(*edit)
    assert text != ROW_KERNEL or edit is None
    r = check_text(text, "k.tir")
    if clean:
        assert r.verdict == "clean", [f.message for f in r.findings]
    elif clean is None:   # (the extern call itself is not modelled: never clean)
        assert r.verdict != "clean"
    else:
        assert "AG201" in {f.rule.code for f in r.findings}, [f.message for f in r.findings]


def test_a_float_registers_definitions_are_every_assignment_or_none():
    # engine/same_value.py `_text_register_sites`: the row kernel's `m` has its two assignments
    # (the start and the running maximum under its loop and branch); a pointer to it handed to
    # an operation, or a slice store into it, leaves its definitions unknown (None: not shown)
    from asyncguard.engine.program import Elaborator
    from asyncguard.engine.same_value import _text_register_sites
    from asyncguard.engine.scopes import scoped_lets
    from asyncguard.parse import parse

    def sites(text):
        func = scoped_lets(parse(text).functions[0])
        el = Elaborator(func)
        el.body = el.block(func.body)
        return _text_register_sites(el, "m")
    found = sites(ROW_KERNEL)
    assert [(index.value, guards[0].name if guards else None) for index, _, guards in found] == [(0, None), (0, "it")]
    handed = ROW_KERNEL.replace('    T.tvm_storage_sync("shared")\n    R[ty]',
                                '    T.call_extern("handle", "touch", m.data)\n    T.tvm_storage_sync("shared")\n    R[ty]')
    assert sites(handed) is None
    assert sites(ROW_KERNEL.replace("m[0] = T.float32(-3.0e38)", "m[0:1] = T.Broadcast(T.float32(0), 1)")) is None
    # a pointer handed out inside a while loop is a write the walk does not follow either
    looped = ROW_KERNEL.replace('    T.tvm_storage_sync("shared")\n    R[ty]',
                                '    while ty < 0:\n        T.call_extern("handle", "touch", m.data)\n'
                                '    T.tvm_storage_sync("shared")\n    R[ty]')
    assert looped != ROW_KERNEL and sites(looped) is None
