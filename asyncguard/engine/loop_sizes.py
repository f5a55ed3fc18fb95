"""Loops that skip whole iterations and the sizes the engine makes for them: count loops
(`for k: if M[f(k)]: ...`, whose runs depend only on the number of true cells), those counts as
symbolic sizes, cluster launch control's tile loops (`cancelled(clc)`), and the loops the machine
may skip (engine/program.py `elaborate` calls them once the program is built).
"""
from __future__ import annotations

import numpy as np

from .. import ir
from ..models.clc import CANCELLED, QUERIES as CLC_QUERIES
from .exprs import free_names
from .nodes import (RANGE_TRUTHS, PIf, PLet, PLoop, PNote, POp, Program, PStore, _guarding_load,
                    _range_truth_guard, _range_truth_ptr, _rewrite, _signed_terms, _without_load, breaks_out,
                    expr_text, statements)


# ---------------------------------------------------------------- loops that skip whole iterations
def _count_loops(el, program: Program, func: ir.Function) -> None:
    """Truth-valued inputs that only ever decide whole loop iterations (`for k: if M[f(k)]: ...`
    with every statement of the body under that one condition, no `else`): a false iteration
    does nothing, and where the loop variable decides nothing the machine evaluates (it only
    addresses global memory: TMA coordinates, the mask cell) a true iteration does the same
    whichever k it is. So each thread's run depends on the outcome pattern only through the
    number of true cells, and the patterns whose true cells come first (one per count, n + 1 of
    2^n) cover every pattern. engine/inputs.py searches such a root by count. Conditions:
    every load of the root in the kernel is such a condition, all of them over one range with
    one index expression (so every loop meets the same cells in the same order), the index
    depends on nothing but k, block indices and sizes, and distinct k read distinct cells (z3)."""
    candidates: dict = {}   # root -> [(loop, [the subscript of each of its conditions])]

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PLoop):
                found = _skipping_loop(el, program, st)
                if found is not None:
                    candidates.setdefault(found[0], []).append((st, found[1], found[2]))
                walk(st.body)
            elif isinstance(st, PIf):
                walk(st.then)
                walk(st.other)
    walk(program.body)
    if not candidates:
        return
    loads: dict = {}   # root -> ids of every subscript of it in the kernel
    pointed: dict = {}   # root -> ids of its pointers: the range truth a pointer serves, or itself
    for x in ir.nodes(func.body):
        if isinstance(x, ir.Subscript):
            view = el.view_of(x.value)
            root = el.roots.get(view.name) if view is not None else None
            if root is not None:
                loads.setdefault(root, set()).add(id(x))
        elif isinstance(x, ir.Call) and x.name == "T.tvm_access_ptr" and len(x.args) == 5:
            view = el.view_of(x.args[1])
            root = el.roots.get(view.name) if view is not None else None
            if root is not None:
                owner = [c for c in ir.nodes(func.body) if isinstance(c, ir.Call) and c.name in RANGE_TRUTHS
                         and c.args and c.args[0] is x]
                pointed.setdefault(root, set()).add(id(owner[0]) if owner else id(x))
    uniform = set(el.launch.block_vars) | set(program.symbols)
    for root, sites in candidates.items():
        mentions = loads.get(root, set())
        if isinstance(sites[0][1][0], ir.Call):
            # ranges: every subscript of the root and every pointer into it (another range
            # truth, a copy) is one of the loops' conditions
            mentions = mentions | pointed.get(root, set())
        if mentions != {id(sub) for _, subs, _ in sites for sub in subs}:
            continue
        loop0, (sub0, *_), guard0 = sites[0]
        canon = ir.Var("%k")
        ranged = isinstance(sub0, ir.Call)   # all_of / any_of ranges (_skipping_loop)

        def where(sub):   # the cell's index, or the range's start, kind and length
            if isinstance(sub, ir.Call):
                ptr = sub.args[0]
                return (ptr.args[2],), (sub.name, ptr.args[0], ptr.args[1], ptr.args[3], sub.args[1])
            return sub.indices, sub.value
        index0, what0 = where(sub0)
        index0 = _rewrite(index0, {loop0.var: canon})
        guard0 = _rewrite(guard0, {loop0.var: canon})
        same = all(lp.src == loop0.src and _rewrite(where(sub)[0], {lp.var: canon}) == index0
                   and where(sub)[1] == what0 and _rewrite(guard, {lp.var: canon}) == guard0
                   for lp, subs, guard in sites for sub in subs)
        if not same or free_names(index0) - {canon.name} - uniform or free_names(loop0.src) - uniform:
            continue
        if ranged:
            n = el.literal(sub0.args[1])
            if n != el.literal(sub0.args[0].args[3]) or not _disjoint_ranges(index0[0], n, canon.name, loop0.src):
                continue
        elif not _injective(index0, canon.name, loop0.src):
            continue
        el.count_roots[root] = program.count_roots[root] = (
            sorted({lp.span.line for lp, _, _ in sites}), expr_text(loop0.src[1]))
        if ranged:
            el.count_ranges |= {id(sub) for _, subs, _ in sites for sub in subs}


