"""Data-dependent control flow: values a kernel loads from global memory and branches on.

A block-sparse mask, an expert id or a page-present flag is an *input*: the checker does not
know it, so the kernel must be right for every value it may take. A global-memory cell whose
address is the same for every thread of the block (so all threads see one value: the kernel
never writes the buffer, which is the assumption stated in the scope line) and whose every use
is a truth value takes one of two outcomes. `InputSearch` enumerates the outcome patterns of
the cells a run meets, depth first: every run fixes the cells an earlier run met and opens the
other outcome of each new one, so every reachable pattern, mixed outcomes across loop
iterations included, runs exactly once (or the search stops at `limit` runs and says so).

One reduction keeps patterns few: a cell that only decides branches with no `else` whose body
only reads and writes shared memory (plain loads and stores, cp.async, ldmatrix/stmatrix) is
taken as true. Skipping such a body removes accesses and changes no synchronization (no
barrier, commit, wait, arrive, register or let is in it), and removing accesses can only remove
races; so the taken run finds every race any pattern has, and its findings are real for the
input that takes every branch.

The same holds for a mask copied first and tested by `T.all_of` / `T.any_of`: over a register
range, the copied cells are taken where every read of the register is such a guard; over a
shared copy whose every write is a truth copy of the read-only mask and every read such a guard,
the calls are taken (their reads of the shared bytes still checked), the all-ones mask's run
(engine/program.py `_register_range`, `_shared_masks_taken`; the scope line says so).

Another keeps loops of n cells to n + 1 runs: where every statement of a loop body sits under
the iteration's cell and the loop variable decides nothing the machine evaluates
(engine/loop_sizes.py `_count_loops`), a run depends on the pattern only through its number of true
cells, so the search runs one pattern per count, its true cells first (`Inputs.value`). An all_of / any_of
range of a read-only global buffer may be the iteration's cell, the ranges of distinct
iterations disjoint (z3).
"""
from __future__ import annotations

import copy

import numpy as np

INPUTS = "\x00inputs"   # environment key of the run's Inputs (never a TIR name)

# loops whose iterations' outcomes are run pattern by pattern (engine/loaded_numbers.py
# `_iteration_choice`, "pattern"): a constant length up to MAX_PATTERN_TRIPS runs every pattern
# (2^6 = 64 runs, the search's limit); a longer or symbolic one varies only its first
# PATTERN_ITERATIONS iterations, later ones taken, and is never proved clean (analyze.py says so)
MAX_PATTERN_TRIPS = 6
PATTERN_ITERATIONS = 3
# data-dependent outcome patterns run per (size, block) before the search says it stopped short
# (analyze.py); a count loop of constant trip count n needs n + 1, so one with more has its count
# run as a symbolic size instead (engine/loop_sizes.py `_count_sizes`)
MAX_INPUT_PATTERNS = 64


