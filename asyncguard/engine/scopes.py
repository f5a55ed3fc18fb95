"""One name per let binding: shadowed lets renamed apart, once, before anything reads a function.

TVMScript prints two different `LetStmt`s whose variables share a name hint with one name when
their scopes do not overlap (NSA forward: `i_s_5 = BlockIndices[i_t * 8 + i] * 32` inside the
pipelined loop and `i_s_5 = BlockIndices[i_t * 8 + 6] * 32` after it). A let is in scope for the
statements after it in its own block (and everything nested in them), so each use means the
binding in scope there; but the elaboration and numeric passes key their let tables by name
(`let_values`, `_numeric_pass`'s `lets`, `_register_lets`, `_fold_trips`, `_iteration_choice`,
the provers), where the later binding would win for every use. `scoped_lets` renames every
binding after a name's first one (in source order) whose value differs from theirs to `NAME%k`
(k = 2, 3, ...), with the uses in its scope (bindings of one value share a name: substituting
that value for the name is right at every use), so that every name-keyed table downstream is right by construction. `%` is in no
TVMScript name, so a renamed name meets no source name; spans are kept, so every line and column
is the source's. Messages show the source name (`source_names`); the CUDA emitter prints a
renamed one as a C name of its own (emit/cuda.py `c_name`).

Only lets are renamed: an assignment to a plain name whose value is not a declaration (buffer
allocation, buffer view, thread launch: `DECLARATIONS`). A loop variable, `with ... as` name,
lambda parameter or declaration of the same name hides the let in its own scope."""
from __future__ import annotations

import re
from collections import Counter

from .. import ir

SHADOW_MARK = "%"
DECLARATIONS = frozenset({"T.launch_thread", "T.alloc_buffer", "T.decl_buffer", "T.Buffer",
                          "T.match_buffer", "T.allocate", "T.handle_add_byte_offset"})
_RENAMED = re.compile(r"\b([A-Za-z_]\w*)%\d+\b")


def is_let(s) -> bool:
    return isinstance(s, ir.Assign) and isinstance(s.target, ir.Var) and not (
        isinstance(s.value, ir.Call) and s.value.name in DECLARATIONS)


def source_name(name: str) -> str:
    """The name as the source spells it (`i_s_5%2` -> `i_s_5`)."""
    return name.split(SHADOW_MARK, 1)[0]


def source_names(text: str) -> str:
    """`text` with every renamed let shown by its source name (for messages)."""
    return _RENAMED.sub(r"\1", text) if SHADOW_MARK in text else text


def _let_names(body, out: list) -> None:
    for s in body:
        if is_let(s):
            out.append(s.target.name)
        for f in ("body", "then", "other"):
            sub = getattr(s, f, None)
            if isinstance(sub, tuple):
                _let_names(sub, out)


def shadowed_lets(func: ir.Function) -> set:
    """The let names `func` binds more than once."""
    names: list = []
    _let_names(func.body, names)
    return {n for n, k in Counter(names).items() if k > 1}


def scoped_lets(func: ir.Function) -> ir.Function:
    """`func` with each binding of a shadowed let after its first renamed `NAME%k`, together with
    every use in its scope. `func` itself (the same object) when no let name is bound twice."""
    if not isinstance(func, ir.Function):
        return func
    dup = shadowed_lets(func)
    if not dup:
        return func
    bound: dict = {}   # name -> [(value as renamed, the name given to bindings of that value)]
    renamed = []

    def expr(e, env: dict):
        if e is None or not env:
            return e

        def replace(x):
            if isinstance(x, ir.Var):
                new = env.get(x.name)
                return ir.Var(new, x.span) if new is not None and new != x.name else None
            if isinstance(x, ir.Lambda) and set(x.params) & set(env):
                inner = {k: v for k, v in env.items() if k not in x.params}
                return ir.Lambda(x.params, expr(x.body, inner), x.span)
            return None
        return ir.rewrite(e, replace)

    def block(body: tuple, env: dict) -> tuple:
        env = dict(env)   # a binding ends with its block
        out = []
        for s in body:
            if isinstance(s, ir.Assign):
                value = expr(s.value, env)   # the value is read before the name is bound
                if is_let(s) and s.target.name in dup:
                    name = s.target.name
                    given = bound.setdefault(name, [])
                    # a binding of the same value (warp-specialized branches each loading
                    # `kv_start = cu_seqlens[b]`) keeps the name: one expression per name is
                    # then right for every use, as before
                    new = next((n for v, n in given if v == value), None)
                    if new is None:
                        new = name if not given else f"{name}{SHADOW_MARK}{len(given) + 1}"
                        given.append((value, new))
                        renamed.append(new != name)
                    env[name] = new
                    target = ir.Var(new, s.target.span)
                elif isinstance(s.target, ir.Var):
                    env.pop(s.target.name, None)   # a declaration of that name hides the let
                    target = s.target
                else:
                    target = expr(s.target, env)
                s = ir.Assign(target, value, s.annotation, s.span)
            elif isinstance(s, ir.For):
                inner = {k: v for k, v in env.items() if k not in s.names}
                s = ir.For(s.names, expr(s.iter, env), block(s.body, inner), s.span)
            elif isinstance(s, ir.If):
                s = ir.If(expr(s.cond, env), block(s.then, env), block(s.other, env), s.span)
            elif isinstance(s, ir.With):
                inner = {k: v for k, v in env.items() if k != s.name}
                s = ir.With(expr(s.ctx, env), s.name, block(s.body, inner), s.span)
            elif isinstance(s, ir.While):
                s = ir.While(expr(s.cond, env), block(s.body, env), s.span)
            elif isinstance(s, ir.ExprStmt):
                s = ir.ExprStmt(expr(s.expr, env), s.span)
            elif isinstance(s, ir.Other):
                s = ir.Other(s.kind, tuple(expr(x, env) for x in s.exprs), s.span)
            out.append(s)
        return tuple(out)

    body = block(func.body, {})
    if not any(renamed):
        return func
    return ir.Function(func.name, func.decorators, func.params, body, func.span)