def _new_size(program: Program, sym: str, most: int) -> None:
    """`sym` a symbolic size of `program` that decides control, 0 <= sym <= most, checked from 0
    (a count the engine introduces: `_count_sizes`, `_clc_sizes`)."""
    program.symbols.append(sym)
    program.control_names.add(sym)
    program.size_assumptions += [ir.BinOp(">=", ir.Var(sym), ir.Const(0)),
                                 ir.BinOp("<=", ir.Var(sym), ir.Const(most))]
    program.size_lowest[sym] = 0


def cell_alone(st) -> bool:
    """`st` is `if M[...]:` with no else, its condition the input cell alone (`_guarding_load`
    with no bound beside it): where the cell reads 1, its statements always run."""
    sub = _guarding_load(st.src) if isinstance(st, PIf) and st.src is not None else None
    return sub is not None and not st.other and _without_load(st.src, sub) == ir.Const(True)


def _count_sizes(el, program: Program) -> None:
    """A count root (`_count_loops`) whose loops run a constant n iterations with n + 1 > the
    input search's pattern limit: its count becomes a symbolic size `count(...)`, 0 <= count <=
    n, the loops' trip count, with every cell read true (a tied root). A run with c true cells
    runs as its true cells first (the count search's argument: a false iteration does nothing and
    the loop variable decides nothing the machine evaluates), so as the loops with c iterations
    of true cells, and every loop of the root meets the same cells in the same order: one size
    stands for all of them. The size plan (prover/sizes.py) then proves every count from a few
    runs, as it does a dynamic K's trip counts, instead of the search running n + 1 counts."""
    from .inputs import MAX_INPUT_PATTERNS
    for root, (lines, _) in list(program.count_roots.items()):
        loops = [st for st in statements(program.body) if isinstance(st, PLoop) and st.span.line in lines]
        n = el.literal(loops[0].src[1]) if loops and len(loops[0].src) == 2 else None
        if not isinstance(n, int) or isinstance(n, bool) or n + 1 <= MAX_INPUT_PATTERNS or \
                any(lp.src != loops[0].src for lp in loops):
            continue
        sym = f"count({root} at line {lines[0]})"
        for lp in loops:
            lp.extent = el.compile(ir.Var(sym))
            lp.src = (lp.src[0], ir.Var(sym))
            # a guard that is the cell alone (a load, or an all_of / any_of range: _skipping_loop)
            # reads 1 in every run: its statements are the iteration's own (a counter stepped
            # there steps once per iteration for engine/accelerate.py); a guard with a bound stays,
            # and _read_taken_guards gives the provers its bound
            lp.body = tuple(x for st in lp.body for x in
                            (st.then if cell_alone(st) or _range_truth_guard(st.src) is not None
                             and _bare_truth(st.src) is _range_truth_guard(st.src) else (st,)))
        _new_size(program, sym, n)
        program.tied_roots.add(root)
        program.count_sizes[sym] = (root, lines, n)


