"""Loop acceleration: skip whole periods of a long pipelined loop, with a proof.

A loop `for k in ...` whose body touches shared memory or synchronizes may skip iterations
[warm, warm + m * shift) when two things hold:
1. z3 proves every expression of the body that decides shared addresses, barriers, parities,
   wait counts, branches and inner loop bounds takes the same value `shift` iterations later,
   for every thread and every value of the other variables, over the skipped range
   (`prover.prove_equal_under_shift`); global-memory addresses are left out: they do not
   touch shared memory;
2. the machine's synchronization state (mbarrier pending counts, tx-counts and phase parities,
   pending async groups, live shared-access records relative to the loop) is the same at the
   two period boundaries before the jump, so the skipped periods would repeat the same
   transitions (checked concretely when the jump is taken).
The iterations before the jump and from the jump to the end run for real, with their real `k`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import ir
from .exprs import free_names, shared_index_exprs as _shared_exprs

MAX_PERIOD = 512


@dataclass
class Plan:
    shift: int
    warm: int
    jump_to: int | None
    reason: str


def collect(body, views, out: list, inner: dict) -> None:
    """The expressions of `body` that decide what the machine does: shared addresses, barriers,
    parities, branches, loop bounds, lets and register stores. A loop or branch the program marks
    irrelevant (nothing in it touches shared memory or synchronizes, engine/program.py) is never
    evaluated by the machine, so its bound or condition (a global-memory bounds guard) decides
    nothing."""
    from .program import PIf, PLet, PLoop, POp, PStore
    for s in body:
        if isinstance(s, (PIf, PLoop)) and not s.relevant:
            continue   # skipped unevaluated by the machine: decides nothing
        if isinstance(s, POp) and s.src is not None:
            _shared_exprs(s.src, views, out)
        elif isinstance(s, PIf):
            if s.src is not None:
                out.append(s.src)
            collect(s.then, views, out, inner)
            collect(s.other, views, out, inner)
        elif isinstance(s, PLet) and s.src is not None:
            out.append(s.src)
        elif isinstance(s, PStore):   # a register store: its value may decide shared bytes later
            out.extend(x for x in s.src if x is not None)
        elif isinstance(s, PLoop):
            out.extend(s.src)
            ext = s.src[1] if s.src else None
            inner[s.var] = (0, ext.value) if isinstance(ext, ir.Const) and isinstance(ext.value, int) else None
            collect(s.body, views, out, inner)


def k_parts(e, var, out: list) -> None:
    """The smallest sub-terms carrying `var` (a name or a set of names): a sum or product is
    invariant when its terms that mention them are (a sufficient condition, so proofs stay
    sound and small)."""
    names = {var} if isinstance(var, str) else set(var)
    if not free_names(e) & names:
        return
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        left, right = bool(free_names(e.left) & names), bool(free_names(e.right) & names)
        if left != right:
            k_parts(e.left if left else e.right, names, out)
            return
        if e.op in ("+", "-"):
            k_parts(e.left, names, out)
            k_parts(e.right, names, out)
            return
    if isinstance(e, ir.UnaryOp) and e.op in ("-", "+"):
        k_parts(e.operand, names, out)
        return
    if e not in out:
        out.append(e)


def period_of(exprs, var: str) -> int:
    """lcm of the divisors, moduli and bit widths that act on terms mentioning `var`."""
    p = 1
    stack = [e for e in exprs if var in free_names(e)]
    while stack:
        e = stack.pop()
        if isinstance(e, ir.BinOp):
            if e.op in ("//", "%") and isinstance(e.right, ir.Const) and isinstance(e.right.value, int) \
                    and e.right.value > 0 and var in free_names(e.left):
                p = math.lcm(p, e.right.value)
            if e.op in ("&", "^") and var in free_names(e.left):
                p = math.lcm(p, 2)
            stack += [e.left, e.right]
        elif isinstance(e, ir.Call):
            if e.name in ("T.floordiv", "T.floormod") and len(e.args) == 2 and isinstance(e.args[1], ir.Const):
                p = math.lcm(p, int(e.args[1].value))
            if e.name in ("T.bitwise_xor", "T.bitwise_and") and len(e.args) == 2:
                p = math.lcm(p, 2)
            if e.name == "T.shift_right" and len(e.args) == 2 and isinstance(e.args[1], ir.Const):
                p = math.lcm(p, 2 ** int(e.args[1].value))
            stack += list(e.args)
        elif isinstance(e, ir.UnaryOp):
            stack.append(e.operand)
        elif isinstance(e, ir.IfExp):
            stack += [e.cond, e.then, e.other]
        if p > MAX_PERIOD:
            return 0
    return p


def loop_period(loop, program) -> int:
    """The period `period_of` finds for the loop's shared/sync expressions (0: too long)."""
    exprs: list = []
    collect(loop.body, program.views, exprs, {})
    parts: list = []
    for e in exprs:
        k_parts(e, loop.var, parts)
    return period_of(parts, loop.var)


def plan(loop, n: int, start: int, program, geometry: tuple | None = None,
         block: tuple = ()) -> Plan:
    """Where (if anywhere) iterations of `loop` with `n` trips can be skipped.

    `geometry` = (shift, warm, tail): a loop whose trip count depends on a symbolic size, for which
    the induction (prover/induction.py) chose the shortest shift and warm-up that make the state
    repeat; it skips as soon as one whole period fits before its last `tail` iterations, so that
    few trip counts need a run of their own. Without it: shift twice the period, warm-up two shifts, and
    two to three shifts left at the end (long fixed-size loops, where a run is cheap anyway).

    `block`: (name, value) of the block indices of the CTA that runs the loop. The machine runs one
    block, so the proof may hold for those values alone: a first-iteration branch `k == by * 4` of
    a loop from `by * 4` is then decided outside the skipped range."""
    from ..prover.periodic import prove_equal_under_shift
    exprs: list = []
    inner: dict = {}
    collect(loop.body, program.views, exprs, inner)
    parts: list = []
    for e in exprs:
        k_parts(e, loop.var, parts)
    exprs = parts
    p = period_of(exprs, loop.var)
    if p == 0:
        return Plan(0, 0, None, "period too long")
    if geometry is not None:
        shift, warm, tail = geometry   # tail >= 1: the jump lands on an iteration the loop runs
        if shift % p or warm < shift or tail < 1:
            return Plan(0, 0, None, f"shift {shift} is not a multiple of the period {p}")
    else:
        shift = 2 * p
        warm = 2 * shift
        tail = 2 * shift
    m = (n - warm - tail) // shift
    if m < 1:
        return Plan(shift, warm, None, "too few iterations to skip")
    launch = program.launch
    ranges = {name: (0, launch.threads["xyz".index(axis[-1])]) for name, axis in launch.thread_vars.items()}
    ranges.update({name: launch.block_range(axis) for name, axis in launch.block_vars.items()})
    ranges.update({name: (value, value + 1) for name, value in block if name in ranges})
    ranges.update(inner)
    names = set().union(*(free_names(e) for e in exprs)) if exprs else set()
    for nm in names - set(ranges) - {loop.var}:
        ranges[nm] = None   # let values, outer loops, symbolic sizes: any value
    region = (start + warm - shift, start + warm + (m - 1) * shift)
    v = prove_equal_under_shift(exprs, loop.var, shift, ranges, region)
    if v.status != "proved":
        return Plan(shift, warm, None, f"{v.status}: {v.reason}")
    return Plan(shift, warm, warm + m * shift, f"proved periodic with period {shift}")
