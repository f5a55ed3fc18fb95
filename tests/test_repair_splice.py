"""repair/splice.py: the tree spliced for an edited text is the tree the parser gives it, spans
included (the repair oracle and the redundant lint check spliced trees instead of parsing)."""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from asyncguard import ir
from asyncguard.analyze import check_text
from asyncguard.parse import InputError, parse
from asyncguard.repair.candidates import Generator
from asyncguard.repair.edits import Edit, apply_edits
from asyncguard.repair.redundant import _raise, _removal, _sync_stmts
from asyncguard.repair.splice import Splicer
from asyncguard.repair.tree import Tree

ROOT = Path(__file__).resolve().parent.parent


def _difference(a, b, where="module"):
    """Where two trees differ, spans compared too (ir's own == leaves spans out); None: equal."""
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        return next((d for i, (x, y) in enumerate(zip(a, b))
                     if (d := _difference(x, y, f"{where}[{i}]"))), None)
    if isinstance(a, ir.Span) or not is_dataclass(a):
        return None if a == b else f"{where}: {a!r} vs {b!r}"
    return next((d for f in fields(a) if f.name not in ("source", "path")
                 if (d := _difference(getattr(a, f.name), getattr(b, f.name),
                                      f"{where}.{f.name}"))), None)


def _edit_sets(text: str, path: str, module) -> list:
    """What the repair and the lint try: each finding's candidates, each sync removed, each wait
    count raised, and pairs of those."""
    tree = Tree(text, path, module=module)
    gen = Generator(tree, lambda n: n)
    out = []
    for f in check_text(text, path, module=module).findings:
        out += [list(c) for c in gen.for_finding(f)[:12]]
    for s, c in _sync_stmts(tree):
        out.append([_removal(tree, s)])
        if c.args and isinstance(getattr(c.args[0], "value", None), int):
            out.append([e for e in [_raise(tree, s, c.args[0].value + 1)] if e])
    return out + [a + b for a, b in zip(out[::3], out[1::3])]


@pytest.mark.parametrize("name", [
    "variants/gemm_sm80_s2_128x128x32__drop-wait_L48.tir",
    "variants/fa_fwd_sm90a_ws_s1__drop-mbarrier-wait_L78.tir",
    "real/gemm_sm80_dynamic_k_s2_128x128x32.tir",       # ends without a newline
])
def test_spliced_tree_is_the_parsed_tree(name):
    path = ROOT / "corpus" / name
    text = path.read_text()
    module = parse(text, str(path))
    splicer = Splicer(text, module)
    compared = 0
    for edits in _edit_sets(text, str(path), module):
        try:
            new, lmap = apply_edits(text, edits)
        except ValueError:     # two edits of one line: the search never checks such a pair
            continue
        spliced = splicer.module_for(edits, new, lmap)
        try:
            parsed = parse(new, str(path))
        except InputError:
            assert spliced is None, edits
            continue
        if spliced is not None:
            compared += 1
            assert _difference(spliced, parsed) is None, (edits, _difference(spliced, parsed))
    assert compared >= 10


def test_what_cannot_be_placed_is_left_to_the_parser():
    text = ("@T.prim_func\ndef main(A: T.handle):\n    for i in range(2):\n        T.evaluate(0)\n"
            "    T.tvm_storage_sync(\"shared\")\n")
    splicer = Splicer(text, parse(text))
    for edits in ([Edit(4, "insert-after", "T.evaluate(1)", "      ")],   # no block is indented so
                  [Edit(4, "delete")],                                  # empties the loop body
                  [Edit(3, "replace", "    for i in range(3):")]):      # a loop header
        new, lmap = apply_edits(text, edits)
        assert splicer.module_for(edits, new, lmap) is None
    edits = [Edit(4, "insert-after", "T.evaluate(1)", "    ")]           # after the loop
    new, lmap = apply_edits(text, edits)
    spliced = splicer.module_for(edits, new, lmap)
    assert _difference(spliced, parse(new)) is None
    assert len(spliced.functions[0].body) == 3
