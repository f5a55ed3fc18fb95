"""TVMScript text -> typed syntax tree (`asyncguard.ir`), with source spans on every node.

One Lark LALR parser per thread, built from `grammar/tir.lark` (Lark caches the analysed grammar
on disk); an Indenter turns leading whitespace into INDENT/DEDENT. Every failure becomes an `InputError` carrying path:line:col, never a
traceback.
"""
from __future__ import annotations

import threading
from importlib import resources

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             VisitError)
from lark.indenter import Indenter

from . import ir


class InputError(Exception):
    """The file is not TVMScript we can read. Rendered as `path:line:col: error: message`."""

    def __init__(self, message: str, line: int = 1, col: int = 1, path: str = "<string>",
                 context: str = ""):
        super().__init__(message)
        self.message, self.line, self.col, self.path, self.context = message, line, col, path, context

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


class TIRIndenter(Indenter):
    NL_type = "_NEWLINE"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


_PER_THREAD = threading.local()
_BUILDING = threading.Lock()   # Lark(cache=True) reads and writes one cache file: one build at a time


def _parser() -> Lark:
    """This thread's parser. Not one for the process: the Indenter keeps its paren and indent
    levels on itself while it runs, so two threads parsing with one instance (a thread-pool or
    Dask executor) corrupt each other's token stream ("unexpected Token('IF')")."""
    parser = getattr(_PER_THREAD, "parser", None)
    if parser is None:
        text = resources.files("asyncguard.grammar").joinpath("tir.lark").read_text()
        with _BUILDING:
            parser = _PER_THREAD.parser = Lark(text, parser="lalr", postlex=TIRIndenter(),
                                               propagate_positions=True, maybe_placeholders=True,
                                               cache=True)
    return parser


def _string_value(literal: str) -> str:
    """The value of one Python string literal token. Not ast.literal_eval: CPython 3.11 keeps the
    AST constructor's recursion depth per interpreter, so two threads calling it at once fail
    with "AST constructor recursion depth mismatch" (seen in a thread-pool run)."""
    prefix_len = len(literal) - len(literal.lstrip("ubrfUBRF"))
    prefix, body = literal[:prefix_len].lower(), literal[prefix_len + 1:-1]
    if "r" in prefix:
        return body
    # escapes as Python reads them; characters beyond Latin-1 pass through as escapes first
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


def _span(meta) -> ir.Span:
    if getattr(meta, "empty", True):
        return ir.NO_SPAN
    return ir.Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


def _tok_span(tok: Token) -> ir.Span:
    return ir.Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column,
                   tok.start_pos or 0, tok.end_pos or 0)


_BIN = {"bitor_op": "|", "bitxor_op": "^", "bitand_op": "&", "or_op": "or", "and_op": "and",
        "pow_op": "**"}


