"""Numbers a kernel loads from read-only global memory (NSA's selected block index, a varlen
kernel's cu_seqlens, a paged kernel's cache_seqlens), read where they decide anything the machine
runs: unknown inputs that engine/inputs.py enumerates, symbolic sizes the size prover proves the
kernel for, or branches reduced because their outcome cannot matter. `_numeric_pass` is the entry,
called by engine/program.py `elaborate` once the program is built (engine/inputs.py's module text
says the cases).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import ir
from ..models import interned
from ..models.memory import dtype_bits
from .exprs import NotConcrete, compile_expr, free_names
from .inputs import MAX_PATTERN_TRIPS, PATTERN_ITERATIONS, NumericInputs, pair_order
from .loop_sizes import _evaluated_names, _fixed_width, _injective
from .nodes import (_ACCESS_ONLY_OPS, PIf, PLet, PLoop, PNote, POp, Program, PStore, PWhile, _access_only,
                    _rewrite, _same_accesses, _subscripts, arm_lines, expr_text, statements)


# ---------------------------------------------------------------- numbers loaded from global memory
# what a fenced arm (_fenced_branch) may do: shared stores and loads, CTA-local named barriers,
# fences, and TMA stores it waits for itself
_FENCED_ARM_OPS = {"load", "store", "ptx_stmatrix", "ptx_ldmatrix", "tvm_storage_sync", "fence_proxy_async",
                   "tcgen05_before_thread_sync", "tcgen05_after_thread_sync", "tma_store", "tma_store_arrive",
                   "tma_store_wait"}


_BARRIER_OPS = {"tvm_storage_sync", "named_barrier_arrive", "named_barrier_sync"}


# calls whose value is the same for every thread of a CTA given the same arguments
_UNIFORM_CALLS = {"T.min", "T.max", "T.Cast", "T.if_then_else", "T.block_rank_in_cluster", "T.bitwise_and",
                  "T.bitwise_or", "T.bitwise_xor", "T.shift_left", "T.shift_right", "T.truncdiv", "T.truncmod",
                  "T.floordiv", "T.floormod", "T.int32", "T.int64", "T.bool", "T.uint32"}


def _fenced_branch(el, program, st: PIf, cond, names: set, block_vars: set) -> bool:
    """A branch on a loaded number whose outcome may differ between loop iterations (a grouped
    GEMM's epilogue: stage the tile through shared memory and a TMA store when it is full, store
    straight to global memory when it is ragged) is checked taken every time when every pattern
    of outcomes can only leave instances of its arm out, and leaving them out cannot create a
    race or a hang (docs/model.md, "Data-dependent values"):
    - the condition is the same for every thread that reaches it at one iteration: block
      indices, sizes, the cluster rank and variables of enclosing loops with uniform bounds;
    - the other arm touches no shared memory and synchronizes nothing;
    - the arm synchronizes only through named barriers no statement outside it uses (the threads
      that skip an instance skip it together), starts with one before any shared access, and
      waits for every TMA store it issues (an instance is fenced off from every other);
    - registers written in either arm are read nowhere outside the branch;
    - (checked by the machine, `fenced_arms`) no access outside the arm meets the arm's bytes."""
    if isinstance(st, PWhile) or not st.then:
        return False
    path = _path_to(program.body, st)
    if path is None or any(isinstance(x, PWhile) for x in path):
        return False
    thread_vars = set(el.launch.thread_vars)
    loop_vars: set = set()
    for node in path:
        if isinstance(node, PLoop):
            exprs = [x for x in node.src if x is not None]
            if any(_subscripts(x, []) or free_names(x) & thread_vars or not _uniform_calls(x) for x in exprs) \
                    or set().union(*(free_names(x) for x in exprs)) - block_vars - set(program.symbols) \
                    - loop_vars:
                return False
            loop_vars.add(node.var)
    if names - block_vars - set(program.symbols) - loop_vars or not _uniform_calls(cond):
        return False
    if not _inert(st.other) or not _fenced_arm(st.then):
        return False
    ids = _barrier_ids(st.then)
    if ids is None or 0 in ids:
        return False
    written = {x.region for x in statements(st.then + st.other) if isinstance(x, PStore)}
    for node in _outside(program.body, st):
        if isinstance(node, POp) and node.name in _BARRIER_OPS:
            other_ids = _barrier_ids((node,))
            if other_ids is None or other_ids & ids:
                return False
        for e in _sources(node):
            for x in _subscripts(e, []):
                reg = el.register_of(el.view_of(x.value))
                if reg is not None and reg[0] in written:
                    return False
    return True


def _uniform_calls(e) -> bool:
    return all(x.name in _UNIFORM_CALLS for x in ir.nodes(e) if isinstance(x, ir.Call))


def _path_to(body, target, path=()) -> tuple | None:
    """The loops and branches around `target`, outermost first, or None."""
    for s in body:
        if s is target:
            return path
        for sub in _children(s):
            got = _path_to(sub, target, path + (s,))
            if got is not None:
                return got
    return None


def _children(s) -> tuple:
    if isinstance(s, PIf):
        return (s.then, s.other)
    if isinstance(s, PLoop):
        return (s.body,)
    return ()


def _outside(body, skip):
    """Every statement at any depth except `skip` and what it holds."""
    for s in body:
        if s is skip:
            continue
        yield s
        for sub in _children(s):
            yield from _outside(sub, skip)


def _sources(node) -> list:
    """The syntax a statement was elaborated from (ir.nodes walks tuples), if it kept any."""
    src = getattr(node, "src", None)
    return [] if src is None else [src]


def _inert(stmts) -> bool:
    """Only register stores and lets, at any depth: no shared access, no synchronization."""
    for s in stmts:
        if isinstance(s, (PStore, PLet)):
            continue
        if isinstance(s, PIf) and not isinstance(s, PWhile) and _inert(s.then) and _inert(s.other):
            continue
        if isinstance(s, PLoop) and _inert(s.body):
            continue
        return False
    return True


def _fenced_arm(stmts) -> bool:
    """The arm's operations are _FENCED_ARM_OPS; a named barrier comes before its first shared
    access; every TMA store is followed in its own statement list by a `tma_store_wait(0)`."""
    for s in statements(stmts):
        if isinstance(s, PNote) or isinstance(s, PWhile) or isinstance(s, POp) and s.name not in _FENCED_ARM_OPS:
            return False
    if _first_event(stmts) != "barrier":
        return False
    return _stores_waited(stmts)


def _first_event(stmts) -> str | None:
    """"barrier" when a barrier surely comes before any shared access, "access" when an access
    may come first, None when neither happens."""
    for s in stmts:
        if isinstance(s, POp):
            if s.name in ("tvm_storage_sync", "named_barrier_sync"):   # an arrive alone waits for nobody
                return "barrier"
            if s.name in _ACCESS_ONLY_OPS or s.name == "tma_store":
                return "access"
        elif isinstance(s, PLoop):
            got = _first_event(s.body)
            extent = s.src[1] if len(s.src) > 1 else None
            runs = isinstance(extent, ir.Const) and isinstance(extent.value, int) and extent.value > 0 \
                and isinstance(s.src[0], ir.Const)
            if got == "access" or got == "barrier" and runs:
                return got
        elif isinstance(s, PIf):
            a, b = _first_event(s.then), _first_event(s.other)
            if "access" in (a, b):
                return "access"
            if a == b == "barrier":
                return "barrier"
    return None


def _stores_waited(stmts) -> bool:
    for i, s in enumerate(stmts):
        if isinstance(s, POp) and s.name == "tma_store":
            if not any(isinstance(x, POp) and x.name == "tma_store_wait" and isinstance(x.src, ir.Call)
                       and x.src.args and x.src.args[0] == ir.Const(0) for x in stmts[i + 1:]):
                return False
        for sub in _children(s):
            if not _stores_waited(sub):
                return False
    return True


def _barrier_ids(stmts) -> set | None:
    """The barrier ids the statements use (0: `__syncthreads`, every thread of the block); None
    when one is not a literal."""
    ids: set = set()
    for s in statements(stmts):
        if isinstance(s, POp) and s.name in _BARRIER_OPS:
            args = s.src.args if isinstance(s.src, ir.Call) else ()
            if s.name == "tvm_storage_sync":
                if len(args) == 1:
                    ids.add(0)
                    continue
                if len(args) == 2 and args[1] != ir.Const(0):
                    return None   # `bar.sync id, 0`: every thread of the block, on barrier id
                args = args[1:]
            if not args or not isinstance(args[0], ir.Const) or not isinstance(args[0].value, int):
                return None
            ids.add(args[0].value)
    return ids


def _arm_extent(st: PIf) -> tuple:
    """(the branch's span, first and last source offsets of the arm's statements): what the machine treats as
    inside a fenced arm."""
    spans = [s.span for s in statements(st.then) if getattr(s, "span", None) is not None]
    return (st.span, min(x.start for x in spans), max(x.end for x in spans))


def _guarded(effects: list, cond, src, side: bool) -> list:
    """`effects` (POps of one arm of a selection) run only by the threads whose `cond` is `side`;
    by every thread where `cond` (Elaborator.compile_if_known) has no value in the run, or where
    it is None (no compiled condition). Names and syntax stay the POps' own, so every analysis
    that reads them is unchanged; only a run's threads differ. `src`: the condition's syntax, in
    `POp.guard` for the gate's emitter."""
    if cond is None:
        return effects

    def guard(run):
        def guarded(env, tids):
            c = cond(env)
            if c is None:
                return run(env, tids)
            if isinstance(c, np.ndarray):
                keep = c[tids].astype(bool) == side
                if keep.all():
                    return run(env, tids)
                if not keep.any():
                    return []
                return run(env, interned(tids[keep]))
            return run(env, tids) if bool(c) == side else []
        return guarded
    return [POp(x.name, x.span, guard(x.run), x.src, ((src, side),) + x.guard) if isinstance(x, POp) else x
            for x in effects]


