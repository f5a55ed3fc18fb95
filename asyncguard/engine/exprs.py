"""Compile TIR expressions into closures that evaluate for every thread at once with numpy.

A value is a Python int/bool/float (the same for all threads) or a numpy array with one entry
per thread of the block. `//` and `%` are floor division and floor modulo, exactly as TVMScript
prints FloorDiv/FloorMod (numpy's integer // and % have floor semantics).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .. import ir


class NotConcrete(Exception):
    """The value depends on something the concrete engine does not know (data, a symbolic size)."""

    def __init__(self, reason: str, span: ir.Span = ir.NO_SPAN):
        super().__init__(reason)
        self.reason, self.span = reason, span


Env = dict
Fn = Callable[[Env], object]


def _floordiv(a, b):
    if isinstance(b, (int, np.integer)) and b == 0 or isinstance(b, np.ndarray) and (b == 0).any():
        raise NotConcrete("division by zero")
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    return a // b


def _floormod(a, b):
    if isinstance(b, (int, np.integer)) and b == 0 or isinstance(b, np.ndarray) and (b == 0).any():
        raise NotConcrete("modulo by zero")
    return a % b


def _truncdiv(a, b):
    q = _floordiv(abs(a) if not isinstance(a, np.ndarray) else np.abs(a),
                  abs(b) if not isinstance(b, np.ndarray) else np.abs(b))
    return q * np.sign(a) * np.sign(b) if isinstance(q, np.ndarray) or isinstance(a, np.ndarray) \
        or isinstance(b, np.ndarray) else int(q * (1 if (a >= 0) == (b >= 0) else -1))


def _truncmod(a, b):
    return a - _truncdiv(a, b) * b


def _logical(op):
    def f(a, b):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return op(np.asarray(a, dtype=bool), np.asarray(b, dtype=bool))
        return bool(op(bool(a), bool(b)))
    return f


def _shift(op):
    def f(a, b):
        if isinstance(b, np.ndarray) and (b < 0).any() or not isinstance(b, np.ndarray) and b < 0:
            raise NotConcrete("negative shift")
        if isinstance(b, np.ndarray) and (b > 62).any() or not isinstance(b, np.ndarray) and b > 62:
            raise NotConcrete("shift too large")
        if op is _left and _magnitude(a) * 2.0 ** _magnitude(b) >= 2.0 ** 62:
            raise NotConcrete("'<<' out of the int64 range (the result would wrap)")
        return op(a, b)
    return f


def _left(a, b):
    return a << b


def _mul(a, b):
    # numpy int64 products wrap silently (float ones overflow to inf with a RuntimeWarning):
    # a product this large is refused, like a huge constant (Python ints alone do not wrap)
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        if _magnitude(a) * _magnitude(b) >= 2.0 ** 62:
            raise NotConcrete("'*' out of the int64 range (the product would wrap)")
    return a * b


def _wrapping(op, name):
    """`+` / `-` on numpy integers wrap silently: detect it exactly (two's complement: the result's
    sign differs from both operands' for +, from a's and not b's for -) and refuse the value."""
    def f(a, b):
        r = op(a, b)
        if isinstance(r, (np.ndarray, np.integer)) and np.issubdtype(np.asarray(r).dtype, np.signedinteger):
            bb = b if name == "+" else ~np.asarray(b)
            if np.any((np.asarray(a) ^ r) & (bb ^ r) < 0):
                raise NotConcrete(f"'{name}' out of the int64 range (the result would wrap)")
        return r
    return f


def _magnitude(x) -> float:
    return float(np.abs(np.asarray(x, dtype=np.float64)).max(initial=0.0))


BINOPS: dict[str, Callable] = {
    "+": _wrapping(lambda a, b: a + b, "+"), "-": _wrapping(lambda a, b: a - b, "-"), "*": _mul,
    "/": lambda a, b: a / b if isinstance(a, float) or isinstance(b, float) else _floordiv(a, b),
    "//": _floordiv, "%": _floormod,
    "<<": _shift(_left), ">>": _shift(lambda a, b: a >> b),
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "and": _logical(lambda a, b: a & b), "or": _logical(lambda a, b: a | b),
}

# Pure integer builtins TileLang/TVM print as calls.
CALLS: dict[str, Callable] = {
    "T.floordiv": _floordiv, "T.floormod": _floormod, "T.truncdiv": _truncdiv,
    "T.truncmod": _truncmod, "T.shift_right": BINOPS[">>"], "T.shift_left": BINOPS["<<"],
    "T.bitwise_and": BINOPS["&"], "T.bitwise_or": BINOPS["|"], "T.bitwise_xor": BINOPS["^"],
    "T.bitwise_not": lambda a: ~a,
    "T.min": lambda a, b: np.minimum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else min(a, b),
    "T.max": lambda a, b: np.maximum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else max(a, b),
    "T.ceildiv": lambda a, b: -_floordiv(-a, b),
    "T.likely": lambda a: a,
    "T.abs": lambda a: abs(a) if not isinstance(a, np.ndarray) else np.abs(a),
}
SELECTS = {"T.Select", "T.if_then_else"}
INT_CASTS = {"T.int8", "T.int16", "T.int32", "T.int64", "T.uint8", "T.uint16", "T.uint32",
             "T.uint64", "T.bool"}


def _arity(fn) -> int:
    import inspect
    return len(inspect.signature(fn).parameters)


def _select(c, a, b):
    if isinstance(c, np.ndarray):
        return np.where(c, a, b)
    return a if c else b


def compile_expr(e: ir.Expr, call_hook: Callable[[ir.Call], Fn | None] | None = None,
                 load_hook: Callable[[ir.Subscript], Fn | None] | None = None) -> Fn:
    """Closure computing `e`; `call_hook` compiles calls the models know (elect, ...), `load_hook`
    loads the engine can evaluate (per-thread registers, unknown inputs the analysis enumerates)."""
    def sub(x):
        return compile_expr(x, call_hook, load_hook)
    if isinstance(e, ir.Const):
        v = e.value
        return lambda env: v
    if isinstance(e, ir.Var):
        name, span = e.name, e.span

        def var(env):
            try:
                return env[name]
            except KeyError:
                raise NotConcrete(f"'{name}' has no concrete value (symbolic or unknown)", span) from None
        return var
    if isinstance(e, ir.BinOp):
        op = BINOPS.get(e.op)
        if op is None:
            return _fail(f"operator '{e.op}'", e.span)
        left, right = sub(e.left), sub(e.right)
        span = e.span

        def binop(env):
            try:
                return op(left(env), right(env))
            except (OverflowError, TypeError, ValueError) as err:   # huge constants, bad operands
                raise NotConcrete(f"cannot evaluate '{e.op}': {err}", span) from None
        return binop
    if isinstance(e, ir.UnaryOp):
        inner = sub(e.operand)
        if e.op == "-":
            return lambda env: -inner(env)
        if e.op == "+":
            return inner
        if e.op == "~":
            return lambda env: ~inner(env)

        def not_(env):   # evaluate the operand once: nested `not`s must stay linear, not 2^depth
            v = inner(env)
            return ~np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else (not v)
        return not_
    if isinstance(e, ir.IfExp):
        c, a, b = (sub(x) for x in (e.cond, e.then, e.other))
        return lambda env: _select(c(env), a(env), b(env))
    if isinstance(e, ir.Call):
        name = e.name
        if call_hook is not None:
            hooked = call_hook(e)
            if hooked is not None:
                return hooked
        if name in CALLS:
            fn = CALLS[name]
            args = [sub(a) for a in e.args]
            if len(args) != _arity(fn):
                return _fail(f"{name} with {len(args)} argument(s)", e.span)
            return lambda env: fn(*(a(env) for a in args))
        if name in SELECTS and len(e.args) == 3:
            c, a, b = (sub(x) for x in e.args)
            return lambda env: _select(c(env), a(env), b(env))
        if name in INT_CASTS and len(e.args) == 1:
            inner = sub(e.args[0])
            if name == "T.bool":
                def to_bool(env):   # one evaluation of the operand (nested casts stay linear)
                    v = inner(env)
                    return np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else bool(v)
                return to_bool
            return inner
        if name == "T.Cast" and len(e.args) == 2 and isinstance(e.args[0], ir.Const) \
                and str(e.args[0].value).startswith(("int", "uint")):
            return sub(e.args[1])
        if name == "T.Cast" and len(e.args) == 2 and isinstance(e.args[0], ir.Const) \
                and str(e.args[0].value) == "bool":
            inner = sub(e.args[1])

            def cast_bool(env):
                v = inner(env)
                return np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else bool(v)
            return cast_bool
        return _fail(f"value of {name or 'call'}(...)", e.span)
    if isinstance(e, ir.Subscript):
        if load_hook is not None:
            hooked = load_hook(e)
            if hooked is not None:
                return hooked
        return _fail("a value loaded from memory (data-dependent)", e.span)
    return _fail(type(e).__name__, getattr(e, "span", ir.NO_SPAN))


def _fail(what: str, span: ir.Span) -> Fn:
    def f(env):
        raise NotConcrete(f"cannot evaluate {what}", span)
    return f


def free_names(e) -> set[str]:
    """Every Var name inside an expression (for dependence questions: thread id? loop var?)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Var):
            out.add(x.name)
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__") and not isinstance(x, ir.Span):
            for f in x.__dataclass_fields__:
                if f != "span":
                    stack.append(getattr(x, f))
    return out


# ---------------------------------------------------------------- what decides shared bytes
# TMA coordinates and similar arguments name global memory: they never decide shared bytes.
# So do cp.async's zero-fill predicate (a false predicate still writes the bytes) and the
# element offsets of register operands.
_GLOBAL_ARGS = {"T.tma_load": 3, "T.tma_load_multicast": 4, "T.tma_load_im2col": 3, "T.tma_store": 2,
                "T.ptx_cp_async": 3}


def shared_index_exprs(node, views, out: list) -> None:
    """Sub-expressions of `node` that can decide shared bytes or synchronization."""
    if isinstance(node, ir.Call):
        if node.name == "T.tvm_access_ptr" and len(node.args) == 5:
            data = node.args[1]
            name = data.value.name if isinstance(data, ir.Attr) and isinstance(data.value, ir.Var) \
                else data.name if isinstance(data, ir.Var) else None
            v = views.get(name)
            if v is not None and (v.is_shared or v.is_barrier):
                out.extend(node.args[2:4])
            return
        limit = _GLOBAL_ARGS.get(node.name, len(node.args))
        for a in node.args[:limit]:
            shared_index_exprs(a, views, out)
        return
    if isinstance(node, ir.Subscript):
        v = views.get(node.value.name) if isinstance(node.value, ir.Var) else None
        if v is not None and (v.is_shared or v.is_barrier):
            for i in node.indices:
                out.extend(x for x in ((i.lo, i.hi) if isinstance(i, ir.Slice) else (i,)) if x is not None)
        return
    if isinstance(node, (ir.BinOp, ir.UnaryOp, ir.IfExp, ir.Const, ir.Var)):
        out.append(node)
