"""Several symbolic sizes and symbolic grids: which values stand for all, proved by z3.

A kernel's shared-memory behaviour depends on its symbolic names (size parameters, and the
block index of a grid axis whose extent is symbolic) only through the expressions that decide
control, shared bytes or synchronization (`sites`). Names that never meet in one such
expression are independent (`groups`): each group is reduced on its own to a finite set of
representative values, and the runs are the product of the groups' representatives -- the
product of their distinct behaviours, not of their values.

Two reductions, both proved for every value (never sampled):
- Block translation (`block_translation`): a block index b of a grid axis with extent E(P)
  moves with its size: if E(P + dP) = E(P) + db and every site is unchanged by
  (P, b) -> (P - dP, b - db) for every b >= db (threads, loop variables and all other names
  arbitrary), then block b of size P behaves as block b - db of size P - dP, and by induction
  every block of every grid behaves as a block b < db of some smaller size.
- Eventual periodicity (`threshold`): for one size P (block indices fixed), if from some n on
  P + s keeps every assumption and every site's value, every P >= n + s behaves as P - s, so
  the values below n + s stand for all.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import ir
from ..engine.exprs import free_names
from .encode import Unencodable, encode
from .periodic import _substitute


@dataclass
class Site:
    expr: object
    ranges: dict          # enclosing loop variables with constant bounds: name -> (lo, hi)


def sites(program) -> list:
    """The expressions that decide something (see `_all_sites`); a let or a register store counts
    only when a name or register it defines is read by one that does (to a fixpoint), so a value
    that only feeds global stores or arithmetic decides nothing."""
    base, lets, stores = _all_sites(program)
    used: set = set()
    for st in base:
        used |= free_names(st.expr)
    views = program.views

    def regions(names):
        return {views[n].region.name for n in names if n in views and views[n].region is not None}
    changed = True
    while changed:
        changed = False
        used_regions = regions(used)
        for group, key in ((lets, lambda k: k in used), (stores, lambda k: k in used_regions)):
            for item in list(group):
                name, st = item
                if key(name):
                    group.remove(item)
                    base.append(st)
                    used |= free_names(st.expr)
                    changed = True
    return base


def _all_sites(program) -> tuple:
    """Every expression deciding control, shared bytes or synchronization (engine/accelerate's
    selection: global addresses, TMA coordinates and cp.async's zero-fill predicate left out),
    with the ranges of the loops around it. Branches and loops that touch nothing relevant
    (`relevant` False) are left out: their outcome changes no shared byte and no barrier."""
    from ..engine.exprs import shared_index_exprs as _shared_exprs
    from ..engine.program import PIf, PLet, PLoop, POp, PStore
    out: list = []
    lets: list = []     # (name, Site)
    stores: list = []   # (register region, Site)

    def walk(body, ranges):
        for s in body:
            if isinstance(s, POp) and s.src is not None:
                found: list = []
                _shared_exprs(s.src, program.views, found)
                out.extend(Site(e, ranges) for e in found)
            elif isinstance(s, PIf):
                if s.relevant and s.src is not None:
                    out.append(Site(s.src, ranges))
                walk(s.then, ranges)
                walk(s.other, ranges)
            elif isinstance(s, PLet) and s.src is not None:
                lets.append((s.name, Site(s.src, ranges)))
            elif isinstance(s, PStore):
                stores.extend((s.region, Site(x, ranges)) for x in s.src if x is not None)
            elif isinstance(s, PLoop):
                if s.relevant:
                    out.extend(Site(x, ranges) for x in s.src)
                inner = dict(ranges)
                inner.pop(s.var, None)
                lo, ext = (s.src + (None, None))[:2] if s.src else (None, None)
                if _int(lo) is not None and _int(ext) is not None:
                    inner[s.var] = (_int(lo), _int(lo) + _int(ext))
                walk(s.body, inner)
    walk(program.body, {})
    return out, lets, stores


def _int(e):
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None


def groups(names: list, exprs: list) -> list:
    """Connected components of `names`: two names are joined when one expression mentions both."""
    parent = {n: n for n in names}

    def find(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    for e in exprs:
        hit = [n for n in names if n in free_names(e)]
        for a, b in zip(hit, hit[1:]):
            parent[find(a)] = find(b)
    out: dict = {}
    for n in names:
        out.setdefault(find(n), []).append(n)
    return list(out.values())


@dataclass
class Reduction:
    ok: bool
    reason: str
    dp: int = 0        # block translation: size step
    db: int = 0        # block translation: index step
    n: int = 0         # threshold: values from n + s on behave as s smaller
    s: int = 1
    queries: int = 0


def _consts(e) -> set:
    out, stack = set(), [e]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool):
            out.add(abs(x.value))
        elif isinstance(x, ir.BinOp):
            stack += [x.left, x.right]
        elif isinstance(x, ir.Call):
            stack += list(x.args)
        elif isinstance(x, ir.UnaryOp):
            stack.append(x.operand)
    return {c for c in out if c > 0}


def _env(program, names) -> tuple:
    """z3 variables for `names` and the domain of the launch's thread variables."""
    import z3
    env = {n: z3.Int(n) for n in names}
    dom = []
    for n, axis in program.launch.thread_vars.items():
        env.setdefault(n, z3.Int(n))
        dom += [env[n] >= 0, env[n] < program.launch.threads["xyz".index(axis[-1])]]
    return env, dom


def _prove(constraints: list, goal_false) -> str:
    """'proved' when constraints AND goal_false is unsatisfiable."""
    import z3
    from . import periodic
    s = z3.Solver()
    s.set("rlimit", periodic.RLIMIT)
    s.add(*constraints, goal_false)
    r = s.check()
    if r == z3.unsat:
        return "proved"
    return "refuted" if r == z3.sat else f"unknown ({s.reason_unknown()})"


def _unchanged(site_list, env0, dom0, subst: dict, extra: list, memo_key, enc=encode) -> str:
    """Every site equal under the substitution name -> expression, for all values of the other
    names within the sites' loop ranges: 'proved' or why not (the first site that fails)."""
    import z3
    keys = set(subst)
    for st in site_list:
        if not free_names(st.expr) & keys:
            continue

        def one(st=st):
            env = dict(env0)
            dom = list(dom0)
            for n in free_names(st.expr) - set(env):
                env[n] = z3.Int(n)
            for n, (lo, hi) in st.ranges.items():
                env.setdefault(n, z3.Int(n))
                dom += [env[n] >= lo, env[n] < hi]
            moved = st.expr
            for k, v in subst.items():
                moved = _substitute(moved, k, v)
            try:
                a, sa = enc(st.expr, env)
                b, sb = enc(moved, env)
            except Unencodable as err:
                return f"cannot encode ({err})"
            return _prove(dom + extra + sa + sb, a != b)
        res = one()   # no memo: the answer depends on the launch and the domain, not only on these
        if res != "proved":
            line = getattr(getattr(st.expr, "span", None), "line", None)
            return f"{res} at line {line}" if line else res
    return "proved"


class _LoadEncoder:
    """encode() plus loads of read-only global parameters: an uninterpreted function of the
    address, so two runs on one memory read one value at one address (prover/encode.py
    otherwise refuses a subscript)."""

    def __init__(self, read_only: frozenset):
        self.read_only = read_only

    def __call__(self, e, env: dict):
        import z3

        from .encode import Encoder
        read_only = self.read_only

        class Enc(Encoder):
            def expr(self, x):
                if isinstance(x, ir.Subscript) and isinstance(x.value, ir.Var) and \
                        x.value.name in read_only and \
                        not any(isinstance(i, ir.Slice) for i in x.indices):
                    args = [self.expr(i) for i in x.indices]
                    f = z3.Function(f"load:{x.value.name}", *([z3.IntSort()] * len(args)), z3.IntSort())
                    return f(*args)
                return super().expr(x)
        enc = Enc(env)
        term = enc.expr(e)
        return term, enc.side


def _encoder(program):
    return _LoadEncoder(frozenset(getattr(program, "read_only_globals", ())))


def _holds(exprs: list, env: dict, dom: list) -> tuple:
    """z3 terms and side constraints for a list of boolean expressions."""
    terms, side = [], []
    for e in exprs:
        t, st = encode(e, env)
        terms.append(t)
        side += st
    return terms, side


def block_translation(program, block: str, size: str, extent, site_list, assumptions) -> Reduction:
    """Find (dP, db) with E(P + dP) = E(P) + db such that block b of size P behaves as block
    b - db of size P - dP for every b >= db (see the module's docstring)."""
    import z3
    env, dom = _env(program, [block, size])
    P, b = env[size], env[block]
    own = [a for a in assumptions if size in free_names(a)]
    try:
        E, se = encode(extent, env)
        asm, sa = _holds(own, env, dom)
    except Unencodable as err:
        return Reduction(False, f"cannot encode the extent ({err})")
    base = dom + se + sa + asm + [b >= 0, b < E]
    cands = sorted(_consts(extent) | {1})
    tried, last = 0, ""
    for db in sorted({1, 2} | set(cands)):
        for dp in cands:
            if db > 64 or dp > 4096:
                continue
            tried += 1
            moved_p = ir.BinOp("-", ir.Var(size), ir.Const(dp))
            moved_b = ir.BinOp("-", ir.Var(block), ir.Const(db))
            try:
                E2, se2 = encode(_substitute(extent, size, moved_p), env)
                asm2, sa2 = _holds([_substitute(a, size, moved_p) for a in own], env, dom)
            except Unencodable:
                continue
            # the step keeps the grid in step and the assumptions: b - db is a block of P - dP
            # (and P - dP stays a size, >= 1: the sizes below 1 are not claimed)
            if _prove(base + se2 + sa2 + [b >= db], z3.Not(z3.And(E2 == E - db, P - dp >= 1, *asm2))) \
                    != "proved":
                continue
            res = _unchanged(site_list, env, dom + se + sa + asm + [b >= db, b < E],
                             {size: moved_p, block: moved_b}, [], ("translate", size, block, dp, db,
                                                                   tuple(map(str, own))),
                             _encoder(program))
            if res == "proved":
                return Reduction(True, f"({size}, {block}) -> ({size} - {dp}, {block} - {db}) changes "
                                       "no branch, bound, shared address or barrier", dp, db,
                                 queries=tried)
            last = res
    if last:
        return Reduction(False, f"moving {block} with {size} changes what the kernel does ({last})",
                         queries=tried)
    return Reduction(False, f"no step of {size} moves the extent of {block} by whole blocks", queries=tried)


def threshold(program, size: str, fixed: dict, site_list, assumptions, floor: int = 1,
              limit: int = 4096) -> Reduction:
    """The smallest n (a power of two, then bisected) with a step s such that every value of
    `size` from n + s on behaves as the one s smaller; `fixed`: the group's block indices
    (name -> (value, extent expression)), which must stay inside their grids."""
    import z3
    env, dom = _env(program, [size] + list(fixed))
    P = env[size]
    own = [a for a in assumptions if size in free_names(a)]
    try:
        asm, sa = _holds(own, env, dom)
        side, fix, inside = [], [], []
        for name, (value, extent) in fixed.items():
            E, se = encode(extent, env)
            side += se
            fix.append(env[name] == value)
            inside.append(value < E)
    except Unencodable as err:
        return Reduction(False, f"cannot encode the assumptions ({err})")
    steps = sorted({1} | {c for a in own for c in _consts(a)})

    def from_n(n, s) -> str:
        moved = ir.BinOp("+", ir.Var(size), ir.Const(s))
        try:
            asm2, sa2 = _holds([_substitute(a, size, moved) for a in own], env, dom)
            inside2 = []
            for name, (value, extent) in fixed.items():
                E2, se2 = encode(_substitute(extent, size, moved), env)
                sa2 += se2
                inside2.append(value < E2)
        except Unencodable as err:
            return f"cannot encode ({err})"
        # every value P + s (P >= n) inside the domain has P inside it
        pre = dom + sa + sa2 + side + fix + [P >= n, P >= floor, *asm2, *inside2]
        if asm or inside:
            if _prove(pre, z3.Not(z3.And(*asm, *inside))) != "proved":
                return "the step leaves the assumptions or the grid"
        return _unchanged(site_list, env, pre, {size: moved}, [], ("threshold", size, n, s,
                                                                   tuple(sorted(map(str, fixed.items()))),
                                                                   tuple(map(str, own))),
                          _encoder(program))
    for s in steps:
        n, last = floor, None
        while n <= limit:
            last = from_n(n, s)
            if last == "proved":
                lo, hi = max(floor, n // 2), n     # bisect: the property is monotone in n
                while lo < hi:
                    mid = (lo + hi) // 2
                    if from_n(mid, s) == "proved":
                        hi = mid
                    else:
                        lo = mid + 1
                return Reduction(True, f"every {size} >= {hi + s} behaves as {size} - {s}", n=hi, s=s)
            n *= 2
    return Reduction(False, f"no n <= {limit} after which {size} stops changing what the kernel "
                            f"does ({last})")


def distinct_behaviours(program, names: list, values: list, site_list, limit: int = 1 << 22) -> list:
    """`values` (dicts over the group's `names`) less those whose every site takes the same
    value, at every thread and every iteration of the constant loops around it, as an earlier
    one's: such values run alike. All of `values` when some site mentioning the group cannot be
    evaluated from the threads, the constant loops and the group alone (a let, a register, a
    loop of symbolic length): then two values cannot be told apart cheaply, and none is dropped."""
    import numpy as np

    from ..engine.exprs import NotConcrete, compile_expr
    launch = program.launch
    group = set(names)
    mine = [st for st in site_list if free_names(st.expr) & group]
    known = set(launch.thread_vars) | group   # another block index: evaluated at 0 only
    compiled = []
    for st in mine:
        if not free_names(st.expr) <= known | set(st.ranges):
            return values
        loops = sorted(n for n in st.ranges if n in free_names(st.expr))
        size = launch.num_threads
        for n in loops:
            size *= max(0, st.ranges[n][1] - st.ranges[n][0])
        if size > limit:
            return values
        compiled.append((compile_expr(st.expr), loops, st.ranges))
    seen, out = set(), []
    for v in values:
        key = []
        for fn, loops, ranges in compiled:
            axes = len(loops) + 1
            env = {name: np.asarray(arr).reshape((1,) * len(loops) + (-1,))
                   for name, arr in launch.base_env().items()
                   if name in launch.thread_vars}
            env.update({n: 0 for n in launch.block_vars})
            for i, n in enumerate(loops):
                shape = [1] * axes
                shape[i] = -1
                env[n] = np.arange(*ranges[n]).reshape(shape)
            env.update(v)
            try:
                res = np.asarray(fn(env))
                full = np.broadcast_to(res, tuple(max(1, ranges[n][1] - ranges[n][0]) for n in loops) +
                                       (launch.num_threads,))
                key.append(full.astype(np.int64).tobytes())
            except (NotConcrete, Exception):  # noqa: BLE001 -- not evaluable: keep every value
                return values
        key = tuple(key)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def values_below(size: str, red: Reduction, ok) -> list:
    """The values floor..n + s - 1 of `size` inside the domain (ok(v) -> bool)."""
    return [v for v in range(1, red.n + red.s) if ok(v)]


@dataclass
class GroupPlan:
    names: list
    values: list = field(default_factory=list)    # dicts name -> value
    scope: str = ""
    problem: str = ""                              # why no finite set stands for all ('' when proved)


def lcm(*xs: int) -> int:
    return math.lcm(*xs) if xs else 1
