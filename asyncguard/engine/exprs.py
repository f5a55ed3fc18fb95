"""Compile TIR expressions into closures that evaluate for every thread at once with numpy.

A value is a Python int/bool/float (the same for all threads) or a numpy array with one entry
per thread of the block. `//` and `%` are floor division and floor modulo, exactly as TVMScript
prints FloorDiv/FloorMod (numpy's integer // and % have floor semantics).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import ir


class NotConcrete(Exception):
    """The value depends on something the concrete engine does not know (data, a symbolic size)."""

    def __init__(self, reason: str, span: ir.Span = ir.NO_SPAN):
        super().__init__(reason)
        self.reason, self.span = reason, span


class HardwareData(NotConcrete):
    """A value the hardware decides at run time and no model enumerates (a cluster launch
    control response, models/clc.py). Where one decides a branch or a loop, every path after it
    is an artifact, so the machine stops the run there (engine/machine.py)."""


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


def _bitwise(op):
    """`op` on integers (or truth values); a float operand (a corrupted constant, `1.5`) has no
    bit pattern the kernel's integer arithmetic would give: not concrete, not a TypeError."""
    def f(a, b):
        try:
            return op(a, b)
        except TypeError:
            raise NotConcrete("a bitwise operation on a non-integer value") from None
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
        if type(r) is int or type(r) is float:   # Python numbers do not wrap: skip numpy's checks
            return r
        if isinstance(r, (np.ndarray, np.integer)) and np.asarray(r).dtype.kind == "i":
            bb = b if name == "+" else ~np.asarray(b)
            if ((np.asarray(a) ^ r) & (bb ^ r) < 0).any():
                raise NotConcrete(f"'{name}' out of the int64 range (the result would wrap)")
        return r
    return f


def _magnitude(x) -> float:
    """The largest |value| of a number or an array (0.0 for an empty one), as a float."""
    t = type(x)
    if t is int or t is float:
        return float(abs(x))
    if t is np.ndarray and x.dtype.kind == "i":   # two reductions, no float copy of the array
        return float(max(-int(x.min()), int(x.max()))) if x.size else 0.0
    return float(np.abs(np.asarray(x, dtype=np.float64)).max(initial=0.0))


