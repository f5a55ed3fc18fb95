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
from .solve import Query


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


def undeciding(program) -> frozenset:
    """ids of the lets and register stores whose values nothing deciding reads, directly or
    through other lets and registers (`sites`' fixpoint): a store of a tile's global row into a
    register read only by a TMA store's coordinates decides nothing the provers compare (the
    collections of engine/accelerate.py `collect` leave them out)."""
    from ..engine.nodes import PLet, PStore, statements
    base, _, _ = _all_sites(program)
    views = program.views
    defs = [s for s in statements(program.body)
            if isinstance(s, PLet) and s.src is not None or isinstance(s, PStore) and s.src]
    used: set = set()
    for st in base:
        used |= free_names(st.expr)
    needed: set = set()
    changed = True
    while changed:
        changed = False
        regions = {views[n].region.name for n in used if n in views and views[n].region is not None}
        for s in defs:
            if id(s) in needed or not (s.name in used if isinstance(s, PLet) else s.region in regions):
                continue
            needed.add(id(s))
            for e in (s.src,) if isinstance(s, PLet) else s.src:
                if e is not None:
                    used |= free_names(e)
            changed = True
    return frozenset(id(s) for s in defs if id(s) not in needed)


def _all_sites(program) -> tuple:
    """Every expression deciding control, shared bytes or synchronization (engine/accelerate's
    selection: global addresses, TMA coordinates and cp.async's zero-fill predicate left out),
    with the ranges of the loops around it. Branches and loops that touch nothing relevant
    (`relevant` False) are left out: their outcome changes no shared byte and no barrier."""
    from ..engine.exprs import shared_index_exprs as _shared_exprs
    from ..engine.nodes import PIf, PLet, PLoop, POp, PStore
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
    """z3 variables for `names` and the domain of the launch's thread variables and of the block
    variables of fixed grid axes (`bx * 4 < valid_m` with 2 blocks: bx is 0 or 1 in every launch)."""
    import z3
    env = {n: z3.Int(n) for n in names}
    dom = []
    for n, axis in program.launch.thread_vars.items():
        env.setdefault(n, z3.Int(n))
        dom += [env[n] >= 0, env[n] < program.launch.threads["xyz".index(axis[-1])]]
    for n, axis in program.launch.block_vars.items():
        grid = program.launch.block_range(axis)
        if grid is not None and n not in names:
            env.setdefault(n, z3.Int(n))
            dom += [env[n] >= grid[0], env[n] < grid[1]]
    return env, dom


def _prove(constraints: list, goal_false) -> str:
    """'proved' when constraints AND goal_false is unsatisfiable."""
    import z3
    s = Query(*constraints, goal_false)
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


# ------------------------------------------------------------ one derived size for several names
@dataclass
class Derived:
    """Several symbolic names that reach every site only through one expression D of them (a
    split kernel's per-split block count `num_blocks // num_split + (sid < num_blocks %
    num_split)`): the kernel is a one-size kernel in d = D, `program` with D read as d."""
    ok: bool
    reason: str
    expr: object = None        # D
    name: str = ""             # the derived size's name in `program`
    program: object = None     # the kernel with every site's D replaced by Var(name)
    lo: int = 0                # every value d >= lo is D of some launch, no smaller one is
    family: dict = field(default_factory=dict)   # name -> (a, b): the launch a * d + b has D = d
    d1: int = 0                # ... for every d >= d1
    witnesses: dict = field(default_factory=dict)   # lo <= d < d1 -> a launch with D = d
    case: tuple = ()           # conditions of the names this holds under (Cases)
    # count roots whose every loop runs d times and d nothing else (_tied_count_roots): run with
    # every cell true, since the runs at the smaller d stand for the patterns with fewer true cells
    tied: frozenset = frozenset()
    tied_body: tuple = None    # `program`'s body with those loops' guards read true (`tie`)

    def tie(self) -> None:
        """Adopt `tied`: the provers read the tied loops' guards with the cell true, as the runs do."""
        if self.tied:
            self.program.body = self.tied_body

    def realize(self, d: int) -> dict:
        """A launch (values of the group's names) whose D is d."""
        if d in self.witnesses:
            return dict(self.witnesses[d])
        return {n: a * d + b for n, (a, b) in self.family.items()}

    def family_text(self) -> str:
        def one(a, b):
            if a == 0:
                return str(b)
            head = self.name if a == 1 else f"{a} * {self.name}"
            return head + (f" + {b}" if b > 0 else f" - {-b}" if b < 0 else "")
        return ", ".join(f"{n} = {one(a, b)}" for n, (a, b) in self.family.items())


