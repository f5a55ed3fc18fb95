"""A candidate edit's syntax tree without parsing the whole file again.

The repair search and the redundant lint re-check the kernel after one or two one-line edits,
tens of times per file; parsing the whole text (Lark) was most of each re-check on the corpus's
kernels. A `Splicer` parses the original once and builds the edited text's tree from it: the
inserted or changed statement is parsed alone (a one-statement kernel, cached by its text),
placed in the block the parser would put it in (by its indentation, as the Indenter does), and
every span is moved to where it lies in the edited text. Statements before the first edited line
are the original's own objects.

The result is the tree `parse(edited_text)` returns, spans included (tests/test_repair_splice.py
compares the two over the corpus's candidate edits). Whatever this module cannot place exactly
(an edit inside a multi-line statement, an indentation that matches no open block, a block an
edit would empty) is answered with None, and the caller parses the edited text as before.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import fields, is_dataclass
from functools import lru_cache

from .. import ir
from ..parse import InputError, parse
from .edits import body, split_lines

_PAD = "    "
_HEAD = "@T.prim_func\ndef f():\n"
_COMPOUND = (ir.For, ir.If, ir.With, ir.While)
_SIMPLE = (ir.ExprStmt, ir.Assign, ir.Other)
# the grammar's _NEWLINE (grammar/tir.lark) after inline blanks: a compound statement's span
# ends where the newline run after its last statement ends (the next token, or end of file)
_MOVES_KEPT = 200_000   # moved nodes a splicer remembers (then it starts again)
_NEWLINE_RUN = re.compile(r"[\t ]*(?:\r?\n[\t ]*|#[^\n]*)+")


@lru_cache(maxsize=4096)
def _alone(stmt: str):
    """The one statement `stmt` (no indentation) parses to, with its spans in the one-statement
    kernel `_HEAD + _PAD + stmt`; None when it is not exactly one simple statement."""
    try:
        module = parse(_HEAD + _PAD + stmt + "\n")
    except InputError:
        return None
    body_ = module.functions[0].body if len(module.functions) == 1 else ()
    if len(body_) != 1 or not isinstance(body_[0], _SIMPLE):
        return None
    return body_[0]


@lru_cache(maxsize=None)
def _fields(cls) -> tuple:
    return tuple(f.name for f in fields(cls))


def _moved(node, dl: int, dp: int, dc: int = 0):
    """`node` with every span moved dl lines, dp characters (and dc columns); tuples of nodes
    likewise. dl == dp == dc == 0: the node itself."""
    if not (dl or dp or dc):
        return node
    return _move(node, dl, dp, dc)


_LEAF, _TUPLE, _LIST, _SPAN, _NODE = range(5)


@lru_cache(maxsize=None)
def _kind(cls) -> int:
    if issubclass(cls, tuple):
        return _TUPLE
    if issubclass(cls, list):
        return _LIST
    if cls is ir.Span:
        return _SPAN
    return _NODE if is_dataclass(cls) else _LEAF


def _move(node, dl: int, dp: int, dc: int):
    """_moved's walk (every statement after an edit: thousands of nodes per candidate). A node
    is rebuilt field by field into a new instance's __dict__, as its frozen dataclass __init__
    would store them, without one object.__setattr__ per field."""
    kind = _kind(type(node))
    if kind == _LEAF:
        return node
    if kind == _TUPLE:
        return tuple(_move(x, dl, dp, dc) for x in node)
    if kind == _LIST:
        return [_move(x, dl, dp, dc) for x in node]
    if kind == _SPAN:
        if node == ir.NO_SPAN:
            return node
        return ir.Span(node.line + dl, node.col + dc, node.end_line + dl, node.end_col + dc,
                       node.start + dp, node.end + dp)
    cls = type(node)
    new = object.__new__(cls)
    d = new.__dict__
    for f in _fields(cls):
        d[f] = _move(getattr(node, f), dl, dp, dc)
    return new


def _last_line(s) -> int:
    """The last line of statement `s`'s own tokens (its last simple statement's for a compound)."""
    while isinstance(s, _COMPOUND):
        kids = s.other if isinstance(s, ir.If) and s.other else \
            (s.then if isinstance(s, ir.If) else s.body)
        s = kids[-1]
    return s.span.end_line


def _token_end(s) -> int:
    while isinstance(s, _COMPOUND):
        kids = s.other if isinstance(s, ir.If) and s.other else \
            (s.then if isinstance(s, ir.If) else s.body)
        s = kids[-1]
    return s.span.end


class _Block:
    __slots__ = ("stmts", "indent", "gaps")

    def __init__(self, stmts, indent):
        self.stmts, self.indent = stmts, indent
        self.gaps: list = []     # (first boundary, last boundary, index): boundary b = after line b


class Splicer:
    """Trees of edited versions of one text (edits as in `edits.apply_edits`)."""

    def __init__(self, text: str, module: ir.Module):
        self.text, self.module = text, module
        # (id of an original node, lines, characters) -> the node moved so: candidates of one
        # search mostly shift the statements after their edit by one line of a few lengths
        # (the original's nodes live as long as the splicer, so their ids stay theirs)
        self._moves: dict = {}
        self.lines = split_lines(text)
        self.starts = [0]
        for ln in self.lines:
            self.starts.append(self.starts[-1] + len(ln))
        real = [i for i, ln in enumerate(self.lines, 1)
                if body(ln).strip() and not body(ln).lstrip().startswith("#")]
        self.real = real                       # lines holding a token
        self.blocks: list[_Block] = []
        self.owner: dict[int, tuple] = {}      # line -> (block, index) of the statement it is alone on
        self.inner: set = set()                # lines inside a multi-line statement (not its first)
        for func in module.functions:
            self._index(func.body)

    # ------------------------------------------------------------ the original's blocks
    def _indent(self, s) -> str | None:
        ln = body(self.lines[s.span.line - 1])
        lead = ln[: len(ln) - len(ln.lstrip(" \t"))]
        return lead if len(lead) == s.span.col - 1 else None   # the statement starts its line

    def _prev_real(self, line: int) -> int:
        i = bisect.bisect_left(self.real, line)
        return self.real[i - 1] if i else 0

    def _next_real(self, line: int) -> int:
        i = bisect.bisect_right(self.real, line)
        return self.real[i] if i < len(self.real) else len(self.lines) + 1

    def _index(self, stmts) -> None:
        blk = _Block(stmts, self._indent(stmts[0]) if stmts else None)
        bi = len(self.blocks)
        self.blocks.append(blk)
        for i, s in enumerate(stmts):
            first = s.span.line
            blk.gaps.append((self._prev_real(first), first - 1, i))
            if isinstance(s, _SIMPLE):
                if s.span.end_line == first:
                    self.owner[first] = (bi, i)
                self.inner.update(range(first + 1, s.span.end_line + 1))
            else:
                kids = [s.then] + ([s.other] if s.other else []) if isinstance(s, ir.If) else [s.body]
                for k in kids:
                    self._index(k)
        if stmts:
            last = _last_line(stmts[-1])
            blk.gaps.append((last, self._next_real(last) - 1, len(stmts)))

    def _place(self, boundary: int, indent: str):
        """(block, index) an inserted line with `indent` after original line `boundary` joins."""
        hits = [(bi, i) for bi, b in enumerate(self.blocks) if b.indent == indent
                for lo, hi, i in b.gaps if lo <= boundary <= hi]
        return hits[0] if len(hits) == 1 else None

    def moved(self, node, dl: int, dp: int):
        """_moved(node, dl, dp) of an original node, built once per shift."""
        if not (dl or dp):
            return node
        key = (id(node), dl, dp)
        hit = self._moves.get(key)
        if hit is None:
            if len(self._moves) > _MOVES_KEPT:
                self._moves.clear()
            hit = self._moves[key] = _moved(node, dl, dp)
        return hit

    # ------------------------------------------------------------ an edited tree
    def module_for(self, edits, new_text: str, lmap: list) -> ir.Module | None:
        """The tree of `new_text` (= apply_edits(self.text, edits)), or None when it cannot be
        spliced exactly (the caller parses `new_text`)."""
        inserts: dict[tuple, list] = {}     # (block, index) -> [(statement, its new line)]
        changed: dict[tuple, object] = {}   # (block, index) -> new statement, or None (deleted)
        at = _inserted_lines(edits, len(self.lines))
        for k, e in enumerate(edits):
            if e.line in self.inner or "\n" in e.text or "\r" in e.text:
                return None
            if e.inserts:
                boundary = e.line if e.op == "insert-after" else e.line - 1
                where = self._place(boundary, e.indent)
                stmt = _alone(e.text)
                if where is None or stmt is None:
                    return None
                inserts.setdefault(where, []).append((stmt, at[k]))
                continue
            where = self.owner.get(e.line)
            if where is None:
                return None
            if e.op == "delete":
                changed[where] = None
                continue
            old = self.blocks[where[0]].stmts[where[1]]
            lead = self._indent(old)
            stmt = _alone(e.text[len(lead):]) if lead is not None and e.text.startswith(lead) \
                and not e.text[len(lead):].startswith((" ", "\t")) else None
            if stmt is None:
                return None
            changed[where] = stmt
        # where each original line is in the new text
        new_line = [0] * (len(self.lines) + 2)
        for n, orig in enumerate(lmap, 1):
            if orig is not None:
                new_line[orig] = n
        parsed = new_text if new_text.endswith("\n") else new_text + "\n"   # as parse() reads it
        nstarts = [0]
        for ln in split_lines(parsed):
            nstarts.append(nstarts[-1] + len(ln))
        build = _Build(self, new_line, nstarts, parsed, inserts, changed)
        try:
            funcs = tuple(build.function(f) for f in self.module.functions)
        except _Unplaceable:
            return None
        return ir.Module(funcs, new_text, self.module.path)


class _Unplaceable(Exception):
    pass


def _inserted_lines(edits, n_lines: int) -> dict:
    """edit index -> the new line its inserted statement is on (the order of apply_edits)."""
    before: dict = {}
    after: dict = {}
    gone = set()
    for k, e in enumerate(edits):
        if e.op == "insert-before":
            before.setdefault(e.line, []).append(k)
        elif e.op == "insert-after":
            after.setdefault(e.line, []).append(k)
        elif e.op == "delete":
            gone.add(e.line)
    out, pos = {}, 0
    for n in range(1, n_lines + 1):
        for k in before.get(n, ()):
            pos += 1
            out[k] = pos
        if n not in gone:
            pos += 1
        for k in after.get(n, ()):
            pos += 1
            out[k] = pos
    return out


class _Build:
    def __init__(self, sp: Splicer, new_line, nstarts, parsed, inserts, changed):
        self.sp, self.new_line, self.nstarts, self.parsed = sp, new_line, nstarts, parsed
        self.inserts, self.changed = inserts, changed
        self.bi = 0        # the next original block, in the order Splicer._index numbered them

    def delta(self, first: int, last: int) -> tuple[int, int]:
        """(lines, characters) the original lines first..last moved, the same for all of them."""
        n = self.new_line[first]
        if not n or (self.new_line[last] - n) != last - first:
            raise _Unplaceable
        return n - first, self.nstarts[n - 1] - self.sp.starts[first - 1]

    def position(self, pos: int) -> tuple[int, int]:
        """(line, column) of a character offset in the new text."""
        line = bisect.bisect_right(self.nstarts, pos)
        line = min(line, len(self.nstarts))
        return line, pos - self.nstarts[line - 1] + 1

    def end_after(self, span: ir.Span, last_stmt) -> ir.Span:
        """A compound's span: its own start, its end after the newline run that follows its last
        statement (what Lark's propagated positions give a suite)."""
        m = _NEWLINE_RUN.match(self.parsed, _token_end(last_stmt))
        end = m.end() if m else _token_end(last_stmt)
        line, col = self.position(end)
        return ir.Span(span.line, span.col, line, col, span.start, end)

    def inserted(self, stmt, at_line: int):
        """A statement parsed alone, moved to new line `at_line`, at the indentation of that line."""
        lead = len(body(self.parsed[self.nstarts[at_line - 1]:self.nstarts[at_line]])) - \
            len(body(self.parsed[self.nstarts[at_line - 1]:self.nstarts[at_line]]).lstrip(" \t"))
        base = stmt.span   # line 3, column len(_PAD) + 1 of the one-statement kernel
        return _moved(stmt, at_line - base.line, self.nstarts[at_line - 1] + lead - base.start,
                      lead - len(_PAD))

    def block(self, stmts) -> tuple:
        bi = self.bi
        self.bi += 1
        out = []
        for i in range(len(stmts) + 1):
            for stmt, at in sorted(self.inserts.get((bi, i), ()), key=lambda x: x[1]):
                out.append(self.inserted(stmt, at))
            if i == len(stmts):
                break
            s = stmts[i]
            if (bi, i) in self.changed:
                new = self.changed[(bi, i)]
                if new is not None:
                    out.append(self.inserted(new, self.new_line[s.span.line]))
                continue
            out.append(self.stmt(s))
        if not out:
            raise _Unplaceable      # an emptied block does not parse: let the parser say so
        return tuple(out)

    def stmt(self, s):
        if isinstance(s, _SIMPLE):
            dl, dp = self.delta(s.span.line, s.span.end_line)
            return self.sp.moved(s, dl, dp)
        head_last = (s.then[0] if isinstance(s, ir.If) else s.body[0]).span.line - 1
        dl, dp = self.delta(s.span.line, self.sp._prev_real(head_last + 1))
        if isinstance(s, ir.If):
            then = self.block(s.then)
            other = self.block(s.other) if s.other else s.other
            new = ir.If(self.sp.moved(s.cond, dl, dp), then, other, s.span)
            last = (other or then)[-1]
        elif isinstance(s, ir.For):
            b = self.block(s.body)
            new = ir.For(self.sp.moved(s.names, dl, dp), self.sp.moved(s.iter, dl, dp), b, s.span)
            last = b[-1]
        elif isinstance(s, ir.With):
            b = self.block(s.body)
            new = ir.With(self.sp.moved(s.ctx, dl, dp), s.name, b, s.span)
            last = b[-1]
        else:
            b = self.block(s.body)
            new = ir.While(self.sp.moved(s.cond, dl, dp), b, s.span)
            last = b[-1]
        sp = s.span
        start = ir.Span(sp.line + dl, sp.col, sp.line + dl, sp.col, sp.start + dp, sp.start + dp)
        return type(new)(**{**{f: getattr(new, f) for f in _fields(type(new))},
                            "span": self.end_after(start, last)})

    def function(self, f: ir.Function) -> ir.Function:
        dl, dp = self.delta(f.span.line, self.sp._prev_real(f.body[0].span.line))
        b = self.block(f.body)
        start = _moved(f.span, dl, dp)
        return ir.Function(f.name, f.decorators, _moved(f.params, dl, dp), b, self.end_after(start, b[-1]))