def _numeric_pass(el, program: Program) -> None:
    """Find where numbers loaded from read-only global memory decide anything the machine runs,
    and prepare what engine/inputs.py enumerates (its module text says the cases)."""
    from .exprs import shared_index_exprs as _shared_exprs
    numeric_roots = {r for r, t in el.truth_only.items() if not t and r not in el.written_roots}
    if not numeric_roots:
        return
    info = NumericInputs()
    program.numeric = el.numeric_info = info
    block_vars = set(el.launch.block_vars)
    lets: dict = {}      # let name -> its value as written (names of earlier lets inside)
    conds: list = []     # (PIf, loop variables around it): relevant branches on a loaded number
    loops: list = []     # relevant loops whose bounds mention a loaded number
    problems: list = []

    def is_cell(x) -> bool:
        view = el.view_of(x.value) if isinstance(x, ir.Subscript) else None
        return view is not None and el.roots.get(view.name) in numeric_roots

    data_registers: set = set()   # register regions that hold a value computed from a loaded number
    data_shared: set = set()      # shared regions whose every write stores such a value

    def is_data(x) -> bool:
        """A load of a loaded number, of a register holding one, or of shared memory holding one."""
        if is_cell(x):
            return True
        view = el.view_of(x.value) if isinstance(x, ir.Subscript) else None
        reg = el.register_of(view)
        if reg is not None:
            return reg[0] in data_registers
        return view is not None and view.is_shared and view.region is not None and \
            view.region.name in data_shared

    def mentions(e) -> bool:
        return bool(free_names(e) & set(lets)) or any(is_data(x) for x in _subscripts(e, []))

    _fold_trips(el, program, info, is_cell)
    _register_lets(el, program, is_cell)
    _register_copies(el, program, is_cell)
    _taint_registers(el, program.body, el.func.body, lets, data_registers, data_shared, mentions)

    def walk(stmts, loop_vars: frozenset, loop=None, around: tuple = ()) -> None:
        for st in stmts:
            if isinstance(st, PLet):
                if st.src is not None and mentions(st.src):
                    lets[st.name] = st.src
            elif isinstance(st, PIf):
                if st.src is not None and mentions(st.src):
                    if not st.relevant:
                        skipped.append(st)
                        continue
                    conds.append((st, loop_vars))
                    parents[id(st)] = loop
                    enclosing[id(st)] = around
                if st.relevant:
                    walk(st.then, loop_vars, around=around)
                    walk(st.other, loop_vars, around=around)
            elif isinstance(st, PLoop):
                if not st.relevant:
                    continue
                if any(mentions(x) for x in st.src):
                    loops.append(st)
                walk(st.body, loop_vars | {st.var}, st, around + (st,))
            elif isinstance(st, POp) and st.src is not None:
                out: list = []
                _shared_exprs(st.src, el.views, out)
                if any(mentions(x) for x in out):
                    uses.append((out, f"line {st.span.line}: a loaded number decides a shared "
                                      "address or a synchronization argument"))
            elif isinstance(st, PStore):
                # a value computed from a loaded number only makes the register data (its uses
                # are judged where they decide something); an element chosen by one is unknown
                if st.src and st.src[0] is not None and mentions(st.src[0]):
                    uses.append(([st.src[0]], f"line {st.span.line}: a loaded number decides "
                                              "which register element is written"))

    uses: list = []      # (expressions, why): shared addresses / registers reading a loaded number
    skipped: list = []   # branches the machine skips (nothing shared inside) on a loaded number
    parents: dict = {}   # id(branch) -> the loop whose body holds it directly (None: none)
    enclosing: dict = {}  # id(branch) -> the relevant loops around it, outermost first
    walk(program.body, frozenset())
    if not (lets or conds or loops or uses or info.fold_trips):
        program.numeric = el.numeric_info = None   # loaded numbers decide nothing: as before
        return
    for st in skipped:
        st.src = None   # nothing for a prover to read
    replaced, fix = _length_symbols(el, program, info, lets, conds, loops, numeric_roots, problems)
    other_lets = {n: v for n, v in lets.items() if n not in replaced}

    def expand(e):
        return fix(_inline(fix(e), other_lets))

    # a length symbol may decide shared addresses: the size prover reads them like a dynamic K's
    for exprs, why in uses:
        if any(free_names(expand(x)) & set(lets) or any(is_data(c) for c in _subscripts(expand(x), []))
               for x in exprs):
            problems.append(why)

    # branches around shared accesses only whose condition also reads a symbolic size (`bos +
    # max_kv_i < S`): enumerating their cells would tie the size to loaded numbers, which no size
    # proof follows, so they are taken by every thread instead, with every other branch on the
    # same cells (all of them around shared accesses only: a branch on one of those cells around
    # a barrier must see the same outcome as they do), where no bound or use reads the cells
    def cell_texts(e) -> set:
        return {expr_text(x) for x in _subscripts(expand(e), []) if is_cell(x)}
    owner: dict = {}     # cell text -> the ids of the branches reading it
    for st, _ in conds:
        for c in cell_texts(st.src):
            owner.setdefault(c, set()).add(id(st))
    by_id = {id(st): st for st, _ in conds}
    used = set()
    for x in [x for lp in loops for x in lp.src] + [x for exprs, _ in uses for x in exprs]:
        used |= cell_texts(x)
    takes: set = set()
    for st, _ in conds:
        if id(st) in takes or not cell_texts(st.src) or not free_names(expand(st.src)) & set(program.symbols):
            continue   # (a condition of length symbols alone is the size provers' to decide)
        group, todo = set(), [id(st)]
        while todo:   # the branches linked to this one by a shared cell
            i = todo.pop()
            if i not in group:
                group.add(i)
                todo += [j for c in cell_texts(by_id[i].src) for j in owner[c]]
        members = [by_id[i] for i in group]
        if all(not m.other and _access_only(m.then) and _may_hold(expand(m.src), is_data) and
               not cell_texts(m.src) & used for m in members):
            takes |= group

    taken_now: list = []   # (branch, its condition, expanded, cells) reduced as taken
    for st, loop_vars in conds:
        cond = expand(st.src)
        cells = [x for x in _subscripts(cond, []) if is_cell(x)]
        # registers and shared memory holding a value computed from a loaded number: the
        # machine never knows it, for any thread (only the reductions below apply)
        held = [x for x in _subscripts(cond, []) if not is_cell(x) and is_data(x)]
        names = free_names(cond) - {x.value.name for x in cells if isinstance(x.value, ir.Var)}
        uniform = names <= block_vars | set(program.symbols)
        if id(st) in takes:
            # it only guards shared accesses: taken by every thread, every pattern of outcomes
            # runs a subset of its accesses, and no condition of it is left to enumerate or for
            # the size provers (`bos + max_kv_i < S` would tie S to loaded numbers)
            taken_now.append((st, st.cond, cond, cells))
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "taken"))
            info.taken_arms.append(arm_lines(st))
        elif uniform and cells and not held:
            for sub in cells:
                info.cells[id(sub)] = _cell_key(el, sub)
            info.conditions.append((cond, st.span.line))
        elif cells and all(c == cells[0] for c in cells) and not held and \
                _iteration_choice(el, program, st, parents.get(id(st)), cond, cells[0], lets, mentions):
            continue
        elif not cells and not held and not (
                names & set(el.launch.thread_vars) and _access_only(st.then)
                and _access_only(st.other) and _same_accesses(st.then, st.other)):
            # decided by sizes, loop counters and thread ids: the size prover reads it (a
            # condition it cannot reduce to trip counts refutes the proof, never the verdict)
            continue
        elif cells and not held and not st.other and _access_only(st.then) and \
                _unrolled_conditions(el, program, info, cond, st, names - block_vars,
                                     enclosing.get(id(st), ()), is_cell):
            continue   # an arm of accesses alone, decided per iteration rather than taken every time
        elif not st.other and _access_only(st.then):
            taken_now.append((st, st.cond, cond, cells))
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "taken"))
            info.taken_arms.append(arm_lines(st))
        elif _access_only(st.then) and _access_only(st.other) and _same_accesses(st.then, st.other):
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "same"))
        elif not held and _fenced_branch(el, program, st, cond, names, block_vars):
            # every outcome pattern runs a subset of the taken-everywhere run's fenced instances
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "fenced"))
            info.taken_arms.append(arm_lines(st))
            program.fenced_arms.append(_arm_extent(st))
        elif cells and not held and _unrolled_conditions(el, program, info, cond, st, names - block_vars,
                                                         enclosing.get(id(st), ()), is_cell):
            continue   # (the fenced reduction first: one run where it applies, not a pattern each)
        elif cells and all(c == cells[0] for c in cells) and not held and \
                _iteration_choice(el, program, st, parents.get(id(st)), cond, cells[0], lets, mentions,
                                  allow_pattern=True):
            continue   # every pattern run as it is (no reduction above applies)
        else:
            problems.append(f"line {st.span.line}: a branch on a loaded number" +
                            (f" (held in {', '.join(sorted({expr_text(x.value) for x in held}))})"
                             if held else "") +
                            " that differs between threads or loop iterations, or decides "
                            "synchronization")
    _decide_like_enumerated(el, info, taken_now)
    _check_iteration_roots(el, program, problems)
    if problems:
        info.problem = problems[0]
        for sym, _ in info.lengths:   # no size to plan: the kernel stays unknown, quickly
            if sym in program.symbols:
                program.symbols.remove(sym)
        program.size_assumptions.clear()
    # a loaded number left in a let decides nothing the machine runs (or a problem above says
    # so): the provers need not read it (a page-table lookup feeding a global address)
    _drop_let_sources(program.body, set(lets) - replaced)
    _live_control(el, program)


_FULL_BARRIER_SCOPES = ("shared", "shared.dyn")


# the most iterations of the loops around a branch `_unrolled_conditions` writes out
UNROLLED_CONDITIONS = 16


def _unrolled_conditions(el, program: Program, info, cond, st: PIf, names: set,
                         around: tuple, is_cell) -> bool:
    """A branch on loaded cells inside loops of few constant trips (TileLang's pipelined sparse
    attention with 4 selected blocks: `for i in T.serial(2): if M[i_t * 4 + i] * 64 <= i_t:` around
    the compute of stage i, beside the prologue's loads of the same cells under the same test)
    whose condition reads, besides the cells, only block indices, sizes and those loops' variables:
    in each iteration it is a block-uniform condition on one set of cells, as a branch outside the
    loops is. Written out once per iteration (the loop variables replaced by their values), each
    copy joins the uniform conditions whose outcome combinations the runs enumerate, so a cell
    that the prologue's branch reads as well gets one value in both (before, such a branch was
    taken every time, and a run read a stage whose load the prologue's outcome had skipped: an
    unknown). True when written out; False leaves the branch to the other reductions."""
    free = names - set(program.symbols)
    loops = [lp for lp in around if lp.var in free]
    if not free or {lp.var for lp in loops} != free or len(loops) != len(free):
        return False
    ranges = []
    for lp in loops:
        if len(lp.src) != 2 or not all(isinstance(e, ir.Const) and isinstance(e.value, int)
                                       and not isinstance(e.value, bool) for e in lp.src):
            return False
        ranges.append(range(lp.src[0].value, lp.src[0].value + lp.src[1].value))
    if not ranges or math.prod(len(r) for r in ranges) > UNROLLED_CONDITIONS:
        return False
    copies = []
    for values in itertools.product(*ranges):
        bound = dict(zip((lp.var for lp in loops), values))
        copies.append(ir.rewrite(cond, lambda x: ir.Const(bound[x.name])
                                 if isinstance(x, ir.Var) and x.name in bound else None))
    # each cell doubles the outcome combinations: past the runs' pattern limit the search would
    # stop unfinished (an unknown, after many runs); the branch is then left as before
    texts = {expr_text(x) for c in [c for c, _ in info.conditions] + copies
             for x in _subscripts(c, []) if is_cell(x)}
    if 2 ** len(texts) > info.max_patterns:
        return False
    for copy in copies:
        for sub in (x for x in _subscripts(copy, []) if is_cell(x)):
            info.cells[id(sub)] = _cell_key(el, sub)
        info.conditions.append((copy, st.span.line))
    return True