class Inputs:
    """The outcomes of one run: cells fixed by the search, the others taken (1)."""

    def __init__(self, fixed: dict | None = None, numbers: dict | None = None):
        self.fixed = dict(fixed or {})
        self.numbers = dict(numbers or {})   # numeric cell -> the value this run loads
        # cell -> a value that gives the outcome this run took, shown in a witness but never
        # loaded (engine/loaded_numbers.py `_iteration_choice`, "pattern": one value for every true
        # cell would make distinct cells' TMA boxes look equal)
        self.shown: dict = {}
        self.sized: set = set()              # cells that hold a symbolic size's value
        self.order: list = []        # cells met, in the order this run met them
        self.both: set = set()       # cells met where both outcomes matter
        self.names: dict = {}        # cell -> "BlockMask_1[8]", for witnesses and the scope line
        self.groups: dict = {}       # cell -> its count-loop root (searched by count)
        self.closed: set = set()     # count-loop roots with a false cell met in this run
        self.forced: set = set()     # cells false because an earlier cell of their group is
        self.tied: set = set()       # cells of tied count roots (Program.tied_roots): always true
        # groups searched "monotone" (loaded_numbers.py `_iteration_choice`): the last outcome met, and
        # the groups whose outcome changed once already (every later cell keeps the new one)
        self.last: dict = {}
        self.turned: set = set()

    def value(self, cell, text: str, both: bool, group=None, tied: bool = False) -> int:
        """The outcome of truth-valued cell `cell` in this run. `group`: the input root of a
        count loop (loop_sizes.py `_count_loops`): its cells are met in loop order, and once one is
        false every later one is false too, so the runs of a group are its n + 1 counts."""
        new = cell not in self.names
        if tied:
            self.tied.add(cell)
        monotone = isinstance(group, tuple) and group[-1] == "monotone"
        if new:
            self.order.append(cell)
            self.names[cell] = text
            if group is not None:
                self.groups[cell] = group
                if cell not in self.fixed and monotone and group in self.turned:
                    self.fixed[cell] = self.last[group]   # after the one change: no choice left
                    self.forced.add(cell)
                elif cell not in self.fixed and not monotone and group in self.closed:
                    self.fixed[cell] = 0   # after a false cell of its group: no choice left
                    self.forced.add(cell)
        if both and cell not in self.forced:
            self.both.add(cell)
        v = self.fixed.get(cell, 1)
        if group is not None and v == 0:
            self.closed.add(group)
        if monotone and new:
            if group in self.last and self.last[group] != v:
                self.turned.add(group)
            self.last[group] = v
        return v

    def number(self, cell, text: str):
        """The value this run loads from numeric cell `cell`; None when no plan chose one."""
        if cell not in self.numbers:
            return None
        if cell not in self.sized:   # a symbolic size's cell: the size's scope line says it
            self.names.setdefault(cell, text)
        return self.numbers[cell]

    def same_run(self, chosen: dict) -> bool:
        """Whether a run from the fixed outcomes `chosen` runs as this finished one: the cells
        it met take the same values in the same order (a forced one forced again), so the run,
        deterministic, is this one."""
        for c in self.order:
            v = self.fixed.get(c, 1)
            if c in self.forced:
                if c in chosen and chosen[c] != v:
                    return False
            elif chosen.get(c, 1) != v:
                return False
        return True

    def counted_only(self) -> bool:
        """Every cell where both outcomes matter belongs to a count loop searched by count (not
        "monotone"): a false cell ends its group, so the first alternative is its count 0."""
        return all(c in self.groups and not (isinstance(self.groups[c], tuple) and self.groups[c][-1] == "monotone")
                   for c in self.both)

    def alternatives(self) -> list:
        """The patterns this run opens: for each new cell where both outcomes matter, the same
        outcomes for the cells met before it and the other outcome for it."""
        out = []
        # a forced cell is left for the next run to force again (from the same earlier cells):
        # fixing it would keep a monotone group's old value after its change point moved
        chosen = {c: v for c, v in self.fixed.items() if c not in self.forced}
        for i, cell in enumerate(self.order):
            if cell in self.fixed or cell not in self.both:
                continue
            alt = dict(chosen)
            for earlier in self.order[:i]:
                if earlier not in self.forced:
                    alt[earlier] = self.fixed.get(earlier, 1)
            alt[cell] = 0
            out.append(alt)
        return out

    def pattern(self) -> dict:
        """The outcomes of the cells where both matter, by name (a witness's input)."""
        out = {self.names[c]: int(self.fixed.get(c, 1)) for c in self.order
               if c in self.both or c in self.forced}
        out.update({self.names[c]: int(v) for c, v in self.shown.items() if c in self.names})
        out.update({self.names[c]: int(v) for c, v in self.numbers.items() if c in self.names})
        return out


# the searched cells from which the all-false pattern runs second (InputSearch): with fewer, the
# whole search fits the pattern budget (2**6 = MAX_INPUT_PATTERNS) and finds it in its turn
ALL_FALSE_EARLY = 6


