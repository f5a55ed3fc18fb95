"""Periodicity: an expression of the loop variable takes the same value `shift` iterations later,
for every thread and every value of the other variables, inside a region of the loop."""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from .. import ir
from .encode import Unencodable, encode

RLIMIT = 2_000_000   # z3's deterministic resource limit per query


@dataclass
class Verdict:
    status: str                 # "proved" | "refuted" | "unknown"
    reason: str = ""
    model: dict = field(default_factory=dict)


def _substitute(e, name: str, repl):
    """`e` with Var(name) replaced by the expression `repl`."""
    if isinstance(e, ir.Var):
        return repl if e.name == name else e
    if isinstance(e, ir.BinOp):
        return ir.BinOp(e.op, _substitute(e.left, name, repl), _substitute(e.right, name, repl), e.span)
    if isinstance(e, ir.UnaryOp):
        return ir.UnaryOp(e.op, _substitute(e.operand, name, repl), e.span)
    if isinstance(e, ir.IfExp):
        return ir.IfExp(*(_substitute(x, name, repl) for x in (e.cond, e.then, e.other)), e.span)
    if isinstance(e, ir.Call):
        return ir.Call(e.func, tuple(_substitute(a, name, repl) for a in e.args), e.kwargs, e.span)
    return e


def prove_equal_under_shift(exprs, var: str, shift: int, ranges: dict, region: tuple,
                            rlimit: int | None = None) -> Verdict:
    """Every expression separately (small queries); the first that is not proved decides."""
    rlimit = RLIMIT if rlimit is None else rlimit
    for e in exprs:
        v = _prove_one([e], var, shift, ranges, region, rlimit)
        if v.status != "proved":
            v.reason += f" (at line {getattr(getattr(e, 'span', None), 'line', '?')})"
            return v
    return Verdict("proved")


def _prove_one(exprs, var: str, shift: int, ranges: dict, region: tuple, rlimit: int) -> Verdict:
    """Prove e[var := var + shift] == e for every e in `exprs`, for all values of the free names
    within `ranges` (name -> (lo, hi) or None for unbounded) and var in [region[0], region[1])."""
    env = {n: z3.Int(n) for n in ranges}
    env[var] = z3.Int(var)
    k = env[var]
    dom = [k >= region[0], k < region[1]]
    for n, r in ranges.items():
        if r is not None:
            dom += [env[n] >= r[0], env[n] < r[1]]
    solver = z3.Solver()
    solver.set("rlimit", rlimit)
    goals, side = [], []
    shifted_var = ir.BinOp("+", ir.Var(var), ir.Const(shift))
    try:
        for e in exprs:
            a, sa = encode(e, env)
            b, sb = encode(_substitute(e, var, shifted_var), env)
            side += sa + sb
            goals.append(a != b)
    except Unencodable as err:
        return Verdict("unknown", f"cannot encode: {err}")
    except z3.Z3Exception as err:
        return Verdict("unknown", f"z3: {err}")
    if not goals:
        return Verdict("proved")
    solver.add(*dom, *side, z3.Or(*goals))
    res = solver.check()
    if res == z3.unsat:
        return Verdict("proved")
    if res == z3.sat:
        m = solver.model()
        return Verdict("refuted", "an expression changes after the shift",
                       {n: m.eval(t, model_completion=True).as_long() for n, t in env.items()})
    return Verdict("unknown", f"solver gave up ({solver.reason_unknown()})")
