"""Symbolic kernel parameters (a dynamic K): which values to run the concrete engine for, and
what z3 proves about the rest.

Trip counts are the loop extents that mention the parameter. The engine is run once per
distinct vector of trip counts up to a bound (plus one large value, where the pipelined loops
are skipped by proved periodicity), and z3 proves that every expression deciding shared bytes
or synchronization depends on the parameter only through those trip counts, so one value per
trip-count vector stands for all values that give it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..engine.exprs import NotConcrete, compile_expr, free_names
from ..engine.inputs import INPUTS, Inputs
from ..engine.nodes import expr_text as _text
from . import periodic
from .encode import Unencodable, encode
from .solve import Query


@dataclass
class SizePlan:
    symbol: str | None
    values: list = field(default_factory=list)     # parameter values to run
    trips: list = field(default_factory=list)      # trip-count vector for each value
    proof: str = "none"                            # "proved" | "refuted" | "unknown: ..."
    scope: str = ""
    induction: object = None   # prover.induction.Induction: trip counts >= n0 + step reduce to smaller ones
    # why no finite set of values was proved to stand for all: (reason, span), reported as
    # not modelled (AG001) by analyze, so the verdict is `unknown`
    notes: list = field(default_factory=list)
    blocks: list = field(default_factory=list)   # block variables of symbolic grids run as sizes
    # (launch, kernel) for launches of a derived size (behaviours.derived_size): the kernel the
    # run executes, the same statements with its prover-facing expressions in that size
    programs: list = field(default_factory=list)
    # independent groups read one after the other (prover/sizes_cut.py): the runs of each with
    # the other's first values may stand for the product
    cut: object = None
    # count roots run with every cell true (behaviours._tied_count_roots): analyze sets them on
    # the program before its runs
    tied_roots: frozenset = frozenset()
    # the runs stand for every value the sizes may take (else they are a sample, and analyze
    # reports the verdict as unknown)
    proved_for_every: bool = False

    def program_for(self, size: dict):
        """The kernel to run for `size` (None: the kernel as written)."""
        if self.cut is not None:
            return self.cut.program
        for launch, prog in self.programs:
            if all(size.get(k) == v for k, v in launch.items()):
                return prog
        return None


def _merge_cases(inds: list):
    """One Induction for the cases of a split (each case's runs cover its launches): the size
    loops must get one geometry in every case (the machine skips by line); each loop must skip
    from the smallest n0 of any case."""
    from . import induction
    if not inds:
        return None
    if len(inds) == 1:
        return inds[0]
    lines: dict = {}
    for i in inds:
        for line, g in i.loop_lines.items():
            if lines.setdefault(line, g) != g:
                return induction.Induction("unknown", f"the cases chose different skips for the loop "
                                                      f"at line {line}", 0, 0)
    proved = all(i.status == "proved" for i in inds)
    n0s = [i.n0 for i in inds if i.n0]
    return induction.Induction("proved" if proved else "unknown", "; ".join(i.reason for i in inds),
                               min(n0s) if n0s else 0, max(i.step for i in inds), 0, lines,
                               short_tails=any(i.short_tails for i in inds))


def _trip_exprs(body, sym: str, out: list) -> None:
    from ..engine.nodes import PIf, PLoop
    for s in body:
        if isinstance(s, (PLoop, PIf)) and not s.relevant:
            continue   # the machine skips it unevaluated: its trip count changes nothing
        if isinstance(s, PLoop):
            if s.src and sym in free_names(s.src[1]):
                out.append(s.src[1])
            _trip_exprs(s.body, sym, out)
        elif isinstance(s, PIf):
            _trip_exprs(s.then, sym, out)
            _trip_exprs(s.other, sym, out)


def _assumption_ok(fns, v, sym) -> bool:
    try:
        return all(bool(f({sym: v})) for f in fns)
    except NotConcrete:
        return False


def plan_sizes(program, assumptions: list, max_trips: int = 12, large: int = 4096,
               scan_limit: int = 1 << 20, short_tails: bool = False) -> SizePlan:
    """The values of the symbolic size to run. With the induction proved, those whose trip
    counts are below n0 + S (a few periods: prover/induction.py); otherwise every trip count up
    to `max_trips` and one value with trip counts of at least `large`. `short_tails`: size loops
    beside each other keep half a shift after their jump (induction.tail_for), which a run must
    then confirm by taking its jump (Induction.short_tails)."""
    syms = [s for s in program.symbols if s in program.control_names]
    blocks = deciding_blocks(program)
    if not syms and not blocks:
        return SizePlan(None, [{}], [()], "proved", "checked for the launch as written",
                        proved_for_every=True)
    # a size the kernel reads from memory (engine/program.py: a cu_seqlens length) carries its
    # own assumption and may be 0
    assumptions = list(assumptions) + list(getattr(program, "size_assumptions", ()))
    if len(syms) > 1 or blocks:
        plan = plan_several(program, syms, blocks, assumptions, max_trips, large, scan_limit, short_tails)
        plan.blocks = blocks
        return plan
    plan = plan_one(program, syms[0], assumptions, max_trips, large, scan_limit, short_tails=short_tails)
    trips: list = []
    _trip_exprs(program.body, syms[0], trips)
    if plan.proof != "proved" and not trips:
        # it decides no trip count, only branches, addresses or barrier arguments (flashinfer#3439:
        # `if prev_k + 8 > 16`), so the one value plan_one ran proves nothing: the values below
        # the threshold past which it changes nothing (behaviours.threshold), one run per distinct
        # behaviour
        plan = plan_several(program, syms, [], assumptions, max_trips, large, scan_limit, short_tails)
        plan.blocks = []
    return plan


def deciding_blocks(program) -> list:
    """The block variables of symbolic grid axes that a site (prover/behaviours.py: an expression
    deciding control, shared bytes or synchronization) mentions; the others decide nothing, and
    block 0 stands for every block of every grid."""
    candidates = list(getattr(program, "symbolic_block_vars", ()))
    if not candidates:
        return []
    from . import behaviours
    names = set().union(*(free_names(st.expr) for st in behaviours.sites(program)))
    return [b for b in candidates if b in names]


def plan_one(program, sym: str, assumptions: list, max_trips: int = 12, large: int = 4096,
             scan_limit: int = 1 << 20, others: dict | None = None, realize=None,
             short_tails: bool = False) -> SizePlan:
    """One symbolic size deciding trip counts (the induction of prover/induction.py);
    `others`: values for the kernel's other symbolic names in the probe run (independent of
    `sym`: the geometry it finds is checked again by every run that skips); `realize`: for a
    derived size (prover/behaviours.py: derived_size), value -> the launch's names that give it."""
    lowest = getattr(program, "size_lowest", {}).get(sym, 1)
    trips: list = []
    _trip_exprs(program.body, sym, trips)
    trip_fns = [compile_expr(e) for e in trips]
    own = [a for a in assumptions if sym in free_names(a)]
    ok_fns = [compile_expr(a) for a in own]
    from . import induction

    def trips_at(v):
        if not _assumption_ok(ok_fns, v, sym):
            return None
        try:
            return tuple(int(f({sym: v})) for f in trip_fns)
        except NotConcrete:
            return None

    repeated = True
    try:
        no_induction = getattr(program, "no_induction", {}).get(sym)
        geometry = None if no_induction else probe_geometry(
            program, sym, trips_at, scan_limit, others=others, realize=realize, short_tails=short_tails)
        if no_induction:   # no proof can follow (engine/loop_sizes.py `_clc_sizes`): no probe run
            repeated = False
            ind = induction.Induction("unknown", no_induction)
        elif geometry is None:   # the state never repeats: no run could skip, nothing to prove
            repeated = False
            ind = induction.Induction("unknown", "the synchronization state did not repeat in the size "
                                      "loops' first periods (probe run)")
        else:
            ind = induction.prove(program, sym, own, geometry, short_tails)
    except Exception as err:  # noqa: BLE001 -- no proof is "unknown", never "proved"
        ind = induction.Induction("unknown", f"{type(err).__name__}: {err}")
    proved_steps = ind.status == "proved" and bool(ind.n0)
    if proved_steps:
        max_trips = ind.n0 + ind.step - 1
    values, vectors, seen = [], [], set()
    last_of: dict = {}   # trip-count vector -> the largest value scanned with it (`_monotone_arms`)
    v = lowest
    big_done = False
    while v < scan_limit:
        if vectors and not trip_fns:
            break   # no trip count mentions `sym`: every later value gives the same () or none
        vec = trips_at(v)
        if proved_steps and vec is not None:
            last_of[vec] = v
            # every value whose trip counts are all at least n0 + S runs like the value dK
            # smaller (trip counts grow with the size: past a whole step, nothing new is below)
            if min(vec, default=0) <= max_trips:
                if vec not in seen:
                    seen.add(vec)
                    values.append({sym: v})
                    vectors.append(vec)
            elif v > ind.dk:
                break
            v += 1
            continue
        if vec is not None and vec not in seen:
            if max(vec, default=0) <= max_trips:
                seen.add(vec)
                values.append({sym: v})
                vectors.append(vec)
            elif max(vec, default=0) >= large and not big_done and repeated:
                # a long run, where the loops skip (they cannot when the state never repeats)
                values.append({sym: v})
                vectors.append(vec)
                big_done = True
                break
            elif max(vec, default=0) > max_trips and not repeated:
                break
        # step faster once past the small trip counts
        v += 1 if not vectors or max(vectors[-1], default=0) < max_trips else max(1, v // 64)
    # z3: every shared/sync expression depends on `sym` only through the trip counts
    from ..engine.accelerate import collect, k_parts
    from .behaviours import undeciding
    raw: list = []
    collect(program.body, program.views, raw, {}, leave=undeciding(program))
    # with the induction proved, a blind arm's condition (reads alone, `_monotone_arms`) may
    # instead grow with the size: the largest value of each trip-count vector is then run too
    monotone = _monotone_arms(program, sym, trips, own) if proved_steps else set()
    exprs: list = []
    for e in raw:
        if id(e) not in monotone:
            k_parts(e, sym, exprs)
    proof = _prove_through_trips(exprs, trips, sym, own)
    if monotone and proof == "proved":
        for vec, v in last_of.items():
            if vec in seen and {sym: v} not in values:
                values.append({sym: v})
                vectors.append(vec)
    if proof == "proved" and not (ind.status == "proved" and proved_steps):
        every = _every_value(sym, own, lowest, trips_at) or \
            _saturated(sym, own, trips, values, vectors, max_trips, lowest, trips_at)
        if every is not None:
            return every
    checked = checked_text(sym, values, vectors)
    if proof == "proved" and ind.status == "proved":
        scope = (f"proved for every {sym} >= {lowest}{' with ' + ', '.join(_text(a) for a in own) if own else ''}: "
                 f"checked {checked}; z3 proved that the kernel depends on {sym} only through its trip "
                 f"counts and that {ind.reason}, so every trip count of at least {ind.n0 + ind.step} "
                 f"runs like one {ind.step} smaller")
    else:
        scope = (f"checked for {checked}; z3 {proof} that the kernel depends on {sym} only through its "
                 f"trip counts; larger trip counts: {ind.status} ({ind.reason})")
    return SizePlan(sym, values, vectors, proof, scope, ind,
                    proved_for_every=proof == "proved" and ind.status == "proved")


# an assumed upper bound at most this far above the lowest value is enumerated value by value
EVERY_VALUE_SPAN = 1 << 16
# ... when its values have at most this many distinct trip-count vectors (one run each), whose
# longest trip counts add up to at most EVERY_VALUE_TRIPS (runs grow with the value: a CLC GEMM's
# 57 counts of up to 72 tiles took 190 s)
EVERY_VALUE_RUNS = 64
EVERY_VALUE_TRIPS = 512


def _every_value(sym: str, own: list, lowest: int, trips_at) -> "SizePlan | None":
    """A size bounded above by an assumption (`sym <= C`: a length the kernel's own buffer bounds,
    a count of cancelled clusters) on which, z3 proved, the kernel depends only through its trip
    counts: one run per distinct trip-count vector of every value from `lowest` to C is a proof
    by enumeration, where the induction found none (the tile loops of a CLC kernel) or one that
    does not apply. None when no such bound exists or there are too many vectors."""
    from . import induction
    bounds = [b[1] for b in (induction.const_bound(a, sym) for a in own) if b and b[0] == "upper"]
    if not bounds or min(bounds) - lowest > EVERY_VALUE_SPAN:
        return None
    top = min(bounds)
    values, vectors, seen, work = [], [], set(), 0
    for v in range(lowest, top + 1):
        vec = trips_at(v)
        if vec is None or vec in seen:
            continue
        work += max(max(vec, default=0), 1)
        if len(seen) == EVERY_VALUE_RUNS or work > EVERY_VALUE_TRIPS:
            return None
        seen.add(vec)
        values.append({sym: v})
        vectors.append(vec)
    if not values:
        return None
    scope = (f"proved for every {sym} from {lowest} to {top} ({', '.join(_text(a) for a in own)}): checked "
             f"{checked_text(sym, values, vectors)}, one value per trip-count vector of every value in "
             f"that range; z3 proved that the kernel depends on {sym} only through its trip counts")
    return SizePlan(sym, values, vectors, "proved", scope,
                    induction.Induction("proved", f"every value of {sym} up to {top} checked"),
                    proved_for_every=True)


def _saturated(sym: str, own: list, trips: list, values: list, vectors: list, max_trips: int,
               lowest: int, trips_at) -> "SizePlan | None":
    """The trip counts stop changing: z3 proves that every value from the last one run on has
    its trip counts (`range(T.min(T.max(n, 1), 4))`: n >= 4 runs 4 iterations), and the kernel
    depends on `sym` only through them (the caller's proof), so the values run stand for all.
    Of the values run, those with trip counts up to `max_trips`; every value below the last of
    them must have the trip counts of one of them (checked value by value)."""
    import z3
    small = [(v, vec) for v, vec in zip(values, vectors) if max(vec, default=0) <= max_trips]
    if not small or not trips:
        return None
    values, vectors = [v for v, _ in small], [vec for _, vec in small]
    last, vec = values[-1][sym], vectors[-1]
    if last - lowest > EVERY_VALUE_SPAN or any(
            trips_at(v) is not None and trips_at(v) not in set(vectors) for v in range(lowest, last)):
        return None
    K = z3.Int(sym)
    env = {sym: K}
    try:
        side, differs = [], []
        for e, c in zip(trips, vec):
            term, s = encode(e, env)
            side += s
            differs.append(term != c)
        for a in own:
            term, s = encode(a, env)
            side += s + [term]
    except Unencodable:
        return None
    if Query(*side, K >= last, z3.Or(*differs)).check() != z3.unsat:
        return None
    scope = (f"proved for every {sym} >= {values[0][sym]}"
             f"{' with ' + ', '.join(_text(a) for a in own) if own else ''}: checked "
             f"{checked_text(sym, values, vectors)}; z3 proved that the kernel depends on {sym} only "
             f"through its trip counts and that every {sym} >= {last} has the trip counts of {last}")
    from . import induction
    return SizePlan(sym, values, vectors, "proved", scope,
                    induction.Induction("proved", f"the trip counts are constant from {sym} = {last} on"),
                    proved_for_every=True)


def checked_text(sym: str, values: list, vectors: list) -> str:
    """'K in {1, 33} (trip counts (0,), (1,))': the values a scope line says were run;
    '(M, bx) in {(1, 0), (2, 0)}' for several names (long lists shortened)."""
    names = [n.strip() for n in sym.split(",")]
    if len(names) == 1:
        return (f"{sym} in {{{', '.join(str(x[sym]) for x in values)}}}" +
                (f" (trip counts {', '.join(str(t) for t in vectors)})" if any(vectors) else ""))
    listed = ["(" + ", ".join(str(x.get(n, "-")) for n in names) + ")" for x in values]
    if len(listed) > 16:
        listed = listed[:8] + [f"... {len(listed) - 12} more ..."] + listed[-4:]
    trips = [str(t) for t in vectors if t != ()]
    if len(trips) > 16:
        trips = trips[:8] + ["..."] + trips[-4:]
    return f"({sym}) in {{{', '.join(listed)}}}" + (f" (trip counts {', '.join(trips)})" if trips else "")


def small_sizes(program, assumptions: list, count: int = 3, scan: int = 4096) -> list:
    """The values of the one symbolic size with the `count` smallest distinct trip-count vectors
    (no proof: the repair oracle's first, cheap runs; plan_sizes decides what a verdict needs)."""
    syms = [s for s in program.symbols if s in program.control_names]
    if len(syms) != 1:
        return []
    sym = syms[0]
    trips: list = []
    _trip_exprs(program.body, sym, trips)
    fns = [compile_expr(e) for e in trips]
    assumptions = list(assumptions) + list(getattr(program, "size_assumptions", ()))
    ok_fns = [compile_expr(a) for a in assumptions if sym in free_names(a)]
    out, seen = [], set()
    for v in range(getattr(program, "size_lowest", {}).get(sym, 1), scan):
        if not _assumption_ok(ok_fns, v, sym):
            continue
        try:
            vec = tuple(int(f({sym: v})) for f in fns)
        except NotConcrete:
            continue
        if vec not in seen:
            seen.add(vec)
            out.append({sym: v})
            if len(out) == count:
                break
    return out


def probe_geometry(program, sym: str, trips_at, scan_limit: int, block: dict | None = None,
                   others: dict | None = None, realize=None, short_tails: bool = False) -> dict | None:
    """One (shift, warm) for all size loops, the shortest after which the synchronization state
    repeats: one concrete run, for a value whose trip counts are long enough, records the machine's
    state signature at every iteration boundary of those loops (without skipping anything) and
    stops at the first warm where, in every loop, the state at warm equals the state one shift
    earlier. shift is the lcm L of the loops' periods or 2 L (mbarrier parities may need two
    periods). Every loop gets the same geometry so that loops of equal trip counts (a producer's
    and its consumer's) skip the same number of iterations. The engine compares the same
    signatures when it runs, so a wrong choice costs the proof, never soundness. None when every
    loop ran past the fixed-size loops' own warm-up (4 L) without a repeat (no run can skip);
    {} when the probe could not tell (the engine's default geometry is used)."""
    import math

    from ..engine import accelerate
    from ..engine.machine import Machine
    from . import induction
    loops = induction.size_loops(program, sym)
    periods = [accelerate.loop_period(lp, program) for lp in loops]
    if not loops or 0 in periods:
        return {}
    lines = {lp.span.line for lp in loops}
    period = math.lcm(*periods)
    horizon = 4 * period + 1
    need = horizon + 2 * period + 2
    v, value = 1, None
    while v < scan_limit:
        vec = trips_at(v)
        if vec is not None and vec and min(vec) >= need:
            value = v
            break
        v += max(1, v // 8)
    if value is None:
        return {}
    sigs: dict = {line: {} for line in lines}   # line -> boundary -> signature
    found: list = []
    passed: set = set()

    def repeats(shift: int, w: int) -> bool:
        return all(w in got and w - shift in got and got[w] == got[w - shift] for got in sigs.values())

    class _Probe(Machine):
        def _plan(self, loop, n, start, in_outer=False):   # visit every boundary, never skip, no proof needed
            if loop.span.line not in lines:
                return accelerate.Plan(0, 0, None, "probe: not a size loop")
            return accelerate.Plan(period, horizon, n - 1, "probe")

        def _maybe_jump(self, f):
            if f.it > horizon:
                f.plan = None
                passed.add(f.loop.span.line)
                if passed >= lines:
                    self.max_steps = 0   # every loop is past the horizon without repeating
                return
            sigs[f.loop.span.line].setdefault(f.it, self._signature())
            best = [(w + shift, shift, w) for shift in (period, 2 * period)
                    for w in range(shift + 1, horizon + 1) if repeats(shift, w)]
            if best:
                found.append(min(best))
                self.max_steps = 0   # enough seen: stop the run at the next statement

    run_sizes = dict(others or {}, **(realize(value) if realize else {sym: value}))
    inputs = probe_inputs(program, block or {}, run_sizes)
    if inputs is not None:
        run_sizes[INPUTS] = inputs
    probe = _Probe(program, block=block or {}, sizes=run_sizes,
                   accelerate_lines=tuple(lines))
    result = probe.run()
    if not found:
        # past the horizon without a repeat (and nothing cut the run short): None; else {}
        clean_stop = passed >= lines and not result.internal_error and not result.control_lost
        return None if clean_stop else {}
    _, shift, warm = found[0]
    return {line: (shift, warm, induction.tail_for(shift, len(loops), short_tails)) for line in lines}


class _LengthsOnly(Inputs):
    """The probe's loaded values: a size's own cell reads as the size; any other loaded value
    stops the probe as it would with no inputs at all (the search of its outcomes is the
    checking runs' business, and the probe then leaves the geometry to the engine's default)."""

    def value(self, cell, text: str, both: bool, group=None) -> int:
        raise NotConcrete(f"a value loaded from global memory ({text}): not known to the probe")


def probe_inputs(program, block: dict, run_sizes: dict):
    """The data-dependent values of the probe run: a size read from memory (a paged kernel's
    cache_seqlens[bx], engine/inputs.py `length_cells`) is its cell's value, as in a checking
    run; None (no inputs) when the kernel has no such size. Without it the probe's loop bound
    is no number, the probe learns nothing and the engine's default geometry (shift 2 L, warm
    4 L) makes the induction start later: more sizes to run. Only the geometry depends on this
    run; the induction's proof and every checking run's own comparisons decide soundness."""
    numeric = getattr(program, "numeric", None)
    cells = [(sym, key) for sym, key in getattr(numeric, "length_cells", ()) if sym in run_sizes]
    trips = [t for t in getattr(numeric, "trip_cells", ()) if t[0] in run_sizes]
    if not cells and not trips:
        return None
    env = dict(program.launch.base_env(block), **run_sizes)
    numbers = {}
    for sym, key_fn in cells:
        try:
            numbers[key_fn(env)] = int(run_sizes[sym])
        except Exception:  # noqa: BLE001 -- an address the probe cannot compute: no inputs
            return None
    if trips:   # a trip count of several loaded values: the values a checking run loads
        found, _ = numeric.assignments({k: v for k, v in env.items() if not isinstance(v, np.ndarray)})
        if not found:
            return None
        numbers.update(found[0])
    return _LengthsOnly(numbers=numbers)


def _prove_through_trips(exprs, trips, sym: str, assumptions) -> str:
    if not exprs:
        return "proved"
    from .periodic import memo
    for e in exprs:   # one small query per expression
        res = memo(("trips", e, tuple(trips), sym, tuple(assumptions), periodic.RLIMIT),
                   lambda e=e: _prove_one_through_trips(e, trips, sym, assumptions))
        if res != "proved":
            return res
    return "proved"


def _two_sizes(sym: str, exprs: list, trips: list, assumptions) -> tuple:
    """z3 names for two values of `sym` with the same trip counts (every other name of `exprs`
    and `trips` shared), and the side conditions: (env of the first, env of the second, side).
    Raises encode's Unencodable."""
    import z3
    names = set().union(*(free_names(e) for e in list(exprs) + list(trips))) - {sym}
    env1 = {n: z3.Int(n) for n in names}
    env2 = dict(env1)
    env1[sym], env2[sym] = z3.Int(sym + "_1"), z3.Int(sym + "_2")
    side = []
    for t in trips:
        a, sa = encode(t, env1)
        b, sb = encode(t, env2)
        side += sa + sb + [a == b]
    for asm in assumptions:
        for env in (env1, env2):
            c, sc = encode(asm, env)
            side += sc + [c]
    return env1, env2, side


def _monotone_arms(program, sym: str, trips: list, assumptions) -> set:
    """ids of the conditions of blind arms (engine/program.py `_blind_arm`: shared reads and
    tensor-memory accesses alone, no else arm, so no synchronization) that z3 proves grow with
    `sym` among the values of one trip-count vector: true at a value, true at every larger one
    of the same trip counts (`row + tx < K` on a partial last tile). The largest value of each
    vector then runs a superset of every smaller value's accesses, with the same
    synchronization, so it finds each of their races (and its own are real: it is a size)."""
    import z3

    from ..engine.nodes import PIf, PWhile, statements
    out: set = set()
    for st in statements(program.body):
        if not (isinstance(st, PIf) and not isinstance(st, PWhile) and st.relevant and st.blind_arm
                and st.src is not None and sym in free_names(st.src)):
            continue
        try:
            env1, env2, side = _two_sizes(sym, [st.src], trips, assumptions)
            c1, s1 = encode(st.src, env1)
            c2, s2 = encode(st.src, env2)
        except Unencodable:
            continue
        truth1 = c1 if z3.is_bool(c1) else c1 != 0
        truth2 = c2 if z3.is_bool(c2) else c2 != 0
        if Query(*side, *s1, *s2, env1[sym] <= env2[sym], truth1, z3.Not(truth2)).proof_outcome() == "proved":
            out.add(id(st.src))
    return out


def _prove_one_through_trips(e, trips, sym: str, assumptions) -> str:
    import z3
    exprs = [e]
    try:
        env1, env2, side = _two_sizes(sym, exprs, trips, assumptions)
        diffs = []
        for e in exprs:
            a, sa = encode(e, env1)
            b, sb = encode(e, env2)
            side += sa + sb
            diffs.append(a != b)
    except Unencodable as err:
        return f"could not decide ({err})"
    query = Query(*side, z3.Or(*diffs))
    return query.proof_outcome() or f"could not decide ({query.reason_unknown()})"


def parse_assumption(text: str):
    """'K >= 1' -> an ir expression (parsed with the TIR grammar)."""
    from ..parse import InputError, parse
    try:
        mod = parse(f"@T.prim_func\ndef _():\n    {text}\n", "<assumption>")
    except InputError as e:
        raise InputError(f"bad assumption {text!r}: {e.message}", 1, 1, "--assume") from None
    stmt = mod.functions[0].body[0]
    if not isinstance(stmt, ir.ExprStmt):
        raise ValueError(f"not an expression: {text!r}")
    return stmt.expr


def plan_several(program, params: list, blocks: list, assumptions: list, max_trips: int = 12,
                 large: int = 4096, scan_limit: int = 1 << 20, short_tails: bool = False) -> SizePlan:
    """Several symbolic names: size parameters deciding control, and block indices of symbolic
    grid axes that decide something (prover/behaviours.py). Independent groups are planned
    alone and run as the product of their representative values."""
    import itertools

    from ..engine.exprs import compile_expr
    from ..engine.nodes import expr_text
    from . import behaviours, induction
    launch = program.launch
    extent_of = {b: launch.symbolic_blocks[launch.block_vars[b]] for b in blocks}
    site_list = behaviours.sites(program)
    joins = [st.expr for st in site_list] + list(assumptions) + \
        [ir.BinOp("<", ir.Var(b), e) for b, e in extent_of.items()]
    names = list(params) + [n for b in blocks for n in sorted(free_names(extent_of[b]))
                            if n not in params] + list(blocks)
    names = list(dict.fromkeys(names))
    spans = list(launch.symbolic_spans.values())
    span = spans[0] if spans else getattr(program.body[0], "span", None) if program.body else None
    parts, scopes, notes, sub_plans = [], [], [], []
    group_proved: list = []   # per entry of scopes: that group's runs stand for every value
    tied = frozenset()
    part_names: list = []   # the names of each part's group
    all_groups = behaviours.groups(names, joins)
    programs: list = []   # (launch, the kernel read in its derived size) for derived groups

    def first_value(sym):
        fns = [compile_expr(a) for a in assumptions if sym in free_names(a)]
        low = getattr(program, "size_lowest", {}).get(sym, 1)
        return next((v for v in range(low, 4096) if _assumption_ok(fns, v, sym)), low)
    smallest = {n: first_value(n) for n in names if n not in blocks}
    smallest.update({b: 0 for b in blocks})
    for group in all_groups:
        gb = [n for n in group if n in blocks]
        gp = [n for n in group if n not in blocks]
        looping = [p for p in gp if induction.size_loops(program, p)]
        if not gb and len(gp) == 1 and looping:
            # the probe run needs the other sizes too: their smallest values (independent)
            others = {n: v for n, v in smallest.items() if n != gp[0]}
            sub = plan_one(program, gp[0], assumptions, max_trips, large, scan_limit, others,
                           short_tails=short_tails)
            sub_plans.append(sub)
            parts.append(list(zip(sub.values, sub.trips)))
            part_names.append(group)
            scopes.append(sub.scope)
            group_proved.append(sub.proved_for_every)
            notes += sub.notes
            continue
        if len(gp) != 1 or looping:
            # several names, or a size loop beside block indices: one derived quantity of them
            # may stand for all (behaviours.derived_size), a one-size kernel in that quantity
            lowest = dict(getattr(program, "size_lowest", {}))
            der = behaviours.derived_size(program, group, gb, extent_of, site_list, assumptions, lowest)
            if not der.ok:
                what = ", ".join(group)
                notes.append((f"symbolic sizes {what} decide the same expressions"
                              + (" and a loop's trip count" if looping else "")
                              + f": no finite set of values proved to stand for all ({der.reason})", span))
                continue
            if programs:
                notes.append((f"symbolic sizes {', '.join(group)}: a second group of names read "
                              "through a derived quantity (one per kernel is supported)", span))
                continue
            others = {n: v for n, v in smallest.items() if n not in group}
            low = ", ".join(f"{n} >= {lowest.get(n, 1)}" for n in gp)
            grid = "".join(f" and every block {b} < {expr_text(extent_of[b])}" for b in gb)
            part, case_scopes, case_inds, all_proved = [], [], [], True
            every_case = der.cases if isinstance(der, behaviours.Cases) else [der]
            # tied count roots (behaviours._tied_count_roots) are run with every cell true in
            # every run: only where every case ties the same roots
            if every_case and all(c.tied and c.tied == every_case[0].tied for c in every_case):
                tied = every_case[0].tied
                for c in every_case:
                    c.tie()
            for case in every_case:
                where = f"where {' and '.join(expr_text(c) for c in case.case)}: " if case.case else ""
                if case.expr is None:    # nothing reads the names in this case: one launch
                    launch = case.realize(0)
                    part.append((launch, ()))
                    programs.append((launch, case.program))
                    case_scopes.append(f"{where}{case.reason}: one run "
                                       f"({', '.join(f'{n} = {x}' for n, x in launch.items())})")
                    continue
                dsym = case.name
                sub = plan_one(case.program, dsym, [], max_trips, large, scan_limit, others,
                               realize=case.realize, short_tails=short_tails)   # d >= lo: case.program's size_lowest
                if sub.induction is not None:
                    case_inds.append(sub.induction)
                for v, t in zip(sub.values, sub.trips):
                    launch = case.realize(v[dsym])
                    part.append((launch, t))
                    # the run's own copy reads d as the number it is: the machine's periodicity
                    # proofs (engine/accelerate.py) then hold for this run's d, not for every d
                    programs.append((launch, behaviours.fixed_size(case.program, dsym, v[dsym])))
                below = (f"; below {case.d1}: " + ", ".join(
                    f"{dsym} = {d}: ({', '.join(f'{n} = {x}' for n, x in w.items())})"
                    for d, w in case.witnesses.items())) if case.witnesses else ""
                reach = (f"z3 proved {dsym} >= {case.lo} for every launch ({low}"
                         + "".join(f", 0 <= {b} < {expr_text(extent_of[b])}" for b in gb)
                         + (f", {' and '.join(expr_text(c) for c in case.case)}" if case.case else "")
                         + f") and that every {dsym} >= {case.d1} is reached by the launch "
                         f"({case.family_text()})" + below)
                all_proved &= sub.proof == "proved" and sub.induction is not None and \
                    sub.induction.status == "proved"
                case_scopes.append(f"{where}{case.reason}; {reach}; in {dsym}: {sub.scope}")
            ind = _merge_cases(case_inds)
            if ind is not None:
                sub_plans.append(SizePlan(None, induction=ind))
                all_proved &= ind.status == "proved"
            parts.append(part)
            part_names.append(group)
            head = f"{der.reason}: " if isinstance(der, behaviours.Cases) else ""
            if tied:
                loop_lines = behaviours.tied_loop_lines(program)
                lines = sorted({ln for r in tied for ln in loop_lines[r]})
                case_scopes.append(
                    f"{', '.join(sorted(tied))} (loaded values, assumed read-only global memory and one "
                    f"value per block) only decide whole iterations of the loops at lines {lines}, which "
                    f"run {every_case[0].name} times: a false iteration does nothing and the loop variable "
                    "only addresses global memory, so a pattern with c true cells runs like the launch "
                    f"with {every_case[0].name} = c and every cell true; every run reads every cell true")
            scopes.append((f"proved for every {low}{grid}: " if all_proved else "") + head +
                          " | ".join(case_scopes))
            group_proved.append(all_proved)
            continue
        size = gp[0]
        own = [a for a in assumptions if size in free_names(a)]
        ok_fns = [compile_expr(a) for a in own]
        ext_fns = {b: compile_expr(extent_of[b]) for b in gb}
        steps, why = {}, []
        for b in gb:
            red = behaviours.block_translation(program, b, size, extent_of[b], site_list, assumptions)
            if not red.ok:
                notes.append((f"blockIdx of {b} (grid extent {expr_text(extent_of[b])}): {red.reason}", span))
                break
            steps[b] = red.db
            why.append(red.reason)
        else:
            group_values: list = []
            reached = []
            for combo in itertools.product(*[range(steps[b]) for b in gb]):
                fixed = {b: (v, extent_of[b]) for b, v in zip(gb, combo)}
                thr = behaviours.threshold(program, size, fixed, site_list, assumptions)
                if not thr.ok:
                    notes.append((f"{size}: {thr.reason}", span))
                    break
                reached.append(thr.n + thr.s)

                def ok(v, combo=combo):
                    env = {size: v}
                    try:
                        return all(bool(f(env)) for f in ok_fns) and \
                            all(c < int(ext_fns[b](env)) for b, c in zip(gb, combo))
                    except NotConcrete:
                        return False
                group_values += [dict({size: v}, **dict(zip(gb, combo))) for v in range(1, thr.n + thr.s)
                                 if ok(v)]
            else:
                # values whose every site agrees with an earlier one's run alike: one run each
                below = len(group_values)
                group_values = behaviours.distinct_behaviours(program, group, group_values, site_list)
                parts.append([(v, ()) for v in group_values])
                part_names.append(group)
                grid = "".join(f" and every block {b} < {expr_text(extent_of[b])}" for b in gb)
                scopes.append(f"proved for every {size} >= 1{' with ' + ', '.join(_text(a) for a in own) if own else ''}"
                              f"{grid}: z3 proved that " + "; ".join(why + [
                                  f"every {size} of at least {max(reached)} behaves as a smaller one"]) +
                              f"; checked {checked_text(', '.join(group), group_values, [])} "
                              f"({len(group_values)} distinct behaviours of the {below} values below it)")
                group_proved.append(True)
    if notes:
        return SizePlan(", ".join(names), [], [], "unknown", "; ".join(r for r, _ in notes), None, notes)
    cut = None if programs or len(parts) < 2 else _compose(program, parts, part_names)
    indices = list(itertools.product(*[range(len(p)) for p in parts]))
    if cut is not None:   # each side's runs with the other side's first values first
        indices.sort(key=lambda ix: _cut_rank(ix, cut[0]))
    values, trips = [], []
    for ix in indices:
        v, t = {}, ()
        for part, i in zip(parts, ix):
            val, vec = part[i]
            v.update(val)
            t = t + tuple(vec)
        values.append(v)
        trips.append(t)
    proved = all(group_proved)
    head = "proved for every size" if proved else "checked for the values listed"
    runs = f"{len(values)} run{'' if len(values) == 1 else 's'}"
    scope = f"{head} ({runs}, the product of {len(parts)} independent groups): " + " | ".join(scopes) \
        if len(parts) > 1 else (scopes[0] if scopes else "checked for the launch as written")
    inds = [sp.induction for sp in sub_plans if sp.induction is not None]
    plan = SizePlan(", ".join(names), values, trips, "proved" if proved else "unknown", scope,
                    induction.merge(inds) if inds else None, programs=programs, tied_roots=tied,
                    proved_for_every=proved)
    if cut is not None:
        sides, found = cut
        found.composed = [v for v, ix in zip(values, indices) if _cut_rank(ix, sides)[0] == 2]
        found.first_before = {k: x for k, x in values[0].items() if k in found.before}
        found.first_after = {k: x for k, x in values[0].items() if k in found.after}
        found.rows = [v for v, ix in zip(values, indices) if _cut_rank(ix, sides)[0] == 0]
        found.head, found.scopes = head, scopes
        plan.cut = found
    return plan


def _cut_rank(ix: tuple, sides: tuple) -> tuple:
    """Where a combination of part indices runs: 0 the first side's values with the second's
    first, 1 the reverse, 2 the others (left out when the cut holds)."""
    before = all(ix[i] == 0 for i in sides[1])
    after = all(ix[i] == 0 for i in sides[0])
    return (0 if before else 1 if after else 2, ix)


def _compose(program, parts: list, part_names: list):
    """((indices of the parts before the cut, those after), Cut) for a bipartition of the
    independent groups whose reads a top-level statement separates (prover/sizes_cut.py), or
    None."""
    from .sizes_cut import find_cut
    n = len(parts)
    if sum(len(p) >= 2 for p in parts) < 2:
        return None   # at most one group has several values: the product is already a sum
    for mask in range(1, (1 << n) - 1):
        first = [i for i in range(n) if mask >> i & 1]
        second = [i for i in range(n) if not mask >> i & 1]
        found = find_cut(program, [part_names[i] for i in first], [part_names[i] for i in second])
        if found is not None:
            return (tuple(first), tuple(second)), found
    return None