def _iteration_choice(el, program: Program, st: PIf, loop, cond, cell, lets: dict,
                      mentions, allow_pattern: bool = False) -> bool:
    """`for k: x = M[f(k)]; __syncthreads(); if c(x): B1; __syncthreads(); if c(x): B2 ...`
    (NSA's selected blocks): one cell per iteration, at an address the same for every thread,
    decides whether the iteration's branches run, and nothing else the machine evaluates reads
    the cell or `k`. The outcome of each iteration is then an unknown truth value of the run
    (engine/inputs.py), the same for every thread, searched by pattern. What is required:
    - the loop body is lets of the loaded number (all before the first branch), full-block
      barriers (`__syncthreads`, every thread) and branches with no `else` on one condition, so
      a false iteration has no event but those barriers;
    - the branches read neither `k` nor a loaded number in anything the machine evaluates
      (shared addresses, synchronization arguments, branches, bounds, registers, lets): a true
      iteration does the same whichever k it is;
    - the loop's bounds are the same for every thread and read no loaded number;
    - the parameter is loaded nowhere else, the cell address reads only `k`, block indices and
      sizes, distinct k read distinct cells (z3), and the condition reads only the cell, block
      indices and sizes: the outcomes of different iterations are independent, and for each
      block z3 decides whether both outcomes are possible (else the one possible is taken).
    So every outcome pattern is possible, and a run depends on it only through its sequence of
    false iterations (F: barriers only) and true ones (T). Two barriers with nothing between
    order what one orders, so consecutive Fs run like one, and an F next to a T's own barrier
    (before its first branch, or after its last) runs like nothing: with a barrier before the
    first branch a pattern runs like T^m or T^m F, with one after the last like T^m or F T^m (m
    true iterations); with no barrier at all an F does nothing and only m matters. The search
    (`Inputs.value`) runs the patterns whose outcome changes at most once (mode "monotone": true
    ones all first, or all last) or the counts (mode "count"): every class is among them. A
    barrier only between branches would not collapse (T F T differs from T T): not taken.
    Barriers inside a branch's arm (TileLang's block-sparse TMA copy: shared stores, sync, an
    elected TMA store and its wait) change none of this: every thread takes the same outcome, so
    a true iteration's own barriers are passed by all threads alike, and the collapse only reads
    the loop-level barriers next to a false iteration's (two barriers with nothing between,
    whatever is in flight). The cell may be read through a register copy (`_register_copies`).

    Where the patterns do not collapse (a branch evaluates `k` or a value of the loaded number,
    a barrier lies only between branches) and `allow_pattern` (asked last, where no other
    reduction of `_numeric_pass` applies), mode "pattern" runs each pattern as it is: exact, as
    every pattern is an input; a loop longer than MAX_PATTERN_TRIPS or of symbolic length varies
    only its first PATTERN_ITERATIONS iterations and is never proved (`Program.open_patterns`)."""
    from .inputs import INPUTS
    if loop is None or not loop.relevant or not loop.body:
        return False
    plans = el.__dict__.setdefault("_iteration_plans", {})
    if id(loop) in plans:   # the loop's other branches: one plan, one cell per iteration
        plan = plans[id(loop)]
        if plan is None or plan[0] != cond or st not in plan[2]:
            return False
        st.cond = plan[1]
        return True
    plans[id(loop)] = None
    branches, barriers = [], []
    for pos, x in enumerate(loop.body):
        if isinstance(x, PLet) and x.name in lets and not branches:
            continue
        if isinstance(x, POp) and x.name == "tvm_storage_sync" and isinstance(x.src, ir.Call) \
                and len(x.src.args) == 1 and el.literal(x.src.args[0]) in _FULL_BARRIER_SCOPES:
            barriers.append(pos)
            continue
        if isinstance(x, PIf) and not isinstance(x, PWhile) and not x.other and x.src == st.src:
            branches.append(x)
            continue
        return False
    first, last = loop.body.index(branches[0]), loop.body.index(branches[-1])
    # where the patterns do not collapse (an arm that reads k or a loaded number, a barrier
    # only between branches), every pattern is run as it is: "pattern" mode, below
    collapses = not barriers or (barriers[0] < first or barriers[-1] > last) and \
        _outside_branches(program.body, loop)
    for b in branches:
        evaluated = _evaluated_names(el, b.then)
        if evaluated is None:
            return False
        if evaluated & (set(lets) | {loop.var}):
            collapses = False
        stack = list(b.then)
        while stack:   # no loaded number decides anything inside (no other data branch or bound)
            x = stack.pop()
            if isinstance(x, PIf):
                if x.src is not None and mentions(x.src):
                    return False
                stack += list(x.then) + list(x.other)
            elif isinstance(x, PLoop):
                if any(mentions(e) for e in x.src):
                    return False
                stack += list(x.body)
            elif isinstance(x, PStore) and x.src and x.src[0] is not None and mentions(x.src[0]):
                return False   # (a register element chosen by a loaded number)
            elif isinstance(x, (PLet, PStore)) and x.src is not None and any(
                    e is not None and mentions(e) for e in (x.src if isinstance(x, PStore) else (x.src,))):
                collapses = False   # a value computed from it: exact only pattern by pattern
    uniform = set(el.launch.block_vars) | set(program.symbols)
    if not loop.src or free_names(loop.src) - uniform or any(mentions(e) for e in loop.src):
        return False
    placeholder = ir.Var("\x00cell")
    outside = _replace_subscripts(cond, [(cell, placeholder)])
    if free_names(outside) - uniform - {placeholder.name, loop.var} or \
            free_names(cell.indices) - uniform - {loop.var}:
        return False
    view = el.view_of(cell.value)
    root = el.roots.get(view.name) if view is not None else None
    if root is None or root in el.written_roots:
        return False
    if not _injective(tuple(cell.indices), loop.var, loop.src):
        return False
    if not collapses and not allow_pattern:
        del plans[id(loop)]   # (asked again, last, where no reduction of _numeric_pass applies)
        return False
    _, key_fn, bits = _cell_key(el, cell)
    names = sorted(free_names(outside) - {placeholder.name})
    mode = "pattern" if not collapses else "monotone" if barriers else "count"
    lines = tuple(b.span.line for b in branches)
    # several loops meeting the same cells in the same order (a producer's and a consumer's)
    # share one group: _check_iteration_roots requires them all counted, or runs them all by
    # pattern (`plan_mode`, shared by the loops of one parameter)
    plan_mode = el.__dict__.setdefault("_iteration_modes", {}).setdefault(root, {"mode": mode})
    if mode == "pattern":
        plan_mode["mode"] = "pattern"
    possible: dict = {}   # values of the condition's other names -> None (both) or the one outcome
    witness_values: dict = {}   # the same -> {outcome: a cell value that gives it}
    span, esize, offset = st.span, view.elem_size, view.byte_offset
    open_loop = _pattern_open(loop)

    def choose(env):
        inputs = env.get(INPUTS)
        if inputs is None:
            raise NotConcrete("a value loaded from global memory (data-dependent)", span)
        try:
            key = key_fn(env)
            here = tuple(int(env[n]) for n in names)
        except Exception as err:  # noqa: BLE001 -- a cell or size this run cannot compute: unknown
            raise NotConcrete(f"the cell deciding this branch ({err})", span) from None
        mode_now = plan_mode["mode"]   # (final before any run: _check_iteration_roots)
        if here not in possible:
            witness_values[here] = {}
            possible[here] = _outcomes(outside, placeholder.name, bits, dict(zip(names, here)), span,
                                       signed=not str(view.dtype).startswith("uint"),
                                       witnesses=witness_values[here])
        if possible[here] is not None:
            if mode_now == "monotone":   # the shape of the pattern matters, not only its count
                raise NotConcrete("an iteration whose outcome the loaded value cannot change, in a "
                                  "loop searched by the shape of its pattern", span)
            return possible[here]   # counted (or every pattern run): every possible count is reached
        # by pattern: the plain depth-first search, every pattern of the cells met (inputs.py).
        # A loop of symbolic length is never proved this way (analyze.py says so): only its first
        # PATTERN_ITERATIONS iterations vary, the rest taken, so a long size run stays one run
        # per pattern of those (what it finds is real: it is a possible input)
        varied = not (mode_now == "pattern" and open_loop and
                      _iteration_index(env, loop) >= PATTERN_ITERATIONS)
        group = None if mode_now == "pattern" else ("iteration", root, mode_now)
        outcome = bool(inputs.value(key, f"{view.name}[{(key[1] - offset) // esize}]", varied,
                                    group=group))
        if outcome in witness_values[here]:
            # a witness names the cell's value, not the outcome (`0 <= idx` false: idx = -1),
            # which the sanitizer gate launches with
            inputs.shown.setdefault(key, witness_values[here][outcome])
        return outcome
    # where z3 shows both outcomes possible in every block (the condition's other names are
    # block indices of fixed extents), the branches decide nothing that differs between blocks:
    # their conditions leave the control names, so one block stands for all (`_live_control`)
    ranges = {n: el.launch.block_range(el.launch.block_vars[n]) for n in names
              if n in el.launch.block_vars}
    if len(ranges) == len(names) and all(r is not None for r in ranges.values()) and \
            _possible_everywhere(outside, placeholder.name, bits, ranges,
                                 signed=not str(view.dtype).startswith("uint")):
        program.__dict__.setdefault("uniform_choice_lines", set()).update(lines)
        everywhere = True
    else:
        everywhere = False
    # a cell value that takes the branches in every launch and iteration: every outcome
    # pattern may be all true (_check_iteration_roots; every loop of the root must agree)
    takes = el.__dict__.setdefault("_iteration_takes", {})
    takes[root] = takes.get(root, True) and _true_everywhere(
        outside, placeholder.name, bits, signed=not str(view.dtype).startswith("uint"))
    originals = [(b, b.cond) for b in branches]
    for b in branches:
        b.cond = choose
    plans[id(loop)] = (cond, choose, branches)
    loop.per_iteration_inputs = True
    canon = _rewrite(tuple(cell.indices), {loop.var: ir.Var("%k")})
    el.__dict__.setdefault("_iteration_roots", {}).setdefault(root, []).append(
        (loop, canon, mode, originals))
    program.iteration_choices.append((loop.span.line, lines, root, mode, everywhere))
    return True


def _pattern_open(loop: PLoop) -> bool:
    """Whether a loop run pattern by pattern has more patterns than a search runs: a length
    that is not one constant of at most MAX_PATTERN_TRIPS (a symbolic size, a long loop)."""
    try:
        trips = int(loop.extent({}))
    except Exception:  # noqa: BLE001 -- a length that reads a size or a block index
        return True
    return trips > MAX_PATTERN_TRIPS


def _iteration_index(env: dict, loop: PLoop) -> int:
    """How many iterations of `loop` came before the current one (its bounds are uniform)."""
    try:
        return int(np.max(env[loop.var])) - int(np.max(loop.start(env)))
    except Exception:  # noqa: BLE001 -- not computable here: count it among the first
        return 0


def _check_iteration_roots(el, program: Program, problems: list) -> None:
    """The loops `_iteration_choice` planned, per parameter: every load of it is one of theirs
    (one per loop), and several loops read the same cells in the same order (one index
    expression, one range) and are all counted (a false iteration does nothing in any of them),
    so one count per run stands for every pattern in each. Otherwise the branches get their
    conditions back (the run cannot evaluate them: `unknown`) and the problem is said."""
    for root, entries in getattr(el, "_iteration_roots", {}).items():
        loads = [x for x in _subscripts(el.func.body, []) if
                 (lambda v: v is not None and el.roots.get(v.name) == root)(el.view_of(x.value))]
        # a register copy of the parameter (`_register_copies`): each read of the register is a
        # load of its cell, the copy itself none
        copied, copy_reads = el.__dict__.get("register_copies", {}).get(root, (set(), []))
        loads = [x for x in loads if id(x) not in copied] + list(copy_reads)
        loop0, canon0, _, _ = entries[0]
        # by pattern, every loop's outcomes are its cells' (keyed by address), whatever the order
        by_pattern = el.__dict__.get("_iteration_modes", {}).get(root, {}).get("mode") == "pattern"
        why = None
        if len(loads) != len(entries):
            why = "is loaded outside the loops whose iterations it decides"
        elif len(entries) > 1 and not by_pattern and not all(
                mode == "count" and canon == canon0 and lp.src == loop0.src for lp, canon, mode, _ in entries):
            why = ("decides the iterations of several loops that do not meet the same cells in "
                   "the same order, or pass a barrier in a false iteration")
        if why is None:
            if by_pattern:
                program.iteration_choices[:] = [c[:3] + ("pattern",) + c[4:] if c[2] == root else c
                                                for c in program.iteration_choices]
                # a loop whose length is a symbolic size: its longer runs have more patterns than
                # any size run checks, so no size proof covers them (analyze.py says so)
                program.open_patterns += [(lp.span.line, root) for lp, _, _, _ in entries
                                          if _pattern_open(lp)]
            elif el.__dict__.get("_iteration_takes", {}).get(root):
                program.true_possible_roots.add(root)
            continue
        problems.append(f"line {loop0.span.line}: {root} {why}")
        for _, _, _, originals in entries:
            for b, fn in originals:
                b.cond = fn
        program.iteration_choices[:] = [c for c in program.iteration_choices if c[2] != root]


def _encode_truth(cond, zenv: dict) -> tuple:
    """(z3 truth of `cond`, encode's side conditions) with names as in `zenv`; a number is true
    when not 0. Raises encode's Unencodable (or a z3 error)."""
    import z3

    from ..prover.encode import encode
    term, side = encode(cond, zenv)
    return (term if z3.is_bool(term) else term != 0), side


def _cell_range(bits: int, signed: bool) -> tuple[int, int]:
    """[lo, hi) of a `bits`-bit cell's values."""
    return (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)


def _only_value(cond, name: str) -> int | None:
    """z3: the one integer value of `name` for which `cond` holds; None when it holds for none,
    for several, or z3 cannot encode it."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import Query
    x = z3.Int(name)
    try:
        truth, side = _encode_truth(cond, {name: x})
    except (Unencodable, z3.Z3Exception):
        return None
    q = Query(*side, truth)
    if q.check() != z3.sat:
        return None
    k = q.number(x)
    if Query(*side, truth, x != k).check() != z3.unsat or abs(k) >= 2 ** 31:
        return None
    return k


def _may_hold(cond, is_data) -> bool:
    """z3: `cond` is true for some values of its names, every loaded value (`is_data`) a name of
    its own: a branch checked taken is one some input takes, so what is found inside is real.
    True where z3 cannot tell (an unencodable condition: the taken run still covers every race)."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import Query
    loads: dict = {}

    def name_load(x):
        if isinstance(x, ir.Subscript) and is_data(x):
            return loads.setdefault(x, ir.Var(f"%load{len(loads)}"))
        return None
    plain = ir.rewrite(cond, name_load)
    env = {n: z3.Int(n) for n in free_names(plain)}
    try:
        truth, side = _encode_truth(plain, env)
    except (Unencodable, z3.Z3Exception):
        return True
    return Query(*side, truth).check() != z3.unsat


def _possible_everywhere(cond, cell: str, bits: int, ranges: dict, signed: bool) -> bool:
    """z3: for every value of the names in `ranges` (name -> (lo, hi)) some cell value makes
    `cond` true and some makes it false."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import unsat
    v = z3.Int("cell")
    zenv = {cell: v, **{n: z3.Int(n) for n in ranges}}
    try:
        truth, side = _encode_truth(cond, zenv)
    except Unencodable:
        return False
    if side:
        return False   # auxiliary variables would need quantifying too
    lo, hi = _cell_range(bits, signed)
    within = [c for n, (a, b) in ranges.items() for c in (zenv[n] >= a, zenv[n] < b)]
    cell_ok = z3.And(v >= lo, v < hi)
    return all(unsat(*within, z3.ForAll([v], z3.Implies(cell_ok, t)))
               for t in (z3.Not(truth), truth))


def _true_everywhere(cond, cell: str, bits: int, signed: bool) -> bool:
    """z3: one small value of the cell (0, 1 or -1, within its type) makes `cond` true for every
    value of its other names (`0 <= T.if_then_else(g, cell, 0)` with cell 0, whatever g)."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import unsat
    lo, hi = _cell_range(bits, signed)
    for value in (0, 1, -1):
        if not lo <= value < hi:
            continue
        fixed = _opaque_divisions(_rewrite(cond, {cell: ir.Const(value)}))
        try:
            truth, side = _encode_truth(fixed, {n: z3.Int(n) for n in free_names(fixed)})
        except (Unencodable, z3.Z3Exception):
            return False
        # (`side` defines a division's quotient and remainder from the names: no choice in it)
        if unsat(*side, z3.Not(truth)):
            return True
    return False


def _opaque_divisions(e):
    """`e` with each division, remainder or shift by a non-constant (`num_blocks // num_split`)
    a fresh name: z3 cannot encode them, and what holds for every value of the name holds for
    theirs."""
    fresh: dict = {}

    def name(x):
        if isinstance(x, ir.BinOp) and x.op in ("//", "%", "/", ">>", "<<") and not isinstance(x.right, ir.Const):
            return fresh.setdefault(x, ir.Var(f"%opaque{len(fresh)}"))
        return None
    return ir.rewrite(e, name)


def _outside_branches(stmts, target) -> bool:
    """`target` sits in `stmts` with loops, and no branch, around it."""
    for st in stmts:
        if st is target:
            return True
        if isinstance(st, PLoop) and _outside_branches(st.body, target):
            return True
    return False