def _children(e):
    import dataclasses
    if not dataclasses.is_dataclass(e):
        return []
    return [getattr(e, f.name) for f in dataclasses.fields(e) if f.name != "span"]


def replace_expr(e, target, repl):
    """`e` with every sub-expression equal to `target` replaced by `repl` (spans kept)."""
    return ir.rewrite(e, lambda x: repl if x == target else None)


def _terms(e, sign: int, out: list) -> None:
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        _terms(e.left, sign, out)
        _terms(e.right, sign if e.op == "+" else -sign, out)
    else:
        out.append((sign, e))


def regroup(e, names: set):
    """`e` with every sum's terms of `names` alone gathered first ((k + A) + B -> (A + B) + k
    when A and B mention only `names`), so that a quantity of the names is one sub-expression
    wherever it occurs; integer addition is exact, so the value is unchanged."""
    def gathered(x):     # None: not a sum to regroup here (its parts are walked into)
        if not (isinstance(x, ir.BinOp) and x.op in ("+", "-")):
            return None
        terms: list = []
        _terms(x, 1, terms)
        terms = [(s, regroup(t, names)) for s, t in terms]
        mine = [(s, t) for s, t in terms if free_names(t) and free_names(t) <= names]
        rest = [(s, t) for s, t in terms if not (free_names(t) and free_names(t) <= names)]
        if not (len(mine) >= 2 and rest or len(mine) >= 2 and mine[0][0] > 0):
            return None

        def build(items, acc=None):
            for s, t in items:
                if acc is None:
                    acc = t if s > 0 else ir.UnaryOp("-", t, x.span)
                else:
                    acc = ir.BinOp("+" if s > 0 else "-", acc, t, x.span)
            return acc
        return build(rest, build(mine))
    return ir.rewrite(e, gathered)


def _subexprs(e, out: list) -> list:
    out.append(e)
    for c in _children(e):
        if isinstance(c, tuple):
            for x in c:
                if isinstance(x, tuple):
                    for y in x:
                        _subexprs(y, out)
                else:
                    _subexprs(x, out)
        elif c is not None and not isinstance(c, (str, int, float, bool)):
            _subexprs(c, out)
    return out


def _map_program(program, fn):
    """A copy of `program` whose every prover-facing expression (the nodes' `src`) is fn(src);
    the closures the machine runs are the original ones."""
    import dataclasses

    from ..engine.nodes import PIf, PLet, PLoop, POp, PStore

    def walk(body):
        out = []
        for s in body:
            if isinstance(s, PLoop):
                out.append(dataclasses.replace(s, src=tuple(fn(x) for x in s.src), body=walk(s.body),
                                               plan=None))
            elif isinstance(s, PIf):
                # a branch around nothing relevant decides no shared byte or barrier (`sites`
                # leaves it out): the provers of the copy need not read it either
                out.append(dataclasses.replace(s, src=fn(s.src) if s.src is not None and s.relevant else None,
                                               then=walk(s.then), other=walk(s.other)))
            elif isinstance(s, (POp, PLet)):
                out.append(dataclasses.replace(s, src=fn(s.src) if s.src is not None else None))
            elif isinstance(s, PStore):
                out.append(dataclasses.replace(s, src=tuple(fn(x) if x is not None else None
                                                            for x in s.src)))
            else:
                out.append(s)
        return tuple(out)
    return dataclasses.replace(program, body=walk(program.body))


def fixed_size(program, name: str, value: int):
    """`program` (a derived size's copy) with the size `name` read as the number `value`."""
    const = ir.Const(int(value))
    return _map_program(program, lambda e: replace_expr(e, ir.Var(name), const))