class InputSearch:
    """Iterate the Inputs of every outcome pattern, learning new cells from each finished run."""

    def __init__(self, limit: int = 64, numbers: list | None = None, more_runs: int = 0,
                 more_steps: int = 0):
        """`limit` runs, then more (up to `more_runs` in all) while the runs' statement
        instances, added to `spent` by the caller after each run, stay under `more_steps`: a
        pipelined block-sparse GEMM whose mask register is read one iteration later has 2^8
        patterns of a short run each."""
        self.limit = limit
        self.more_runs, self.more_steps = more_runs, more_steps
        self.spent = 0   # statement instances of the runs made so far (the caller adds them)
        # the values of the numeric cells, one dict per satisfiable outcome combination of the
        # branches they decide (NumericInputs.assignments): the truth patterns are searched for each
        self.numbers = numbers if numbers is not None else [{}]
        self.numeric: set = set()    # numeric cells met
        self.sized: set = set()      # cells whose value is a symbolic size's (not enumerated here)
        self.runs = 0
        self.truncated = False
        self.names: dict = {}        # every cell met, over all runs
        self.both: set = set()
        self.counted: dict = {}      # cells of count loops (searched by count) -> their root
        self.tied: set = set()       # cells of tied count roots (always true; the size plan covers the rest)

    def searched(self) -> bool:
        """Whether a run met a cell whose value it searched (both outcomes, a number, a count):
        cells only ever read as true (taken, tied) decide nothing that differs between runs."""
        return bool(self.both or self.numeric or self.counted)

    def __iter__(self):
        for numbers in self.numbers:
            todo = [{}]
            all_false, early = None, None   # the all-false pattern run second, and its run
            while todo:
                if self.runs >= self.limit and (self.runs >= self.more_runs or
                                                self.spent >= self.more_steps):
                    self.truncated = True
                    return
                chosen = todo.pop()
                if early is not None and early.same_run(chosen):
                    # the depth-first order's own all-false run: made already; what it opens, opened
                    twin = copy.copy(early)
                    twin.fixed = dict(chosen, **{c: early.fixed[c] for c in early.forced if c in early.fixed})
                    todo.extend(reversed(twin.alternatives()))
                    continue
                inputs = Inputs(chosen, numbers)
                inputs.sized = self.sized
                yield inputs
                self.runs += 1
                self.names.update(inputs.names)
                self.both |= inputs.both
                self.counted.update(inputs.groups)
                self.tied |= inputs.tied
                self.numeric |= set(numbers) & set(inputs.names)
                if chosen is all_false:
                    early = inputs   # (what it opens is opened when its twin comes up)
                    continue
                todo.extend(reversed(inputs.alternatives()))
                if not chosen and len(inputs.both) >= ALL_FALSE_EARLY and not inputs.counted_only():
                    # second, every searched cell of the first run false (an empty mask row, no
                    # selected block: where found-bugs entries 6, 7 and 19 lie); the depth-first
                    # order reaches it last, past the budget of a long row (a count loop's second
                    # run is its count 0 already)
                    all_false = {c: 0 for c in inputs.order if c in inputs.both}
                    todo.append(all_false)


def shared_mask_line(region: str, roots: list, lines: list) -> str:
    """The scope line of a shared copy of a truth mask whose all_of / any_of conditions were
    checked taken (engine/program.py `_shared_masks_taken`)."""
    return (f"shared {region} only holds truth-cast copies of {', '.join(roots)} (assumed: "
            "read-only global memory), read only by the all_of / any_of conditions at lines "
            f"{lines}, each guarding shared accesses without synchronization: checked taken "
            "(skipping them removes accesses, never synchronization; with every mask cell 1 every "
            "one is taken); the conditions' own reads of the shared bytes are checked")


def register_copy_line(region: str, param: str, line: int, reads: list) -> str:
    """The scope line of a register filled by copies of a read-only parameter whose reads read
    as the cells copied (engine/loaded_numbers.py `_register_copies`)."""
    return (f"register {region} holds copies of {param} cells (line {line}; assumed: read-only "
            "global memory): each element written once, before any read, from an address the same "
            f"for every thread, so its reads at lines {reads} read those cells")


