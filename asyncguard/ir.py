"""Typed syntax tree of a TVMScript file: frozen nodes, each with its source span.

The parser (`asyncguard.parse`) builds these; nothing here knows what a TIR builtin means.
That is the job of `asyncguard.models`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace as _rebuilt
from typing import Optional, Union


@dataclass(frozen=True)
class Span:
    line: int
    col: int
    end_line: int
    end_col: int
    start: int  # character offsets into the source text
    end: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


NO_SPAN = Span(0, 0, 0, 0, 0, 0)


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Const:
    value: Union[int, float, str, bool, None]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Var:
    name: str
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * / // % << >> & | ^ ** < <= > >= == != and or
    left: "Expr"
    right: "Expr"
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class UnaryOp:
    op: str  # - + ~ not
    operand: "Expr"
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class IfExp:
    cond: "Expr"
    then: "Expr"
    other: "Expr"
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Attr:
    value: "Expr"
    name: str
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Slice:
    lo: Optional["Expr"]
    hi: Optional["Expr"]
    step: Optional["Expr"]
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Subscript:
    value: "Expr"
    indices: tuple  # of Expr | Slice
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Call:
    func: "Expr"
    args: tuple
    kwargs: tuple  # ((name, Expr), ...)
    span: Span = field(default=NO_SPAN, compare=False)

    @property
    def name(self) -> str:
        """Dotted callee name (`T.ptx_cp_async`), or '' when the callee is not a name."""
        return dotted(self.func) or ""

    def kwarg(self, key: str):
        for k, v in self.kwargs:
            if k == key:
                return v
        return None


@dataclass(frozen=True)
class TupleE:
    items: tuple
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class ListE:
    items: tuple
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class DictE:
    items: tuple  # ((key Expr, value Expr), ...)
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class Lambda:
    """`lambda x, y: x + y`: the combiner TVM prints inside `T.comm_reducer`."""
    params: tuple  # names
    body: "Expr"
    span: Span = field(default=NO_SPAN, compare=False)


Expr = Union[Const, Var, BinOp, UnaryOp, IfExp, Attr, Subscript, Call, TupleE, ListE, DictE, Lambda]


def nodes(root, skip=None):
    """Every syntax node under `root` (statements and expressions; tuples and lists are walked
    through, spans are not nodes), depth first. `skip(x)` true: neither x nor anything under it.
    The one walk the read-only questions share (which names, subscripts, stores a body has)."""
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
            continue
        if isinstance(x, Span) or (skip is not None and skip(x)):
            continue
        yield x
        if hasattr(x, "__dataclass_fields__"):
            stack.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")


def visit(root, handle) -> None:
    """Every syntax node under `root`, depth first in source order, handed to `handle(x)`, which
    says where the walk goes on: None, into all of x's fields (tuples and lists are walked
    through, spans are not nodes); else the sub-nodes to visit instead (`()`: nothing under x).
    For questions that read some nodes' parts selectively (a store's value but not its target)."""
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(reversed(x))
            continue
        if isinstance(x, Span):
            continue
        parts = handle(x)
        if parts is None and hasattr(x, "__dataclass_fields__"):
            parts = [getattr(x, f) for f in x.__dataclass_fields__ if f != "span"]
        if parts:
            stack.extend(reversed(list(parts)))


def rewrite(root, replace, after=None):
    """`root` with every node x for which `replace(x)` is not None replaced by that value (not
    walked into), depth first; tuples and lists are walked through, spans kept. A node with a
    replaced node under it is rebuilt; one with none is returned as is (the same object).
    `after(x)`, when given, maps every node that was not replaced, once its inside is rewritten.
    The one map the rewriting questions share; `nodes` is the read-only walk."""
    def walk(x):
        if isinstance(x, (tuple, list)):
            items = [walk(y) for y in x]
            return x if all(a is b for a, b in zip(items, x)) else type(x)(items)
        if isinstance(x, Span) or not hasattr(x, "__dataclass_fields__"):
            return x
        got = replace(x)
        if got is not None:
            return got
        changes = {}
        for f in x.__dataclass_fields__:
            if f != "span":
                v = getattr(x, f)
                nv = walk(v)
                if nv is not v:
                    changes[f] = nv
        if changes:
            x = _rebuilt(x, **changes)
        return after(x) if after is not None else x
    return walk(root)


def dotted(e) -> Optional[str]:
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Attr):
        base = dotted(e.value)
        return f"{base}.{e.name}" if base else None
    return None


# ---------------------------------------------------------------- statements
@dataclass(frozen=True)
class ExprStmt:
    expr: Expr
    span: Span


@dataclass(frozen=True)
class Assign:
    target: Expr  # Var or Subscript
    value: Expr
    annotation: Optional[Expr]
    span: Span


@dataclass(frozen=True)
class For:
    names: tuple
    iter: Expr
    body: tuple
    span: Span


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple
    other: tuple  # elif chains become a nested If in `other`
    span: Span


@dataclass(frozen=True)
class With:
    ctx: Expr
    name: Optional[str]
    body: tuple
    span: Span


@dataclass(frozen=True)
class While:
    cond: Expr
    body: tuple
    span: Span


@dataclass(frozen=True)
class Other:
    """pass / return / assert / bare annotation: kept so nothing is silently dropped."""
    kind: str
    exprs: tuple
    span: Span


Stmt = Union[ExprStmt, Assign, For, If, With, While, Other]


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Optional[Expr]
    span: Span


@dataclass(frozen=True)
class Function:
    name: str
    decorators: tuple  # dotted names
    params: tuple
    body: tuple
    span: Span


@dataclass(frozen=True)
class Module:
    functions: tuple
    source: str = field(repr=False, compare=False)
    path: str = field(default="<string>", compare=False)