def _outcomes(cond, cell: str, bits: int, env: dict, span, signed: bool = True,
              witnesses: dict | None = None):
    """None when `cond` may be true and may be false for some value of the signed `bits`-bit
    cell (the other names as in `env`); else the one outcome possible (z3). `witnesses`, where
    given, gets a value of the cell for each possible outcome ({True: v, False: v})."""
    import z3

    from ..prover.encode import Unencodable
    from ..prover.solve import Query
    v = z3.Int("cell")
    cond = _rewrite(cond, {n: ir.Const(int(x)) for n, x in env.items()})   # constant divisors
    try:
        truth, side = _encode_truth(cond, {cell: v})
    except Unencodable as err:
        raise NotConcrete(f"a branch on a loaded value z3 cannot express ({err})", span) from None
    lo, hi = _cell_range(bits, signed)
    bounds = [v >= lo, v < hi, *side]
    query = Query(*bounds)   # one context, each question pushed on it

    def sat(*terms):
        """The cell's value in a model of `terms`, or None when there is none."""
        query.solver.push()
        query.add(*terms)
        try:
            return query.number(v) if query.check() == z3.sat else None
        finally:
            query.solver.pop()
    can = [sat(t) is not None for t in (truth, z3.Not(truth))]
    if witnesses is not None:   # a value of the cell that gives each possible outcome
        for outcome, t, ok in zip((True, False), (truth, z3.Not(truth)), can):
            if ok:   # (a small one where it serves: -1 reads better than -2147483648)
                witnesses[outcome] = next((c for c in (0, 1, -1) if sat(t, v == c) is not None),
                                          None)
                if witnesses[outcome] is None:
                    witnesses[outcome] = sat(t)
    if all(can):
        return None
    if not any(can):
        raise NotConcrete("a branch on a loaded value that z3 finds neither true nor false", span)
    return can[0]


def _taint_registers(el, body, func_body, lets: dict, data_registers: set,
                     data_shared: set, mentions) -> None:
    """Follow a loaded number through lets, registers and shared memory, to a fixed point (a
    register written late in a loop body is read early in the next iteration): a let or a
    register store whose value `mentions` one makes its name data; a shared region is data when
    every write to it is a plain store (no copy or atomic names it) of such a value. What reads
    data is judged where it decides something (`_numeric_pass`)."""
    flat: list = []

    def collect(stmts) -> None:
        for st in stmts:
            if isinstance(st, (PLet, PStore)):
                flat.append(st)
            elif isinstance(st, PIf):
                collect(st.then)
                collect(st.other)
            elif isinstance(st, PLoop):
                collect(st.body)
    collect(body)
    stores: dict = {}      # shared region -> values stored by plain assignments
    pointed: set = set()   # shared regions some operation gets a pointer to (copies, atomics)
    for x in ir.nodes(func_body):
        if isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript):
            view = el.view_of(x.target.value)
            if view is not None and view.is_shared and view.region is not None:
                stores.setdefault(view.region.name, []).append(x.value)
        if isinstance(x, ir.Call) and x.name == "T.tvm_access_ptr" and len(x.args) == 5:
            view = el.view_of(x.args[1])
            if view is not None and view.is_shared and view.region is not None:
                pointed.add(view.region.name)
    changed = True
    while changed:
        changed = False
        for st in flat:
            if isinstance(st, PLet):
                if st.name not in lets and st.src is not None and mentions(st.src):
                    lets[st.name] = st.src
                    changed = True
            elif st.region not in data_registers and st.src and st.src[-1] is not None and \
                    mentions(st.src[-1]):
                data_registers.add(st.region)
                changed = True
        for region, values in stores.items():
            if region not in data_shared and region not in pointed and all(mentions(v) for v in values):
                data_shared.add(region)
                changed = True


def _fold_trips(el, program: Program, info, is_cell) -> None:
    """Loops whose trip count is computed alike in every thread from one-element registers that
    fold loaded numbers (DeepSeek V3.2's lightning indexer: `e_max[0] = -2**31`, then
    `for i in range(4): e_max[0] = T.max(e_max[0], min(ite(.., CuSeqLenKE[bx * 4 + i], 0),
    seq_len_kv))`, and the producer's and the consumers' `for n in range((e_max[0] + 255 -
    s_min[0]) // 256)`, each after its own identical folds). Each register's value is followed
    through the statement lists as an expression (a fold loop of constant extent unrolled; a
    store of anything else, a store inside a loop, or arms that disagree leave it unknown).
    Where every such loop's count reads as the same expression E of loaded numbers at
    block-uniform addresses and uniform names, E is one block-uniform number: the loops run the
    symbol `trips(line ..)` (every value >= 0; a negative E runs no iteration, as 0) instead, in
    the runs and for the provers. The registers themselves stay data: any other use that decides
    something the machine runs is reported there (unknown), so only the trip count is assumed."""
    uniform = set(el.launch.block_vars) | set(program.symbols) | set(el.symbols)

    def register(x):
        if not isinstance(x, ir.Subscript) or len(x.indices) != 1 or x.indices[0] != ir.Const(0):
            return None
        reg = el.register_of(el.view_of(x.value))
        return reg[0] if reg is not None and reg[2] == 1 and reg[0] not in el.escaped_registers else None

    def substitute(e, vals):
        """`e` with each register read replaced by its value; None where one is unknown."""
        missing = [x for x in ir.nodes(e) if register(x) is not None and vals.get(register(x)) is None]
        if missing:
            return None
        return ir.rewrite(e, lambda x: vals[register(x)] if register(x) is not None else None)

    def uniform_data(e) -> bool:
        subs = _subscripts(e, [])
        bases = {x.value.name for x in subs if isinstance(x.value, ir.Var)}
        return all(is_cell(x) and free_names(x.indices) <= uniform for x in subs) and \
            free_names(e) - bases <= uniform

    def stored(stmts, out: set) -> set:
        for st in stmts:
            if isinstance(st, PStore):
                out.add(st.region)
            elif isinstance(st, PIf):
                stored(st.then, out)
                stored(st.other, out)
            elif isinstance(st, PLoop):
                stored(st.body, out)
        return out

    def fold(lp: PLoop, vals):
        """A loop of constant extent whose body is one store into a register: its value after."""
        if len(lp.body) != 1 or not isinstance(lp.body[0], PStore) or len(lp.src) != 2:
            return None
        st = lp.body[0]
        start, extent = lp.src
        if not (isinstance(start, ir.Const) and isinstance(extent, ir.Const)) or \
                not 0 <= int(extent.value) <= 64 or st.size != 1 or len(st.src) != 2 or \
                st.src[0] != ir.Const(0) or st.src[1] is None:
            return None
        if not any(register(x) == st.region for x in ir.nodes(st.src[1])):
            return None   # not a fold: a store that does not read what it updates
        value = vals.get(st.region)
        for k in range(int(start.value), int(start.value) + int(extent.value)):
            here = dict(vals, **{st.region: value})
            value = substitute(_rewrite(st.src[1], {lp.var: ir.Const(k)}), here)
            if value is None or not uniform_data(value):
                return None
        return st.region, value

    found: list = []   # (loop, its trip count as an expression of loaded numbers)
    folds: set = set()   # registers some fold loop updates (a single store is `_register_lets`')

    def walk(stmts, vals: dict) -> dict:
        for st in stmts:
            if isinstance(st, PStore):
                value = None
                if st.size == 1 and len(st.src) == 2 and st.src[0] == ir.Const(0) and st.src[1] is not None:
                    value = substitute(st.src[1], vals)
                vals[st.region] = value if value is not None and uniform_data(value) else None
                if vals[st.region] is not None and any(register(x) == st.region for x in ir.nodes(st.src[1])):
                    # a fold of one step, written without its loop (`for bq_i in range(1)`, which
                    # TVM drops): it updates the register from its own known value, as a fold
                    # loop's iteration does (a register stored once stays `_register_lets`')
                    folds.add(st.region)
            elif isinstance(st, PIf):
                a, b = walk(st.then, dict(vals)), walk(st.other, dict(vals))
                vals = {k: a.get(k) if a.get(k) == b.get(k) else None for k in set(a) | set(b)}
            elif isinstance(st, PLoop):
                folded = fold(st, vals)
                if folded is not None:
                    vals[folded[0]] = folded[1]
                    folds.add(folded[0])
                    continue
                if st.relevant and len(st.src) == 2 and any(register(x) in folds for x in ir.nodes(st.src[1])):
                    trips = substitute(st.src[1], vals)
                    if trips is not None and _subscripts(trips, []) and uniform_data(trips) and \
                            not any(register(x) is not None for x in ir.nodes(st.src[0])):
                        found.append((st, trips))
                inner = stored(st.body, set())
                walk(st.body, {k: v for k, v in vals.items() if k not in inner})
                for r in inner:
                    vals[r] = None
        return vals
    walk(program.body, {})
    if not found or any(trips != found[0][1] for _, trips in found):
        return
    lines = sorted({lp.span.line for lp, _ in found})
    sym = f"trips(line {lines[0]})"
    written = expr_text(found[0][0].src[1])
    loaded = sorted({expr_text(x.value) for x in _subscripts(found[0][1], [])})
    for lp, _ in found:
        lp.extent = el.compile(ir.Var(sym))
        lp.src = (lp.src[0], ir.Var(sym))
    program.symbols.append(sym)
    program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
    program.size_lowest[sym] = 0
    info.lengths.append((sym, f"the trip count {written} of the loops at lines {lines}, registers "
                              f"every thread folds alike from numbers loaded from {', '.join(loaded)}"))
    info.fold_trips.append(sym)
    # the trip count as an expression of its cells (`fold0`, `fold1`, ..), for a launch that
    # must realise the symbol's value from the numbers it loads (the sanitizer gate: emit/prepare.py
    # fold_numbers): the skeleton folds the registers from them as the kernel does
    subs: dict = {}
    for x in _subscripts(found[0][1], []):
        subs.setdefault(x, f"fold{len(subs)}")
    expr = ir.rewrite(found[0][1], lambda x: ir.Var(subs[x]) if isinstance(x, ir.Subscript) and x in subs else None)
    info.fold_cells.append((sym, expr, {name: _cell_key(el, x)[1] for x, name in subs.items()}))


def _register_lets(el, program: Program, is_cell) -> None:
    """A one-element register stored exactly once, in the kernel body's top statement list, with
    a value of loaded numbers at block-uniform addresses (`block_count[0] = BlockCount[15 - bx]`)
    holds that value in every thread from the store on: it is a let written as a register store.
    Every load of it (all after the store: a top-level statement runs before every later line)
    reads, for the provers, as the stored expression, so the loaded numbers it carries are
    enumerated or become sizes like any other. The machine still runs the store and the loads;
    the run's store loads the value the plan chose for those cells (Inputs.number), so both
    agree. A register also written elsewhere, read before its store, or handed out by pointer
    stays data (`_taint_registers`), judged where it decides something."""
    stores: dict = {}     # region -> [(PStore, at the top level)]

    def collect(stmts, top: bool) -> None:
        for st in stmts:
            if isinstance(st, PStore):
                stores.setdefault(st.region, []).append((st, top))
            elif isinstance(st, PIf):
                collect(st.then, False)
                collect(st.other, False)
            elif isinstance(st, PLoop):
                collect(st.body, False)
    collect(program.body, True)
    uniform = set(el.launch.block_vars) | set(program.symbols)
    lets: dict = {}       # region -> the stored expression
    for region, found in stores.items():
        if len(found) != 1 or not found[0][1] or region in el.escaped_registers:
            continue
        st = found[0][0]
        if len(st.src) != 2 or st.src[0] != ir.Const(0) or st.src[1] is None or st.size != 1:
            continue
        value = st.src[1]
        subs = _subscripts(value, [])
        if not subs or not all(is_cell(x) for x in subs) or not free_names(value) - \
                {x.value.name for x in subs if isinstance(x.value, ir.Var)} <= uniform:
            continue
        if any(free_names(x.indices) - uniform for x in subs):
            continue
        lets[region] = (value, st.span.line)
    if not lets:
        return

    def region_of(x):
        if not isinstance(x, ir.Subscript):
            return None
        reg = el.register_of(el.view_of(x.value))
        return reg[0] if reg is not None and reg[0] in lets else None
    # every load after the store: a load on an earlier line (or the store's own) reads the
    # register before it holds the value
    targets = set()
    for x in ir.nodes(el.func.body):
        if isinstance(x, ir.Assign) and region_of(x.target) is not None:
            targets.add(id(x.target))
            if x.target.span.line != lets[region_of(x.target)][1]:
                lets.pop(region_of(x.target))   # another store the elaborated program dropped
    for x in ir.nodes(el.func.body):
        region = region_of(x)
        if region is not None and id(x) not in targets and x.span.line <= lets[region][1]:
            lets.pop(region)
    if not lets:
        return

    # every load of such a register, through whichever view names it, reads as the stored value
    # in what the provers read (the rewrite the loaded lengths use too)
    sub_map: list = []
    for x in ir.nodes(el.func.body):
        region = region_of(x)
        if region is not None and id(x) not in targets and all(x != sub for sub, _ in sub_map):
            sub_map.append((x, lets[region][0]))
    _rewrite_program(program.body, {}, sub_map)


