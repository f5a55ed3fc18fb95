"""Frontend: every real sample parses with spans; bad input is one clear error, never a traceback."""
import subprocess
import sys
from pathlib import Path

import pytest

from asyncguard import ir
from asyncguard.parse import InputError, parse

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def test_all_real_kernels_parse_with_spans():
    for tir in sorted((CORPUS / "real").glob("*.tir")):
        mod = parse(tir.read_text(), str(tir))
        assert len(mod.functions) == 1
        func = mod.functions[0]
        assert func.body and all(s.span.line > 0 for s in func.body), tir.name


def test_call_spans_point_at_the_call():
    text = (CORPUS / "real" / "gemm_sm80_s3_128x128x32.tir").read_text()
    mod = parse(text)
    lines = text.splitlines()
    stack = list(mod.functions[0].body)
    calls = 0
    while stack:
        s = stack.pop()
        if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Call):
            span = s.expr.span
            assert lines[span.line - 1][span.col - 1:].startswith(s.expr.name), s.expr.name
            calls += 1
        for attr in ("body", "then", "other"):
            stack.extend(getattr(s, attr, ()) or ())
    assert calls > 20


@pytest.mark.parametrize("text,line", [
    ("@T.prim_func\ndef f():\n    x = (1,\n", 4),                    # truncated
    ("@T.prim_func\ndef f():\n    x = 1 +* 2\n", 3),                 # syntax error
    ("@T.prim_func\ndef f():\n      x = 1\n    y = 2\n", 4),         # bad dedent
    ("hello world\n", 1),                                             # not TIR
])
def test_bad_input_has_line_and_column(text, line):
    with pytest.raises(InputError) as e:
        parse(text, "k.tir")
    assert e.value.line == line
    assert str(e.value).startswith(f"k.tir:{line}:")


@pytest.mark.parametrize("data", [b"\x00\x01\x02binary", b"\xff\xfe\x00garbage", b"@T.prim_func\ndef f(:\n",
                                  b"", b"def f():\n    pass\n"])
def test_cli_bad_input_exit_2_without_traceback(tmp_path, data):
    f = tmp_path / "bad.tir"
    f.write_bytes(data)
    p = subprocess.run([sys.executable, "-m", "asyncguard", "check", str(f)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr + p.stdout
    first = p.stderr.strip().splitlines()[0]
    assert first.startswith(f"{f}:") and first.split(":")[1].isdigit() and first.split(":")[2].isdigit()


def test_threads_parse_at_once():
    # a thread-pool or Dask executor parses in several threads at once; one shared Lark parser
    # (its Indenter keeps paren and indent levels on itself) garbled their token streams
    import threading
    from pathlib import Path
    texts = [p.read_text() for p in sorted((Path(__file__).resolve().parent.parent / "corpus" /
                                            "handwritten").glob("*.tir"))[:6]]
    expected = [parse(t) for t in texts]
    got, errors = {}, []

    def work(i):
        for _ in range(5):
            try:
                got[i] = parse(texts[i])
            except Exception as e:  # noqa: BLE001 (any failure is the bug)
                errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and [got[i] for i in range(len(texts))] == expected


@pytest.mark.parametrize("literal", ['"abc"', "'a\\nb'", 'r"a\\nb"', '"\u00e9\\t\\x41"', '"tl::gemm_ss<128, 4, true>"',
                                     "'it\\'s'", '"\\\\"'])
def test_string_literals_read_as_python_reads_them(literal):
    # the parser decodes string tokens itself: ast.literal_eval is not safe in threads on 3.11
    import ast

    from asyncguard.parse import _string_value
    assert _string_value(literal) == ast.literal_eval(literal)


def test_the_shared_walks_read_and_rewrite_every_node_and_keep_what_they_do_not_change():
    call = parse("@T.prim_func\ndef f():\n    T.evaluate(g(A[i * 2], (i, j), 3 + 4))\n").functions[0].body[0].expr.args[0]
    names = sorted(x.name for x in ir.nodes(call) if isinstance(x, ir.Var))
    assert names == ["A", "g", "i", "i", "j"]
    assert ir.rewrite(call, lambda x: None) is call          # nothing replaced: the same object
    renamed = ir.rewrite(call, lambda x: ir.Var("k") if x == ir.Var("i") else None)
    assert sorted(x.name for x in ir.nodes(renamed) if isinstance(x, ir.Var)) == ["A", "g", "j", "k", "k"]
    assert renamed.span == call.span and renamed.args[1] is not call.args[1]
    assert renamed.args[2] is call.args[2]                    # untouched parts are shared

    def fold(x):
        if isinstance(x, ir.BinOp) and isinstance(x.left, ir.Const) and isinstance(x.right, ir.Const):
            return ir.Const(x.left.value + x.right.value)
        return x
    assert ir.rewrite(call, lambda x: None, after=fold).args[2] == ir.Const(7)