BINOPS: dict[str, Callable] = {
    "+": _wrapping(lambda a, b: a + b, "+"), "-": _wrapping(lambda a, b: a - b, "-"), "*": _mul,
    "/": lambda a, b: a / b if isinstance(a, float) or isinstance(b, float) else _floordiv(a, b),
    "//": _floordiv, "%": _floormod,
    "<<": _shift(_left), ">>": _shift(lambda a, b: a >> b),
    "&": _bitwise(lambda a, b: a & b), "|": _bitwise(lambda a, b: a | b), "^": _bitwise(lambda a, b: a ^ b),
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


def _lazy_select(c, a, b):
    """`T.if_then_else` and a conditional expression: where one condition holds for every
    thread, only the arm it takes is evaluated (TIR's if_then_else, CUDA's `?:`): the other may
    load an element the kernel never reads (`split[s - 1]` under `0 < s`)."""
    def select(env):
        cv = c(env)
        if isinstance(cv, np.ndarray):   # threads disagree: both arms, each thread its own
            return _select(cv, a(env), b(env))
        return a(env) if cv else b(env)
    return select


def compile_expr(e: ir.Expr, call_hook: Callable[[ir.Call], Fn | None] | None = None,
                 load_hook: Callable[[ir.Subscript], Fn | None] | None = None) -> Fn:
    """Closure computing `e`; `call_hook` compiles calls the models know (elect, ...), `load_hook`
    loads the engine can evaluate (per-thread registers, unknown inputs the analysis enumerates).

    A subexpression built only from names, constants and the pure operators here remembers its
    last result (`memoize`): the engine re-evaluates each statement's expressions at every loop
    iteration, and the parts that do not depend on the loop variable (the per-thread address
    terms, the heavy numpy work) then cost one lookup. The returned closure carries
    `pure_names`: the names its value depends on, or None when a hook reads the environment in a
    way the names do not show (registers, inputs, model calls)."""
    fn, names = _compile(e, call_hook, load_hook)
    if names and not isinstance(e, (ir.Var, ir.Const)):
        fn = memoize(fn, names)
    try:
        fn.pure_names = names
    except AttributeError:   # a hook's callable that takes no attributes (a bound method)
        pass
    return fn


_MISSING = object()
# results one subexpression keeps: the values of loops of up to 128 iterations (32 was fewer than
# a 32-iteration loop's values plus the keys a new run's or task's thread ids add: the table was
# emptied before the values came round again)
MEMO_ENTRIES = 128


def _same(key, old) -> bool | list:
    """Whether the names hold the same values in `key` as in `old`: True, False, or the list of
    (new, old) array pairs that differ only by identity (compare their contents)."""
    arrays = None
    for x, y in zip(key, old):
        if x is y:
            continue
        if type(x) is np.ndarray:
            if type(y) is not np.ndarray:
                return False
            if arrays is None:
                arrays = []
            arrays.append((x, y))
        elif type(x) is not type(y) or x != y:
            return False
    return True if arrays is None else arrays


def memoize(fn: Fn, names) -> Fn:
    """`fn`, remembering its results for the last few distinct inputs: reused while every name
    in `names` (all `fn` reads) holds the same value: an equal Python number, or an array with
    the same contents. Arrays are looked up by identity (the environment binds a new array on
    every update, never changing one in place; an entry holds its arrays, so their ids stay
    theirs) and compared by contents only against the latest entry (a new run's thread ids, a
    merge that rebuilt an equal array), which then takes the new arrays. A result is made
    read-only so no caller can change a remembered value. Threads sharing a program may lose
    an entry (the table is replaced whole, never mixed), never see a wrong one."""
    names = tuple(sorted(names))
    state: list = [{}, None]   # {hash key: (key, value)}, the latest (hash key, key, value)
    if len(names) == 1:
        memo = _memoize_one(fn, names[0], state)
        memo.pure_names = frozenset(names)
        return memo

    def memo(env):
        key = tuple([env.get(n, _MISSING) for n in names])
        hkey = tuple([id(x) if type(x) is np.ndarray else x for x in key])
        table = state[0]
        try:
            hit = table.get(hkey)
        except TypeError:   # an unhashable value: evaluate
            return fn(env)
        if hit is not None and _same(key, hit[0]) is True:
            return hit[1]
        latest = state[1]
        if latest is not None:
            same = _same(key, latest[1])
            if same is not True and same and all(
                    x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y) for x, y in same):
                v = latest[2]
                _remember(state, hkey, key, v)
                return v
        v = fn(env)
        for x in key:
            if x is _MISSING:   # fn raised or read a name a hook supplies: nothing to remember
                return v
        if type(v) is np.ndarray:
            v.flags.writeable = False
        _remember(state, hkey, key, v)
        return v
    memo.pure_names = frozenset(names)
    return memo


def _memoize_one(fn: Fn, name: str, state: list) -> Fn:
    """`memoize` for an expression of one name (most address terms: a thread id, a loop
    variable): the same table, keyed by the 1-tuples memoize uses, with the tuples and the
    general comparison loops left out of the hits."""
    def memo(env):
        x = env.get(name, _MISSING)
        tx = type(x)
        hkey = (id(x),) if tx is np.ndarray else (x,)
        table = state[0]
        try:
            hit = table.get(hkey)
        except TypeError:   # an unhashable value: evaluate
            return fn(env)
        if hit is not None:
            y = hit[0][0]
            if x is y or (tx is type(y) and tx is not np.ndarray and x == y):
                return hit[1]
        latest = state[1]
        if tx is np.ndarray and latest is not None:
            y = latest[1][0]
            if type(y) is np.ndarray and x is not y and x.shape == y.shape and x.dtype == y.dtype \
                    and np.array_equal(x, y):
                v = latest[2]
                _remember(state, hkey, (x,), v)
                return v
        v = fn(env)
        if x is _MISSING:   # fn raised or read a name a hook supplies: nothing to remember
            return v
        if type(v) is np.ndarray:
            v.flags.writeable = False
        _remember(state, hkey, (x,), v)
        return v
    return memo