@v_args(meta=True)
class _ToIR(Transformer):
    # ---- atoms
    def var(self, meta, c):
        return ir.Var(str(c[0]), _span(meta))

    def number(self, meta, c):
        text = str(c[0])
        try:
            value = int(text, 0) if not any(ch in text for ch in ".eE") or text.lower().startswith("0x") \
                else float(text)
        except ValueError:
            value = float(text)
        return ir.Const(value, _span(meta))

    def string(self, meta, c):
        return ir.Const("".join(_string_value(str(t)) for t in c), _span(meta))

    def true(self, meta, c):
        return ir.Const(True, _span(meta))

    def false(self, meta, c):
        return ir.Const(False, _span(meta))

    def none(self, meta, c):
        return ir.Const(None, _span(meta))

    def tuple(self, meta, c):
        return ir.TupleE(tuple(x for x in c if x is not None), _span(meta))

    def list(self, meta, c):
        return ir.ListE(tuple(x for x in c if x is not None), _span(meta))

    def dict(self, meta, c):
        return ir.DictE(tuple(x for x in c if x is not None), _span(meta))

    def dict_item(self, meta, c):
        return (c[0], c[1])

    # ---- operators
    def binop(self, meta, c):
        return ir.BinOp(str(c[1]), c[0], c[2], _span(meta))

    compare = binop

    def __default__(self, data, children, meta):
        if data in _BIN:
            return ir.BinOp(_BIN[data], children[0], children[1], _span(meta))
        return super().__default__(data, children, meta)

    def unary(self, meta, c):
        return ir.UnaryOp(str(c[0]), c[1], _span(meta))

    def invert(self, meta, c):
        return ir.UnaryOp("~", c[0], _span(meta))

    def not_op(self, meta, c):
        return ir.UnaryOp("not", c[0], _span(meta))

    def ifexp(self, meta, c):
        return ir.IfExp(c[1], c[0], c[2], _span(meta))

    def lambdef(self, meta, c):
        return ir.Lambda(c[0] or (), c[1], _span(meta))

    def lambda_params(self, meta, c):
        return tuple(str(t) for t in c if t is not None)

    def getattr(self, meta, c):
        return ir.Attr(c[0], str(c[1]), _span(meta))

    def call(self, meta, c):
        args, kwargs = [], []
        for a in (c[1] or ()):
            (kwargs.append(a) if isinstance(a, tuple) and len(a) == 2 and isinstance(a[0], str)
             else args.append(a))
        return ir.Call(c[0], tuple(args), tuple(kwargs), _span(meta))

    def arguments(self, meta, c):
        return [x for x in c if x is not None]

    def argument(self, meta, c):
        if c[1] is None:
            return c[0]
        if not isinstance(c[0], ir.Var):
            raise InputError("keyword argument name must be a plain name", meta.line, meta.column)
        return (c[0].name, c[1])

    def subscript(self, meta, c):
        return ir.Subscript(c[0], tuple(c[1]), _span(meta))

    def subscripts(self, meta, c):
        return [x for x in c if x is not None]

    def slice(self, meta, c):
        return ir.Slice(c[0], c[1], c[2], _span(meta))

    # ---- statements
    def simple_stmt(self, meta, c):
        return c[0]

    def expr_stmt(self, meta, c):
        return ir.ExprStmt(c[0], _span(meta))

    def assign(self, meta, c):
        return ir.Assign(c[0], c[1], None, _span(meta))

    def annassign(self, meta, c):
        return ir.Assign(c[0], c[2], c[1], _span(meta))

    def declare(self, meta, c):
        return ir.Other("declare", (c[0], c[1]), _span(meta))

    def pass_stmt(self, meta, c):
        return ir.Other("pass", (), _span(meta))

    def return_stmt(self, meta, c):
        return ir.Other("return", tuple(x for x in c if x is not None), _span(meta))

    def assert_stmt(self, meta, c):
        return ir.Other("assert", tuple(x for x in c if x is not None), _span(meta))

    def suite(self, meta, c):
        return tuple(c)

    def for_targets(self, meta, c):
        return tuple(str(t) for t in c if t is not None)

    def for_stmt(self, meta, c):
        return ir.For(c[0], c[1], c[2], _span(meta))

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1], _span(meta))

    def else_clause(self, meta, c):
        return ("else", c[0])

    def if_stmt(self, meta, c):
        cond, body, rest = c[0], c[1], [x for x in c[2:] if x is not None]
        other: tuple = ()
        for clause in reversed(rest):
            if clause[0] == "else":
                other = clause[1]
            else:
                other = (ir.If(clause[1], clause[2], other, clause[3]),)
        return ir.If(cond, body, other, _span(meta))

    def with_stmt(self, meta, c):
        ctx, name, body = c[0], str(c[1]) if c[1] is not None else None, c[2]
        if name is not None and isinstance(ctx, ir.Call) and ctx.name == "T.LetStmt" and \
                len(ctx.args) == 1 and not ctx.kwargs:
            # TileLang 0.1.8 prints a LetStmt as `with T.LetStmt(value) as name:`; 0.1.15 as
            # `name: T.int32 = value`. Its body is the let's scope: read it as that let there
            let = ir.Assign(ir.Var(name, _span(meta)), ctx.args[0], None, _span(meta))
            return ir.With(ir.Const(None), None, (let,) + tuple(body), _span(meta))
        return ir.With(ctx, name, body, _span(meta))

    def while_stmt(self, meta, c):
        return ir.While(c[0], c[1], _span(meta))

    # ---- definitions
    def dotted_name(self, meta, c):
        return ".".join(str(t) for t in c)

    def decorator(self, meta, c):
        return c[0]

    def param(self, meta, c):
        return ir.Param(str(c[0]), c[1], _span(meta))

    def params(self, meta, c):
        return tuple(x for x in c if x is not None)

    def funcdef(self, meta, c):
        decorators = tuple(x for x in c if isinstance(x, str) and not isinstance(x, Token))
        rest = [x for x in c if not (isinstance(x, str) and not isinstance(x, Token))]
        name, params, body = rest[0], rest[1], rest[3]   # rest[2]: the return annotation
        return ir.Function(str(name), decorators, params or (), body, _span(meta))

    def module(self, meta, c):
        return [x for x in c if isinstance(x, ir.Function)]

    def start(self, meta, c):
        c = [x for x in c if x is not None]
        item = c[-1]
        return tuple(item) if isinstance(item, list) else (item,)