class _NonlinearEncoder:
    """encode() that also divides by a name (`num_blocks // num_split`): floor division by a
    nonzero term, exactly (a zero divisor is no launch: the grid extent it divides is >= 1)."""

    def __call__(self, e, env: dict):
        import z3

        from .encode import Encoder

        class Enc(Encoder):
            def binop(self, op, a, b, right):
                if op in ("//", "%") and not isinstance(right, ir.Const):
                    try:
                        self._const(right)
                    except Unencodable:
                        # one quotient per (dividend, divisor): every encoding of a // b names
                        # the same value, so z3 need not prove two quotients equal (nonlinear)
                        q = z3.Int(f"qd[{z3.simplify(a).sexpr()}/{z3.simplify(b).sexpr()}]")
                        self.side += [b != 0,
                                      z3.Implies(b > 0, z3.And(b * q <= a, a < b * q + b)),
                                      z3.Implies(b < 0, z3.And(b * q >= a, a > b * q + b))]
                        return q if op == "//" else a - b * q
                return super().binop(op, a, b, right)
        enc = Enc(env)
        return enc.expr(e), enc.side


_COMPARE = ("<", "<=", ">", ">=", "==", "!=")


def _decided_in_loops(program, names: set, dom: list, enc, case: tuple = ()) -> object:
    """`program` with each comparison of `names` and a size loop's counter that z3 proves
    constant over the loop's iterations, for every launch of the domain `dom`, read as that
    constant (a split's block `start + k < num_blocks` for k below the split's block count:
    always true there, so it decides nothing the split's count does not)."""
    import dataclasses

    import z3

    from ..engine.nodes import PIf, PLet, PLoop, POp, PStore
    memo: dict = {}

    def decide(x, ctx):
        key = (x, tuple(ctx))
        if key in memo:
            return memo[key]
        env = {n: z3.Int(n) for n in free_names(x) | {v for c in ctx for y in c[1:] if not isinstance(y, (str, bool))
                                                  for v in free_names(y)}
               | {c[0] for c in ctx if isinstance(c[0], str)} | {v for d in dom for v in free_names(d)}}
        out = None
        try:
            term, side = enc(x, env)
            cons = list(side)
            for c in ctx:
                if c[0] is None:          # an enclosing branch: (None, condition, taken)
                    g, sg = enc(c[1], env)
                    cons += sg + [g if c[2] else z3.Not(g)]
                    continue
                var, lo, ext = c
                a, sa = enc(lo, env)
                b, sb = enc(ext, env)
                cons += sa + sb + [env[var] >= a, env[var] < a + b]
            dterms, dside = [], []
            for d in dom:
                t, sd = enc(d, env)
                dterms.append(t)
                dside += sd
            for val in (True, False):
                if Query(*cons, *dterms, *dside, term != val).check() == z3.unsat:
                    out = ir.Const(val, x.span)
                    break
        except (Unencodable, z3.Z3Exception):
            out = None
        memo[key] = out
        return out

    def fix(e, ctx):
        if e is None or not any(c[0] is None or free_names(c[2]) & names for c in ctx) or \
                not (free_names(e) & names):
            return e
        def decided(x):
            if isinstance(x, ir.BinOp) and x.op in _COMPARE and free_names(x) & names:
                return decide(x, ctx)
            return None
        return ir.rewrite(e, decided, after=_fold)

    def body(stmts, ctx):
        out = []
        for st in stmts:
            if isinstance(st, PLoop):
                inner = ctx + [(st.var, st.src[0], st.src[1])] if len(st.src) >= 2 else ctx
                out.append(dataclasses.replace(st, src=tuple(fix(x, ctx) for x in st.src),
                                               body=body(st.body, inner), plan=None))
            elif isinstance(st, PIf):
                cond = fix(st.src, ctx)
                guarded = cond is not None and bool(free_names(cond) & names)
                dead = cond.value if isinstance(cond, ir.Const) and isinstance(cond.value, bool) else None
                # an arm no launch of the domain takes runs nowhere: its statements leave the copy
                # (the branch's own closure still decides, and decides the same)
                out.append(dataclasses.replace(
                    st, src=cond,
                    then=() if dead is False else body(st.then, ctx + [(None, cond, True)] if guarded else ctx),
                    other=() if dead is True else body(st.other, ctx + [(None, cond, False)] if guarded else ctx)))
            elif isinstance(st, (POp, PLet)):
                out.append(dataclasses.replace(st, src=fix(st.src, ctx)))
            elif isinstance(st, PStore):
                out.append(dataclasses.replace(st, src=tuple(fix(x, ctx) for x in st.src)))
            else:
                out.append(st)
        return tuple(out)
    return dataclasses.replace(program, body=body(program.body, [(None, c, True) for c in case]))