def _remember(state: list, hkey, key, v) -> None:
    table = state[0]
    if len(table) >= MEMO_ENTRIES:
        table = state[0] = {}
    table[hkey] = (key, v)
    state[1] = (hkey, key, v)


def _compile(e: ir.Expr, call_hook, load_hook) -> tuple[Fn, frozenset | None]:
    """(closure, the names it reads or None when impure); see compile_expr. A pure node whose
    names are fewer than its parent's is memoized here, so a loop-invariant part of a
    loop-variant expression is computed once."""
    def sub(x):
        return _compile(x, call_hook, load_hook)

    def parts(xs):
        """The children's closures (each memoized where it reads fewer names than the node), and
        the node's names (None if any child is impure)."""
        compiled = [sub(x) for x in xs]
        names: frozenset | None = frozenset()
        for _, n in compiled:
            names = None if n is None or names is None else names | n
        out = []
        for f, n in compiled:
            if names is not None and n and n != names:
                f = memoize(f, n)
            out.append(f)
        return out, names

    if isinstance(e, ir.Const):
        v = e.value
        return (lambda env: v), frozenset()
    if isinstance(e, ir.Var):
        name, span = e.name, e.span

        def var(env):
            try:
                return env[name]
            except KeyError:
                raise NotConcrete(f"'{name}' has no concrete value (symbolic or unknown)", span) from None
        return var, frozenset((name,))
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        grouped = _grouped_sum(e, sub)
        if grouped is not None:
            return grouped
    if isinstance(e, ir.BinOp):
        op = BINOPS.get(e.op)
        if op is None:
            return _fail(f"operator '{e.op}'", e.span), frozenset()
        (left, right), names = parts((e.left, e.right))
        span = e.span

        def binop(env):
            try:
                return op(left(env), right(env))
            except (OverflowError, TypeError, ValueError) as err:   # huge constants, bad operands
                raise NotConcrete(f"cannot evaluate '{e.op}': {err}", span) from None
        return binop, names
    if isinstance(e, ir.UnaryOp):
        inner, names = sub(e.operand)
        if e.op == "-":
            return (lambda env: -inner(env)), names
        if e.op == "+":
            return inner, names
        if e.op == "~":
            return (lambda env: ~inner(env)), names

        def not_(env):   # evaluate the operand once: nested `not`s must stay linear, not 2^depth
            v = inner(env)
            return ~np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else (not v)
        return not_, names
    if isinstance(e, ir.IfExp):
        (c, a, b), names = parts((e.cond, e.then, e.other))
        return _lazy_select(c, a, b), names
    if isinstance(e, ir.Call):
        name = e.name
        if call_hook is not None:
            hooked = call_hook(e)
            if hooked is not None:
                return hooked, None
        if name in CALLS:
            fn = CALLS[name]
            args, names = parts(e.args)
            if len(args) != _arity(fn):
                return _fail(f"{name} with {len(args)} argument(s)", e.span), frozenset()
            if len(args) == 1:
                a0 = args[0]
                return (lambda env: fn(a0(env))), names
            if len(args) == 2:
                a0, a1 = args
                return (lambda env: fn(a0(env), a1(env))), names
            return (lambda env: fn(*(a(env) for a in args))), names
        if name in SELECTS and len(e.args) == 3:
            (c, a, b), names = parts(e.args)
            if name == "T.if_then_else":
                return _lazy_select(c, a, b), names
            return (lambda env: _select(c(env), a(env), b(env))), names
        if name in INT_CASTS and len(e.args) == 1:
            inner, names = sub(e.args[0])
            if name == "T.bool":
                def to_bool(env):   # one evaluation of the operand (nested casts stay linear)
                    v = inner(env)
                    return np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else bool(v)
                return to_bool, names
            return inner, names
        if name == "T.Cast" and len(e.args) == 2 and isinstance(e.args[0], ir.Const) \
                and str(e.args[0].value).startswith(("int", "uint")):
            return sub(e.args[1])
        if name == "T.Cast" and len(e.args) == 2 and isinstance(e.args[0], ir.Const) \
                and str(e.args[0].value) == "bool":
            inner, names = sub(e.args[1])

            def cast_bool(env):
                v = inner(env)
                return np.asarray(v, dtype=bool) if isinstance(v, np.ndarray) else bool(v)
            return cast_bool, names
        return _fail(f"value of {name or 'call'}(...)", e.span), frozenset()
    if isinstance(e, ir.Subscript):
        if load_hook is not None:
            hooked = load_hook(e)
            if hooked is not None:
                return hooked, None
        return _fail("a value loaded from memory (data-dependent)", e.span), frozenset()
    return _fail(type(e).__name__, getattr(e, "span", ir.NO_SPAN)), frozenset()