def _register_copies(el, program: Program, is_cell) -> None:
    """A register array filled by plain vector copies of a read-only global parameter, each
    element written exactly once before any read, from one cell at an address the same for
    every thread (TileLang's block-sparse TMA copy: `for i in T.unroll(2): m[i * 4:i * 4 + 4] =
    BlockMask[by * 8 + i * 4:by * 8 + i * 4 + 4]`, then `a = m[i]` in a later loop): element e
    holds cell D + e in every thread, D = start - lo the same in every copy iteration (z3) and
    free of threads. Every read `m[e]` then reads, for the provers and `_numeric_pass`, as that
    cell (the rewrite `_register_lets` makes for one-element registers), so a branch on it is a
    branch on a loaded cell (`_iteration_choice`); `_check_iteration_roots` counts each read as
    a load of the parameter in place of the copy. What is required:
    - one assignment names the register (through any view), `m[lo:lo + n] = P[s:s + n]` with no
      cast, the register's element type the parameter's, not handed out by pointer;
    - it sits in the kernel's top statement list or in loops there (no branch around it) of
      constant bounds, lo reads only those loops' variables, and the copies cover every element
      once (lo in range, trips * n = the register's size, distinct lo's ranges disjoint);
    - every read is a one-element load on a line after the top statement holding the copy (so
      after every copy iteration), its index reading only the variables of loops around it
      (constant bounds) and sizes, inside the register for every value of those (z3).
    The machine still runs the copy (its elements unknown) and the reads: only where a branch's
    condition is replaced (a per-iteration choice) does the run decide anything by the cell."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    uniform = set(el.launch.block_vars) | set(program.symbols)
    threads = set(el.launch.thread_vars)

    def reg_of(x):
        if not isinstance(x, ir.Subscript):
            return None
        return el.register_of(el.view_of(x.value))

    # every assignment to a register, with its loops and whether a branch is around it
    writes: dict = {}    # region -> [(Assign, [(var, lo, extent)], in a branch, top statement)]
    reads: dict = {}     # region -> [(Subscript, [(var, lo, extent)])]

    def loop_of(st):
        it = st.iter
        if not (isinstance(it, ir.Call) and it.name in ("range", "T.serial", "T.unroll") and
                1 <= len(it.args) <= 2 and len(st.names) == 1):
            return None
        lo = el.literal(it.args[0]) if len(it.args) == 2 else 0
        hi = el.literal(it.args[-1])
        if not isinstance(lo, int) or not isinstance(hi, int):
            return (st.names[0], None, None)
        return (st.names[0], lo, hi - lo)

    def visit_expr(e, loops):
        for x in ir.nodes(e):
            reg = reg_of(x)
            if reg is not None:
                reads.setdefault(reg[0], []).append((x, loops))

    def walk(stmts, loops, branch, top):
        for st in stmts:
            here = st if top is None else top
            if isinstance(st, ir.Assign) and reg_of(st.target) is not None:
                writes.setdefault(reg_of(st.target)[0], []).append((st, loops, branch, here))
                for i in st.target.indices:
                    visit_expr(i, loops)
                visit_expr(st.value, loops)
            elif isinstance(st, ir.For):
                visit_expr(st.iter, loops)
                walk(st.body, loops + [loop_of(st)], branch, here)
            elif isinstance(st, (ir.If, ir.While)):
                visit_expr(st.cond, loops)
                walk(st.then if isinstance(st, ir.If) else st.body, loops, True, here)
                walk(st.other if isinstance(st, ir.If) else (), loops, True, here)
            elif isinstance(st, ir.With):
                visit_expr(st.ctx, loops)
                walk(st.body, loops, branch, here)
            else:
                visit_expr(st, loops)
    walk(el.func.body, [], False, None)

    def z3_env(names):
        return {n: z3.Int(n) for n in names}

    def bounded(loops, env):
        return [c for var, lo, ext in loops if var in env for c in (env[var] >= lo, env[var] < lo + ext)]

    sub_map: list = []
    for region, found in writes.items():
        if len(found) != 1 or region in el.escaped_registers:
            continue
        st, loops, branch, top = found[0]
        reg = reg_of(st.target)
        _, first, size, _ = reg
        tgt, val = st.target, st.value
        if branch or any(lp is None or lp[1] is None for lp in loops) or len(tgt.indices) != 1 or \
                not isinstance(tgt.indices[0], ir.Slice) or not isinstance(val, ir.Subscript) or \
                len(val.indices) != 1 or not isinstance(val.indices[0], ir.Slice):
            continue
        g = el.view_of(val.value)
        root = el.roots.get(g.name) if g is not None else None
        if root is None or root in el.written_roots or not is_cell(val) or \
                g.dtype != el.view_of(tgt.value).dtype:
            continue
        tsl, ssl = tgt.indices[0], val.indices[0]
        n = _fixed_width(tsl)
        if n is None or _fixed_width(ssl) != n or tsl.step is not None or ssl.step is not None:
            continue
        loop_vars = {lp[0] for lp in loops}
        if free_names(tsl.lo) - loop_vars or free_names(ssl.lo) & (threads | loop_vars) - loop_vars \
                or free_names(ssl.lo) - loop_vars - uniform:
            continue
        # every iteration of the loops around the copy: its target start and D = start - lo
        combos = [{}]
        for var, lo, ext in loops:
            combos = [dict(c, **{var: v}) for c in combos for v in range(lo, lo + ext)]
            if len(combos) > size:
                break
        if len(combos) * n != size - first:
            continue
        starts, offsets = [], []
        for c in combos:
            consts = {k: ir.Const(v) for k, v in c.items()}
            try:
                starts.append(int(el.compile(_rewrite(tsl.lo, consts))({})))
            except Exception:  # noqa: BLE001 -- a start this pass cannot compute: not taken
                starts = None
                break
            offsets.append(ir.BinOp("-", _rewrite(ssl.lo, consts), ir.Const(starts[-1])))
        if starts is None or sorted(k for s0 in starts for k in range(s0, s0 + n)) != \
                list(range(0, size - first)):
            continue
        d = offsets[0]
        try:
            env = z3_env(free_names(d) | set().union(*(free_names(o) for o in offsets)))
            d0, side = encode(d, env)
            same = True
            for o in offsets[1:]:
                t, s2 = encode(o, env)
                if not unsat(*side, *s2, t != d0):
                    same = False
                    break
        except Unencodable:
            same = False
        if not same:
            continue
        # every read: after the top statement holding the copy, one element, inside the register
        ok, pairs = True, []
        # (start lines only: the repair's reuse of a run compares where spans start)
        end = max(n.span.line for n in ir.nodes(top) if getattr(n, "span", None) is not None)
        for x, rloops in reads.get(region, []):
            if x is tgt:
                continue
            if x.span.line <= end or len(x.indices) != 1 or isinstance(x.indices[0], ir.Slice) or \
                    any(lp is None or lp[1] is None for lp in rloops):
                ok = False
                break
            e = x.indices[0]
            rvars = {lp[0] for lp in rloops}
            if free_names(e) - rvars - uniform or free_names(e) & threads:
                ok = False
                break
            try:
                zenv = z3_env(free_names(e))
                t, s3 = encode(e, zenv)
                if not unsat(*s3, *bounded(rloops, zenv), z3.Or(t < 0, t + first >= size)):
                    ok = False
                    break
            except Unencodable:
                ok = False
                break
            pairs.append((x, ir.Subscript(val.value, (ir.BinOp("+", d, e),), x.span)))
        if not ok or not pairs:
            continue
        for x, cell in pairs:
            if all(x != sub for sub, _ in sub_map):
                sub_map.append((x, cell))
        el.__dict__.setdefault("copied_registers", set()).add(region)
        program.register_copies.append((region, g.name, st.span.line, sorted({x.span.line for x, _ in pairs})))
        copies = el.__dict__.setdefault("register_copies", {}).setdefault(root, [set(), []])
        copies[0].add(id(val))
        copies[1].extend(x for x, _ in pairs)
    if sub_map:
        _rewrite_program(program.body, {}, sub_map)


def _drop_let_sources(body, names: set) -> None:
    for st in body:
        if isinstance(st, PLet) and st.name in names:
            st.src = None
        elif isinstance(st, PIf):
            _drop_let_sources(st.then, names)
            _drop_let_sources(st.other, names)
        elif isinstance(st, PLoop):
            _drop_let_sources(st.body, names)


def _cell_shape(cond, cells: list):
    """`cond` with its one cell read as `%cell` (its address left out), or None when it reads
    other than one cell."""
    if not cells or any(c != cells[0] for c in cells):
        return None
    return ir.rewrite(cond, lambda x: ir.Var("%cell") if x == cells[0] else None)


def _decide_like_enumerated(el, info, taken: list) -> None:
    """A branch checked taken every time (its arm holds accesses alone) whose condition is, but
    for its cell's address, the condition of an enumerated branch (`0 <= M[s]` in a prologue,
    `0 <= M[s + k]` in the loop): where a run met that cell through the enumerated branch, the
    outcome pattern decides this branch too (the same test of the same value), and it takes that
    outcome; elsewhere it stays taken. A run is then a real execution for the cells the pattern
    decides and a superset of every outcome for the others, so a read in the arm follows the
    write the other branch guards on the same cell (SeerAttention's sparse decode: the first
    stage's K tile, written under `0 <= block_indices[s]`, read in the loop's first iteration
    under the same test). A condition of another shape on a decided number (a row bound on a
    sequence length) is not decided by the pattern: the plan's value is one of many, and it stays
    taken. Only for numbers: a truth cell's load would make it an input of the search."""
    if info.lengths:
        return   # (a length's number is one value of many, whatever shape reads it)

    def root(sub):
        return el.roots.get(el.view_of(sub.value).name)
    shapes: dict = {}   # root -> the shapes of the enumerated conditions on its cells
    for c, _ in info.conditions:
        cells = [x for x in _subscripts(c, []) if id(x) in info.cells]
        for r in {root(x) for x in cells}:
            shapes.setdefault(r, set()).add(_cell_shape(c, cells))
    for st, cond_fn, cond, cells in taken:
        r = root(cells[0]) if cells else None
        # every enumerated condition on the root tests its one cell the same way as this one
        if shapes.get(r) != {_cell_shape(cond, cells)} or None in shapes[r] or el.truth_only.get(r, True):
            continue

        def decided(env, cond_fn=cond_fn):
            try:
                return cond_fn(env)
            except NotConcrete:
                return True
        st.cond = decided


def _cell_key(el, sub: ir.Subscript):
    """(root, fn(env) -> the cell's key as `_input_cell` builds it, bits of its dtype)."""
    view = el.view_of(sub.value)
    root = el.roots[view.name]
    shape = view.shape or ()
    strides = [int(np.prod(shape[k + 1:])) for k in range(len(sub.indices))] \
        if len(sub.indices) > 1 else [1]
    fns = [el.compile(i) for i in sub.indices]
    esize, offset = view.elem_size, view.byte_offset

    def key(env):
        try:
            flat = sum(f(env) * st for f, st in zip(fns, strides))
        except NotConcrete as err:
            from .inputs import NotConcreteKey
            raise NotConcreteKey(err.reason) from None
        return (root, offset + int(flat) * esize)
    return root, key, view.elem_bits