def scope_line(searches: list, choices: list = (), closed_arms: bool = False) -> str | None:
    """What the verdict assumed and covered, in words, over the searches of every block and
    size; None when no run met a data-dependent value. `closed_arms`: some taken branches guard
    a wgmma their arm commits and waits for itself (engine/program.py `_closed_wgmma_arm`)."""
    met = [s for s in searches if s.names]
    if not met:
        return None
    buffers = sorted({s.names[c].split("[", 1)[0] for s in met for c in s.names if c not in s.numeric})
    numeric = sorted({s.names[c].split("[", 1)[0] for s in met for c in s.numeric})
    cells = sum(len(s.names) for s in met)
    taken = sum(len(set(s.names) - s.both - s.numeric - set(s.counted) - s.tied) for s in met)
    tied = sorted({s.names[c].split("[", 1)[0] for s in met for c in s.tied})
    counted = sorted({s.names[c].split("[", 1)[0] for s in met for c, g in s.counted.items()
                      if not isinstance(g, tuple)})
    chosen = sorted({g for s in met for g in s.counted.values() if isinstance(g, tuple)})
    runs = sum(s.runs for s in met)
    kinds = []
    if buffers:
        kinds.append(f"branches on {', '.join(buffers)}")
    if numeric:
        kinds.append(f"numbers loaded from {', '.join(numeric)} deciding block-uniform branches "
                     f"(every satisfiable combination of those branches' outcomes, "
                     f"{sum(len(s.numbers) for s in met if s.numeric)} in all)")
    text = (f"data-dependent {' and '.join(kinds)} treated as unknown inputs (assumed: "
            f"read-only global memory, one value per block): {cells} value(s) met, ")
    if any(s.truncated for s in met):
        text += f"only the first {runs} outcome patterns checked, not every one"
    else:
        text += f"every outcome pattern checked ({runs} run(s))"
    if counted:
        text += (f"; {', '.join(counted)} only decide whole loop iterations (a false one does "
                 "nothing, and the loop variable only addresses global memory), so a pattern runs "
                 "like the one with as many true cells, all first: one run per count covers every "
                 "pattern")
    if tied:
        text += (f"; {', '.join(tied)} only decide whole iterations of loops that run d times "
                 "(the size line): a pattern with c true cells runs like the launch with d = c and "
                 "every cell true, so each d was run with every cell true")
    for _, root, mode in chosen:
        where = [(loop, list(lines)) for loop, lines, r, _, _ in choices if r == root]
        everywhere = all(e for _, _, r, _, e in choices if r == root)
        text += (f"; {root} decides, in each iteration of the loop(s) at line(s) "
                 f"{[w[0] for w in where]}, the branches at lines {sorted(x for w in where for x in w[1])} "
                 "by one cell, the same for every thread (the loop variable only picks the cell and "
                 "global addresses), so each iteration's outcome is an unknown truth value; " + (
                     "a false iteration only passes __syncthreads, and two barriers with nothing "
                     "between order what one does, so a pattern runs like the one with as many "
                     "true iterations, all first or all last: those patterns cover every pattern"
                     if mode == "monotone" else
                     "a false iteration does nothing, so a pattern runs like the one with as many "
                     "true iterations, all first: one run per count covers every pattern"))
        if everywhere:
            text += ("; z3 showed both outcomes possible in every block, so the condition decides "
                     "nothing that differs between blocks")
    for root in sorted({r for _, _, r, mode, _ in choices if mode == "pattern"}):
        loops = sorted({loop for loop, _, r, _, _ in choices if r == root})
        text += (f"; {root} decides each iteration of the loop(s) at line(s) {loops} by one cell, and "
                 "what a true iteration does depends on which one it is, so each pattern of "
                 f"outcomes ran as it is (a loop longer than {MAX_PATTERN_TRIPS} iterations or of "
                 f"symbolic length: the patterns of its first {PATTERN_ITERATIONS}, later iterations "
                 "taken)")
    if taken:
        text += (f"; {taken} of them only guard shared accesses without synchronization and were "
                 "checked taken (skipping them removes accesses, never synchronization)")
        if closed_arms:
            text += (" (some arms also issue a wgmma they commit and wait for themselves, fenced "
                     "before it by their own fence or by one outside every arm, with no wgmma in "
                     "flight where they start and no operation outside relying on their fence: "
                     "skipping one removes its accesses and its own waits)")
    return text