# iterations a tile loop that leaves on a cluster launch control response may run past the
# number of cancelled clusters (`_clc_sizes`): the scheduler leaves at iteration c, a consumer
# that reads the response one iteration later at c + 1; a run that reaches the cut is stopped.
# With no induction over c (its exits read shared memory, which z3 does not), the size plan runs
# the trip counts up to its 12 (prover/sizes.py plan_one's max_trips): c = 0..4, five tiles,
# which cover the double-buffered accumulator's period (2 tiles) and its parities' (4)
CLC_CUT_MARGIN = 8


def _clc_sizes(el, program: Program) -> None:
    """A persistent kernel that leaves its tile loops on a cluster launch control response
    (`if schedule_valid[0] == 0: T.loop_break()`): how many clusters the cluster's requests
    cancel before the first that does not is the symbolic size CANCELLED, c >= 0, and the k-th
    response says "cancelled" exactly when k < c (`_clc_cancelled`). Each such loop of constant
    trip count n runs at most min(n, c + CLC_CUT_MARGIN) iterations, so a run is as long as its
    tiles and the size plan (prover/sizes.py) runs c = 0, 1, 2, ...; a loop that runs out of its
    cut without leaving stops its run (engine/machine.py), so the cut never changes a run."""
    def decides(e) -> bool:
        return any(isinstance(x, ir.Call) and x.name in CLC_QUERIES or
                   isinstance(x, ir.Subscript) and el._clc_held(el.view_of(x.value)) is not None
                   for x in ir.nodes(e)) if e is not None else False

    def leaves(body) -> bool:   # a break on a response, outside the loops nested in `body`
        return any(isinstance(st, PIf) and (decides(st.src) and breaks_out((st,)) or
                                            leaves(st.then) or leaves(st.other))
                   for st in body if not isinstance(st, PLoop))
    loops = [st for st in statements(program.body) if isinstance(st, PLoop) and st.relevant and leaves(st.body)]
    sizes = [el.literal(lp.src[1]) if len(lp.src) == 2 else None for lp in loops]
    if not loops or any(not isinstance(n, int) or isinstance(n, bool) for n in sizes):
        return
    for lp, n in zip(loops, sizes):
        cut = ir.Call(ir.Attr(ir.Var("T"), "min"),
                      (ir.Const(n), ir.BinOp("+", ir.Var(CANCELLED), ir.Const(CLC_CUT_MARGIN))), ())
        lp.extent = el.compile(cut)
        lp.src = (lp.src[0], cut)
        lp.cut = n
    _new_size(program, CANCELLED, max(sizes))
    program.clc_loops = sorted(lp.span.line for lp in loops)
    program.no_induction[CANCELLED] = ("the tile loops leave on cluster launch control responses, "
                                       "read from shared memory, which the induction does not follow")


def _skipping_loop(el, program: Program, loop: PLoop):
    """(root, [subscripts], guard) when every statement of `loop`'s body is `if M[...]:` (no else)
    on one truth-valued, read-only input cell, or `if g and M[...]:` with one bound `g` of the
    loop variable, block indices and sizes (`_guarding_load`; `guard` is g, or True), and nothing
    the machine evaluates inside reads the loop variable; else None. A false g skips the whole
    iteration as a false cell does, so the run still depends only on how many iterations ran."""
    if not loop.relevant or not loop.body:
        return None
    sub, subs, guard = None, [], None
    uniform = set(el.launch.block_vars) | set(program.symbols) | {loop.var}
    for st in loop.body:
        if not isinstance(st, PIf) or st.other or st.src is None:
            return None
        bare = _guarding_load(st.src)
        if bare is None:
            # `T.all_of(T.tvm_access_ptr(.., M, f(k), n, 1), n)` as the whole condition (TileLang's
            # warp-specialized block-sparse test): one truth value per iteration, over a range of
            # a read-only global buffer (Elaborator._range_truth); _count_loops requires the
            # ranges of distinct iterations disjoint
            call = _range_truth_guard(st.src)
            view = _range_view(el, call) if call is not None and _bare_truth(st.src) is call else None
            root = el.roots.get(view.name) if view is not None else None
            if root is None or root in el.written_roots or (sub is not None and call != sub):
                return None
            if free_names(call.args[0].args[2]) - uniform:
                return None
            sub, guard = call, ir.Const(True)
            subs.append(call)
            names = _evaluated_names(el, st.then)
            if names is None or loop.var in names:
                return None
            continue
        view = el.view_of(bare.value) if bare is not None else None
        root = el.roots.get(view.name) if view is not None else None
        if root is None or not el.truth_only.get(root) or root in el.written_roots:
            return None
        if sub is not None and not isinstance(sub, ir.Subscript):
            return None
        rest = _without_load(st.src, bare)
        if sub is not None and (bare != sub or bare.value != sub.value or rest != guard):
            return None
        if free_names(rest) - uniform:
            return None
        sub, guard = bare, rest
        subs.append(bare)
        names = _evaluated_names(el, st.then)
        if names is None or loop.var in names:
            return None
    if isinstance(sub, ir.Call):
        return (el.roots[_range_view(el, sub).name], subs, guard)
    return (el.roots[el.view_of(sub.value).name], subs, guard) if sub is not None else None