def _fold(x):
    """A choice or a conjunction whose condition is a constant, folded."""
    if isinstance(x, ir.Call) and x.name in ("T.if_then_else", "T.Select") and len(x.args) == 3 and \
            isinstance(x.args[0], ir.Const) and isinstance(x.args[0].value, bool):
        return x.args[1] if x.args[0].value else x.args[2]
    if isinstance(x, ir.IfExp) and isinstance(x.cond, ir.Const) and isinstance(x.cond.value, bool):
        return x.then if x.cond.value else x.other
    if isinstance(x, ir.BinOp) and x.op in ("and", "or"):
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if isinstance(a, ir.Const) and isinstance(a.value, bool):
                if x.op == "and":
                    return b if a.value else a
                return a if a.value else b
    return x


def derived_size(program, group: list, blocks: list, extent_of: dict, site_list, assumptions,
                 lowest: dict) -> "Derived | Cases":
    """One expression D of `group` through which every site reaches the group's names, or, when
    there is none, a split of the launches by the conditions of the names alone that the sites
    test (`bx < seqlen // 128`), with one such D in each case (`Cases`). See `_one_case`."""
    import itertools

    import z3
    names = set(group)
    # the launch domain: sizes at least their lowest value, block indices inside their grids
    sizes = [n for n in group if n not in blocks]
    own = [a for a in assumptions if free_names(a) and free_names(a) <= names]
    dom_exprs = list(own) + [ir.BinOp(">=", ir.Var(n), ir.Const(lowest.get(n, 1))) for n in sizes]
    for b in blocks:
        dom_exprs += [ir.BinOp(">=", ir.Var(b), ir.Const(0)), ir.BinOp("<", ir.Var(b), extent_of[b])]
    enc = _NonlinearEncoder()
    whole = _one_case(program, group, dom_exprs, (), enc)
    if whole.ok or "a value loaded from memory" in whole.reason:
        return whole      # (a case split cannot change which cells a launch reads)
    # the conditions of the names alone that the sites test: at most three, at most 8 cases
    atoms: list = []
    for st in sites(_decided_in_loops(program, names, dom_exprs, enc)):
        for x in _subexprs(regroup(st.expr, names), []):
            if isinstance(x, ir.BinOp) and x.op in _COMPARE and free_names(x) and free_names(x) <= names \
                    and x not in atoms:
                atoms.append(x)
    if not atoms or len(atoms) > 5:
        return whole
    env = {n: z3.Int(n) for n in group}
    try:
        dom = []
        for x in dom_exprs:
            t, sx = enc(x, env)
            dom += sx + [t]
        terms = []
        for a in atoms:
            t, sa = enc(a, env)
            dom += sa
            terms.append(t)
    except Unencodable:
        return whole
    cases = []
    for values in itertools.product((True, False), repeat=len(atoms)):
        if Query(*dom, *[t if v else z3.Not(t) for t, v in zip(terms, values)]).check() == z3.unsat:
            continue      # no launch of the domain has this outcome
        conds = tuple(a if v else ir.UnaryOp("not", a) for a, v in zip(atoms, values))
        one = _one_case(program, group, dom_exprs, conds, enc)
        if not one.ok:
            return Derived(False, f"{whole.reason}; split by {', '.join(_case_text(a) for a in atoms)}: "
                                  f"in the case {' and '.join(_case_text(c) for c in conds)}: {one.reason}")
        cases.append(one)
    return Cases(True, f"the launches split by {', '.join(_case_text(a) for a in atoms)} "
                       f"({len(cases)} cases with launches)", cases)


def _case_text(e) -> str:
    from ..engine.nodes import expr_text
    return expr_text(e)


@dataclass
class Cases:
    """Launches split by conditions of the group's names; each case a Derived (or a single
    launch: `Derived.expr` None) whose runs stand for the case's launches."""
    ok: bool
    reason: str
    cases: list = field(default_factory=list)