# ---------------------------------------------------------------- numbers loaded from global memory
# A value a kernel loads from read-only global memory and uses as a number (NSA's selected block
# index, a varlen kernel's cu_seqlens, a paged kernel's cache_seqlens) is an unknown input too
# (engine/loaded_numbers.py `_numeric_pass` finds where it decides anything):
# - where it only addresses global memory (a page-table lookup, TMA coordinates) it cannot change
#   shared-memory synchronization and is left alone;
# - where it decides a branch whose outcome is the same for every thread of the block, every
#   satisfiable combination of those branches' outcomes is run once, with values z3 picks
#   (`NumericInputs.assignments`): two branches on one cell never split;
# - where it decides a loop trip count, it must be a length: `end - start` of a pair of lets
#   `start = R[e]`, `end = R[e + 1]` (cu_seqlens; z3 shows every use depends on the pair only
#   through the difference, so start reads as 0), or one cell at a block-uniform address. The
#   length becomes a symbolic size >= 0 that prover/sizes.py proves the kernel for, like a dynamic
#   K. Where the length also decides a shared address, the largest length for which that access
#   stays inside its buffer bounds it (the kernel's own maximum, e.g. max_seqlen columns);
# - a branch whose condition differs between threads is reduced when both arms touch the same
#   shared bytes (only stored values differ), or, on a loaded cell, when it only guards shared
#   accesses (taken by every thread: skipping accesses can only remove races);
# - anything else (a shared address or a register from a loaded cell, a thread-dependent branch
#   on one with synchronization inside) keeps the kernel `unknown`, naming the line.

LENGTH_ASSUMPTION = "every value >= 0 (the offsets array is non-decreasing)"
CELL_LENGTH_ASSUMPTION = "every value >= 0 (a length)"
FOLD_TRIPS_ASSUMPTION = "every value >= 0 (a loop count; a negative one runs no iteration, as 0)"