def _bare_truth(cond):
    """`cond` without the bool casts around it."""
    while isinstance(cond, ir.Call) and (cond.name == "T.bool" and len(cond.args) == 1 or
                                         cond.name == "T.Cast" and len(cond.args) == 2):
        cond = cond.args[-1]
    return cond


def _range_view(el, call):
    """The global view a `T.all_of` / `T.any_of` call reads through its `T.tvm_access_ptr` (a
    constant length, read-only access), or None."""
    ptr = _range_truth_ptr(call)
    if ptr is None:
        return None
    n = el.literal(call.args[1])
    view = el.view_of(ptr.args[1])
    if not isinstance(n, int) or n <= 0 or view is None or view.name not in el.roots or \
            el.literal(ptr.args[4]) != 1:
        return None
    return view


def _disjoint_ranges(start, n: int, var: str, bounds: tuple) -> bool:
    """z3: the ranges [start, start + n) of two different values of `var` in the loop's range
    do not meet (n = 1: `_injective`)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    terms = [(sign, t) for sign, t in _signed_terms(start) if var in free_names(t)]
    if terms:   # as _injective: only the terms of `var` tell two starts apart
        part = terms[0][1] if terms[0][0] > 0 else ir.UnaryOp("-", terms[0][1])
        for sign, t in terms[1:]:
            part = ir.BinOp("+" if sign > 0 else "-", part, t)
        start = part
    names = free_names(start) | free_names(bounds)
    a = {n_: z3.Int(n_) for n_ in names}
    b = dict(a)
    b[var] = z3.Int("%other")
    try:
        ea, sa = encode(start, a)
        eb, sb = encode(start, b)
    except Unencodable:
        return False
    try:
        lo, s1 = encode(bounds[0], a)
        extent, s2 = encode(bounds[1], a)
        inside = [*s1, *s2, a[var] >= lo, a[var] < lo + extent, b[var] >= lo, b[var] < lo + extent]
    except Unencodable:
        inside = []
    return unsat(*sa, *sb, *inside, ea < eb + n, eb < ea + n, a[var] != b[var])


def _evaluated_names(el, stmts):
    """The names the machine evaluates in `stmts` (bounds, conditions, lets, register stores,
    shared addresses and synchronization arguments; not global addresses), or None when a
    statement hides what it reads (an unmodelled op, an expression not kept)."""
    from .exprs import shared_index_exprs as _shared_exprs
    names: set = set()
    for st in stmts:
        if isinstance(st, PNote):
            return None
        if isinstance(st, PLet):
            if st.src is None:
                return None
            names |= free_names(st.src)
        elif isinstance(st, PStore):
            if not st.src or st.src[-1] is None:
                return None
            names |= free_names([x for x in st.src if x is not None])
        elif isinstance(st, (PIf, PLoop)):
            if not st.relevant:
                continue   # skipped unevaluated: its condition or bounds decide nothing
            if st.src is None or isinstance(st, PLoop) and not st.src:
                return None
            names |= free_names(st.src)
            for part in ((st.then, st.other) if isinstance(st, PIf) else (st.body,)):
                inner = _evaluated_names(el, part)
                if inner is None:
                    return None
                names |= inner
        elif isinstance(st, POp):
            if st.src is None:
                return None
            out: list = []
            _shared_exprs(st.src, el.views, out)
            names |= free_names(out)
    return names


def _injective(index: tuple, var: str, bounds: tuple) -> bool:
    """z3: two different values of `var` in the loop's range give different flat indices (one
    index expression; anything else is refused)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    if len(index) != 1:
        return False
    # the terms of a sum that do not mention `var` are the same for both values: only the rest
    # can tell two indices apart (and z3 need not read a nonlinear block offset)
    terms = [(sign, t) for sign, t in _signed_terms(index[0]) if var in free_names(t)]
    if terms:
        part = terms[0][1] if terms[0][0] > 0 else ir.UnaryOp("-", terms[0][1])
        for sign, t in terms[1:]:
            part = ir.BinOp("+" if sign > 0 else "-", part, t)
        index = (part,)
    names = free_names(index[0]) | free_names(bounds)
    a = {n: z3.Int(n) for n in names}
    b = dict(a)
    b[var] = z3.Int("%other")
    try:
        ea, sa = encode(index[0], a)
        eb, sb = encode(index[0], b)
    except Unencodable:
        return False
    try:
        start, s1 = encode(bounds[0], a)
        extent, s2 = encode(bounds[1], a)
        inside = [*s1, *s2, a[var] >= start, a[var] < start + extent, b[var] >= start,
                  b[var] < start + extent]
    except Unencodable:   # bounds z3 cannot read (a symbolic divisor): injective everywhere then
        inside = []
    return unsat(*sa, *sb, *inside, ea == eb, a[var] != b[var])


