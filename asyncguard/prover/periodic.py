"""Periodicity: an expression of the loop variable takes the same value `shift` iterations later,
for every thread and every value of the other variables, inside a region of the loop."""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from .. import ir
from .encode import Unencodable, encode

from .solve import RLIMIT, Query

# z3's answers, per process, keyed by the question (ir expressions compare without their spans):
# `fix` and the redundancy lint re-check many edited copies of one kernel, and every copy asks
# the same questions about the statements the edit did not touch. Answers are deterministic
# (rlimit, not time; each query in a context of its own: prover/solve.py), so a remembered one
# is the one z3 would give again.
_MEMO: dict = {}
_MEMO_MAX = 100_000


def memo(key, compute):
    """compute() once per key (a hashable description of a z3 query)."""
    try:
        return _MEMO[key]
    except KeyError:
        pass
    except TypeError:      # an unhashable part: just ask z3
        return compute()
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    value = _MEMO[key] = compute()
    return value


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
    key_ranges = tuple(sorted(ranges.items()))
    for e in exprs:
        v = memo(("shift", e, var, shift, key_ranges, tuple(region), rlimit),
                 lambda e=e: _prove_one([e], var, shift, ranges, region, rlimit))
        if v.status != "proved":
            return Verdict(v.status, v.reason + f" (at line {getattr(getattr(e, 'span', None), 'line', '?')})",
                           dict(v.model))
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
    query = Query(*dom, *side, z3.Or(*goals), rlimit=rlimit)
    res = query.check()
    if res == z3.unsat:
        return Verdict("proved")
    if res == z3.sat:
        return Verdict("refuted", "an expression changes after the shift",
                       {n: query.number(t) for n, t in env.items()})
    return Verdict("unknown", f"solver gave up ({query.reason_unknown()})")