def plain_ints(e):
    """`e` with integer widenings dropped (`T.Cast("int64", x)` -> x, `T.int64(8)` -> 8): the
    provers read integers as integers (prover/encode.py), so the int32 and int64 spellings of one
    quantity become one expression."""
    def one(x):
        if isinstance(x, ir.Call) and x.name == "T.Cast" and len(x.args) == 2 and \
                isinstance(x.args[0], ir.Const) and x.args[0].value in ("int32", "int64"):
            return plain_ints(x.args[1])
        if isinstance(x, ir.Call) and x.name in ("T.int32", "T.int64") and len(x.args) == 1 and \
                isinstance(x.args[0], ir.Const):
            return x.args[0]
        return None
    return ir.rewrite(e, one)


def _input_rebase(exprs: list, names: set, read_only: frozenset):
    """A function reading an expression with every load of a read-only global buffer whose index
    mentions `names` moved by the part of the index that all of that buffer's loads in `exprs`
    share (`mask[bid * nb + sid * q + k]` -> `mask[k]`, `mask[bid * nb + sid * q + D - 1]` ->
    `mask[D - 1]`; identity where nothing is shared). All of them move by one offset, so once the
    caller has proved that what is left reads the names only through the derived size, which loads
    of a run read one cell is the same in every launch of one derived size, and the runs' outcome
    patterns (engine/inputs.py, keyed by cell) are the same set for all of them. The machine still
    runs each launch at its real addresses; only the provers read the moved ones."""
    from collections import Counter

    from ..engine.nodes import expr_text

    def loads(e):
        return [x for x in ir.nodes(e) if isinstance(x, ir.Subscript) and isinstance(x.value, ir.Var)
                and x.value.name in read_only and not any(isinstance(i, ir.Slice) for i in x.indices)]

    def moving(index) -> Counter:
        terms: list = []
        _terms(index, 1, terms)
        return Counter((s, expr_text(t)) for s, t in terms if free_names(t) & names)
    shared: dict = {}    # (buffer, position) -> the moving terms every load there has
    for e in exprs:
        for x in loads(e):
            for pos, index in enumerate(x.indices):
                key = (x.value.name, pos)
                here = moving(index)
                shared[key] = shared[key] & here if key in shared else here
    shared = {k: c for k, c in shared.items() if c}
    if not shared:
        return lambda e: e

    def rebased(index, common: Counter, span):
        terms: list = []
        _terms(index, 1, terms)
        drop = Counter(common)
        acc = None
        for s, t in terms:
            key = (s, expr_text(t))
            if drop[key] > 0:
                drop[key] -= 1
                continue
            t = fn(t)
            acc = (t if s > 0 else ir.UnaryOp("-", t, span)) if acc is None else \
                ir.BinOp("+" if s > 0 else "-", acc, t, span)
        return acc if acc is not None else ir.Const(0, span)

    def one(x):
        if not (isinstance(x, ir.Subscript) and isinstance(x.value, ir.Var) and
                any((x.value.name, pos) in shared for pos in range(len(x.indices)))):
            return None
        return ir.Subscript(x.value, tuple(rebased(i, shared[(x.value.name, pos)], x.span)
                                           if (x.value.name, pos) in shared else fn(i)
                                           for pos, i in enumerate(x.indices)), x.span)

    def fn(e):
        return ir.rewrite(e, one)
    return fn