def _ranges_meet(lo, hi, entry=None) -> bool:
    """Whether two threads' byte ranges [lo, hi) of one store instance meet, as
    state/memory.py `_check_self` finds a clash over all of them (sorted by start, one starting
    before the furthest end so far). `entry`: the store's `recent` cache entry for these very
    arrays, which remembers the answer (the arrays are read-only)."""
    if entry is not None and len(entry) > 4 and entry[2] is lo and entry[3] is hi:
        return entry[4]
    a = np.asarray(lo, dtype=np.int64).reshape(-1)
    b = np.asarray(hi, dtype=np.int64).reshape(-1)
    if a.size < 2:
        meet = False
    else:
        order = np.argsort(a, kind="stable")
        meet = bool((a[order][1:] < np.maximum.accumulate(b[order])[:-1]).any())
    if entry is not None and len(entry) == 4 and entry[2] is lo and entry[3] is hi:
        entry.append(meet)
    return meet


def _fixed_width(s: ir.Slice) -> int | None:
    """`c` when the slice reads `[e : e + c]` (how TVMScript prints a vector access) or `[a : b]`
    of two integer constants (c = b - a: TVMScript folds `0 + c` to `c`), else None."""
    hi = s.hi
    if isinstance(hi, ir.BinOp) and hi.op == "+" and s.lo is not None and _same_tree(hi.left, s.lo) \
            and isinstance(hi.right, ir.Const) and type(hi.right.value) is int:
        return hi.right.value
    if isinstance(s.lo, ir.Const) and isinstance(hi, ir.Const) and type(s.lo.value) is int \
            and type(hi.value) is int and hi.value > s.lo.value:
        return hi.value - s.lo.value
    return None


def _same_tree(a, b) -> bool:
    """`a == b` (spans aside) with every constant of the same type too (4 == 4.0 == True in
    Python, not in what the expressions compute)."""
    if a != b:
        return False
    xs, ys = list(ir.nodes(a)), list(ir.nodes(b))
    return len(xs) == len(ys) and all(
        type(x) is type(y) and (not isinstance(x, ir.Const) or type(x.value) is type(y.value))
        for x, y in zip(xs, ys))
