"""Every trip count from a few: the induction that makes a symbolic size's verdict hold for all.

For loops whose trip count N(K) depends on a size parameter K, the accelerated engine runs
iterations [0, warm), compares the synchronization state at the boundaries warm - shift and
warm, and jumps to the last tail..tail + shift - 1 iterations before N (engine/accelerate.py,
`geometry`). (shift, warm) is the shortest the state allows, found by one probe run
(prover/sizes.py); tail is 1 for one loop, and when several loops run side by side (a
producer's and a consumer's) shift // 2 + 1 first, then shift + 1 (`tail_for`), so that the
first to jump is still inside its periodic iterations when the other compares its states. A loop skips from N = warm + shift + tail = n0 on. Let S be a common multiple of the loops'
shifts and dK a step with N(K + dK) = N(K) + S for every loop. If, for every K whose trip counts
are at least n0:
  (i)   every expression deciding shared bytes or synchronization takes the same value at K + dK
        as at K for every prefix iteration k < warm,
  (ii)  the same at (k + S, K + dK) as at (k, K) for every tail iteration k >= N(K) - tail - S, and
  (iii) every such expression outside those loops is the same at K + dK as at K,
then the run for K + dK is the run for K with the tail moved by S, so the runs for the trip
counts below n0 + S decide every K. z3 proves (i)-(iii) and the step; the engine checks the rest
(every run from n0 on must take its jump).
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
class Induction:
    status: str          # "proved" | "refuted" | "unknown"
    reason: str
    n0: int = 0          # trip counts below n0 + step are checked concretely
    step: int = 0        # S
    dk: int = 0
    loop_lines: dict = field(default_factory=dict)   # size loops' lines -> (shift, warm) for the engine
    # several independent sizes (prover/sizes.py: plan_several): each size loop's own n0
    n0_at: dict = field(default_factory=dict)
    # a size loop keeps fewer iterations after its jump than tail_for's long tail: when a run
    # does not take its jump, the sizes are planned again with the long one (analyze.py)
    short_tails: bool = False

    def n0_of(self, line: int) -> int:
        """From which trip count the size loop at `line` must skip."""
        return self.n0_at.get(line, self.n0)


def merge(inductions: list) -> "Induction":
    """One Induction for independent sizes: each keeps its loops, geometry and n0 (the run for
    (K1 + dK1, K2) is the run for (K1, K2) with K1's tail moved, whatever K2 is: K2 appears in no
    expression K1's proof looks at, and every run checks its own jumps)."""
    if len(inductions) == 1:
        return inductions[0]
    proved = all(i.status == "proved" for i in inductions)
    lines, n0_at = {}, {}
    for i in inductions:
        lines.update(i.loop_lines)
        n0_at.update({line: i.n0 for line in i.loop_lines})
    n0s = [i.n0 for i in inductions if i.n0]
    return Induction("proved" if proved else "unknown", "; ".join(i.reason for i in inductions),
                     min(n0s) if n0s else 0, max(i.step for i in inductions), 0, lines, n0_at,
                     any(i.short_tails for i in inductions))


def _check_forall_equal(pairs, env, constraints, side_extra=()) -> str:
    """Prove a == b for every (a_expr, b_expr) pair under constraints; 'proved' or why not."""
    from . import periodic
    from .periodic import memo
    context = tuple(str(c) for c in (*constraints, *side_extra)) + tuple(sorted(env)) + (periodic.RLIMIT,)
    for a_e, b_e in pairs:
        res = memo(("equal", a_e, b_e, context), lambda a_e=a_e, b_e=b_e: _prove_equal(a_e, b_e, env, constraints,
                                                                                    side_extra))
        if res == "refuted":
            return f"refuted at line {getattr(getattr(a_e, 'span', None), 'line', '?')}"
        if res != "proved":
            return res
    return "proved"


def _check_guarded(pairs, env, constraints) -> str:
    """`_check_forall_equal` for (a_expr, b_expr, path) triples: each pair under the branch
    conditions `path` around it (engine/accelerate.py `collect`'s guards), true in the run of
    the left side. Where a condition is false the machine never evaluates the expression, and
    the conditions themselves are pairs checked on their own (a part of a branch's condition is
    collected with the branch), so the pair need only agree where they hold. A condition z3
    cannot encode is left out (a weaker assumption)."""
    import z3
    by_path: dict = {}
    for a_e, b_e, path in pairs:
        by_path.setdefault(path, []).append((a_e, b_e))
    for path, group in by_path.items():
        extra = []
        for g in path:
            genv = dict(env)
            for n in free_names(g) - set(genv):
                genv[n] = z3.Int(n)
            try:
                term, side = encode(g, genv)
            except Unencodable:
                continue
            extra += side + [term if z3.is_bool(term) else term != 0]
        res = _check_forall_equal(group, env, constraints + extra)
        if res != "proved":
            return res
    return "proved"


def _prove_equal(a_e, b_e, env, constraints, side_extra) -> str:
    """'proved', 'refuted' or 'unknown: why' for a_e == b_e under the constraints."""
    import z3
    # a name the proof does not bind (an unrolled loop's counter beside the size loops, a
    # let): any value, so the equality is proved for every value it may take
    env = dict(env)
    for n in (free_names(a_e) | free_names(b_e)) - set(env):
        env[n] = z3.Int(n)
    try:
        a, sa = encode(a_e, env)
        b, sb = encode(b_e, env)
    except Unencodable as err:
        return f"unknown: cannot encode ({err})"
    s = Query(*constraints, *side_extra, *sa, *sb, a != b)
    r = s.check()
    if r == z3.sat:
        return "refuted"
    if r != z3.unsat:
        return f"unknown: solver gave up ({s.reason_unknown()})"
    return "proved"


def _counter_ranges(ranges: dict, lets: set, exprs: list, env: dict) -> list:
    """Bind, in `env`, each inner loop's counter that `exprs` read to its constant range
    (`ranges`, from accelerate.collect), and return the constraints: an unrolled loop's counter in
    a bounds guard (`k * 64 + (i * 32 + tx // 8) // 3 < K`) takes only those values. Not a name a
    let binds too, nor one already bound, nor one some loop of non-constant range binds."""
    import z3
    out = []
    for name, got in ranges.items():
        if got is not None and name not in lets and name not in env and \
                any(name in free_names(e) for e in exprs):
            env[name] = z3.Int(name)
            out += [env[name] >= got[0], env[name] < got[1]]
    return out


def size_loops(program, sym: str) -> list:
    """The loops (PLoop) whose trip count mentions `sym`, in program order. A loop or branch
    around nothing relevant (`relevant` False: the machine skips it unevaluated) is left out."""
    from ..engine.nodes import PIf, PLoop
    loops: list = []

    def walk(body):
        for s in body:
            if isinstance(s, (PLoop, PIf)) and not s.relevant:
                continue
            if isinstance(s, PLoop):
                if s.src and sym in free_names(s.src[1]):
                    loops.append(s)
                walk(s.body)
            elif isinstance(s, PIf):
                walk(s.then)
                walk(s.other)
    walk(program.body)
    return loops


def default_geometry(loop, program, loops: int = 1, short: bool = False) -> tuple | None:
    """(shift, warm, tail) of a fixed-size loop's acceleration, with the tail for `loops` size
    loops: used when no probe chose shorter ones."""
    from ..engine.accelerate import loop_period
    p = loop_period(loop, program)
    return (2 * p, 4 * p, tail_for(2 * p, loops, short)) if p else None


def tail_for(shift: int, loops: int, short: bool = False) -> int:
    """Iterations a size loop keeps after its jump (see the module's docstring). `short`, with
    several loops: half a shift plus one, as engine/accelerate.py `short_tails` reads a ring."""
    # several loops: a producer leads its consumer by at most the ring's stages, fewer than one
    # shift (a ring whose parity flips each round: half of it), so after its jump it is still
    # inside its periodic iterations when the consumer compares. If not, the consumer does not
    # jump: analyze.py then plans the sizes again with the long tail (never a wrong verdict)
    if loops == 1:
        return 1
    return shift // 2 + 1 if short else shift + 1


def const_bound(a, sym: str) -> tuple[str, int] | None:
    """('upper', C) when `a` is `sym <= C` (or `C >= sym`), ('lower', C) when it is `sym >= C`
    (or `C <= sym`), for a constant C; else None."""
    if not isinstance(a, ir.BinOp) or a.op not in ("<=", ">="):
        return None
    if a.left == ir.Var(sym) and isinstance(a.right, ir.Const):
        return ("upper" if a.op == "<=" else "lower"), int(a.right.value)
    if a.right == ir.Var(sym) and isinstance(a.left, ir.Const):
        return ("lower" if a.op == "<=" else "upper"), int(a.left.value)
    return None


def prove(program, sym: str, assumptions: list, geometry: dict | None = None,
          short: bool = False) -> Induction:
    """`geometry`: loop line -> (shift, warm, tail), as the engine will use them (default_geometry
    for a loop not named, with tail_for's `short` tail)."""
    import z3

    loops = size_loops(program, sym)
    if not loops:
        return Induction("proved", "no trip count depends on " + sym)
    geometry = dict(geometry or {})
    shifts, warms, tails = [], [], []
    from ..engine.accelerate import collect, k_parts
    from .behaviours import undeciding
    idle = undeciding(program)   # lets and register stores nothing deciding reads
    for lp in loops:
        g = geometry.get(lp.span.line) or default_geometry(lp, program, len(loops), short)
        if g is None:
            return Induction("unknown", f"loop at line {lp.span.line}: period too long")
        geometry[lp.span.line] = g
        shifts.append(g[0])
        warms.append(g[1])
        tails.append(g[2])
    S = math.lcm(*shifts)
    n0 = max(w + sh + t for w, sh, t in zip(warms, shifts, tails))   # every loop jumps from here
    launch = program.launch
    names = {n: z3.Int(n) for n in set(launch.thread_vars) | set(launch.block_vars)}
    K = z3.Int(sym)
    env = dict(names)
    env[sym] = K
    dom = []
    for n, axis in launch.thread_vars.items():
        dom += [names[n] >= 0, names[n] < launch.threads["xyz".index(axis[-1])]]
    for n, axis in launch.block_vars.items():
        r = launch.block_range(axis)
        dom += [names[n] >= 0] + ([names[n] < r[1]] if r else [])
    asm_c = []
    for a in assumptions:
        c, sc = encode(a, env)
        asm_c += sc + [c]
    # the tail: the iterations a run keeps after its jump must hold every iteration whose
    # expressions still change with the counter's distance to the trip count (a causal block's
    # diagonal tile `s == d`): the smallest tail from which the iterations between the warm-up
    # and the tail are periodic for every K is what the machine's own proof at its K needs
    for i, lp in enumerate(loops):
        sh, w, tl = shifts[i], warms[i], tails[i]
        body_exprs: list = []
        collect(lp.body, program.views, body_exprs, {}, leave=idle)
        rel: list = []
        for e in body_exprs:
            if lp.var in free_names(e):
                k_parts(e, lp.var, rel)
        if not rel:
            continue
        k = z3.Int(lp.var)
        env_k = dict(env)
        env_k[lp.var] = k
        try:
            n_term, n_side = encode(lp.src[1], env_k)
            lo_term, lo_side = encode(lp.src[0], env_k)
        except Unencodable:
            continue
        moved = ir.BinOp("+", ir.Var(lp.var), ir.Const(sh))
        pairs = [(e, _substitute(e, lp.var, moved)) for e in rel]
        for t in range(tl, tl + 9):
            res = _check_forall_equal(pairs, env_k, dom + asm_c + n_side + lo_side +
                                      [K >= 1, k >= lo_term + w - sh, k + sh < lo_term + n_term - t])
            if res == "proved":
                if t != tl:
                    tails[i] = t
                    geometry[lp.span.line] = (sh, w, t)
                break
    n0 = max(w + sh + t for w, sh, t in zip(warms, shifts, tails))
    # the step dK: N(K + dK) == N(K) + S for every loop, and the assumptions carry over
    trips = [lp.src[1] for lp in loops]
    consts = {1}
    for t in trips:
        stack = [t]
        while stack:
            e = stack.pop()
            if isinstance(e, ir.BinOp):
                if e.op in ("//", "%") and isinstance(e.right, ir.Const):
                    consts.add(int(e.right.value))
                stack += [e.left, e.right]
            elif isinstance(e, ir.Call):
                stack += list(e.args)
    dk = None
    for mult in (1, 2, 4, 8, 16):   # a multiple of the period may be needed to keep the assumptions
        for c in sorted(consts):
            cand, moved = S * c * mult, S * mult
            shifted = [_substitute(t, sym, ir.BinOp("+", ir.Var(sym), ir.Const(cand))) for t in trips]
            pairs = [(a, ir.BinOp("+", t, ir.Const(moved))) for a, t in zip(shifted, trips)]
            # the step must also keep every assumption as it is (K valid <=> K + dK valid), but
            # for an upper bound `K <= C`: the runs of larger K reduce to smaller ones, never the
            # reverse, and K + dK <= C gives K <= C (a count of true cells, a sliding window)
            # A lower bound `K >= C` need not carry over either: K + dK >= C whenever K >= C, and
            # every K the step reduces to reaches n0 trips, which is checked below to imply K >= C
            pairs += [(a, _substitute(a, sym, ir.BinOp("+", ir.Var(sym), ir.Const(cand)))) for a in assumptions
                      if const_bound(a, sym) is None]
            if _check_forall_equal(pairs, env, [K >= 1]) == "proved":
                dk = cand
                break
        if dk is not None:
            S = moved
            break
    if dk is None:
        return Induction("unknown", "no step of the size moves every trip count by a whole period", n0, S)
    n_ok = []
    for t in trips:
        term, st = encode(t, env)
        n_ok += st + [term >= n0]
    for a in assumptions:
        side = const_bound(a, sym)
        if side is not None and side[0] == "lower":
            bound, sb = encode(a, env)
            if Query(*n_ok, *sb, K >= 1, z3.Not(bound)).check() != z3.unsat:
                return Induction("unknown", f"a value the step reduces to may break {sym}'s lower bound", n0, S)
    shiftK = ir.BinOp("+", ir.Var(sym), ir.Const(dk))
    # (iii) and (i)/(ii) per loop
    everything: list = []
    ranges: dict = {}
    collect(program.body, program.views, everything, ranges, leave=idle)
    loop_vars = {lp.var for lp in loops}
    outside = []
    for e in everything:
        if e in trips:          # the trip counts themselves: covered by the step
            continue
        if sym in free_names(e) and not (free_names(e) & loop_vars):
            k_parts(e, sym, outside)
    from ..engine.nodes import PLet, statements
    lets = {s.name for s in statements(program.body) if isinstance(s, PLet)}
    bounded = dict(env)
    counters = _counter_ranges(ranges, lets, outside, bounded)
    res = _check_forall_equal([(e, _substitute(e, sym, shiftK)) for e in outside], bounded,
                              dom + asm_c + n_ok + counters + [K >= 1])
    if res != "proved":
        return Induction(res.split(":")[0], f"outside the loops: {res}", n0, S, dk)
    for lp, w, tl in zip(loops, warms, tails):
        body: list = []
        paths: list = []   # the branch conditions around each of `body` (collect's guards)
        ranges = {}
        collect(lp.body, program.views, body, ranges, leave=idle, guards=paths)
        k = z3.Int(lp.var)
        env_k = dict(env)
        env_k[lp.var] = k
        counters = _counter_ranges(ranges, lets, body, env_k)
        # (a loop may start at a name the loaded numbers give, engine/loaded_numbers.py `_start_residue`:
        # the same value in the run of K and in that of K + dK)
        inner = {n for e in body + list(lp.src) for n in free_names(e)} - set(env_k) - {lp.var}
        for n in inner:
            env_k[n] = z3.Int(n)
        relevant: list = []   # (part, the branch conditions around it)
        for e, path in zip(body, paths):
            if free_names(e) & {sym, lp.var} and e not in trips:
                parts: list = []
                k_parts(e, {sym, lp.var}, parts)
                relevant += [(x, path) for x in parts]
        n_term, n_side = encode(lp.src[1], env_k)
        lo, lo_side = encode(lp.src[0], env_k)
        n_side = n_side + lo_side
        prefix = [(e, _substitute(e, sym, shiftK), path) for e, path in relevant]
        n_side = n_side + counters
        res = _check_guarded(prefix, env_k, dom + asm_c + n_ok + n_side + [K >= 1, k >= lo, k < lo + w])
        if res != "proved":
            return Induction(res.split(":")[0], f"loop at line {lp.span.line}, prefix: {res}", n0, S, dk)
        kS = ir.BinOp("+", ir.Var(lp.var), ir.Const(S))
        tail = [(e, _substitute(_substitute(e, lp.var, kS), sym, shiftK), path) for e, path in relevant]
        res = _check_guarded(tail, env_k, dom + asm_c + n_ok + n_side +
                             [K >= 1, k >= lo + n_term - tl - S, k < lo + n_term])
        if res != "proved":
            return Induction(res.split(":")[0], f"loop at line {lp.span.line}, tail: {res}", n0, S, dk)
    return Induction("proved", f"step {sym} + {dk} moves every trip count by {S}", n0, S, dk,
                     {lp.span.line: geometry[lp.span.line] for lp in loops},
                     short_tails=any(g[2] < tail_for(g[0], len(loops)) for g in
                                     (geometry[lp.span.line] for lp in loops)))