_EXPECT_NAMES = {"_NEWLINE": "end of line", "_INDENT": "indented block", "_DEDENT": "end of block",
                 "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "COLON": "':'", "NAME": "a name",
                 "COMMA": "','", "EQUAL": "'='", "$END": "end of file"}


def _describe_expected(expected) -> str:
    names = sorted({_EXPECT_NAMES.get(e, e) for e in expected})
    if len(names) > 6:
        names = names[:6] + ["..."]
    return ", ".join(names)


def _bad_dedent(text: str) -> tuple[int, int]:
    """Line and column of the first dedent to a column no enclosing block started at."""
    stack, depth = [0], 0
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip(" \t")
        if depth == 0 and stripped and not stripped.startswith("#"):
            indent = len(line) - len(stripped)
            if indent > stack[-1]:
                stack.append(indent)
            else:
                while indent < stack[-1]:
                    stack.pop()
                if indent != stack[-1]:
                    return n, indent + 1
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
        depth = max(depth, 0)
    return 1, 1


def parse(text: str, path: str = "<string>") -> ir.Module:
    """Parse TVMScript text. Raises InputError (with line and column) on anything else."""
    if "\x00" in text:
        pos = text.index("\x00")
        line = text.count("\n", 0, pos) + 1
        raise InputError("binary data (NUL byte): not a TVMScript text file", line,
                         pos - (text.rfind("\n", 0, pos) + 1) + 1, path)
    if not text.endswith("\n"):
        text_for_parser = text + "\n"
    else:
        text_for_parser = text
    try:
        funcs = _ToIR().transform(_parser().parse(text_for_parser))
    except InputError as e:
        e.path = path
        raise
    except UnexpectedEOF as e:
        line = text.count("\n") + 1
        raise InputError(f"unexpected end of file (truncated?); expected {_describe_expected(e.expected)}",
                         line, 1, path) from None
    except UnexpectedCharacters as e:
        raise InputError(f"unexpected character {text_for_parser[e.pos_in_stream]!r}",
                         e.line, e.column, path, e.get_context(text_for_parser)) from None
    except UnexpectedInput as e:
        tok = getattr(e, "token", None)
        at_eof = tok is not None and (tok.type == "$END" or tok.type in ("_DEDENT", "_NEWLINE") and
                                      not text_for_parser[tok.start_pos or 0:].strip())
        if at_eof:
            raise InputError("unexpected end of file (truncated?)", text_for_parser.count("\n") + 1, 1,
                             path) from None
        what = f"unexpected {tok!r}" if tok is not None and str(tok).strip() else "unexpected token"
        if tok is not None and tok.type in ("_INDENT", "_DEDENT"):
            what = "unexpected indentation"
        exp = getattr(e, "expected", None) or getattr(e, "accepts", None)
        msg = what + (f"; expected {_describe_expected(exp)}" if exp else "")
        raise InputError(msg, getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1, path,
                         e.get_context(text_for_parser)) from None
    except VisitError as e:   # raised while building the syntax tree: at that node, not line 1
        meta = getattr(e.obj, "meta", None)
        line = getattr(meta, "line", None) or 1
        col = getattr(meta, "column", None) or 1
        orig = e.orig_exc
        if isinstance(orig, InputError):
            raise InputError(orig.message, orig.line if orig.line > 1 else line,
                             orig.col if orig.line > 1 else col, path) from None
        if isinstance(orig, RecursionError):
            raise InputError("expression nested too deeply", line, col, path) from None
        what = {"string": "string literal", "number": "number"}.get(getattr(e, "rule", ""), "syntax")
        detail = str(orig).splitlines()[0] if str(orig) else type(orig).__name__
        raise InputError(f"invalid {what}: {detail}", line, col, path) from None
    except LarkError as e:  # e.g. DedentError from inconsistent indentation
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        line, col = _bad_dedent(text_for_parser)
        raise InputError(f"inconsistent indentation: {msg}", line, col, path) from None
    except RecursionError:
        raise InputError("expression nested too deeply", 1, 1, path) from None
    return ir.Module(tuple(funcs), text, path)
