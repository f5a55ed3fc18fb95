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

A persistent kernel's tile loop `for w` steps its stage counters inside inner loops
(`for k in range(128): ...; phase[0] = phase[0] + 1`). Such a *nested counter* -- stepped by d at
the top level of an inner loop with a constant first iteration and trip count t, which the body
reaches through branches alone -- moves by D = d * t per outer iteration in the threads those
branches let through, when every branch either keeps its value through the loop for each thread
(thread ids, values from before the loop) or depends on the loop variable and block indices
alone and keeps its value over the range the proof covers (the machine runs one block:
`uniform_run` evaluates it per iteration and ends the range before it changes). When every read
of the counter lies inside the innermost of those branches, a read holds R + D * w + d * (k - k0)
inside the inner loop and R + D * w elsewhere (R any value: a read's position adds a constant
that is the same in every iteration), and the jump moves it by D in the threads the branches
let through (`Nested`, `counter_step`). A tile loop has few trips, each costly: it is planned
with the smallest shift the proof accepts among the divisors of the period `period_of` finds
(with D = 128 a ring `% 3` repeats every 3 tiles though its parity `% 6` gives 6), one iteration
of warm-up, and a state comparison that may move on a shift at a time inside the proved range
while the pipeline settles (`tile_geometry`, `Plan.settle`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from .exprs import free_names, period_of, shared_index_exprs as _shared_exprs

# the most iterations `uniform_run` evaluates a branch for: the skipped range ends before
MAX_UNIFORM_RUN = 1 << 16


@dataclass
class Plan:
    shift: int
    warm: int
    jump_to: int | None
    reason: str
    # (environment key, d, (lo, hi), guards): the counters the jump moves by d per skipped
    # iteration in the threads `guards` let through (`counter_step`), and the range of the
    # register's type (a value outside it is one the engine does not know)
    counters: tuple = ()
    # when the state does not repeat at `warm`, the machine may compare again a shift later (up
    # to one shift before `jump_to`: the proof covers that range): a tile loop's plan, whose
    # one iteration of warm-up may be too few for a pipeline to settle (`tile_geometry`)
    settle: bool = False
    # the lets and register stores after the body's last counter step that the proof left out,
    # nothing deciding shared bytes or synchronization reading them (`unread`): the jump runs
    # them again once the counters moved, so their values are those of the last skipped iteration
    refresh: tuple = ()


def collect(body, views, out: list, inner: dict, leave: frozenset = frozenset(), whole: bool = False,
            rewrite=None, loops: tuple = (), guards: list | None = None, path: tuple = ()) -> None:
    """The expressions of `body` that decide what the machine does: shared addresses, barriers,
    parities, branches, loop bounds, lets and register stores. A loop or branch the program marks
    irrelevant (nothing in it touches shared memory or synchronizes, engine/program.py) is never
    evaluated by the machine, so its bound or condition (a global-memory bounds guard) decides
    nothing. `leave`: ids of register stores and lets left out (a counter's own step, moved by
    the jump; a let written into its uses, `inlined_lets`). `whole`: parities kept whole
    (`_decisive`). `rewrite(expr, loops)`, when given, maps each expression, `loops` being the
    inner PLoops around it (a counter of an inner loop reads differently inside it, `_nested_reads`).
    `inner` gets each inner loop variable's range; a name two loops bind gets the hull of both.
    `guards`, when given, gets for each expression added to `out` (in step with it) the
    conditions of the branches in `body` around it (`path`: `c` for a then arm, `not c` for an
    else arm): where one is false the machine never evaluates the expression."""
    from .nodes import PIf, PLet, PLoop, POp, PStore, same_arms

    def add(exprs) -> None:
        exprs = list(exprs) if rewrite is None else [rewrite(e, loops) for e in exprs]
        if guards is not None:
            guards.extend([path] * len(exprs))
        out.extend(exprs)
    for s in body:
        if isinstance(s, (PIf, PLoop)) and not s.relevant:
            continue   # skipped unevaluated by the machine: decides nothing
        if isinstance(s, POp) and s.src is not None:
            found: list = []
            (_decisive if whole else _shared_exprs)(s.src, views, found)
            add(found)
        elif isinstance(s, PIf):
            if s.src is not None and not same_arms(s):
                add([s.src])   # (arms that touch the same bytes: the condition decides only values)
            arms = ((s.then, (s.src,)), (s.other, (ir.UnaryOp("not", s.src),))) if s.src is not None and \
                guards is not None else ((s.then, ()), (s.other, ()))
            for arm, cond in arms:
                collect(arm, views, out, inner, leave, whole, rewrite, loops, guards, path + cond)
        elif isinstance(s, PLet) and s.src is not None and id(s) not in leave:
            add([s.src])
        elif isinstance(s, PStore):   # a register store: its value may decide shared bytes later
            if id(s) not in leave:
                add([x for x in s.src if x is not None])
        elif isinstance(s, PLoop):
            add(list(s.src))
            ext = s.src[1] if s.src else None
            got = (0, ext.value) if isinstance(ext, ir.Const) and isinstance(ext.value, int) else None
            if s.var in inner and inner[s.var] != got:
                had = inner[s.var]
                got = None if had is None or got is None else (min(had[0], got[0]), max(had[1], got[1]))
            inner[s.var] = got
            collect(s.body, views, out, inner, leave, whole, rewrite, loops + (s,), guards, path)


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
    from .nodes import PStore, statements
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


@dataclass(frozen=True)
class Nested:
    """A counter of an outer loop stepped inside one of its inner loops: `r = r + d` at the top
    level of `loop` (constant first iteration and trip count), which the outer body reaches
    through branches alone, each given as (PIf, the side taken). Per outer iteration it moves by
    d * trips in the threads the branches let through; every read of it in the outer body lies
    inside `scope`, the innermost of those branch bodies (None: no branch). A branch either
    keeps its value through the loop in each thread (`thread`: thread ids and values from before
    the loop) or depends on the loop variable and block indices alone (`block`: evaluated per
    iteration for the block being run, `uniform_run`)."""
    loop: object
    first: int
    trips: int
    d: int
    thread: tuple   # ((PIf, truth), ...) per-thread guards the jump evaluates (`counter_step`)
    block: tuple    # ((PIf, truth), ...) block-uniform guards of the loop variable
    scope: tuple | None


def counters(body, views, var: str | None = None, block_names: frozenset = frozenset()
             ) -> tuple[dict, dict, str | None, dict]:
    """The loop body's counters: ({(region, element): d}, {(region, element): its step, the
    store}), why the body's registers stop a plan (None: they do not), and {(region, element):
    Nested} for the counters stepped inside an inner loop (`var`: the loop variable; None: those
    are not looked for), whose d in the first dict is their step per outer iteration. See the
    module's docstring."""
    stores = list(_stores(body))
    by_region: dict = {}
    for s in stores:
        by_region.setdefault(s.region, []).append(s)
    steps, ids, nested = {}, {}, {}
    for s in body:   # the top level: run once by every path through an iteration
        got = _step(s, by_region, views)
        if got is not None:
            steps[got[0]], ids[got[0]] = got[1], s
    if var is not None:
        stored = set(by_region)
        bound = _defined_names(body, set()) | {var}
        for loop, thread, block, scope in _inner_loops(body, var, block_names, bound, stored, views):
            for s in loop.body:
                got = _step(s, by_region, views)
                if got is None or _read_outside(body, s.region, scope, views):
                    continue
                cell, d = got
                steps[cell], ids[cell] = d * loop.src[1].value, s
                nested[cell] = Nested(loop, loop.src[0].value, loop.src[1].value, d, thread, block, scope)
    counted = {region for region, _ in steps}
    changed = set(by_region) - counted
    for s in stores:
        if s.region in counted:
            continue
        for x in s.src:
            if x is not None and _register_regions(x, views) & changed:
                return steps, ids, (f"register {s.region} changes inside the loop by a rule the proof "
                                    f"does not follow (line {s.span.line})"), nested
    return steps, ids, None, nested


def _step(s, by_region: dict, views) -> tuple | None:
    """((region, element), d) when `s` is `r = r + d` (or `- d`, constant d), the only store of
    its register region in the loop body, else None."""
    from .nodes import PStore
    if not isinstance(s, PStore) or len(by_region[s.region]) != 1 or len(s.src) != 2:
        return None
    index, value = s.src
    if not (isinstance(index, ir.Const) and isinstance(value, ir.BinOp) and value.op in ("+", "-")):
        return None
    if value.op == "+" and isinstance(value.left, ir.Const):
        reg, d = value.right, value.left
    else:
        reg, d = value.left, value.right
    if not (isinstance(d, ir.Const) and isinstance(d.value, int) and not isinstance(d.value, bool)
            and d.value != 0):
        return None
    cell = register_cell(reg, views)
    try:
        element = int(s.index({}))
    except Exception:  # noqa: BLE001 -- an index the empty environment cannot give: no counter
        return None
    if cell is None or cell != (s.region, element):
        return None
    return cell, (d.value if value.op == "+" else -d.value)


def _inner_loops(body, var: str, block_names: frozenset, bound: set, stored: set, views,
                 thread: tuple = (), block: tuple = (), scope=None):
    """(loop, thread guards, block guards, scope) for each relevant inner loop with a constant
    first iteration and trip count that `body` reaches through branches alone, each guard
    classified as in `Nested` (a loop behind a guard of neither kind is left out)."""
    from .nodes import PIf, PLoop, PWhile
    for s in body:
        if isinstance(s, PLoop) and s.relevant and len(s.src) == 2 and all(
                isinstance(x, ir.Const) and isinstance(x.value, int) and not isinstance(x.value, bool)
                for x in s.src) and s.src[1].value > 0:
            yield s, thread, block, scope
        elif isinstance(s, PIf) and not isinstance(s, PWhile) and s.relevant and s.src is not None:
            names = free_names(s.src)
            if not _invariant_int(s.src, views, stored):
                continue
            if not names & bound:
                kind = "thread"
            elif var in names and names <= {var} | set(block_names) and not _elects(s.src):
                kind = "block"
            else:
                continue
            for side, truth in ((s.then, True), (s.other, False)):
                guard = ((s, truth),)
                yield from _inner_loops(side, var, block_names, bound, stored, views,
                                        thread + guard if kind == "thread" else thread,
                                        block + guard if kind == "block" else block, side)


# calls a branch guarding a counter's inner loop may make: functions of their arguments and of
# the thread's identity alone
_PURE_CALLS = ("T.bitwise_and", "T.bitwise_xor", "T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod",
               "T.tl_shuffle_elect")


def _invariant_int(e, views, stored: set) -> bool:
    """`e` is integer arithmetic on names, constants, pure calls and elements of registers the
    loop does not store (`stored`): its value depends on nothing the loop changes but the names."""
    if isinstance(e, ir.Call):
        return e.name in _PURE_CALLS and not e.kwargs and all(_invariant_int(a, views, stored) for a in e.args)
    if isinstance(e, ir.BinOp):
        return _invariant_int(e.left, views, stored) and _invariant_int(e.right, views, stored)
    if isinstance(e, ir.UnaryOp):
        return _invariant_int(e.operand, views, stored)
    if isinstance(e, ir.Subscript):
        cell = register_cell(e, views)
        return cell is not None and cell[0] not in stored
    return isinstance(e, (ir.Const, ir.Var))


def _elects(e) -> bool:
    """`e` calls T.tl_shuffle_elect (its value differs between threads)."""
    return any(isinstance(x, ir.Call) and x.name == "T.tl_shuffle_elect" for x in ir.nodes(e))


def _read_outside(body, region: str, scope, views) -> bool:
    """Whether a statement of `body` outside the branch body `scope` names register `region`."""
    from .nodes import PIf, PLoop
    if scope is None:
        return False
    for s in body:
        if isinstance(s, PIf):
            if s.src is not None and region in _register_regions(s.src, views):
                return True
            if any(side is not scope and _read_outside(side, region, scope, views)
                   for side in (s.then, s.other)):
                return True
        elif isinstance(s, PLoop):
            if any(region in _register_regions(x, views) for x in s.src) or \
                    _read_outside(s.body, region, scope, views):
                return True
        else:
            src = getattr(s, "src", None)
            if src is not None and region in _register_regions(src, views):
                return True
    return False


def uniform_run(loop, n: int, start: int, program, block: tuple, nested: dict) -> tuple[int, dict | None]:
    """(how many iterations from the first the block-uniform branches of the loop body keep
    their first iteration's value: the skipped range must end before one changes, the iterations
    from there run; {id(PIf): that value}), for the block being run (`block`). A branch of the loop
    variable and block indices alone (`w * 27 + bx // 4 < 512`: whether this CTA has a tile w)
    is evaluated per iteration. The dict is None when a guard of a nested counter cannot be
    evaluated."""
    from .nodes import PIf, PWhile, statements
    names = {name for name, _ in block}
    guards = {id(s): s for c in nested.values() for s, _ in c.block}
    for s in statements(loop.body):
        if isinstance(s, PIf) and not isinstance(s, PWhile) and s.relevant and s.src is not None:
            used = free_names(s.src)
            if loop.var in used and used <= {loop.var} | names and not _elects(s.src):
                guards.setdefault(id(s), s)
    env = dict(block)
    first: dict = {}   # id(PIf) -> its value in the first iteration
    limit = min(n, MAX_UNIFORM_RUN)
    for key, s in guards.items():
        try:
            for it in range(limit):
                env[loop.var] = start + it
                value = bool(s.cond(env))
                if it == 0:
                    first[key] = value
                elif value != first[key]:
                    limit = it
                    break
        except Exception:  # noqa: BLE001 -- a guard the block alone does not decide
            first.pop(key, None)
            if any(s is g for c in nested.values() for g, _ in c.block):
                return limit, None
    return limit, first


def _nested_reads(e, views, nested: dict, steps: dict, var: str, loops: tuple):
    """`e` with each read of a nested counter replaced by its value: R + D * var at the outer
    level (D: its step per outer iteration, R: any value), plus d * (k - first) inside its own
    inner loop `k`. A read elsewhere in the iteration differs from those by a constant, the same
    in every iteration, which R takes up."""
    def replace(x):
        cell = register_cell(x, views) if isinstance(x, ir.Subscript) else None
        if cell is None or cell not in nested:
            return None
        c = nested[cell]
        value = ir.BinOp("+", ir.Var(f"{cell[0]}[{cell[1]}]"), ir.BinOp("*", ir.Const(steps[cell]), ir.Var(var)))
        if any(lp is c.loop for lp in loops):
            value = ir.BinOp("+", value, ir.BinOp("*", ir.Const(c.d),
                                                 ir.BinOp("-", ir.Var(c.loop.var), ir.Const(c.first))))
        return value
    return ir.rewrite(e, replace)


def _defined_names(body, out: set) -> set:
    """Names a let or loop inside `body` binds, at any depth."""
    from .nodes import PIf, PLet, PLoop
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


def inlined_lets(body, views, changed: set, steady: frozenset = frozenset()) -> dict:
    """{let: (its value, the PLet)} for the lets of the body that may be written into their
    uses, so the value is the same wherever the iteration reads it: bound once in the body, from
    names nothing in the body rebinds and registers it does not store (`changed`).
    TileLang's persistent kernels name their stage `phase = tile * 128 + k`, not periodic in k
    itself; its uses (`phase % 6`, `phase // 6 & 1`) are.
    A let nested in an inner loop or branch may also read the variables of the loops around it
    and the registers in `steady` (counters whose one store is at the body's top level): every
    use lies in its scope, where no such store comes between (TileLang 0.1.15's persistent
    while loops bind `phase = tile[0] * 64 + k` inside the K loop)."""
    from .nodes import PIf, PLet, PLoop
    bound: dict = {}
    for s in _lets(body):
        bound[s.name] = bound.get(s.name, 0) + 1
    rebound = _defined_names(body, set())
    out: dict = {}

    def walk(stmts, around: frozenset | None) -> None:
        for s in stmts:
            if isinstance(s, PLet) and s.src is not None and bound[s.name] == 1:
                value = _inline(s.src, {n: v for n, (v, _) in out.items()})
                regions = _register_regions(value, views) & changed
                if around is None:
                    ok = not (free_names(value) & (rebound - set(out)) or regions)
                else:
                    ok = not (free_names(value) & (rebound - set(out) - around) or regions - steady)
                if ok:
                    out[s.name] = (value, s)
            elif isinstance(s, PLoop):
                walk(s.body, (around or frozenset()) | {s.var})
            elif isinstance(s, PIf):
                walk(s.then, around or frozenset())
                walk(s.other, around or frozenset())
    walk(body, None)
    return out


def _lets(body):
    from .nodes import PLet, statements
    return (s for s in statements(body) if isinstance(s, PLet))


def _inline(e, values: dict):
    """`e` with each Var named in `values` replaced by its value."""
    if not values:
        return e
    return ir.rewrite(e, lambda x: values.get(x.name) if isinstance(x, ir.Var) else None)


def _with_registers(e, views, steps: dict, stored: set, var: str, entry: dict | None = None):
    """`e` with each counter read `r[i]` replaced by `R + d * var` (R: the register's value when
    `var` is 0: the constant `entry` gives (the loop starts from its first iteration, so that is
    the value on entry), else a name of its own, any value), and each read of a register the loop
    does not store (not in `stored`) by a name of its own, any value."""
    def replace(x):
        cell = register_cell(x, views) if isinstance(x, ir.Subscript) else None
        if cell is None:
            return None
        name = ir.Var(f"{cell[0]}[{cell[1]}]")
        if cell in steps:
            first = ir.Const(entry[cell]) if entry and cell in entry else name
            return ir.BinOp("+", first, ir.BinOp("*", ir.Const(steps[cell]), ir.Var(var)))
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


def loop_period(loop, program) -> int:
    """The period `period_of` finds for the loop's shared/sync expressions (0: too long); where
    the body steps counters (`r = r + 1`, a warp-specialized loop's phase counter), read as
    `R + d * k` as `plan` reads them, so that `stage % 2` and `phase % 4 // 2` count."""
    steps, step_ids, why, nested = counters(loop.body, program.views, loop.var)
    if why is None and steps:
        parts, _, _ = _proof_exprs(loop, program, (steps, step_ids, nested))
        return period_of(parts, loop.var)
    exprs: list = []
    collect(loop.body, program.views, exprs, {})
    parts: list = []
    for e in exprs:
        k_parts(e, loop.var, parts)
    return period_of(parts, loop.var)


@dataclass(frozen=True)
class CountedWhile:
    """`while r < N` (or `r <= N`) whose register element r is a counter of the body (`r = r + d`,
    d > 0, at the body's top level and its only store, no `break`, no pointer to r) and N a
    constant: from a first value r0 the loop runs exactly `trips(r0)` iterations, so the machine
    may run it as a for loop of that many trips (engine/machine.py `_counted`), which is what
    lets a persistent kernel's tile loop (TileLang 0.1.15's `while tile < num_tiles`) be planned
    and skipped like its for-loop form."""
    cell: tuple     # (region, element) of r
    d: int
    bound: int
    inclusive: bool

    def trips(self, r0: int) -> int:
        last = self.bound if self.inclusive else self.bound - 1   # the largest r that enters
        return 0 if r0 > last else (last - r0) // self.d + 1


def counted_while(w, program) -> CountedWhile | None:
    """The CountedWhile that while loop `w` is, or None."""
    from .nodes import breaks_out
    c = w.src
    if not (isinstance(c, ir.BinOp) and c.op in ("<", "<=") and isinstance(c.right, ir.Const)
            and isinstance(c.right.value, int) and not isinstance(c.right.value, bool)):
        return None
    cell = register_cell(c.left, program.views)
    if cell is None or cell[0] in program.escaped_registers or breaks_out(w.then):
        return None
    steps, _, _, _ = counters(w.then, program.views)
    d = steps.get(cell)
    if d is None or d <= 0:
        return None
    return CountedWhile(cell, d, c.right.value, c.op == "<=")


def plan(loop, n: int, start: int, program, geometry: tuple | None = None,
         block: tuple = (), tile: bool = False, settles: bool = False) -> Plan:
    """Where (if anywhere) iterations of `loop` with `n` trips can be skipped.

    `geometry` = (shift, warm, tail): a loop whose trip count depends on a symbolic size, for which
    the induction (prover/induction.py) chose the shortest shift and warm-up that make the state
    repeat; it skips as soon as one whole period fits before its last `tail` iterations, so that
    few trip counts need a run of their own. Without it: `fixed_geometries`.
    `tile`: a loop of few trips whose iterations run inner loops (a persistent kernel's tile
    loop, engine/machine.py): each iteration is costly, so the smallest shift the proof accepts
    and the smallest geometry (`tile_geometry`).

    `block`: (name, value) of the block indices of the CTA that runs the loop. The machine runs one
    block, so the proof may hold for those values alone: a first-iteration branch `k == by * 4` of
    a loop from `by * 4` is then decided outside the skipped range, and a branch of the loop
    variable and block indices (`w * 27 + bx // 4 < 512`) ends the skipped range before it changes
    (`uniform_run`)."""
    if loop.per_iteration_inputs:   # its branches' outcomes are the run's inputs, not periodic
        return Plan(0, 0, None, "each iteration's branches run on a number loaded for it")
    from .nodes import breaks_out
    if breaks_out(loop.body):   # a skipped range could hold the iteration that leaves the loop
        return Plan(0, 0, None, "a T.loop_break may end the loop early")
    steps, step_ids, why, nested = counters(loop.body, program.views, loop.var,
                                            frozenset(name for name, _ in block))
    if why is not None:
        return Plan(0, 0, None, why)
    limit = n
    if tile or nested:
        limit, first = uniform_run(loop, n, start, program, block, nested)
        if first is None:
            return Plan(0, 0, None, "a branch around an inner loop stepping a counter is not decided "
                                    "by the block")
        for cell, c in nested.items():
            if not all(first[id(s)] == truth for s, truth in c.block):
                steps[cell] = 0   # its inner loop does not run in the skipped range
    # first the loop variable alone (a loop with no counter); then, when that fails or counters
    # are read, with lets written into their uses, registers and whole parities
    plain = None if steps else _proof_exprs(loop, program, None)
    rich = _proof_exprs(loop, program, (steps, step_ids, nested))
    first = None
    for exprs, inner, _ in ((plain, rich) if plain is not None and plain[0] != rich[0] else (rich,)):
        proof = (exprs, inner, steps, step_ids, nested)
        got = (_tile_plan(loop, n, start, program, block, proof, limit) if tile else
               _plan(loop, n, start, program, geometry, block, proof, limit, settles))
        if got.jump_to is not None:
            return dataclasses.replace(got, refresh=rich[2]) if exprs is rich[0] else got
        first = first or got
    return first


def _body_lets(body, views, steps: dict, nested: dict) -> dict:
    """`inlined_lets` of a loop body whose counters are `steps` (`nested`: those stepped inside
    an inner loop, which are not steady there)."""
    stored = {s.region for s in _stores(body)}
    return inlined_lets(body, views, stored, frozenset(c[0] for c in steps if c not in nested))


def unread(body, views, steps: dict, step_ids: dict, lets: dict) -> tuple[frozenset, tuple]:
    """(ids of the body's top-level lets and tail stores that nothing the proof reads depends on,
    the tail the jump runs again). A persistent kernel computes its next tile's indices at the
    end of an iteration from its tile counter (`linear_idx = tile[0]; m[0] = linear_idx % 512 //
    ...`) and reads them only in global coordinates: their values need not repeat. The *tail* is
    what follows the body's last top-level counter step when it is lets and register stores
    alone, each store its register's only one in the body and no counter, reading no let bound
    earlier in the body: run again once the counters moved (Plan.refresh), it gives the values
    the last skipped iteration ends with. A let is recomputed in each iteration before it is
    read, so an unread one needs nothing; a store left out needs the tail run again (empty:
    none is left out)."""
    from .nodes import PLet, PStore
    ids = {id(x) for x in step_ids.values()}
    last = max((i for i, x in enumerate(body) if id(x) in ids), default=None)
    tail = list(body[last + 1:]) if last is not None else []
    stored: dict = {}
    for x in _stores(body):
        stored[x.region] = stored.get(x.region, 0) + 1
    earlier = {x.name for x in body[:len(body) - len(tail)] if isinstance(x, PLet)}
    if not all(isinstance(x, PLet) and not x.lanes and x.src is not None or
               isinstance(x, PStore) and stored[x.region] == 1 and all(c[0] != x.region for c in steps)
               and not any(free_names(e) & earlier for e in x.src if e is not None) for x in tail) or \
            any(isinstance(x, PLet) and free_names(x.src) & earlier for x in tail):
        tail = []
    inlined = {id(x) for _, x in lets.values()}
    cand = [x for x in body if isinstance(x, PLet) and not x.lanes and x.src is not None and id(x) not in inlined] \
        + [x for x in tail if isinstance(x, PStore)]
    while cand:
        exprs: list = []
        collect(body, views, exprs, {}, frozenset(ids | inlined | {id(x) for x in cand}))
        names, regions, seen = set(), set(), set()
        while exprs:
            e = exprs.pop()
            names |= free_names(e)
            regions |= _register_regions(e, views)
            for n in (free_names(e) & set(lets)) - seen:   # an inlined let is read where it is used
                seen.add(n)
                exprs.append(lets[n][0])
        read = [x for x in cand if (x.name in names if isinstance(x, PLet) else x.region in regions)]
        if not read:
            break
        cand = [x for x in cand if all(x is not y for y in read)]
    left = frozenset(id(x) for x in cand)
    return left, (tuple(tail) if any(isinstance(x, PStore) for x in cand) else ())


def _proof_exprs(loop, program, registers: tuple | None) -> tuple[list, dict, tuple]:
    """(the smallest sub-terms carrying the loop variable of every expression that decides
    something, the inner loops' ranges, the tail a jump runs again: `unread`). `registers` None: the body's expressions as they stand;
    else (counters, their steps, the nested ones): lets at the body's top level written into
    their uses (a let stops being a value of its own), counters as `R + d * k` (nested ones as
    `_nested_reads` says), registers the loop does not store as names of any value, and
    parities kept whole."""
    views = program.views
    exprs: list = []
    inner: dict = {}
    tail: tuple = ()
    if registers is None:
        collect(loop.body, views, exprs, inner)
    else:
        steps, step_ids, nested = registers
        stored = {s.region for s in _stores(loop.body)}
        lets = _body_lets(loop.body, views, steps, nested)
        rewrite = None if not nested else (
            lambda e, loops: _nested_reads(e, views, nested, steps, loop.var, loops))
        left, tail = unread(loop.body, views, steps, step_ids, lets)
        collect(loop.body, views, exprs, inner,
                frozenset(map(id, step_ids.values())) | {id(s) for _, s in lets.values()} | left,
                whole=True, rewrite=rewrite)
        if lets:
            exprs = [_inline(e, {n: v for n, (v, _) in lets.items()}) for e in exprs]
        exprs = [_with_registers(e, views, steps, stored, loop.var, loop.entry) for e in exprs]
    parts: list = []
    for e in exprs:
        k_parts(_without_zero_or(e), loop.var, parts)
    return parts, inner, tail


def _without_zero_or(e):
    """`e` with each `T.bitwise_or(0, x)` (or `(x, 0)`) written as `x`: TileLang's tcgen05 address
    of an accumulator half, `T.bitwise_or(0, T.bitwise_and(tile, 1) * 256 + i * 64)`, is then
    arithmetic the prover encodes."""
    def replace(x):
        if isinstance(x, ir.Call) and x.name == "T.bitwise_or" and len(x.args) == 2 and not x.kwargs:
            for zero, other in ((x.args[0], x.args[1]), (x.args[1], x.args[0])):
                if isinstance(zero, ir.Const) and zero.value == 0 and not isinstance(zero.value, bool):
                    return _without_zero_or(other)
        return None
    return ir.rewrite(e, replace)


def _plan(loop, n: int, start: int, program, geometry, block, proof: tuple, limit: int,
          settles: bool = False) -> Plan:
    """plan() for one set of proof expressions (`proof`: expressions, inner loops' ranges,
    counters' steps, their stores, nested counters); the skipped range ends within the first
    `limit` iterations."""
    exprs, inner, steps, step_ids, nested = proof
    p = period_of(exprs, loop.var)
    if p == 0:
        return Plan(0, 0, None, "period too long")
    if geometry is not None:
        shift, warm, tail = geometry   # tail >= 1: the jump lands on an iteration the loop runs
        if shift % p or warm < shift or tail < 1:
            return Plan(0, 0, None, f"shift {shift} is not a multiple of the period {p}")
        return _prove_plan(loop, limit, start, program, block, exprs, inner, steps, step_ids, shift, warm, tail,
                           nested)
    got = None
    settling = tuple((shift, shift + 1, tail) for shift in (p, 2 * p) for tail in short_tails(shift)) \
        if settles else ()
    refuted: dict = {}   # shift -> {iteration z3 showed changing: why} (_prove_plan)
    for shift, warm, tail in settling + fixed_geometries(p):
        got = _prove_plan(loop, limit, start, program, block, exprs, inner, steps, step_ids, shift, warm, tail,
                          nested, refuted)
        if got.jump_to is not None:
            return dataclasses.replace(got, settle=(shift, warm, tail) in settling)
        if got.reason == TOO_FEW:
            return got
    return got


TOO_FEW = "too few iterations to skip"


def fixed_geometries(p: int) -> tuple:
    """(shift, warm, tail) to try, in turn, for a fixed-size loop of period `p`. First the
    shortest: one period, compared after the first (the pipeline's fill is shorter than a
    period: a ring of s stages has period 2s at least), and few iterations left after the jump
    (`short_tails`). Then a shift of two periods, the same shape (`period_of` takes the lcm of a
    parity's divisors: `T.bitwise_and(k // 6, 1)` gives 6 where the parity repeats every 12).
    Then twice as long everywhere, for a proof that fails on the early or late iterations of the
    first (a prologue branch `k < 3` of a loop of period 2)."""
    return tuple((shift, 2 * shift, tail) for shift in (p, 2 * p) for tail in short_tails(shift)) + \
        ((2 * p, 4 * p, 4 * p),)


def short_tails(shift: int) -> tuple:
    """The iterations to leave after the jump, shortest first. A producer leads its consumer by at
    most its ring's depth, half the period of a ring whose parity flips each round (s stages:
    period 2s), so with shift // 2 + 1 left it is still inside its periodic iterations when the
    consumer compares. Where it leads by more (a ring without a parity, or deeper than half the
    shift) the consumer's state does not repeat and the machine gives up the skip (never
    wrong, slower): one period plus one, as prover/induction.py's tail_for, is tried only when the
    proof over the longer skipped range fails (a late-iteration branch `k < n - 2`)."""
    return tuple(sorted({shift // 2 + 1, shift + 1}))


def tile_geometry(shift: int, cut: bool) -> tuple[int, int]:
    """(warm, tail) of a tile loop's plan with `shift`. The machine compares the state at the ends
    of iterations warm - shift and warm - 1 (it first looks at the end of iteration 0): one
    iteration of warm-up. The jump lands on an iteration the loop runs (tail 1), unless the
    skipped range ends early (`cut`, at a block-uniform branch that changes: the iterations from
    there run anyway)."""
    return shift + 1, 0 if cut else 1


def _tile_plan(loop, n: int, start: int, program, block, proof: tuple, limit: int) -> Plan:
    """plan() of a tile loop for one set of proof expressions: the shifts dividing `period_of`'s
    period, smallest first (a ring of 3 stages stepped 128 times per tile repeats every 3
    tiles, though its parity `% 6` gives 6), each with `tile_geometry`; the first proved."""
    exprs, inner, steps, step_ids, nested = proof
    p = period_of(exprs, loop.var)
    if p == 0:
        return Plan(0, 0, None, "period too long")
    got = None
    for shift in (c for c in range(1, p + 1) if p % c == 0):
        warm, tail = tile_geometry(shift, limit < n)
        got = _prove_plan(loop, limit, start, program, block, exprs, inner, steps, step_ids, shift, warm, tail,
                          nested)
        if got.jump_to is not None:
            return dataclasses.replace(got, settle=True)
        if got.reason == TOO_FEW:
            break   # a longer shift fits no better
    return got


def _prove_plan(loop, n: int, start: int, program, block, exprs: list, inner: dict, steps: dict,
                step_ids: dict, shift: int, warm: int, tail: int, nested: dict | None = None,
                refuted: dict | None = None) -> Plan:
    """The plan of one geometry, when z3 proves the skipped range periodic (`n`: the iterations
    the range must end within). `refuted`: shift -> iterations whose expressions z3 showed
    changing after that shift, in earlier tries: a range that holds one is refuted as well,
    without asking again (`short_tails`' longer tail after its short one)."""
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
    if loop.src and isinstance(loop.src[0], ir.Var) and loop.src[0].name not in ranges:
        ranges[loop.src[0].name] = (start, start + 1)   # a named start (loaded_numbers.py `_start_residue`)
    for nm in names - set(ranges) - {loop.var}:
        ranges[nm] = None   # let values, outer loops, symbolic sizes: any value
    region = (start + warm - shift, start + warm + (m - 1) * shift)
    seen = [why for k, why in (refuted or {}).get(shift, {}).items() if region[0] <= k < region[1]]
    if seen:
        return Plan(shift, warm, None, seen[0])
    v = prove_equal_under_shift(exprs, loop.var, shift, ranges, region)
    if v.status != "proved":
        k = v.model.get(loop.var) if v.status == "refuted" and v.model else None
        if refuted is not None and isinstance(k, int):
            refuted.setdefault(shift, {})[k] = f"{v.status}: {v.reason}"
        return Plan(shift, warm, None, f"{v.status}: {v.reason}")
    from .nodes import register_key
    nested = nested or {}
    moved = tuple((register_key(*cell), d, step_ids[cell].bounds,
                   tuple((s.cond, truth) for s, truth in nested[cell].thread) if cell in nested else ())
                  for cell, d in sorted(steps.items()) if d)
    named = (" (counters " + ", ".join(key for key, _, _, _ in moved) + ")") if moved else ""
    return Plan(shift, warm, warm + m * shift, f"proved periodic with period {shift}{named}", moved)


def counter_step(d: int, guards: tuple, env: dict):
    """A counter's step per iteration in each thread (Plan.counters): `d` where its branch
    guards (cond, side taken) let the thread through, else 0. Raises NotConcrete (engine/exprs.py)
    when a guard has no value here."""
    import numpy as np
    step = d
    for cond, truth in guards:
        c = np.asarray(cond(env)).astype(bool)
        step = np.where(c == truth, step, 0)
    return step