def _length_symbols(el, program, info, lets, conds, loops, numeric_roots, problems) -> dict:
    """Pairs of lets `start = R[e]`, `end = R[e + 1]` whose every use that decides a loop trip
    count or a branch depends on them only through end - start (z3): they become one symbolic
    size `end - start` >= 0 and start reads as 0. Returns the replacement of the pairs' names."""
    if el.notes:   # something the models do not know (a symbolic launch extent): stay unknown
        if loops:
            problems.append(f"a loop trip count decided by a loaded number, in a kernel with "
                            f"an unmodelled construct ({el.notes[0][0]})")
        return set(), (lambda e: e)
    bare = {n: v for n, v in lets.items() if isinstance(v, ir.Subscript) and len(v.indices) == 1
            and not isinstance(v.indices[0], ir.Slice)}
    pairs = []
    for start, sv in bare.items():
        for end, ev in bare.items():
            if start == end or sv.value != ev.value:
                continue
            a, b = sv.indices[0], ev.indices[0]
            plus_one = b == ir.BinOp("+", a, ir.Const(1)) or (
                isinstance(a, ir.Const) and isinstance(b, ir.Const) and isinstance(a.value, int)
                and b.value == a.value + 1)
            if plus_one:
                pairs.append((start, end))
    # the difference written as one let, `seqlen = R[e + 1] - start` (varlen attention):
    # that let is the length itself, provided nothing the provers read uses `start` apart
    differences = {}
    for name, v in lets.items():
        if isinstance(v, ir.BinOp) and v.op == "-" and isinstance(v.right, ir.Var) and \
                v.right.name in bare and isinstance(v.left, ir.Subscript) and len(v.left.indices) == 1:
            sv = bare[v.right.name]
            a, b = sv.indices[0], v.left.indices[0]
            if sv.value == v.left.value and b == ir.BinOp("+", a, ir.Const(1)):
                differences[name] = v.right.name
                pairs.append((v.right.name, name))
    derived = {n: v for n, v in lets.items() if n not in bare and n not in differences}
    # block indices of symbolic grid axes are sizes to the size prover (prover/sizes.py)
    grid_sizes = {n for n, a in el.launch.block_vars.items() if a in el.launch.symbolic_blocks}

    def expand(e):
        return _inline(e, derived)
    bounds = [expand(x) for lp in loops for x in lp.src]
    live = bounds + [expand(st.src) for st, _ in conds]
    trips = None
    if any(set().union(*(free_names(e) for e in bounds if {start, end} & free_names(e)))
           - {start, end} - set(el.symbols) - grid_sizes for start, end in pairs):
        # some pair decides a trip count together with other names: one trip expression?
        trips = _trip_symbol(el, program, info, bare, pairs, expand, loops, conds, problems)
    if trips is not None:
        return set(), trips
    if not pairs:
        cell = _cell_trip_symbol(el, program, info, lets, loops, conds, numeric_roots, problems)
        if cell is not None:
            return cell
    replaced: set = set()
    chosen = []
    for start, end in pairs:
        if not any({start, end} & free_names(e) for e in bounds):
            continue   # decides no trip count: its branches are enumerated like any loaded number
        uses = [e for e in live if {start, end} & free_names(e)]
        mixed = sorted(set().union(*(free_names(e) for e in bounds if {start, end} & free_names(e)))
                       - {start, end} - set(el.symbols) - grid_sizes)
        if mixed:   # the size prover evaluates trip counts from the size alone
            problems.append(f"a loop trip count decided by {end} - {start} together with "
                            f"{', '.join(mixed)} (the size prover needs trip counts of the size alone)")
            continue
        if end in differences:
            # `start` read elsewhere: only as part of a thread's bounds test around shared
            # accesses alone (a varlen epilogue's `row + seq_start < total_tokens`), checked taken
            # by every thread as below for any branch on a loaded number
            if any(start in free_names(e) for e in bounds):
                continue
            guards = [st for st, _ in conds if start in free_names(expand(st.src))]
            if any(st.other or not _access_only(st.then) for st in guards):
                continue
            for st in guards:
                st.cond, st.src = (lambda env: True), ir.Const(True)
                info.reduced.append((st.span.line, "taken"))
                info.taken_arms.append(arm_lines(st))
        elif not _only_difference(uses, start, end):
            continue
        chosen.append((start, end))
        replaced |= {start, end}
    mapping: dict = {}
    for start, end in chosen:
        sym = f"{end} - {start}"
        mapping[start] = ir.Const(0)
        mapping[end] = ir.Var(sym)
        program.symbols.append(sym)
        program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
        program.size_lowest[sym] = 0
        info.lengths.append((sym, f"{expr_text(bare[end] if end in bare else lets[end].left)} - "
                                  f"{expr_text(bare[start])}"))
        info.pair_cells.append((sym, _cell_key(el, bare[start])[1],
                                _cell_key(el, bare[end] if end in bare else lets[end].left)[1]))
    # a single cell at a block-uniform address that decides a trip count by itself (a paged
    # kernel's cache_seqlens[bx]): its own symbolic size, read by the run from the size's value
    block_vars = set(el.launch.block_vars)
    others = {n: v for n, v in lets.items() if n not in mapping}

    def expand_all(e):
        return _rewrite(_inline(e, others), mapping)
    singles: list = []
    for lp in loops:
        for x in lp.src:
            for sub in _subscripts(expand_all(x), []):
                view = el.view_of(sub.value)
                if view is None or el.roots.get(view.name) not in numeric_roots or sub in singles:
                    continue
                if free_names(sub.indices) <= block_vars | set(el.symbols) and len(singles) < 2:
                    singles.append(sub)
    sub_map = []
    for sub in singles:
        sym = expr_text(sub)
        sub_map.append((sub, ir.Var(sym)))
        program.symbols.append(sym)
        program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
        program.size_lowest[sym] = 0
        info.length_cells.append((sym, _cell_key(el, sub)[1]))
        info.lengths.append((sym, f"a length loaded from {sym}"))
    if not mapping and not sub_map:
        _loops_left(el, loops, lets, set(), numeric_roots, problems)
        return set(), (lambda e: e)
    # lets computed from the sizes alone read as their expressions, so that the provers see
    # the sizes in the trip counts and conditions (the lets still run as written)
    inline: dict = {}
    syms = {str(v.name) for v in mapping.values() if isinstance(v, ir.Var)} | {v.name for _, v in sub_map}
    for name, value in lets.items():
        if name in mapping:
            continue
        full = _replace_subscripts(expand_all(value), sub_map)
        if not any(el.view_of(x.value) is not None and el.roots.get(el.view_of(x.value).name) in numeric_roots
                   for x in _subscripts(full, [])) and free_names(full) & syms:
            inline[name] = full
    fix = _rewrite_program(program.body, mapping, sub_map, inline)
    _loops_left(el, loops, lets, set(mapping) | set(inline), numeric_roots, problems)
    for sym, bound, line in _length_bounds(el, program, syms, problems):
        program.size_assumptions.append(ir.BinOp("<=", ir.Var(sym), ir.Const(bound)))
        info.bounds.append((sym, bound, line))
    for lp in loops:
        extra = free_names(lp.src) - syms - set(el.symbols) - \
            {n for n, a in el.launch.block_vars.items() if a in el.launch.symbolic_blocks}
        if free_names(lp.src) & syms and extra:
            problems.append(f"line {lp.span.line}: a loop trip count decided by a loaded length "
                            f"together with {', '.join(sorted(extra))} (the size prover needs "
                            "trip counts of the size alone)")
    return set(mapping) | set(inline), fix


def _holding(e, names: set):
    """The smallest subexpression of `e` that holds every occurrence of the names `names` (e
    itself when they are spread over its operands)."""
    while True:
        holding = [c for c in _operands(e) if free_names(c) & names]
        if len(holding) != 1:
            return e
        e = holding[0]


def _operands(e) -> list:
    if isinstance(e, ir.BinOp):
        return [e.left, e.right]
    if isinstance(e, ir.UnaryOp):
        return [e.operand]
    if isinstance(e, ir.Call):
        return list(e.args)
    if isinstance(e, ir.IfExp):
        return [e.cond, e.then, e.other]
    return []


# the most loaded cells one trip count may read (`_cell_trip_symbol`)
MAX_TRIP_CELLS = 4


def _cell_trip_symbol(el, program, info, lets, loops, conds, numeric_roots, problems):
    """A split paged kernel bounds its loops by one expression of a single loaded cell at a
    block-uniform address and the block index (DeepSeek MLA decode, split: `total_blocks // 4 +
    ite(bz < total_blocks % 4, 1, 0) - 2`, total_blocks = (cache_seqlens[bx] + 63) // 64), so
    the cell is no size alone. The cell is named (every prover-facing source reads the name, the
    lets computed from it read their expressions) and `_trip_symbol` makes the one subexpression
    E of that name and the block indices that every loop bound reads the symbolic size, exactly
    as for cu_seqlens pairs (each run loads a cell value z3 picks so that E has the size's value
    in the block). Whatever else the machine decides from the name (a loop, branch, shared
    address or synchronization argument that is not E plus a rest the cell does not decide)
    keeps the kernel unknown. Returns (replaced let names, rewrite) or None where it does not
    fit (the single-cell length rule then applies). Several cells at block-uniform addresses
    (a split kernel's `seqlen[b]` and its split's bounds) are named the same way, each its own
    name in E."""
    block_vars = set(el.launch.block_vars)

    def expand(e):
        return _inline(e, lets)
    cells: list = []
    mixed = False
    for lp in loops:
        for x in lp.src:
            x = expand(x)
            subs = [c for c in _subscripts(x, []) if el.view_of(c.value) is not None and
                    el.roots.get(el.view_of(c.value).name) in numeric_roots]
            for c in subs:
                if c not in cells:
                    cells.append(c)
            mixed |= bool(subs) and bool(free_names(x) & block_vars)
    # one cell and the block indices, or several cells (a split kernel's `seqlen[b]` and the
    # split's bounds `split[s - 1]`, `split[s]`): never a cell alone (a length by its own rule)
    if not cells or len(cells) > MAX_TRIP_CELLS or (len(cells) == 1 and not mixed):
        return None
    if any(not free_names(sub.indices) <= block_vars | set(el.symbols) for sub in cells):
        return None
    named = [(sub, ir.Var(expr_text(sub))) for sub in cells]
    names = {v.name for _, v in named}
    # lets whose value reads the cells (through other lets too) and no other loaded number
    inline: dict = {}
    for n, v in lets.items():
        full = expand(v)
        reads = [c for c in _subscripts(full, []) if el.view_of(c.value) is not None
                 and el.roots.get(el.view_of(c.value).name) in numeric_roots]
        if reads and all(c in cells for c in reads):
            inline[n] = _replace_subscripts(full, named)

    def pre_fix(e):
        if e is None:
            return None
        return _replace_subscripts(_inline(e, inline), named)
    done: list = []

    def pre():
        _rewrite_program(program.body, {}, named, inline)
        done.append(True)
    trips = _trip_symbol(el, program, info, {v.name: sub for sub, v in named}, [], pre_fix, loops,
                         conds, problems, names=names, pre=pre)
    if trips is None:
        if done:   # (never: `pre` runs only once the shape fits)
            problems.append(f"a loop trip count decided by {', '.join(sorted(names))} together "
                            "with block indices")
        return None

    def fix(e):
        return trips(pre_fix(e))
    # what still reads a cell's name decides something apart from the trip count: unknown
    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PIf):
                read = st.src is not None and sorted(names & free_names(st.src))
                if st.relevant and read:
                    problems.append(f"line {st.span.line}: a branch on {', '.join(read)} that is "
                                    "not a threshold of the trip count it decides")
                walk(st.then)
                walk(st.other)
            elif isinstance(st, PLoop):
                read = sorted(names & free_names(st.src))
                if read:
                    problems.append(f"line {st.span.line}: a loop bound reads {', '.join(read)} "
                                    "apart from the trip count")
                walk(st.body)
            elif isinstance(st, POp) and st.src is not None and names & free_names(st.src):
                problems.append(f"line {st.span.line}: a loaded number decides a shared address or "
                                "a synchronization argument apart from the trip count")
    walk(program.body)
    return set(inline), fix