def _one_case(program, group: list, dom_exprs: list, case: tuple, enc) -> Derived:
    """For the launches of the domain `dom_exprs` where `case` holds: one expression D of `group`
    through which every site reaches the group's names (found syntactically: every site, with
    comparisons z3 proves constant in their loops, branches and the case read as constants, and
    D read as a fresh name, mentions none of them; so the kernel depends on the group only
    through D's value), the smallest value lo of D (z3: no launch has D < lo), and a launch for
    every d >= lo (an affine family a * d + b proved by z3 to stay in the domain and the case
    with D = d from d1 on, and one launch found by z3 for each d below d1). Then the runs for d
    stand for every launch of the case. When no site mentions the names in this case, one launch
    stands for all of it."""
    import itertools

    import z3

    from ..engine.exprs import NotConcrete, compile_expr
    from ..engine.nodes import expr_text
    names = set(group)
    program = _decided_in_loops(program, names, dom_exprs, enc, case)
    mine = [st for st in sites(program) if free_names(st.expr) & names]
    conds = list(dom_exprs) + list(case)

    env = {n: z3.Int(n) for n in group}
    try:
        dom = []
        for x in conds:
            t, sx = enc(x, env)
            dom += sx + [t]
    except Unencodable as err:
        return Derived(False, f"cannot encode the launch domain ({err})")

    def launch_where(extra) -> dict | None:
        """A launch of the case with `extra` (z3 terms), the smallest names first."""
        sol = Query(*dom, *extra, optimize=True)
        for n in group:
            sol.minimize(env[n])
        if sol.check() != z3.sat:
            return None
        return {n: sol.number(env[n]) for n in group}
    if not mine:
        one = launch_where([])
        if one is None:
            return Derived(False, "no launch found")
        return Derived(True, "no branch, bound, shared address or barrier reads them here", None, "",
                       program, 0, {}, 1, {0: one}, case)
    moved = _input_rebase([plain_ints(st.expr) for st in sites(program)], names,
                             frozenset(getattr(program, "read_only_globals", ())))

    def rebase(e):
        return moved(plain_ints(e))
    regrouped = [regroup(rebase(st.expr), names) for st in mine]
    cands, seen = [], set()
    for e in regrouped:
        for x in _subexprs(e, []):
            if not isinstance(x, (ir.BinOp, ir.Call, ir.IfExp, ir.Var)):
                continue
            fn = free_names(x)
            if fn & names and fn <= names and x not in seen and \
                    not (isinstance(x, ir.BinOp) and x.op in _COMPARE + ("and", "or")):
                seen.add(x)
                cands.append(x)
    cands.sort(key=lambda x: -len(expr_text(x)))
    dname = None
    for cand in cands:
        var = ir.Var("%d")
        if all(not (free_names(replace_expr(e, cand, var)) & names) for e in regrouped):
            dname = expr_text(cand)
            D = cand
            break
    if dname is None:
        # the site that no candidate reduces, with the best candidate: say where and how
        best = min(cands, key=lambda c: sum(bool(free_names(replace_expr(e, c, ir.Var("%d"))) & names)
                                            for e in regrouped)) if cands else None
        for st, e in zip(mine, regrouped):
            left = replace_expr(e, best, ir.Var("%d")) if best is not None else e
            if free_names(left) & names:
                line = getattr(getattr(st.expr, "span", None), "line", None)
                loads = [x for x in _subexprs(left, []) if isinstance(x, ir.Subscript) and free_names(x) & names]
                how = ("a value loaded from memory at an address of them (which cells a run reads "
                       "would differ between launches of one behaviour)" if loads else
                       f"{expr_text(left)[:160]}")
                return Derived(False, f"no one expression of them stands for all of them: line {line}: {how}")
        return Derived(False, "no one expression of them stands for all of them in every site")
    dom_fns = [compile_expr(x) for x in conds]
    d_fn = compile_expr(D)

    def value(g):
        try:
            if not all(bool(f(g)) for f in dom_fns):
                return None
            return int(d_fn(g))
        except (NotConcrete, ZeroDivisionError, ValueError, TypeError):
            return None
    try:
        dterm, sd = enc(D, env)
    except Unencodable as err:
        return Derived(False, f"cannot encode {dname} ({err})")
    dom = dom + sd
    # lo: the smallest D of the small launches (else z3's smallest), proved to be the smallest
    box = range(0, 10)
    small = [v for v in (value(dict(zip(group, combo))) for combo in itertools.product(box, repeat=len(group)))
             if v is not None]
    if small:
        lo = min(small)
    else:
        opt = Query(*dom, optimize=True)
        h = opt.minimize(dterm)
        if opt.check() != z3.sat:
            return Derived(False, f"no smallest value of {dname} found")
        try:
            lo = opt.solver.lower(h).as_long()
        except Exception:  # noqa: BLE001 -- unbounded below or not a number: no proof
            return Derived(False, f"{dname} has no smallest value")
    if Query(*dom, dterm < lo).check() != z3.unsat:
        return Derived(False, f"z3 could not prove {dname} >= {lo} for every launch")
    if Query(*dom, dterm != lo).check() == z3.unsat:
        # D is lo in every launch of the case: every site reads the same, one launch stands for all
        one = launch_where([dterm == lo])
        if one is None:
            return Derived(False, f"no launch with {dname} = {lo} found")
        return Derived(True, f"every branch, bound, shared address and barrier reads {', '.join(group)} "
                             f"only through {dname}, which is {lo} here", None, "", program, 0, {}, 1,
                       {0: one}, case)
    fam, d1 = _family(group, D, conds, enc, value, lo)
    if fam is None:
        return Derived(False, f"no launch family with {dname} = d found")
    witnesses = {}
    for want in range(lo, d1):
        found = next((dict(zip(group, combo)) for combo in itertools.product(box, repeat=len(group))
                      if value(dict(zip(group, combo))) == want), None) or launch_where([dterm == want])
        if found is None:
            return Derived(False, f"no launch with {dname} = {want} found")
        witnesses[want] = found
    text = dname
    dname = next(n for n in ("d", "d_1", "d_2", "d_3") if n not in program.symbols and
                 n not in program.control_names and n not in program.launch.block_vars)
    repl = ir.Var(dname)
    abstract = _map_program(program, lambda e: replace_expr(regroup(rebase(e), names), D, repl))
    abstract.size_lowest = dict(getattr(program, "size_lowest", {}), **{dname: lo})
    tied, tied_body = _tied_count_roots(abstract, dname) if lo == 0 else (frozenset(), None)
    return Derived(True, f"every branch, bound, shared address and barrier reads "
                         f"{', '.join(group)} only through {dname} = {text}", D, dname, abstract, lo, fam,
                   d1, witnesses, case, tied, tied_body)