class NumericInputs:
    """What elaboration found about the numbers a kernel loads (loaded_numbers.py `_numeric_pass`)."""

    def __init__(self):
        self.conditions: list = []   # (ir condition over global loads, line): uniform branches
        self.cells: dict = {}        # id(ir.Subscript) -> (root, fn(env) -> byte key, text)
        self.reduced: list = []      # (line, how): branches whose outcome cannot matter
        # (branch line, first line, last line) of the arms of the branches reduced as taken
        # every time ("taken", "fenced"): a read there may run where the real outcome skips it
        self.taken_arms: list = []
        self.lengths: list = []      # (symbol, what it is, in words)
        self.length_cells: list = []  # (symbol, fn(env) -> cell key): a cell that is a size itself
        self.fold_trips: list = []   # symbols standing for a trip count registers fold (`_fold_trips`)
        # (symbol, ir trip count over names `fold0`.., {name: fn(env) -> cell key}): the cells the
        # registers fold, for a launch that realises the symbol's value (emit/prepare.py)
        self.fold_cells: list = []
        # (symbol, ir trip expression, {let name: fn(env) -> cell key}, cu_seqlens-like pairs):
        # a trip count of several loaded values (engine/loaded_numbers.py `_trip_symbol`)
        self.trip_cells: list = []
        # (trip symbol, ir start over the same names, M): loops of that trip count start at a value
        # of the loaded numbers that decides the kernel only mod M (loaded_numbers.py `_start_residue`):
        # the runs of each trip count load values for every remainder the block reaches
        self.start_cells: list = []
        # the block indices decide nothing but the named starts' remainders (loaded_numbers.py
        # `_live_control`): a block's run of one (sizes, branch outcomes, remainders) runs as any
        # other block's, so `assignments(.., covered)` drops the combinations a block already ran
        self.starts_only_by_block = False
        # (symbol, fn(env) -> start cell key, fn(env) -> end cell key): a cu_seqlens-like pair whose
        # difference is a symbolic size (the runs read start as 0 and end as the size)
        self.pair_cells: list = []
        self.bounds: list = []       # (symbol, largest value, line of the shared access that bounds it)
        self.problem: str | None = None   # why the loaded numbers cannot be enumerated
        self.max_patterns = 64

    def assignments(self, env: dict, covered: set | None = None) -> tuple[list, str | None]:
        """Every satisfiable combination of the uniform conditions' outcomes in one block
        (`env`: its block indices and sizes) -> ([{cell key: value}], None), or ([], why).
        `covered`: the combinations of outcomes earlier blocks ran at these sizes, where the blocks
        differ in nothing else (`starts_only_by_block`): those are left out, this block's added."""
        if self.problem is not None:
            return [], self.problem
        base = {}
        for sym, key_fn in self.length_cells:   # the size's value of this run, as the cell's
            if sym in env:
                try:
                    base[key_fn(env)] = int(env[sym])
                except NotConcreteKey as err:
                    return [], f"the address of {sym} ({err})"
        trips = [t for t in self.trip_cells if t[0] in env]
        if not self.conditions and not trips:
            return [base], None
        import z3

        from .. import ir
        from ..prover.encode import Unencodable, encode
        from ..prover.solve import Query
        cells: dict = {}      # cell key -> z3 variable
        bounds: list = []

        def replace(e):
            if isinstance(e, ir.Subscript) and id(e) in self.cells:
                root, key_fn, bits = self.cells[id(e)]
                key = key_fn(env)
                if key not in cells:
                    v = z3.Int(f"cell{len(cells)}")
                    cells[key] = v
                    bounds.extend([v >= -(1 << (bits - 1)), v < (1 << (bits - 1))])
                return ir.Var(f"cell{list(cells).index(key)}")
            if isinstance(e, ir.Call) and e.name in _INT_LITERALS and len(e.args) == 1:
                return replace(e.args[0])   # `T.int8(1)`: a literal of a narrower type
            if isinstance(e, (tuple, list)):
                return type(e)(replace(x) for x in e)
            if hasattr(e, "__dataclass_fields__") and not isinstance(e, ir.Span):
                import dataclasses
                return dataclasses.replace(e, **{f: replace(getattr(e, f)) for f in e.__dataclass_fields__
                                                 if f != "span"})
            return e

        atoms, side = [], []
        try:
            for cond, line in self.conditions:
                e = replace(cond)
                zenv = {f"cell{i}": v for i, v in enumerate(cells.values())}
                for name, val in env.items():
                    if isinstance(val, (int, np.integer)) and not isinstance(val, bool):
                        zenv[name] = z3.IntVal(int(val))
                term, s = encode(e, zenv)
                side += s
                atoms.append(term)
        except (Unencodable, NotConcreteKey) as err:
            return [], f"a branch on a loaded value z3 cannot express ({err})"
        # a trip count of several loaded values (loaded_numbers.py `_trip_symbol`) keeps the size's value
        # in every combination: its cells are solved together with the conditions' (a condition's
        # cell may be one of them)
        from .exprs import free_names
        # (z3 remainder of a loop start, its trip count's term, that count's value, the modulus)
        starts: list = []
        values: list = []   # each trip count's term == its value in this run
        try:
            for sym, expr, keys, pairs in trips:
                names = {}
                for name, key_fn in keys.items():
                    key = key_fn(env)
                    if key not in cells:
                        cells[key] = z3.Int(f"cell{len(cells)}")
                        bounds.extend([cells[key] >= 0, cells[key] < 2 ** 31])
                    names[name] = cells[key]
                zenv = dict(names)
                for name in set().union(*(free_names(e) for e in [expr] + [
                        st for t, st, _ in self.start_cells if t == sym])) - set(names):
                    zenv[name] = z3.IntVal(int(env[name]))
                term, s = encode(expr, zenv)
                side += s + pair_order(pairs, names)
                for t, start, modulus in self.start_cells:
                    if t == sym:
                        at, s_at = encode(start, zenv)
                        side += s_at
                        starts.append((at % modulus, term, int(env[sym]), modulus))
                values.append(term == int(env[sym]))
        except (Unencodable, NotConcreteKey, KeyError, TypeError) as err:
            return [], f"a trip count with a branch on its loaded values ({err})"
        atoms += [rest for rest, _, _, _ in starts]
        seen: list = [set() for _ in starts]
        query = Query(*bounds, *side, rlimit=None)
        query.solver.push()   # (popped for the larger trip counts' question, one context for both)
        query.add(*values)
        out = []
        dedupe = covered is not None and self.starts_only_by_block
        kept = []
        while len(out) < self.max_patterns and query.check() == z3.sat:
            out.append({**base, **{key: query.number(v) for key, v in cells.items()}})
            for got, (rest, _, _, _) in zip(seen, starts):
                got.add(query.number(rest))
            outcome = tuple(query.number(a) for a in atoms)
            if not dedupe or outcome not in covered:
                kept.append(out[-1])
                if dedupe:
                    covered.add(outcome)
            if not atoms:
                break   # only trip counts to satisfy: one combination
            query.add(z3.Or(*[a != query.number(a) for a in atoms]))
        if not out:   # a trip count no loaded values give here: no run may stand for it
            return [], ("no loaded values give " + ", ".join(f"{t[0]} = {env[t[0]]}" for t in trips) +
                        " in this block")
        if len(out) >= self.max_patterns and query.check() == z3.sat:
            return kept, "truncated"
        if starts:   # a remainder this trip count misses must be missed by every larger one too
            query.solver.pop()
            why = _larger_trips_reach(query, starts, seen)
            if why is not None:
                return [], why
        return kept, None


