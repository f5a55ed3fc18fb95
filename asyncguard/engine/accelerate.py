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

Per-thread registers the body stores are part of the loop's state. A *counter* -- a register
element whose only store in the body is `r = r + d` (constant d), once on every path (at the
body's top level) -- holds `R + d * k` for some R in iteration k, so its reads enter the proof
as `R + d * k` with R any integer: the shift must then be a period of k and of every counter's
effect on stage indices and parities (a ring indexed by `phase % 4`, parity `phase // 4 & 1`),
and the jump moves each counter by `d` per skipped iteration (`Plan.counters`). Any other
register the body stores must be recomputed each iteration from k, counters and values the
loop does not change (its stored value is then in the proof); one whose new value reads a
register the loop changes some other way (`if c: r = r + 1`, `r = r * 2`) stops the plan.
When the loop variable alone does not prove the loop periodic, or counters are read, the proof
is asked again with the lets of the body's top level written into their uses, the registers the
loop does not store as names of any value, and parities kept whole (`_proof_exprs`).
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
    # (environment key, d, (lo, hi)): the counters the jump moves by d per skipped iteration,
    # and the range of the register's type (a value outside it is one the engine does not know)
    counters: tuple = ()


def collect(body, views, out: list, inner: dict, leave: frozenset = frozenset(), whole: bool = False) -> None:
    """The expressions of `body` that decide what the machine does: shared addresses, barriers,
    parities, branches, loop bounds, lets and register stores. A loop or branch the program marks
    irrelevant (nothing in it touches shared memory or synchronizes, engine/program.py) is never
    evaluated by the machine, so its bound or condition (a global-memory bounds guard) decides
    nothing. `leave`: ids of register stores and lets left out (a counter's own step, moved by
    the jump; a let written into its uses, `inlined_lets`). `whole`: parities kept whole
    (`_decisive`)."""
    from .program import PIf, PLet, PLoop, POp, PStore
    for s in body:
        if isinstance(s, (PIf, PLoop)) and not s.relevant:
            continue   # skipped unevaluated by the machine: decides nothing
        if isinstance(s, POp) and s.src is not None:
            (_decisive if whole else _shared_exprs)(s.src, views, out)
        elif isinstance(s, PIf):
            if s.src is not None:
                out.append(s.src)
            collect(s.then, views, out, inner, leave, whole)
            collect(s.other, views, out, inner, leave, whole)
        elif isinstance(s, PLet) and s.src is not None and id(s) not in leave:
            out.append(s.src)
        elif isinstance(s, PStore):   # a register store: its value may decide shared bytes later
            if id(s) not in leave:
                out.extend(x for x in s.src if x is not None)
        elif isinstance(s, PLoop):
            out.extend(s.src)
            ext = s.src[1] if s.src else None
            inner[s.var] = (0, ext.value) if isinstance(ext, ir.Const) and isinstance(ext.value, int) else None
            collect(s.body, views, out, inner, leave, whole)


# integer functions kept whole in the proof: a parity `T.bitwise_and(phase // 4, 1)` repeats
# with phase's period, its argument `phase // 4` never does
_WHOLE = ("T.bitwise_and", "T.bitwise_xor", "T.floordiv", "T.floormod")


def _encodable(e, views) -> bool:
    """`e` is integer arithmetic on names, constants and register elements, through `_WHOLE`."""
    if isinstance(e, ir.Call):
        return e.name in _WHOLE and not e.kwargs and all(_encodable(a, views) for a in e.args)
    if isinstance(e, ir.BinOp):
        return _encodable(e.left, views) and _encodable(e.right, views)
    if isinstance(e, ir.UnaryOp):
        return _encodable(e.operand, views)
    if isinstance(e, ir.Subscript):
        return register_cell(e, views) is not None
    return isinstance(e, (ir.Const, ir.Var))


def _decisive(node, views, out: list) -> None:
    """`shared_index_exprs` (the sub-expressions that decide shared bytes or synchronization),
    keeping whole the integer functions of `_WHOLE` whose arguments the prover can encode."""
    from .exprs import _GLOBAL_ARGS
    if isinstance(node, ir.Call) and _encodable(node, views):
        out.append(node)
    elif isinstance(node, ir.Call) and node.name != "T.tvm_access_ptr":
        for a in node.args[:_GLOBAL_ARGS.get(node.name, len(node.args))]:
            _decisive(a, views, out)
    else:
        _shared_exprs(node, views, out)


def register_cell(e, views) -> tuple | None:
    """(region, element) when `e` reads one element of a per-thread register at a constant index
    (`phase[0]`, through any view of the register), else None."""
    from .program import REGISTER_DTYPES, REGISTER_SCOPES
    from ..models.memory import dtype_bytes
    if not (isinstance(e, ir.Subscript) and isinstance(e.value, ir.Var) and len(e.indices) == 1
            and isinstance(e.indices[0], ir.Const) and isinstance(e.indices[0].value, int)
            and not isinstance(e.indices[0].value, bool)):
        return None
    view = views.get(e.value.name)
    region = getattr(view, "region", None)
    if region is None or region.scope not in REGISTER_SCOPES or region.elem_dtype not in REGISTER_DTYPES \
            or view.dtype != region.elem_dtype:
        return None
    esize = dtype_bytes(region.elem_dtype) or 1
    if view.byte_offset % esize:
        return None
    return region.name, view.byte_offset // esize + e.indices[0].value


def _stores(body):
    """Every register store in `body`, at any depth, relevant or not (a store the machine never
    runs only makes a register look changed: no plan rests on it)."""
    from .program import PStore, statements
    return (s for s in statements(body) if isinstance(s, PStore))


def _register_regions(e, views) -> set:
    """The register regions expression `e` names (by an element or otherwise)."""
    from .program import REGISTER_SCOPES
    out = set()
    for x in ir.nodes(e):
        if isinstance(x, ir.Var):
            region = getattr(views.get(x.name), "region", None)
            if region is not None and region.scope in REGISTER_SCOPES:
                out.add(region.name)
    return out


def counters(body, views) -> tuple[dict, dict, str | None]:
    """The loop body's counters: ({(region, element): d}, {(region, element): its step, the
    store}), and why the body's registers stop a plan (None: they do not). See the module's
    docstring."""
    from .program import PStore
    stores = list(_stores(body))
    by_region: dict = {}
    for s in stores:
        by_region.setdefault(s.region, []).append(s)
    steps, ids = {}, {}
    for s in body:   # the top level: run once by every path through an iteration
        if not isinstance(s, PStore) or len(by_region[s.region]) != 1 or len(s.src) != 2:
            continue
        index, value = s.src
        if not (isinstance(index, ir.Const) and isinstance(value, ir.BinOp) and value.op in ("+", "-")):
            continue
        if value.op == "+" and isinstance(value.left, ir.Const):
            reg, d = value.right, value.left
        else:
            reg, d = value.left, value.right
        if not (isinstance(d, ir.Const) and isinstance(d.value, int) and not isinstance(d.value, bool)
                and d.value != 0):
            continue
        cell = register_cell(reg, views)
        try:
            element = int(s.index({}))
        except Exception:  # noqa: BLE001 -- an index the empty environment cannot give: no counter
            continue
        if cell is None or cell != (s.region, element):
            continue
        steps[cell] = d.value if value.op == "+" else -d.value
        ids[cell] = s
    counted = {region for region, _ in steps}
    changed = set(by_region) - counted
    for s in stores:
        if s.region in counted:
            continue
        for x in s.src:
            if x is not None and _register_regions(x, views) & changed:
                return steps, ids, (f"register {s.region} changes inside the loop by a rule the proof "
                                    f"does not follow (line {s.span.line})")
    return steps, ids, None


def _defined_names(body, out: set) -> set:
    """Names a let or loop inside `body` binds, at any depth."""
    from .program import PIf, PLet, PLoop
    for s in body:
        if isinstance(s, PLet):
            out.add(s.name)
        elif isinstance(s, PLoop):
            out.add(s.var)
            _defined_names(s.body, out)
        elif isinstance(s, PIf):
            _defined_names(s.then, out)
            _defined_names(s.other, out)
    return out


def inlined_lets(body, views, changed: set) -> dict:
    """{let: (its value, the PLet)} for the lets at the body's top level that may be written into
    their uses: bound once in the body, from names nothing in the body rebinds and registers it
    does not store (`changed`), so the value is the same wherever the iteration reads it.
    TileLang's persistent kernels name their stage `phase = tile * 128 + k`, not periodic in k
    itself; its uses (`phase % 6`, `phase // 6 & 1`) are."""
    from .program import PLet
    bound: dict = {}
    for s in _lets(body):
        bound[s.name] = bound.get(s.name, 0) + 1
    rebound = _defined_names(body, set())
    out: dict = {}
    for s in body:
        if not isinstance(s, PLet) or s.src is None or bound[s.name] != 1:
            continue
        value = _inline(s.src, {n: v for n, (v, _) in out.items()})
        if free_names(value) & (rebound - {n for n in out}) or _register_regions(value, views) & changed:
            continue
        out[s.name] = (value, s)
    return out


def _lets(body):
    from .program import PLet, statements
    return (s for s in statements(body) if isinstance(s, PLet))


def _inline(e, values: dict):
    """`e` with each Var named in `values` replaced by its value."""
    if not values:
        return e
    return ir.rewrite(e, lambda x: values.get(x.name) if isinstance(x, ir.Var) else None)


def _with_registers(e, views, steps: dict, stored: set, var: str):
    """`e` with each counter read `r[i]` replaced by `R + d * var` (R: a name of its own, any
    value: the register's value when `var` is 0, whatever it was on entry), and each read of a
    register the loop does not store (not in `stored`) by a name of its own, any value."""
    def replace(x):
        cell = register_cell(x, views) if isinstance(x, ir.Subscript) else None
        if cell is None:
            return None
        name = ir.Var(f"{cell[0]}[{cell[1]}]")
        if cell in steps:
            return ir.BinOp("+", name, ir.BinOp("*", ir.Const(steps[cell]), ir.Var(var)))
        return name if cell[0] not in stored else None
    return ir.rewrite(e, replace)


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
    few trip counts need a run of their own. Without it: `fixed_geometries`.

    `block`: (name, value) of the block indices of the CTA that runs the loop. The machine runs one
    block, so the proof may hold for those values alone: a first-iteration branch `k == by * 4` of
    a loop from `by * 4` is then decided outside the skipped range."""
    steps, step_ids, why = counters(loop.body, program.views)
    if why is not None:
        return Plan(0, 0, None, why)
    # first the loop variable alone (a loop with no counter); then, when that fails or counters
    # are read, with lets written into their uses, registers and whole parities
    plain = None if steps else _proof_exprs(loop, program, None)
    rich = _proof_exprs(loop, program, (steps, step_ids))
    first = None
    for exprs, inner in ((plain, rich) if plain is not None and plain[0] != rich[0] else (rich,)):
        got = _plan(loop, n, start, program, geometry, block, exprs, inner, steps, step_ids)
        if got.jump_to is not None:
            return got
        first = first or got
    return first


def _proof_exprs(loop, program, registers: tuple | None) -> tuple[list, dict]:
    """(the smallest sub-terms carrying the loop variable of every expression that decides
    something, the inner loops' ranges). `registers` None: the body's expressions as they stand;
    else (counters, their steps): lets at the body's top level written into their uses (a let
    stops being a value of its own), counters as `R + d * k`, registers the loop does not store
    as names of any value, and parities kept whole."""
    views = program.views
    exprs: list = []
    inner: dict = {}
    if registers is None:
        collect(loop.body, views, exprs, inner)
    else:
        steps, step_ids = registers
        stored = {s.region for s in _stores(loop.body)}
        lets = inlined_lets(loop.body, views, stored)
        collect(loop.body, views, exprs, inner,
                frozenset(map(id, step_ids.values())) | {id(s) for _, s in lets.values()}, whole=True)
        if lets:
            exprs = [_inline(e, {n: v for n, (v, _) in lets.items()}) for e in exprs]
        exprs = [_with_registers(e, views, steps, stored, loop.var) for e in exprs]
    parts: list = []
    for e in exprs:
        k_parts(e, loop.var, parts)
    return parts, inner


def _plan(loop, n: int, start: int, program, geometry, block, exprs: list, inner: dict,
          steps: dict, step_ids: dict) -> Plan:
    """plan() for one set of proof expressions."""
    p = period_of(exprs, loop.var)
    if p == 0:
        return Plan(0, 0, None, "period too long")
    if geometry is not None:
        shift, warm, tail = geometry   # tail >= 1: the jump lands on an iteration the loop runs
        if shift % p or warm < shift or tail < 1:
            return Plan(0, 0, None, f"shift {shift} is not a multiple of the period {p}")
        return _prove_plan(loop, n, start, program, block, exprs, inner, steps, step_ids, shift, warm, tail)
    got = None
    for shift, warm, tail in fixed_geometries(p):
        got = _prove_plan(loop, n, start, program, block, exprs, inner, steps, step_ids, shift, warm, tail)
        if got.jump_to is not None or got.reason == TOO_FEW:
            return got
    return got


TOO_FEW = "too few iterations to skip"


def fixed_geometries(p: int) -> tuple:
    """(shift, warm, tail) to try, in turn, for a fixed-size loop of period `p`. First the
    shortest: one period, compared after the first (the pipeline's fill is shorter than a
    period: a ring of s stages has period 2s at least), and one period plus one iteration left
    after the jump (a producer leads its consumer by fewer iterations than a period, so it is
    still inside its periodic iterations when the consumer compares; prover/induction.py's
    tail_for). Then twice as long everywhere, for a proof that fails on the early or late
    iterations of the first (a prologue branch `k < 3` of a loop of period 2)."""
    return ((p, 2 * p, p + 1), (2 * p, 4 * p, 4 * p))


def _prove_plan(loop, n: int, start: int, program, block, exprs: list, inner: dict, steps: dict,
                step_ids: dict, shift: int, warm: int, tail: int) -> Plan:
    """The plan of one geometry, when z3 proves the skipped range periodic."""
    from ..prover.periodic import prove_equal_under_shift
    m = (n - warm - tail) // shift
    if m < 1:
        return Plan(shift, warm, None, TOO_FEW)
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
    from .program import register_key
    moved = tuple((register_key(*cell), d, step_ids[cell].bounds) for cell, d in sorted(steps.items()))
    named = (" (counters " + ", ".join(key for key, _, _ in moved) + ")") if moved else ""
    return Plan(shift, warm, warm + m * shift, f"proved periodic with period {shift}{named}", moved)