def tied_loop_lines(program) -> dict:
    """Parameter -> the lines of the loops whose whole iterations it decides, for the roots a
    size plan may tie: count roots (engine/loop_sizes.py `_count_loops`) and counted iteration
    choices that every launch may take in every iteration (`Program.true_possible_roots`)."""
    out = {root: list(loop_lines) for root, (loop_lines, _) in (getattr(program, "count_roots", {}) or {}).items()}
    for loop_line, _, root, mode, _ in getattr(program, "iteration_choices", ()):
        if mode == "count" and root in getattr(program, "true_possible_roots", ()):
            out.setdefault(root, [])
            if loop_line not in out[root]:
                out[root].append(loop_line)
    return out


def _tied_count_roots(program, dname: str) -> tuple:
    """The count roots (engine/loop_sizes.py `_count_loops`: every load of the root is the guard of a
    whole iteration of a loop, a false one does nothing, and the loop variable only addresses
    global memory) whose loops all run `dname` times, whose guards' bounds were proved true in
    their loops (`_decided_in_loops`: the guard is the cell alone), and where nothing else the
    machine evaluates reads `dname`. A run with c true cells then runs like one with the true cells first (the
    count search), whose false iterations do nothing: like the launch with d = c and every cell
    true. Every d >= 0 being a launch (the caller's lo == 0), the runs with every cell true stand
    for every pattern. The guards of those loops in `program` are read with the cell true (the
    machine's runs read 1 there), so the provers see the loops' bounds alone: (roots, the body
    so read), or (empty, None) when any condition fails."""
    import dataclasses

    from ..engine.nodes import PIf, PLet, PLoop, POp, PStore
    from ..engine.loop_sizes import cell_alone
    roots = tied_loop_lines(program)
    lines = {line for loop_lines in roots.values() for line in loop_lines}
    if not lines:
        return frozenset(), None
    # counted iteration choices (engine/loaded_numbers.py `_iteration_choice`): their branches,
    # which a cell value takes in every launch (`true_possible_roots`), read true
    chosen = {line for loop_line, branch_lines, root, mode, _ in getattr(program, "iteration_choices", ())
              if mode == "count" and root in getattr(program, "true_possible_roots", ())
              for line in branch_lines}
    var = ir.Var(dname)
    mentions = []

    def read(e):
        if e is not None and dname in free_names(e):
            mentions.append(e)

    def guards(body):
        out = []
        for st in body:
            if isinstance(st, PIf) and st.span.line in chosen and not st.other:
                out.extend(st.then)
                continue
            if isinstance(st, PIf) and st.relevant:
                if not cell_alone(st):
                    # a bound not proved true in the loop (_decided_in_loops) would decide which
                    # iterations run by the launch, not by the count alone
                    mentions.append(st.src)
                    continue
                # the cell reads 1 and the bound holds: every run takes it, so its statements are
                # the iteration's own (a counter stepped there is stepped once per iteration,
                # engine/accelerate.py)
                out.extend(st.then)
                continue
            out.append(st)
        return tuple(out)

    def walk(body):
        out = []
        for st in body:
            if isinstance(st, PLoop):
                if st.span.line in lines:
                    if len(st.src) < 2 or st.src[1] != var:
                        mentions.append(st.src)
                    for x in st.src[:1] + st.src[2:]:
                        read(x)
                    # (its chosen branches read true: nothing in it is a per-iteration input now)
                    st = dataclasses.replace(st, body=walk(guards(st.body)), plan=None,
                                             per_iteration_inputs=False)
                else:
                    if st.relevant:
                        for x in st.src:
                            read(x)
                    st = dataclasses.replace(st, body=walk(st.body))
            elif isinstance(st, PIf):
                if st.relevant:
                    read(st.src)
                st = dataclasses.replace(st, then=walk(st.then), other=walk(st.other))
            elif isinstance(st, (POp, PLet)):
                read(st.src)
            elif isinstance(st, PStore):
                for x in st.src:
                    read(x)
            out.append(st)
        return tuple(out)
    body = walk(program.body)
    return (frozenset(), None) if mentions else (frozenset(roots), body)