def _larger_trips_reach(query, starts: list, seen: list) -> str | None:
    """Why the loop-start remainders this trip count's runs load (`seen`, one set per start) may
    not stand for a larger trip count, or None. A run of trip count n + step runs like one of n
    with the same start (prover/induction.py), so every remainder that some larger trip count
    reaches in this block must be among this one's. `query` holds the block's constraints but no
    trip count's value."""
    import z3
    for (rest, trips, value, modulus), got in zip(starts, seen):
        for r in range(modulus):
            if r in got:
                continue
            query.solver.push()
            query.add(trips > value, rest == r)
            reached = query.check() != z3.unsat
            query.solver.pop()
            if reached:
                return (f"a loop start's remainder {r} comes only with trip counts above "
                        f"{value} in this block: no run may stand for them")
    return None


def numbers_enumerated(program) -> bool:
    """A run of `program` meets loaded numbers it enumerates: cells deciding uniform branches,
    lengths, trip counts, per-iteration choices or counted truth values. Not when every branch
    on one was reduced (`NumericInputs.reduced`) or they cannot be enumerated (`problem`)."""
    numeric = getattr(program, "numeric", None)
    if numeric is None or numeric.problem is not None:
        return False
    # a trip count registers fold (loaded_numbers.py `_fold_trips`) is a size the runs read, never a
    # loaded value: the registers stay unknown data
    lengths = [sym for sym, _ in numeric.lengths if sym not in numeric.fold_trips]
    return bool(numeric.conditions or numeric.cells or lengths or numeric.length_cells
                or numeric.trip_cells or numeric.pair_cells or program.iteration_choices
                or set(program.count_roots) - program.tied_roots)


def launch_numbers(numeric, env: dict) -> tuple[dict | None, str | None]:
    """The numbers one checking run of a block loads ({cell key: value}: its first satisfiable
    combination, the pairs' start 0 and end the size), for a launch that must read what that
    run read (the sanitizer gate, emit/prepare.py); (None, why) when there is none."""
    if numeric is None:
        return {}, None
    found, why = numeric.assignments(env)
    if not found:
        return None, why or "no satisfiable values for the loaded numbers"
    out = dict(found[0])
    for sym, start_fn, end_fn in numeric.pair_cells:
        if sym in env:
            try:
                out[start_fn(env)], out[end_fn(env)] = 0, int(env[sym])
            except NotConcreteKey as err:
                return None, f"the address of {sym}'s pair ({err})"
    return out, None


def pair_order(pairs, env: dict) -> list:
    """z3 facts of cu_seqlens-like pairs (start, end): start >= 0, end >= start (the offsets array
    is non-decreasing); `env` maps the pairs' names to z3 terms."""
    return [c for start, end in pairs for c in (env[start] >= 0, env[end] >= env[start])]


_INT_LITERALS = {"T.int8", "T.int16", "T.uint8", "T.uint16", "T.uint64"}


class NotConcreteKey(Exception):
    """A loaded cell whose address this block cannot compute (a loop variable, a thread id)."""