def _trip_symbol(el, program, info, bare: dict, pairs: list, expand, loops, conds, problems,
                 names: set | None = None, pre=None):
    """Causal varlen attention bounds its loops by one expression of two cu_seqlens pairs and
    the block index (`min(bx * 2 + (kv_len - q_len + 191) // 64, (kv_len + 63) // 64)`), so
    no pair is a size alone. Where every loop bound that reads the pairs reads them through one
    subexpression E, E itself becomes the symbolic size: every use of E reads the symbol, so does
    an address or branch that is E plus a rest the pairs do not decide (`_addresses_via_trips`),
    a block-uniform branch on the pairs that z3 shows is `E >= j` reads that, and each checking
    run loads values z3 picks so that E has the size's value in its block (`trip_cells`, solved
    with the branches on the same values). The rest of what the pairs decide is left to the
    usual passes (guards of shared accesses taken, registers, global addresses), which keep the
    kernel unknown where it matters. E below 0 is proved to run as E = 0 (every loop, branch and
    address that reads the symbol, `_below_zero`); a largest value of E bounds the size.
    Returns the rewrite (prover-facing expressions only: the runs evaluate the loaded values),
    or None where the shape does not fit (the pairs' own rules then apply)."""
    names = {n for p in pairs for n in p} if names is None else names
    if not names:
        return None
    found = None
    lines = []
    starts: list = []    # (loop, its start, the start's holding subexpression)
    for lp in loops:
        for pos, x in enumerate(lp.src):
            x = expand(x)
            inside = free_names(x) & names
            if not inside:
                continue
            e = _holding(x, inside)
            if pos == 0 and len(lp.src) == 2:
                starts.append((lp, x, e))
                continue
            if found is not None and e != found:
                return None
            found = e
            lines.append(lp.span.line)
    if found is None:
        return None
    # a start that reads the pairs through E is E's (the rewrite below); one that reads them
    # otherwise (a varlen backward's `for k in range(min(by * 4, len // 32), ceil(len / 32))`)
    # gets a name of its own, the whole start: its value moves the iterations (`_start_residue`)
    shifted = [lp for lp, _, e in starts if e != found]
    start = None
    if shifted:
        start = {x for lp, x, _ in starts if lp in shifted}
        if len(start) != 1:
            return None
        start = start.pop()
    used = free_names(found) & names
    block_vars = set(el.launch.block_vars)
    if not free_names(found) <= names | block_vars | set(el.symbols):
        return None
    in_pairs = [p for p in pairs if set(p) & used]
    if len(in_pairs) < 2 and not free_names(found) & block_vars and (pairs or len(used) < 2):
        return None   # one pair or cell alone: a length (their own rules)
    if any(not set(p) <= used for p in in_pairs):
        return None
    if pre is not None:
        pre()   # the sources now read the names `found` is written in
    if start is not None and (not free_names(start) <= names | block_vars | set(el.symbols)
                              or not free_names(start) & names <= used):
        return None
    sym = f"trips(line {lines[0]})"
    start_sym = f"start(line {lines[0]})"
    swaps = [(found, ir.Var(sym))] + ([(start, ir.Var(start_sym))] if start is not None else [])
    fix = _rewrite_program(program.body, {}, swaps, {})
    # a shared address or branch that is E plus something the pairs do not decide, written
    # another way (a windowed pipeline's slot `(A // 64 + k - max(0, ..)) % 2` with E = A // 64 -
    # max(0, ..)): read as the symbol plus that rest (z3)
    via = _addresses_via_trips(program.body, found, sym, names, in_pairs, block_vars)
    structural = fix

    def fix(e):   # what the later passes read: both rewrites
        return via(structural(e))
    # block-uniform branches on the pairs: a conjunct the others and E imply is dropped (a
    # pipeline epilogue's `E + k < A + 2` where E = min(A, B)), and what is left is read as
    # `E >= j` where z3 shows it is that
    ranges = _constant_ranges(program.body, {id(st) for st, _ in conds})
    for st, _ in conds:
        src = expand(st.src)
        if not free_names(src) & names:
            continue
        src = _drop_implied(src, found, sym, in_pairs, block_vars, ranges.get(id(st), {}), names)
        if not free_names(src) & names:
            st.src, st.names = src, frozenset(free_names(src))
            continue
        if free_names(src) - names - block_vars - set(el.symbols) - {sym}:
            continue
        j = _as_threshold(src, found, sym, in_pairs, block_vars)
        if j is not None:
            st.src = ir.BinOp(">=", ir.Var(sym), ir.Const(j))
            st.names = frozenset({sym})
    why = _below_zero(el, program.body, sym)
    if why is not None:
        problems.append(f"{sym} = {expr_text(found)}: {why}")
        return fix
    program.symbols.append(sym)
    program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
    program.size_lowest[sym] = 0
    most = _largest(found, in_pairs, block_vars)
    if most is not None:   # a sliding window bounds the trip count: no larger value is a launch
        program.size_assumptions.append(ir.BinOp("<=", ir.Var(sym), ir.Const(max(most, 0))))
    starting = ""
    if start is not None:
        modulus, why = _start_residue(program, start_sym, {lp.var for lp in shifted}, shifted)
        if modulus is None:
            problems.append(f"the loops at lines {sorted(lp.span.line for lp in shifted)} start at "
                            f"{expr_text(start)}: {why}")
            return fix
        info.start_cells.append((sym, start, modulus))
        program.start_blocks[start_sym] = frozenset(free_names(start) & block_vars)
        starting = (f"; the loops at lines {sorted(lp.span.line for lp in shifted)} start at "
                    f"{expr_text(start)}, which z3 proved decides the kernel only through its value "
                    f"mod {modulus}: each value of {sym} runs every remainder the block's loaded "
                    f"values give, and z3 proved that no larger {sym} gives one they do not")
    keys = {n: _cell_key(el, bare[n])[1] for n in used}
    info.trip_cells.append((sym, found, keys, [p for p in in_pairs]))
    texts = ", ".join(f"{expr_text(bare[e])} - {expr_text(bare[s])}" for s, e in in_pairs) or \
        ", ".join(sorted(expr_text(bare[n]) for n in used))
    info.lengths.append((sym, f"the trip count {expr_text(found)} of the loops at lines "
                              f"{sorted(set(lines))}, decided by {texts}; each run loads values "
                              "z3 picks to give it, and z3 proved that a negative one runs as 0" +
                              (f", and that it is never above {max(most, 0)}" if most is not None else "")
                              + starting))
    return fix


# the largest remainder modulus `_start_residue` tries
MAX_START_MODULUS = 64


def _start_residue(program, start_sym: str, loop_vars: set, shifted: list):
    """(M, None) for the smallest M such that z3 proves every expression the machine evaluates
    unchanged when the loops `shifted` start M later (their variables `loop_vars` and the name
    `start_sym` of their start both + M): a run then depends on the start only through its
    remainder mod M, iteration i of one start doing what iteration i of any start of the same
    remainder does. (None, why) when no M up to MAX_START_MODULUS is proved. The loop variables
    must be bound by these loops alone, so that + M moves only their iterations."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    from .exprs import period_of, shared_index_exprs
    if any(isinstance(st, PLoop) and st.var in loop_vars and st not in shifted
           for st in statements(program.body)):
        return None, "another loop binds its loop variable"
    exprs: list = []   # what the machine evaluates (as accelerate.collect gathers it)
    for st in statements(program.body):
        if isinstance(st, (PIf, PLoop)) and not st.relevant:
            continue   # (its inside is skipped unevaluated too: a false positive costs only a proof)
        if isinstance(st, POp) and st.src is not None:
            shared_index_exprs(st.src, program.views, exprs)
        elif isinstance(st, (PIf, PLet)) and st.src is not None:
            exprs.append(st.src)
        elif isinstance(st, (PLoop, PStore)):
            exprs += [x for x in st.src if x is not None]
    moved_names = loop_vars | {start_sym}
    exprs = [e for e in exprs if free_names(e) & moved_names and e != ir.Var(start_sym)]  # (the starts)
    period = period_of(exprs, moved_names, MAX_START_MODULUS)   # 0: past it
    if not period:
        return None, f"it decides expressions of a period above {MAX_START_MODULUS}"
    def unchanged(e, m) -> bool:
        env = {n: z3.Int(n) for n in free_names(e)}
        a, sa = encode(e, env)
        b, sb = encode(_rewrite(e, {n: ir.BinOp("+", ir.Var(n), ir.Const(m)) for n in moved_names}), env)
        return unsat(*sa, *sb, a != b)
    try:
        for m in [d for d in range(1, period + 1) if period % d == 0]:
            if all(unchanged(e, m) for e in exprs):
                return m, None
    except Unencodable as err:
        return None, f"z3 cannot express an expression it decides ({err})"
    return None, f"no remainder mod a divisor of {period} decides what it does"


def _largest(trips, pairs, block_vars: set):
    """The largest value z3 finds `trips` can take over every value of the pairs and every
    block index, or None when it has none (it grows with a length)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    env = {n: z3.Int(n) for n in free_names(trips)}
    try:
        e, side = encode(trips, env)
    except Unencodable:
        return None
    query = Query(*side, *pair_order(pairs, env), *[env[b] >= 0 for b in block_vars if b in env],
                  optimize=True)
    handle = query.solver.maximize(query._here(e))
    if query.check() != z3.sat:
        return None
    upper = handle.upper()
    return upper.as_long() if z3.is_int_value(upper) else None


def _addresses_via_trips(body, trips, sym: str, names: set, pairs, block_vars: set, memo=None):
    """In every statement's prover-facing source, the smallest subexpressions x reading the pairs
    for which z3 shows x - trips does not depend on them become `sym + (x - trips)` with the pairs
    at 0 (any values would do). Returns that rewrite, for other expressions."""
    memo = {} if memo is None else memo
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    zero = {n: ir.Const(0) for n in names}

    def rest_of(x):
        if not isinstance(x, ir.BinOp) or x.op not in ("+", "-", "*") or not free_names(x) & names:
            return None
        if x not in memo:
            memo[x] = _rest_of(x)
        return memo[x]

    def _rest_of(x):
        diff = ir.BinOp("-", x, trips)
        free = free_names(diff)
        one = {n: z3.Int(n) for n in free}
        two = {n: (z3.Int(n + "%2") if n in names else v) for n, v in one.items()}
        try:
            a, sa = encode(diff, one)
            b, sb = encode(diff, two)
        except Unencodable:
            return None
        facts = [*sa, *sb, *pair_order(pairs, one), *pair_order(pairs, two)] + \
            [one[v] >= 0 for v in block_vars if v in one]
        if not unsat(*facts, a != b):
            return None
        rest = _rewrite(diff, zero)
        # a rest the block index does not decide either reads it at 0 (then folds to constants
        # and loop variables): the block index stays out of what the provers read
        blocks = {v: ir.Const(0) for v in block_vars & free_names(rest)}
        if blocks:
            three = {n: (z3.Int(n + "%3") if n in blocks else z3.Int(n)) for n in free_names(rest)}
            four = {n: z3.Int(n) for n in free_names(rest)}
            try:
                c, sc = encode(rest, three)
                d, sd = encode(rest, four)
            except Unencodable:
                c = None
            if c is not None and unsat(*sc, *sd, *[three[v] >= 0 for v in blocks], *[four[v] >= 0 for v in blocks],
                                       c != d):
                rest = _rewrite(rest, blocks)
        return ir.BinOp("+", ir.Var(sym), _folded(rest))

    def fix(e):
        return ir.rewrite(e, rest_of) if e is not None and free_names(e) & names else e
    for st in body:
        if isinstance(st, POp):
            st.src = fix(st.src)
        elif isinstance(st, PIf):
            if st.src is not None and free_names(st.src) & names:
                st.src = fix(st.src)   # a pipeline epilogue's `2 <= A // 64 + k - max(0, ..)`
                st.names = frozenset(free_names(st.src))
            _addresses_via_trips(st.then, trips, sym, names, pairs, block_vars, memo)
            _addresses_via_trips(st.other, trips, sym, names, pairs, block_vars, memo)
        elif isinstance(st, PLoop):
            _addresses_via_trips(st.body, trips, sym, names, pairs, block_vars, memo)
    return fix


def _folded(e):
    """`e` with every subexpression that reads no name replaced by its value."""
    def const(x):
        if isinstance(x, (ir.BinOp, ir.UnaryOp, ir.Call)) and not free_names(x):
            try:
                v = compile_expr(x)({})
            except Exception:  # noqa: BLE001 -- not a number here: left as written
                return None
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                return ir.Const(int(v))
        return None
    return ir.rewrite(e, const)


def _constant_ranges(body, wanted: set, ranges: dict | None = None, out: dict | None = None) -> dict:
    """id(branch) -> {loop variable: (lo, hi)} of the constant-bound loops around each wanted
    branch."""
    ranges, out = ranges or {}, {} if out is None else out
    for st in body:
        if isinstance(st, PIf):
            if id(st) in wanted:
                out[id(st)] = dict(ranges)
            _constant_ranges(st.then, wanted, ranges, out)
            _constant_ranges(st.other, wanted, ranges, out)
        elif isinstance(st, PLoop):
            inner = {k: v for k, v in ranges.items() if k != st.var}
            if len(st.src) == 2 and all(isinstance(x, ir.Const) and isinstance(x.value, int)
                                        for x in st.src):
                inner[st.var] = (st.src[0].value, st.src[0].value + st.src[1].value)
            _constant_ranges(st.body, wanted, inner, out)
    return out


def _conjuncts(e) -> list:
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _drop_implied(cond, trips, sym: str, pairs, block_vars: set, ranges: dict, names: set):
    """`cond` without the conjuncts that read the pairs and that z3 shows the other conjuncts
    imply, given sym = trips, the pairs' order and the constant loop ranges."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    parts = _conjuncts(cond)
    if len(parts) < 2:
        return cond
    env = {n: z3.Int(n) for n in set().union(*(free_names(p) for p in parts)) | free_names(trips)}
    env[sym] = z3.Int("%trips")
    try:
        e, side = encode(trips, env)
        terms = []
        for p in parts:
            t, sp = encode(p, env)
            side += sp
            terms.append(t)
    except Unencodable:
        return cond
    facts = [env[sym] == e, *side, *pair_order(pairs, env)] + \
        [env[b] >= 0 for b in block_vars if b in env] + \
        [c for n, (lo, hi) in ranges.items() if n in env for c in (env[n] >= lo, env[n] < hi)]
    keep = list(range(len(parts)))
    for i in range(len(parts)):
        if not free_names(parts[i]) & names:
            continue
        others = [terms[k] for k in keep if k != i]
        if unsat(*facts, *others, z3.Not(terms[i])):
            keep.remove(i)
    if len(keep) == len(parts):
        return cond
    out = parts[keep[0]] if keep else ir.Const(True)
    for k in keep[1:]:
        out = ir.BinOp("and", out, parts[k])
    return out


def _as_threshold(cond, trips, sym: str, pairs, block_vars: set):
    """j such that z3 proves `cond` equivalent to `trips >= j` for every value of the pairs
    and every block index; None when there is none."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query, unsat
    env = {n: z3.Int(n) for n in free_names(cond) | free_names(trips)}
    t = z3.Int("%trips")
    env[sym] = t
    try:
        c, sc = encode(cond, env)
        e, se = encode(trips, env)
    except Unencodable:
        return None
    facts = [t == e, *sc, *se, *pair_order(pairs, env)] + [env[b] >= 0 for b in block_vars if b in env]
    # the one candidate: the least value of E for which the branch can be taken
    least = Query(*facts, c, optimize=True)
    least.minimize(t)
    if least.check() != z3.sat:
        return None
    try:
        j = least.number(t)
    except Exception:  # noqa: BLE001 -- unbounded below: no threshold
        return None
    return j if unsat(*facts, c != (t >= j)) else None