def _family(group, D, conds, enc, value, lo) -> tuple:
    """(name -> (a, b), d1): the launch a * d + b is in the domain `conds` with D = d for every
    d >= d1 (z3), d1 as small as found from lo; (None, None) if none. Small coefficients are tried
    first; then z3 solves for them at sample values, each candidate proved for all d."""
    import itertools

    import z3
    forms = sorted(((a, b) for a in (0, 1, 2) for b in range(-2, 4)), key=lambda ab: (ab[0] != 1, abs(ab[1]) + ab[0]))

    def proved(fam, start) -> bool:
        d = z3.Int("%d")
        fenv = {n: a * d + b for n, (a, b) in fam.items()}
        try:
            fdom, fside = [], []
            for x in conds:
                t, sx = enc(x, fenv)
                fdom.append(t)
                fside += sx
            ft, fs = enc(D, fenv)
        except Unencodable:
            return False
        return Query(*fside, *fs, d >= start, z3.Not(z3.And(*fdom, ft == d))).check() == z3.unsat
    for start in range(lo, lo + 4):
        samples = [start, start + 1, start + 2, start + 3, start + 7, start + 64]
        for combo in itertools.islice(itertools.product(forms, repeat=len(group)), 20000):
            if any(value({n: a * d + b for n, (a, b) in zip(group, combo)}) != d for d in samples):
                continue
            if proved(dict(zip(group, combo)), start):
                return dict(zip(group, combo)), start
    # coefficients solved by z3 at sample values (linear there: d is a number)
    for start in range(lo, lo + 4):
        samples = [start, start + 1, start + 2, start + 3, start + 5, start + 8, start + 13, start + 64]
        A = {n: z3.Int(f"a:{n}") for n in group}
        B = {n: z3.Int(f"b:{n}") for n in group}
        sol = Query()
        for n in group:
            sol.add(A[n] >= 0, A[n] <= 1024, B[n] >= -1024, B[n] <= 1024)
        for _ in range(6):
            try:
                for dv in samples:
                    fenv = {n: A[n] * dv + B[n] for n in group}
                    for x in conds:
                        t, sx = enc(x, fenv)
                        sol.add(*sx, t)
                    ft, fs = enc(D, fenv)
                    sol.add(*fs, ft == dv)
            except Unencodable:
                return None, None
            if sol.check() != z3.sat:
                break
            fam = {n: (sol.number(A[n]), sol.number(B[n])) for n in group}
            if proved(fam, start):
                return fam, start
            sol.add(z3.Or(*[z3.Or(A[n] != fam[n][0], B[n] != fam[n][1]) for n in group]))
            samples = [start + 100 + len(samples)]
    return None, None