def _sum_terms(e) -> list:
    """A left-nested chain `((t0 ± t1) ± t2) ...` (how TVMScript prints a sum) as (op, term,
    node) triples, t0 first with op '+'; `node` is the BinOp that adds the term (its span and
    operator name an error there, as the unregrouped closure's would)."""
    out = []
    while isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        out.append((e.op, e.right, e))
        e = e.left
    out.append(("+", e, None))
    return out[::-1]


def _grouped_sum(e: ir.BinOp, sub):
    """A chain of + and - whose terms read different names, summed per group of terms that read
    the same names, each group remembered (memoize) on its own: an address such as
    `k % 2 * 4096 + tx // 32 * 512 + i * 16 + tx % 8` then adds the per-thread terms once per
    run instead of once per loop iteration. Integer addition is associative, so the value is the
    one left-to-right evaluation gives; anything else (a float, a bool, an unsigned value, an
    error, a group sum that would wrap) is evaluated left to right exactly as written, with the
    written order's errors. None when there is nothing to regroup (or a term is impure)."""
    terms = _sum_terms(e)
    if len(terms) < 3:
        return None
    compiled = []
    for op, t, node in terms:
        fn, names = sub(t)
        if names is None:
            return None
        compiled.append((op, fn, names, node))
    groups: dict = {}
    for op, fn, names, node in compiled:
        groups.setdefault(names, []).append((op, fn, node))
    if len(groups) < 2:
        return None
    all_names = frozenset().union(*groups)
    # the written order, for every case regrouping does not cover
    in_order = [(op, memoize(fn, names) if names and names != all_names else fn, node)
                for op, fn, names, node in compiled]

    def left_to_right(env):
        acc = in_order[0][1](env)
        for op, fn, node in in_order[1:]:
            acc = _checked(op, acc, fn(env), node)
        return acc

    parts = []
    for names, members in sorted(groups.items(), key=lambda kv: (len(kv[0]), sorted(kv[0]))):
        part = _group_fn(members)
        if names and names != all_names:
            part = memoize(part, names)
        parts.append(part)
    # the bound test below covers every partial sum, so the sums skip `+`'s own wrap test
    add = _PLAIN["+"]

    def grouped(env):
        try:
            acc, bound = parts[0](env)
            for part in parts[1:]:
                v, b = part(env)
                acc, bound = add(acc, v), bound + b
        except (NotConcrete, OverflowError, TypeError, ValueError):
            return left_to_right(env)
        if bound >= _NO_WRAP:   # some order of these additions might wrap: the written one decides
            return left_to_right(env)
        return acc
    return grouped, all_names


# below this sum of the terms' magnitudes no partial sum of them, in any order, leaves int64
_NO_WRAP = 2.0 ** 62
# `+` and `-` without the wrap test: for sums whose terms' magnitudes are added up beside them
# and compared with _NO_WRAP (a sum that may have wrapped is then evaluated again in order)
_PLAIN = {}


def _unchecked(name):
    checked = BINOPS[name]
    op = (lambda a, b: a + b) if name == "+" else (lambda a, b: a - b)

    def f(a, b):
        # arrays and Python ints: no wrap test (and numpy warns on neither); numpy scalars keep
        # `checked`, whose test replaces numpy's overflow warning
        if type(a) is np.ndarray or type(b) is np.ndarray or (type(a) is int and type(b) is int):
            return op(a, b)
        return checked(a, b)
    return f


_PLAIN.update({"+": _unchecked("+"), "-": _unchecked("-")})