def _below_zero(el, body, sym: str) -> str | None:
    """Why a negative value of `sym` may run differently from 0, or None: z3 shows every loop
    and branch reading it decides the same at every value <= 0 as at 0, given the constant
    ranges of the loops around it, and every other statement reading it sits where nothing
    runs at 0 (a loop of no trip, a branch not taken)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    t = z3.Int("%trips")

    def terms(e, ranges):
        env = {n: z3.Int(n) for n in free_names(e)}
        env[sym] = t
        lo, side = encode(e, {**env, sym: t})
        at0, side0 = encode(e, {**env, sym: z3.IntVal(0)})
        bounds = [c for n, (a, b) in ranges.items() if n in env for c in (env[n] >= a, env[n] < b)]
        return lo, at0, side + side0 + bounds

    def walk(stmts, ranges) -> str | None:
        for st in stmts:
            if isinstance(st, PNote):   # what it reads is not known (TileLang 0.1.8's ldmatrix form)
                return f"line {st.span.line}: a statement not modelled"
            srcs = st.src if isinstance(st, (PLoop, PStore)) else (st.src,)
            reads = any(x is not None and sym in free_names(x) for x in srcs)
            try:
                if isinstance(st, PLoop):
                    start, extent = st.src if len(st.src) == 2 else (None, None)
                    inner = dict(ranges)
                    if isinstance(start, ir.Const) and isinstance(extent, ir.Const):
                        inner[st.var] = (start.value, start.value + extent.value)
                    if reads:
                        if extent is None or sym in free_names(start):
                            return f"line {st.span.line}: the loop's start reads it"
                        n, n0, side = terms(extent, ranges)
                        if not unsat(*side, t <= 0, z3.If(n > 0, n, 0) != z3.If(n0 > 0, n0, 0)):
                            return f"line {st.span.line}: the trip count differs below 0"
                        if unsat(*side, t <= 0, n0 > 0):
                            continue   # no trip at 0 or below: the body never runs there
                    why = walk(st.body, inner)
                elif isinstance(st, PIf):
                    why = None
                    if reads:
                        c, c0, side = terms(st.src, ranges)
                        if not unsat(*side, t <= 0, c != c0):
                            return f"line {st.span.line}: the branch differs below 0"
                        if unsat(*side, t <= 0, c0):
                            why = walk(st.other, ranges)   # `then` never runs at 0 or below
                            if why is not None:
                                return why
                            continue
                    why = walk(st.then, ranges) or walk(st.other, ranges)
                elif reads:
                    return f"line {st.span.line} reads it where it runs at 0"
                else:
                    why = None
            except Unencodable as err:
                return f"line {st.span.line}: z3 cannot express it ({err})"
            if why is not None:
                return why
        return None
    return walk(body, {})


def _length_bounds(el, program, syms: set, problems: list) -> list:
    """A loaded length that decides a shared address (a decode kernel's per-block logits column
    `S_shared[:, (len + 127) // 128 - 1]`) is only meaningful up to the buffer's extent, which
    is where the kernel's author put the largest length (max_seqlen): the largest value for
    which every such access stays inside its shared buffer, for every thread and iteration
    (z3), bounds the length; the scope line states it. [(symbol, bound, line)]"""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    out: dict = {}
    launch = el.launch
    ranges = {n: launch.threads["xyz".index(a[-1])] for n, a in launch.thread_vars.items()}
    ranges.update({n: launch.blocks["xyz".index(a[-1])] for n, a in launch.block_vars.items()})

    def pointers(e, out: list) -> list:
        """The T.tvm_access_ptr arguments into shared memory inside `e`."""
        if isinstance(e, ir.Call):
            if e.name == "T.tvm_access_ptr" and len(e.args) == 5:
                view = el.view_of(e.args[1])
                if view is not None and view.is_shared:
                    out.append(e)
                return out
            for a in e.args:
                pointers(a, out)
        return out

    def check(st, loops, guards) -> None:
        if isinstance(st.src, ir.Subscript):
            accesses = [st.src]
        elif isinstance(st.src, ir.Call):
            accesses = pointers(st.src, [])
        else:
            accesses = []
        for acc in accesses:
            index = acc.indices if isinstance(acc, ir.Subscript) else acc.args[2:4]
            mentioned = free_names(index) & syms
            if not mentioned:
                continue
            if len(mentioned) != 1:
                problems.append(f"line {st.span.line}: a shared access decided by several loaded "
                                "lengths")
                return
            bound_one(st, acc, index, next(iter(mentioned)), loops, guards)

    def bound_one(st, acc, index, sym, loops, guards) -> None:
        env = {n: z3.Int(n) for n in (free_names(index) | {lp.var for lp in loops}
               | {v for lp in loops for v in free_names(lp.src)}
               | {v for g, _ in guards for v in free_names(g)})}
        side, limits = [], []
        try:
            for n, v in env.items():
                if n in ranges:
                    side += [v >= 0, v < ranges[n]]
                elif n != sym and n not in {lp.var for lp in loops}:
                    raise Unencodable(f"name {n}")
            for lp in loops:
                (a, sa), (n, sn) = encode(lp.src[0], env), encode(lp.src[1], env)
                side += sa + sn + [env[lp.var] >= a, env[lp.var] < a + n]
            for g, taken in guards:   # the branches around the access
                c, sc = encode(g, env)
                side += sc + [c if taken else z3.Not(c)]
            if isinstance(acc, ir.Call):   # access_ptr(dtype, data, offset, extent, rw)
                view = el.view_of(acc.args[1])
                ann = acc.args[0]
                dtype = el.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else None
                bits = dtype_bits(str(dtype)) if dtype else view.elem_bits
                if not bits or bits % 8 or view.region is None:
                    raise Unencodable("pointer element size")
                off, s1 = encode(acc.args[2], env)
                ext, s2 = encode(acc.args[3], env)
                side += s1 + s2
                room = view.region.nbytes - view.byte_offset   # the bytes its allocation has
                limits += [off >= 0, (off + ext) * (bits // 8) <= room]
            else:
                view = el.view_of(acc.value)
                shape = view.shape if view is not None and view.is_shared else None
                if not shape:
                    raise Unencodable("shared buffer without a shape")
                if len(acc.indices) == 1 and isinstance(acc.indices[0], ir.Slice):
                    sl = acc.indices[0]
                    lo, s1 = encode(sl.lo, env)
                    hi, s2 = encode(sl.hi, env)
                    side += s1 + s2
                    limits += [lo >= 0, hi <= int(np.prod(shape))]
                elif len(acc.indices) == len(shape):
                    for idx, extent in zip(acc.indices, shape):
                        e, se = encode(idx, env)
                        side += se
                        limits += [e >= 0, e < extent]
                else:
                    raise Unencodable("subscript rank")
        except Unencodable as err:
            problems.append(f"line {st.span.line}: a loaded length decides a shared access the "
                            f"checker cannot bound ({err})")
            return
        opt = Query(*side, env[sym] >= 0, z3.Not(z3.And(*limits)), optimize=True)
        handle = opt.minimize(env[sym])
        res = opt.check()
        if res == z3.unsat:
            return   # inside its buffer for every length
        if res != z3.sat:
            problems.append(f"line {st.span.line}: a loaded length decides a shared access the "
                            "checker cannot bound (z3 gave up)")
            return
        lowest = opt.solver.lower(handle)
        first_out = lowest.as_long() if z3.is_int_value(lowest) else None
        if first_out is None or first_out <= 0:
            problems.append(f"line {st.span.line}: a shared access outside its buffer for every "
                            "loaded length")
            return
        if sym not in out or out[sym][0] > first_out - 1:
            out[sym] = (first_out - 1, st.span.line)

    def walk(stmts, loops: tuple, guards: tuple) -> None:
        for st in stmts:
            if isinstance(st, POp) and st.src is not None:
                check(st, loops, guards)
            elif isinstance(st, PIf):
                if st.src is None:
                    continue   # skipped by the machine
                walk(st.then, loops, guards + ((st.src, True),))
                walk(st.other, loops, guards + ((st.src, False),))
            elif isinstance(st, PLoop):
                walk(st.body, loops + (st,), guards)
    walk(program.body, (), ())
    return [(sym, bound, line) for sym, (bound, line) in out.items()]


def _loops_left(el, loops, lets, replaced: set, numeric_roots, problems) -> None:
    """Loops whose bounds still read a loaded number the sizes do not stand for: unknown."""
    for lp in loops:
        if free_names(lp.src) & (set(lets) - replaced) or any(
                el.view_of(x.value) is not None and el.roots.get(el.view_of(x.value).name) in numeric_roots
                for x in _subscripts(lp.src, [])):
            problems.append(f"line {lp.span.line}: a loop trip count decided by a loaded number "
                            "(proved for every value only where it is a length: a cell at a "
                            "block-uniform address, or end - start of a cu_seqlens-like pair)")


def _only_difference(exprs, start: str, end: str) -> bool:
    """z3: every expression takes the same value for (start, end) = (s, s + n) as for (0, n),
    for every s and every n >= 0 (every other name free)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    for e in exprs:
        names = free_names(e)
        env = {n: z3.Int(n) for n in names}
        # (z3 cuts a name at a NUL byte: "%" keeps them apart from TIR names and each other)
        s, n = z3.Int("%shift"), z3.Int("%length")
        shifted, base = dict(env), dict(env)
        shifted[start], shifted[end] = s, s + n
        base[start], base[end] = z3.IntVal(0), n
        try:
            a, sa = encode(e, shifted)
            b, sb = encode(e, base)
        except Unencodable:
            return False
        if not unsat(*sa, *sb, n >= 0, a != b):
            return False
    return True


def _replace_subscripts(e, sub_map: list):
    """`e` with every subscript equal to one in `sub_map` replaced by its expression."""
    def target(x):
        return next((t for sub, t in sub_map if x == sub), None)
    return ir.rewrite(e, target)


def _inline(e, lets: dict, rounds: int = 32):
    """`e` with the names of `lets` (name -> expression) replaced by their expressions, again in
    what they bring in, until none is left (at most `rounds` times: a let chain is short)."""
    for _ in range(rounds):
        if not free_names(e) & set(lets):
            break
        e = _rewrite(e, lets)
    return e


def _rewrite_program(body, mapping: dict, sub_map: list = (), inline: dict | None = None):
    """Replace the pair lets' names, the length cells and the lets computed from them in every
    expression the provers read, and make the pair lets evaluate to 0 (start) and the length
    symbol (end)."""
    inline = inline or {}

    def fix(e):
        if e is None:
            return None
        return _replace_subscripts(_rewrite(_inline(e, inline), mapping), sub_map)
    for st in body:
        if isinstance(st, PLet):
            if st.name in mapping:
                target = mapping[st.name]
                if isinstance(target, ir.Const):
                    st.value = lambda env, v=target.value: v
                else:
                    def length(env, k=target.name, span=st.span):
                        if k not in env:
                            raise NotConcrete(f"the symbolic size {k} has no value in this run", span)
                        return env[k]
                    st.value = length
                st.src = None   # every use names the symbol itself now
            elif st.name in inline:
                st.src = None   # every use reads its expression now
            elif st.src is not None:
                st.src = fix(st.src)
        elif isinstance(st, PIf):
            st.src = fix(st.src)
            st.names = frozenset(free_names(st.src)) if st.src is not None else st.names
            _rewrite_program(st.then, mapping, sub_map, inline)
            _rewrite_program(st.other, mapping, sub_map, inline)
        elif isinstance(st, PLoop):
            st.src = tuple(fix(x) for x in st.src)
            _rewrite_program(st.body, mapping, sub_map, inline)
        elif isinstance(st, POp) and st.src is not None:
            st.src = fix(st.src)
        elif isinstance(st, PStore):
            st.src = tuple(fix(x) for x in st.src)
    return fix


def _live_control(el, program: Program) -> None:
    """The names the machine's control decisions use: relevant loop bounds, branch conditions
    not reduced away, register stores, shared addresses and synchronization arguments, and the
    lets they read. Loaded numbers that only address global memory drop out of it (with them
    the block indices that only pick which cell is read)."""
    from .exprs import shared_index_exprs as _shared_exprs
    names: set = set()
    let_srcs: dict = {}
    reduced_lines = {line for line, _ in program.numeric.reduced} | \
        program.__dict__.get("uniform_choice_lines", set())
    copied = el.__dict__.get("copied_registers", set())

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PLet) and st.src is not None:
                let_srcs.setdefault(st.name, []).append(st.src)
            elif isinstance(st, PIf):
                if not st.relevant:
                    continue
                if st.src is not None and st.span.line not in reduced_lines:
                    names.update(free_names(st.src))
                walk(st.then)
                walk(st.other)
            elif isinstance(st, PLoop):
                if not st.relevant:
                    continue
                names.update(free_names(st.src))
                walk(st.body)
            elif isinstance(st, PStore):
                if st.region in copied:
                    continue   # every read names the cell it holds (`_register_copies`)
                names.update(*(free_names(x) for x in st.src if x is not None))
            elif isinstance(st, POp) and st.src is not None:
                out: list = []
                _shared_exprs(st.src, el.views, out)
                names.update(*(free_names(x) for x in out))
            elif isinstance(st, PNote):
                names.update(el.control_names)   # an op no model runs: keep the old, wide view
    walk(program.body)
    todo = list(names)
    while todo:
        n = todo.pop()
        for src in let_srcs.get(n, ()):
            for m in free_names(src) - names:
                names.add(m)
                todo.append(m)
    if program.numeric is not None and program.start_blocks:
        program.numeric.starts_only_by_block = not names & set(el.launch.block_vars)
    for start, blocks in program.start_blocks.items():
        if start in names:
            names |= blocks
    program.control_names = names | (el.control_names & set(program.symbols))
    program.block_dependent = bool(names & set(el.launch.block_vars))