def _group_fn(members: list) -> Fn:
    """(signed sum of one group's terms, sum of their largest magnitudes); NotConcrete (the
    caller then evaluates the written order) on a term that is not an exact integer. The sum
    is plain numpy/Python arithmetic: where it could wrap, the bound is at least 2^63 and the
    caller throws it away (grouped)."""
    members = [(_PLAIN[op], fn, node) for op, fn, node in members]

    def group(env):
        acc, bound = 0, 0.0
        for op, fn, node in members:
            v = fn(env)
            if not _exact_int(v):
                raise NotConcrete("not an integer sum")
            bound += _magnitude(v)
            acc = op(acc, v)
        if type(acc) is np.ndarray:
            acc.flags.writeable = False
        return acc, bound
    return group


def _exact_int(v) -> bool:
    """An integer whose sums numpy or Python compute exactly (wrap aside): a Python int (not a
    bool), a signed numpy integer or an array of them."""
    t = type(v)
    if t is int:
        return True
    if t is np.ndarray or isinstance(v, np.integer):
        return v.dtype.kind == "i"
    return False


def _checked(op: str, a, b, node):
    try:
        return BINOPS[op](a, b)
    except (OverflowError, TypeError, ValueError) as err:
        raise NotConcrete(f"cannot evaluate '{node.op}': {err}", node.span) from None


def _fail(what: str, span: ir.Span) -> Fn:
    def f(env):
        raise NotConcrete(f"cannot evaluate {what}", span)
    return f


def free_names(e) -> set[str]:
    """Every Var name inside an expression (for dependence questions: thread id? loop var?). A
    call's dotted callee (`T.min`) names a function, not a value: its `T` is not a free name."""
    out: set = set()
    callee: set = set()   # ids of the Vars of callees (a Call comes before its fields in the walk)
    for x in ir.nodes(e):
        if isinstance(x, ir.Call) and ir.dotted(x.func):
            callee.update(id(v) for v in ir.nodes(x.func))
        elif isinstance(x, ir.Var) and id(x) not in callee:
            out.add(x.name)
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


# the longest period a loop skip or a loop start's remainder is looked for in
MAX_PERIOD = 512


def low_mask(c) -> bool:
    """Whether `c` is an integer 2**j - 1 for some j >= 1 (`x & c` keeps x mod 2**j)."""
    return isinstance(c, int) and not isinstance(c, bool) and c > 0 and c & (c + 1) == 0


def _mask_period(mask) -> int:
    """The period in its other operand of `& mask` or `^ mask`: 2**j for a low-bit mask 2**j - 1,
    else 2 (a guess the proofs check: period_of only proposes)."""
    if isinstance(mask, ir.Const) and low_mask(mask.value):
        return mask.value + 1
    return 2


def period_of(exprs, var, limit: int = MAX_PERIOD) -> int:
    """lcm of the divisors, moduli and bit widths that act on terms mentioning `var` (a name or a
    set of names); 0 past `limit`."""
    names = {var} if isinstance(var, str) else set(var)
    p = 1
    stack = [e for e in exprs if names & free_names(e)]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.BinOp):
            if e.op in ("//", "%") and isinstance(e.right, ir.Const) and isinstance(e.right.value, int) \
                    and e.right.value > 0 and names & free_names(e.left):
                p = math.lcm(p, e.right.value)
            if e.op in ("&", "^") and names & free_names(e.left):
                p = math.lcm(p, _mask_period(e.right))
            stack += [e.left, e.right]
        elif isinstance(e, ir.Call):
            if e.name in ("T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod") and len(e.args) == 2 \
                    and isinstance(e.args[1], ir.Const):
                p = math.lcm(p, int(e.args[1].value))
            if e.name in ("T.bitwise_xor", "T.bitwise_and") and len(e.args) == 2:
                p = math.lcm(p, _mask_period(e.args[1]))
            if e.name == "T.shift_right" and len(e.args) == 2 and isinstance(e.args[1], ir.Const):
                p = math.lcm(p, 2 ** int(e.args[1].value))
            stack += list(e.args)
        elif isinstance(e, ir.UnaryOp):
            stack.append(e.operand)
        elif isinstance(e, ir.IfExp):
            stack += [e.cond, e.then, e.other]
        if p > limit:
            return 0
    return p
