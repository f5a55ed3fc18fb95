"""The pipeline, one direction: text -> parse -> elaborate (models) -> machine -> checks."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from . import checks
from .diagnostics import Finding, verdict
from .engine.inputs import (CELL_LENGTH_ASSUMPTION, MAX_INPUT_PATTERNS, register_copy_line, shared_mask_line, FOLD_TRIPS_ASSUMPTION, INPUTS, LENGTH_ASSUMPTION, InputSearch, numbers_enumerated,
                            scope_line)
from .engine.state.cluster import cta_stride
from .engine.machine import Machine, RunResult
from .engine.exprs import free_names
from .engine.loop_sizes import CLC_CUT_MARGIN
from .engine.program import elaborate
from .models.clc import CANCELLED
from .engine.scopes import scoped_lets, source_names
from .checks.resources import LAUNCH_RULES, KernelContext
from .parse import parse
from .prover import one_thread_at_a_time


@dataclass
class Limits:
    max_steps: int = 2_000_000
    max_threads: int = 1024
    max_file_bytes: int = 1 << 20    # larger files are not parsed (Lark parses ~50 KB/s): AG002
    prefix_steps: int = 10_000       # a kernel certain to need > max_steps runs only this far
    max_seconds: float = 0           # wall-clock budget per kernel (0: none; main thread only)
    # callable(findings so far) -> bool: stop a kernel's runs (sizes, blocks) as soon as it is
    # true. The repair oracle's "is this edit clean?" needs one problem, not all of them.
    stop_when: object = None
    # with stop_when: size values to run first, before the proof that plans the rest (the repair
    # oracle passes the sizes where the unedited kernel failed: a wrong edit mostly fails there)
    first_sizes: tuple = ()
    # with stop_when: blocks to run first (the repair oracle passes the block where the last
    # wrong edit failed: the next one mostly fails there too); the report lists them as sampled
    first_blocks: tuple = ()
    # with stop_when, on a kernel without symbolic sizes: ask it also inside a run, each time the
    # run records a race, with the findings those races make (_race_stop says when they are
    # certain). Only for a caller to whom any note (AG001-AG003) would count as a problem too:
    # a later note is what can still drop a race found so far (the repair oracle, when the
    # unedited kernel has none)
    stop_at_race: bool = False
    strict: tuple = ()               # opt-in strict readings ("lapping", "proxy"; checks.mbarrier.STRICT)


@dataclass
class KernelReport:
    name: str
    findings: list = field(default_factory=list)
    threads: int = 0
    steps: int = 0
    blocks: list = field(default_factory=lambda: [{}])   # block indices checked
    resources: dict = field(default_factory=dict)   # shared-memory budget (checks/resources.py)
    scope: list = field(default_factory=list)        # what the verdict covers, in words
    run_blocks: list = field(default_factory=list)   # of `blocks`, those run (not proved to run as another)


@dataclass
class FileReport:
    path: str
    kernels: list = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for k in self.kernels for f in k.findings]

    @property
    def verdict(self) -> str:
        return verdict(self.findings)


@one_thread_at_a_time
def check_text(text: str, path: str = "<string>", limits: Limits | None = None,
               arch: str | None = None, assumptions: list | None = None, module=None) -> FileReport:
    """Check every prim_func in a TVMScript text. Raises parse.InputError for bad input.
    `assumptions`: expressions over symbolic sizes ("K >= 1", "K % 32 == 0"). `module`: the
    text already parsed (the sanitizer gate parses once for the check and its skeletons)."""
    limits = limits or Limits()
    too_big = _file_too_large(text, path, limits)
    if too_big is not None:
        return too_big
    module = module if module is not None else parse(text, path)
    if assumptions:
        from .prover.sizes import parse_assumption   # loads z3: only when a proof may be needed
        asm = [parse_assumption(a) if isinstance(a, str) else a for a in assumptions]
    else:
        asm = []
    report = FileReport(path)
    for func in module.functions:
        clock = _Clock(limits.max_seconds)
        try:
            with clock:
                try:
                    report.kernels.append(_check_function(func, text, path, limits, arch, asm, clock))
                except Exception:
                    if clock.expired:   # the alarm's exception, turned into another where it landed
                        raise _Deadline() from None
                    raise
        except _Deadline:   # outside the machine (elaborating, bounding, checking)
            from .checks.unsupported import ENGINE_LIMIT
            msg = f"more than --timeout {limits.max_seconds:g} s for this kernel; not checked"
            span = getattr(func, "span", None)
            report.kernels.append(KernelReport(func.name, [Finding(
                ENGINE_LIMIT, max(getattr(span, "line", 1) or 1, 1), max(getattr(span, "col", 1) or 1, 1),
                msg, {"reason": msg}, path)]))
        except Exception as err:  # noqa: BLE001 -- an engine bug is AG003 (verdict unknown), never a traceback
            report.kernels.append(KernelReport(func.name, [_internal_error(err, func, path)]))
    return report


def _fixed_skips_mixed(result, sizes) -> bool:
    """A size's run in which loops of constant bounds were planned (engine/machine.py `_long`)
    is not the kernel's: a skip was stopped as not matched by a loop beside it, or of those loops
    (the size loops left out: their own runs decide their skips, prover/induction.py) one skipped
    periods while another that may block or release threads did not."""
    size_lines = getattr(getattr(sizes, "induction", None), "loop_lines", ()) or ()
    return result.skips_mixed or result.skips_disagree(leave_out=size_lines)


def _taken_arm_reads(found: list, program, path: str, blind_arms=()) -> list:
    """A read of unwritten shared bytes (AG417) inside the arm of a branch on a loaded number that
    the numeric pass checks taken every time (engine/loaded_numbers.py `_numeric_pass`, "taken" and
    "fenced"), or of a branch on a value the engine does not compute that the machine ran blind
    (`blind_arms`: program.py `_blind_arm`): that reduction runs a superset of the arm's
    accesses, sound for races, but the read may run where the real outcome skips it (the writes
    that would have filled the bytes sit under branches on the same cells that are enumerated:
    NSA forward's pipelined loop; a rescale of a tensor-memory accumulator before its first MMA).
    Not a definite bug: the kernel is `unknown` there (AG001), saying so."""
    numeric = getattr(program, "numeric", None)
    arms = list(getattr(numeric, "taken_arms", None) or ()) + list(blind_arms)
    if not arms:
        return found
    from .checks.mbarrier import UNWRITTEN_READ
    from .checks.unsupported import UNSUPPORTED
    out = []
    for f in found:
        arm = next((a for a in arms if f.line in a[1]), None) \
            if f.rule is UNWRITTEN_READ else None
        if arm is None:
            out.append(f)
            continue
        what = ("a branch on a value the engine does not compute, checked taken by every thread"
                if arm in blind_arms else "a branch on a loaded number checked taken every time")
        msg = (f"line {f.line}: a read of shared bytes no write reached, inside the branch at line "
               f"{arm[0]}, {what}: whether the real outcomes write those bytes first is not decided")
        out.append(Finding(UNSUPPORTED, f.line, f.col, msg, {"reason": msg, "read": f.message}, path))
    return out


def _deciding_block_axes(program) -> set:
    """The blockIdx axes whose index reaches control flow, a shared address or a barrier (the
    sites of prover/behaviours.py); the blocks sampled vary only these."""
    from .prover import behaviours
    names = set(program.control_names)
    for st in behaviours.sites(program):
        names |= free_names(st.expr)
    return {axis for var, axis in program.launch.block_vars.items() if var in names}


class _LongTails(Exception):
    """A size run did not take the jump its plan's short tails need (prover/induction.py
    `tail_for`): the kernel is checked again with the long ones."""


def _check_function(func, text: str, path: str, limits: Limits, arch, asm,
                    clock: "_Clock | None" = None) -> KernelReport:
    try:
        return _check_sizes(func, text, path, limits, arch, asm, clock, short_tails=True)
    except _LongTails:
        return _check_sizes(func, text, path, limits, arch, asm, clock, short_tails=False)


def _check_sizes(func, text: str, path: str, limits: Limits, arch, asm, clock: "_Clock | None",
                 short_tails: bool) -> KernelReport:
    """One kernel's check; `short_tails`: its size loops' plan (prover/sizes.py plan_sizes)."""
    func = scoped_lets(func)   # as elaborate() reads it (engine/scopes.py): the same let names
    program = elaborate(func)
    kernel = KernelContext(program, func, text, arch)   # resource checks (AG5xx)
    deciding = _deciding_block_axes(program) if program.block_dependent else set()
    blocks = program.launch.sample_blocks(deciding=deciding) if program.block_dependent else [{}]
    alike = program.block_dependent and program.blocks_alike and len(blocks) > 1
    if alike:   # every outcome pattern of one block is one of every block (engine/program.py)
        blocks = blocks[:1]
    sizes = None
    stop = limits.stop_when
    run_first = [b for b in limits.first_blocks if b in blocks] if stop is not None else []
    run_order = run_first + [b for b in blocks if b not in run_first]
    # more blocks, spread over the grid, while their runs stay cheap (EXTRA_BLOCK_STEPS): the
    # sampled ones may all miss a block's own path (models/launch.py `more_blocks`)
    extra = program.launch.more_blocks(blocks, deciding) \
        if program.block_dependent and not alike and not program.symbols and len(blocks) > 1 else []
    extra_from = None   # the steps run when the first extra block started

    def size_cases():
        """Each size to run; with stop_when, the smallest first, before the probe run and the
        proofs that choose the rest (a problem there settles the question); then the first value
        whose size loops skip (it wraps every ring: most wrong edits show there), then the rest."""
        nonlocal sizes
        done: list = []
        if program.symbols and stop is not None:
            for size in limits.first_sizes:
                if set(size) == set(program.symbols) and size not in done:
                    done.append(size)
                    yield size
            from .prover.sizes import small_sizes
            for size in small_sizes(program, asm, count=1):
                done.append(size)
                yield size
        if program.symbols:
            if stop is not None and done and stop(findings):
                return    # settled by a first value: no plan (its probe runs and z3) to make
            from .prover.sizes import plan_sizes
            sizes = plan_sizes(program, asm, short_tails=short_tails)
            program.tied_roots.update(sizes.tied_roots)   # run with every cell true (the plan's proof)
        cases = sizes.values if sizes is not None and sizes.values else [{}]
        ind = getattr(sizes, "induction", None)
        cut = getattr(sizes, "cut", None)
        trips = dict(zip(map(str, cases), getattr(sizes, "trips", ())))
        if ind is not None and ind.n0:
            # first the shortest value whose size loops must skip: if they do not, the plan's
            # proof is void and only the short values an unproved plan runs are left to run
            first = next((v for v in cases if min(trips.get(str(v), ()), default=-1) >= ind.n0
                          and not (cut is not None and cut.composable(v))), None)
            if first is not None:
                cases = [first] + [v for v in cases if v is not first]
        for size in cases:
            if size_skip_failed and max(trips.get(str(size), ()), default=0) > UNPROVED_MAX_TRIPS:
                continue
            if cut is not None and cut.composable(size) and size not in done:
                # every run of each group with the other's first values is done (the plan's
                # order): the cut either stands for the rest or they are run (prover/sizes_cut.py)
                if cut.outcome is None:
                    cut.outcome = cut.holds(searches) or ""
                if not cut.outcome:
                    continue
            if size not in done:
                yield size

    findings, seen, steps, scope, broken = [], set(), 0, [], []
    size_skip_failed = False
    ran: list = []      # the size values run
    searches: list = []   # per (size, block): the data-dependent outcome patterns run
    # prover.block_alike.BlockAlike per program run (the kernel, or a size's copy that reads its
    # derived size, whose sites are the ones that run decides on): made when a second block is met
    same_runs: dict = {}
    stood_for: dict = {}  # str(block) -> [block, [the block it ran as, per size], times run]
    covered: dict = {}    # str(size) -> outcome combinations run (NumericInputs.assignments)
    for size in size_cases():
        if stop is not None and stop(findings):
            break
        machine_class = _machine_for(sizes)   # `sizes` is set once size_cases made the plan
        ran_blocks: list = []   # (block, its input search) run at this size
        for block in run_order + extra:
            if stop is not None and stop(findings):
                break
            if _long_unproved(sizes, size) and any(s.truncated for s in searches):
                break   # the verdict is `unknown` already: another block's long run cannot settle it
            if block in extra:
                # a run costs about what the sampled ones did: run another only while the
                # budget has room for it (steps, not seconds: the same blocks on every machine)
                if extra_from is None:
                    extra_from = steps
                # (statement instances weighed by the threads the machine runs: one instance of a
                # 2-CTA cluster's 512 threads costs several of a 64-thread block's)
                weight = program.launch.machine_threads / 128
                per_run = extra_from / max(sum(1 for b in stood_for.values() if b[2]), 1)
                if (steps - extra_from + per_run) * weight > EXTRA_BLOCK_STEPS:
                    break
                blocks.append(block)
            ref = None
            if ran_blocks and (program.numeric is None or program.numeric.problem is None
                               and not numbers_enumerated(program)):
                # z3 proves that this block decides everything as one already run: its run would
                # be that one's (prover/block_alike.py). Not where a run met data-dependent
                # values: which cells two loads share may differ between blocks.
                run_program = _run_program(program, sizes, size)
                if id(run_program) not in same_runs:   # (BlockAlike keeps the program alive)
                    from .prover.block_alike import BlockAlike
                    same_runs[id(run_program)] = BlockAlike(run_program)
                prover = same_runs[id(run_program)]
                ref = next((b for b, s in ran_blocks if not s.searched() and not s.truncated
                            and prover.runs_as(block, b)), None)
            entry = stood_for.setdefault(str(block), [block, [], 0])
            if ref is not None:
                entry[1].append(ref)
                continue
            entry[2] += 1
            numbers, why = [{}], None
            if program.numeric is not None:   # numbers loaded from global memory (engine/inputs.py)
                env = dict(program.launch.base_env(block), **size)
                numbers, why = program.numeric.assignments(
                    {k: v for k, v in env.items() if not isinstance(v, np.ndarray)},
                    covered.setdefault(str(size), set()))
                if why is not None and why != "truncated":
                    program.numeric.problem = why
                    numbers = [{}]
            # past MAX_INPUT_PATTERNS, runs while the kernel's pattern runs stay under the budget.
            # Once one search stopped short the verdict is `unknown` whatever the others find, so
            # each later one runs its first pattern only (every searched cell 1, the one with the
            # most accesses: what it shows is still found); the long value of a size plan without
            # proof (_long_unproved) runs patterns past its first only within the budget
            stopped_short = any(s.truncated for s in searches)
            limit = 1 if stopped_short or _long_unproved(sizes, size) else MAX_INPUT_PATTERNS
            search = InputSearch(limit, numbers=numbers, more_runs=0 if stopped_short else MORE_INPUT_PATTERNS,
                                 more_steps=INPUT_PATTERN_STEPS - sum(s.spent for s in searches))
            if program.numeric is not None and numbers:
                search.sized = {k for k, v in numbers[0].items()
                                if any(k == _cell_of(fn, env) for _, fn in program.numeric.length_cells)}
            if why == "truncated":
                search.truncated = True
            searches.append(search)
            ran_blocks.append((block, search))
            for inputs in search:
                if stop is not None and stop(findings):
                    break
                budget, need, loop = limits.max_steps, 0, None
                if program.launch.num_threads <= limits.max_threads:
                    need, loop = min_steps(program, dict(program.launch.base_env(block), **size),
                                           limits.max_steps)
                    need *= program.launch.cluster_size   # every CTA of a cluster runs it
                    if need > limits.max_steps and loop is not None:   # certain to hit the limit
                        budget = min(limits.max_steps, limits.prefix_steps)  # unless accelerated

                def new_machine(**options):
                    """A machine for this block, size and inputs, with the program's notes."""
                    made = machine_class(_run_program(program, sizes, size), max_threads=limits.max_threads,
                                         block=block, sizes=dict(size, **{INPUTS: inputs}),
                                         strict=limits.strict, **options)
                    for reason, span in program.notes + getattr(sizes, "notes", []):
                        made._note(reason, span)
                    return made

                def run(made):
                    kernel.observe(made)
                    return made, _run_machine(made, clock, limits.max_seconds)

                first_run = dict(max_steps=budget,
                                 # sizes: the induction needs the size loops to skip
                                 accelerate_lines=() if size_skip_failed else
                                 getattr(getattr(sizes, "induction", None), "loop_lines", ()),
                                 # a run that may stop at its first race compares no state
                                 # before the second period: a task waiting at a compared
                                 # boundary ends the stopping (_race_stop)
                                 settle=not (stop is not None and limits.stop_at_race))
                machine = new_machine(**first_run)
                if size and size not in ran:
                    ran.append(size)
                at_race: list = []   # the certain race findings a stopped run ended with
                if stop is not None and limits.stop_at_race and not size:
                    machine.on_race = _race_stop(stop, findings, at_race, path, limits.strict)
                machine, result = run(machine)
                if size and machine.fixed_planned and _fixed_skips_mixed(result, sizes):
                    # a loop of constant bounds inside a size loop skipped and a loop beside it
                    # did not skip as many: run this size again planning only what was planned
                    # before such loops were (engine/machine.py `_long`)
                    machine, result = run(new_machine(**first_run, plan_fixed=False))
                ind = getattr(sizes, "induction", None)
                if size and ind is not None and ind.loop_lines and any(
                        a is None and n >= ind.n0_of(span.line) and span.line in ind.loop_lines
                        for span, n, a, _, _ in result.accelerated):
                    # a size loop that had to skip did not, while another may have: loops of one
                    # pipeline can be out of step (a false hang). Run this size again with no size
                    # loop skipping; the first run's notes keep the induction from counting as proved.
                    if ind.short_tails:
                        raise _LongTails()   # the producer's jump may have left too few iterations
                    first = result.accelerated
                    machine, result = run(new_machine(max_steps=budget))
                    result.accelerated = first + result.accelerated
                    size_skip_failed = True   # only short sizes are run from now on (size_cases)
                if not size and result.mixed():
                    # one loop skipped periods while another, run by other threads beside it,
                    # could not (e.g. a consumer loop with a first-iteration branch): the skipped
                    # producer never makes the arrivals the consumer still waits for, a false hang.
                    # Run the block again with no loop skipping; first, when loops in while
                    # loops compared their state from their first iteration (machine.settle),
                    # with them comparing from their second period, as other loops do.
                    first, settled = result.accelerated, machine.settled
                    if settled:
                        machine, result = run(new_machine(max_steps=budget, settle=False))
                    if not settled or result.mixed():
                        machine, result = run(new_machine(max_steps=limits.max_steps, accelerate_above=1 << 62))
                        result.accelerated = [(span, n, None, None, "not skipped: another loop beside "
                                               "it could not skip (run again without skipping)")
                                              for span, n, _, _, _ in first]
                if budget < limits.max_steps and result.limit_hit and result.steps > budget:
                    result.limit_hit = (
                        f"at least {need:,} statement instances (the loop at line {loop.line}, not "
                        f"accelerated): more than --max-steps {limits.max_steps:,}, too large for the "
                        f"concrete engine; only the first {budget:,} were checked")
                steps += result.steps
                search.spent += result.steps * program.launch.machine_threads / 128
                for span, n, a, b, how in result.accelerated:
                    if size:   # symbolic sizes: the induction needs every long run to skip
                        ind = getattr(sizes, "induction", None)
                        if a is None and ind is not None and ind.n0 and n >= ind.n0_of(span.line) and \
                                span.line in ind.loop_lines:
                            broken.append(f"loop at line {span.line} ({n} iterations) {how}")
                        elif a is not None and (ind is None or span.line not in ind.loop_lines):
                            # a loop of fixed trips inside a size loop (engine/machine.py `_long`)
                            line = (f"loop at line {span.line} ({n} iterations): periods skipped in the "
                                    f"sizes' runs, {how}")
                            if line not in scope:
                                scope.append(line)
                        continue
                    line = (f"loop at line {span.line} ({n} iterations): " +
                            (f"iterations {a}..{b - 1} skipped, {how}" if a is not None else how))
                    if line not in scope:
                        scope.append(line)
                if result.trapped and result.trapped not in scope:
                    scope.append(result.trapped)
                scope.extend(source_names(line) for line in result.blind_taken
                             if source_names(line) not in scope)
                for a in result.assumed:   # the rest rested on no finding (else a note: taint.py)
                    line = (f"line {a.span.line}: {a.reason}: assumed to end (other blocks' progress "
                            "is not checked); it touches no shared memory, and no finding rests on it")
                    if line not in scope and not any(n.span == a.span for n in result.notes):
                        scope.append(line)
                found = at_race if machine.stopped_at_race else \
                    checks.run_all(result.prefix() if result.halted_exact else result, path,
                                   kernel=kernel, strict=limits.strict)
                if result.control_lost and not result.halted_exact:
                    # paths were skipped: what follows may be an artifact, except what the
                    # launch's own allocations decide (a run stopped at hardware data with
                    # nothing skipped before keeps what its prefix decides: RunResult.prefix)
                    found = [f for f in found if f.rule.kind == "unsupported" or f.rule.code in LAUNCH_RULES]
                found = _taken_arm_reads(found, program, path, result.blind_arms)
                for f in found:
                    key = (f.rule.code, f.line, f.col)
                    if key not in seen:
                        seen.add(key)
                        if block:
                            f.witness["block"] = dict(block)
                        if size:
                            f.witness["sizes"] = dict(size)
                        if inputs.pattern():   # the data-dependent values of the failing run
                            f.witness["inputs"] = inputs.pattern()
                            f.message += " (with " + ", ".join(f"{k} = {v}" for k, v in
                                                              inputs.pattern().items()) + ")"
                        findings.append(f)
    target = program.attrs.get("target")
    named = arch or (target.get("arch") if isinstance(target, dict) else target)
    if isinstance(named, str) and kernel.arch is None:
        scope.append(f"target {named}: not in asyncguard's table of per-architecture limits "
                     "(models/arch.py): the launch's shared-memory, thread, block and register limits "
                     "were not checked (pass --arch to check them against a known one)")
    closed = program.closed_arms
    if scope_line(searches, program.iteration_choices, closed):
        scope.append(scope_line(searches, program.iteration_choices, closed))
    for sym, (root, lines, n) in program.count_sizes.items():   # engine/loop_sizes.py `_count_sizes`
        scope.append(f"{sym}: how many of the {n} cells of {root} the loops at lines {lines} read are "
                     "true; a pattern with that many true cells runs like the one with its true cells "
                     "first, and so like those loops cut to that many iterations with every cell true "
                     "(a false iteration does nothing): the size line's runs cover every pattern")
    if program.clc_loops:   # engine/loop_sizes.py `_clc_sizes`
        scope.append(f"{CANCELLED}: how many clusters this cluster's cluster launch control requests "
                     "cancel before the first that does not (the response to request k says "
                     f"cancelled when k < {CANCELLED}); the tile loops at lines {program.clc_loops}, "
                     f"which leave on a response, were cut to {CANCELLED} + {CLC_CUT_MARGIN} "
                     "iterations (a run that reaches the cut stops there and says so: AG001)")
    for fact in program.assumed_facts:   # engine/program.py `_pinned_by_assume`
        if fact not in scope:
            scope.append(fact)
    for region, roots, lines in program.shared_masks:   # engine/program.py `_shared_masks_taken`
        scope.append(shared_mask_line(region, roots, lines))
    for view, param, copy_lines, read_lines, _ in program.shared_copies:   # `_forward_copies`
        scope.append(f"{view.name} read as the parameter it copies, {param} (read at line(s) "
                     f"{', '.join(map(str, sorted(set(read_lines))))}; its only stores copy {param}, "
                     f"line(s) {', '.join(map(str, copy_lines))})")
    if program.numeric is None or program.numeric.problem is None:
        for copy in program.register_copies:   # engine/loaded_numbers.py `_register_copies`
            scope.append(register_copy_line(*copy))
    if program.unread_registers:   # engine/program.py `_drop_dead_registers`
        scope.append(program.unread_registers)
    numeric = program.numeric
    if numeric is not None and numeric.problem is not None:
        scope.append(f"numbers loaded from global memory were not enumerated: {numeric.problem}")
    if numeric is not None and numeric.problem is None:
        cells = {sym for sym, _ in numeric.length_cells}
        # a trip count of one cell and the block indices (loaded_numbers.py `_cell_trip_symbol`): no
        # offsets array orders anything, it is a loop count as a fold's is
        counts = set(numeric.fold_trips) | {t[0] for t in numeric.trip_cells if not t[3]}
        bounds = {sym: (bound, line) for sym, bound, line in numeric.bounds}
        for sym, text in numeric.lengths:
            line = (f"{sym} ({text}) is a symbolic size: "
                    f"{CELL_LENGTH_ASSUMPTION if sym in cells else FOLD_TRIPS_ASSUMPTION if sym in counts else LENGTH_ASSUMPTION}")
            if sym in bounds:
                line += (f", and at most {bounds[sym][0]}: the largest for which the shared access "
                         f"at line {bounds[sym][1]} stays inside its buffer (the kernel's own "
                         "maximum length)")
            scope.append(line)
        if numeric.reduced:
            taken = sorted(line for line, how in numeric.reduced if how == "taken")
            same = sorted(line for line, how in numeric.reduced if how == "same")
            fenced = sorted(line for line, how in numeric.reduced if how == "fenced")
            parts = []
            if taken:
                parts.append(f"lines {taken}: branches on a loaded number that only guard shared "
                             "accesses were checked taken by every thread (with their real outcome "
                             "where the run chose the number for another branch)")
            if same:
                parts.append(f"lines {same}: both arms touch the same shared bytes, so the outcome "
                             "only changes stored values")
            if fenced:
                parts.append(f"lines {fenced}: branches on a loaded number that may change between "
                             "iterations were checked taken every time: the other arm touches no "
                             "shared memory, and each instance of the taken arm is fenced (its own "
                             "named barriers first, its TMA stores waited, its shared bytes and "
                             "registers its own), so any pattern of outcomes only leaves instances out")
            scope.append("; ".join(parts))
    if any(s.truncated for s in searches):
        from .checks.unsupported import ENGINE_LIMIT
        runs = max(s.runs for s in searches if s.truncated)
        if next(s for s in searches if s.truncated).limit == 1:   # the long value of a plan without proof
            msg = ("data-dependent branches in the long run of a size plan without proof (trip "
                   f"counts past {UNPROVED_MAX_TRIPS}): more than {runs} outcome pattern(s), its "
                   f"first run (every cell 1) and more only while their runs stay under "
                   f"{INPUT_PATTERN_STEPS:,} statement instances of 128 threads in all; the rest "
                   "were not checked")
        else:
            msg = (f"data-dependent branches: more than {runs} outcome patterns for one block (past "
                   f"{MAX_INPUT_PATTERNS}, more run only while their runs stay under "
                   f"{INPUT_PATTERN_STEPS:,} statement instances of 128 threads in all); the rest "
                   "were not checked")
        span = getattr(func, "span", None)
        findings.append(Finding(ENGINE_LIMIT, max(getattr(span, "line", 1) or 1, 1), 1, msg,
                                {"reason": msg}, path))
    for line, root in program.open_patterns:   # engine/loaded_numbers.py `_iteration_choice`, "pattern"
        from .checks.unsupported import UNSUPPORTED
        from .engine.inputs import MAX_PATTERN_TRIPS, PATTERN_ITERATIONS
        msg = (f"{root} decides each iteration of the loop at line {line}, and a true iteration's "
               "effect depends on which iteration it is (its branches read the loop variable or a "
               "loaded number, or a barrier lies between them), so no pattern stands for another: "
               f"only the outcomes of its first {PATTERN_ITERATIONS} iterations were varied (later "
               "ones taken), and the loop may be longer (a symbolic size, or more than "
               f"{MAX_PATTERN_TRIPS} iterations)")
        findings.append(Finding(UNSUPPORTED, line, 1, msg, {"reason": msg}, path))
    if sizes is not None and sizes.symbol:
        text = sizes.scope
        if getattr(sizes, "cut", None) is not None:
            text = sizes.cut.scope_text(text, len(ran))
        proved = sizes.proved_for_every and not broken
        if broken and sizes.proved_for_every:
            text = ("checked for the values listed, not proved for every size: " + broken[0] +
                    "; " + text.split(": ", 1)[1])
        if (size_skip_failed or any(s.truncated for s in searches)) and len(ran) < len(sizes.values):
            from .prover.sizes import checked_text
            trips = dict(zip(map(str, sizes.values), sizes.trips))
            ran = [v for v in sizes.values if v in ran]
            text = text.replace(checked_text(sizes.symbol, sizes.values, sizes.trips),
                                checked_text(sizes.symbol, ran, [trips[str(v)] for v in ran]), 1)
        scope.insert(0, text)
        if not proved:
            # the values run are a sample: a `clean` verdict would claim sizes nobody checked
            # (a branch `prev_k + 8 > 16` run only at prev_k = 1 hid flashinfer#3439's race)
            from .checks.unsupported import UNSUPPORTED
            line = max(getattr(getattr(func, "span", None), "line", 1) or 1, 1)   # the parameters' line
            msg = (f"symbolic size(s) {sizes.symbol}: not proved for every value, only the values "
                   f"run were checked ({text[:400]})")
            findings.append(Finding(UNSUPPORTED, line, 1, msg, {"reason": msg}, path))
    if len(blocks) > 1:
        scope.insert(0, f"blocks checked: {_blocks_text(blocks)}" + _blocks_run_as(stood_for))
    grid_line = symbolic_grid_scope(program, getattr(sizes, "blocks", None))
    if grid_line:
        scope.insert(0, grid_line)
    if program.launch.cluster_size > 1:   # engine/state/cluster.py: one machine runs the whole cluster
        n = program.launch.num_threads
        scope.insert(0, f"the {program.launch.cluster_size} CTAs of a cluster (cluster_dims "
                        f"{list(program.launch.cluster)}) checked together: thread t is thread t % {n} "
                        f"of the CTA with cluster rank t // {n}, and smem byte b is byte "
                        f"b % {cta_stride(program.layout)} of that CTA's shared memory")
    if alike:
        scope.insert(0, f"block {blocks[0]} stands for every block: blocks differ only in which "
                        "data-dependent values they read, and every outcome pattern is checked")
    findings.sort(key=lambda f: (f.line, f.col, f.rule.code))
    return KernelReport(func.name, findings, program.launch.num_threads, steps,
                        blocks, kernel.row(), scope or ["the launch as written"],
                        run_blocks=[entry[0] for entry in stood_for.values() if entry[2]])


def _race_stop(stop, findings: list, at_race: list, path: str, strict: tuple):
    """Machine.on_race for Limits.stop_at_race: stop the run when the findings of the races it
    recorded so far settle `stop`. Its one caller is the redundant lint (repair/redundant.py),
    which asks only whether an edited kernel is clean, so a race certain to be reported means
    "not clean" and the run may end there. Certain while nothing can take it back: no loop has
    skipped periods (a thrown-away skip keeps only what came before it), no branch went
    unevaluated (control_lost keeps only AG001-AG003) and no unmodelled operation was met (its
    taint drops the races resting on it; a later one, or lost control later, is itself a note: a
    problem to the callers that set stop_at_race). A task that waited at a compared boundary
    (Machine._quiesce_first) changes only the schedule, and the race check follows happens-before,
    not the schedule: the race stands (a persistent GEMM's stop-early check ran 25,000 statement
    instances past its race for want of this). A race's finding reads the race alone
    (checks/shared_race.py, cp_async.py, mbarrier.py)."""
    def ask(machine) -> bool:
        res = machine.result
        if machine.skips_taken or res.control_lost or res.notes or res.assumed:
            return False
        certain = checks.run_all(RunResult(races=list(res.races)), path, strict=strict)
        if certain and stop(findings + certain):
            at_race[:] = certain
            return True
        return False
    return ask


def _blocks_text(blocks: list) -> str:
    """The blocks checked, for the scope line: of one axis, its sorted indices."""
    axes = {axis for b in blocks for axis in b}
    if len(axes) == 1 and len(blocks) > 4 and all(len(b) == 1 for b in blocks):
        axis = axes.pop()
        return f"{axis} in {sorted(b[axis] for b in blocks)}"
    return str(blocks)


def _blocks_run_as(stood_for: dict) -> str:
    """The blocks not run because z3 proved they run as a block that was, in words for the
    scope line ("" when every block ran)."""
    groups: dict = {}
    mixed = []
    for block, refs, runs in stood_for.values():
        if not refs:
            continue
        if runs or any(r != refs[0] for r in refs):
            mixed.append(f"block {block} proved to run as an earlier block for {len(refs)} of the "
                         f"{len(refs) + runs} size values, run for the others")
        else:
            groups.setdefault(str(refs[0]), (refs[0], []))[1].append(block)
    parts = [f"blocks {merged} proved to run as block {ref}" for ref, merged in groups.values()]
    if not parts and not mixed:
        return ""
    return ("; " + "; ".join(parts + mixed) + " (z3: every branch, loop bound, shared address, "
            "barrier argument, and let or register they read takes the same value for every "
            "thread and loop value, a while loop's counter that only its condition reads gives "
            "the same trip count; only global addresses differ), so they were not run again")


def _machine_for(sizes):
    """The machine class for a size plan's runs: with a cut (prover/sizes_cut.py), one that
    records the state where the cut is."""
    cut = getattr(sizes, "cut", None)
    if cut is None:
        return Machine
    import functools

    from .prover.sizes_cut import CutMachine
    return functools.partial(CutMachine, cut=cut)


def _run_program(program, sizes, size: dict):
    """What the machine runs: the kernel, or its copy whose prover-facing expressions read a
    derived size (prover.sizes.SizePlan.program_for: the same statements and closures)."""
    found = sizes.program_for(size) if sizes is not None and size else None
    return found or program


def symbolic_grid_scope(program, deciding: list | None = None) -> str:
    """What a verdict assumed of grid axes with symbolic extents (models/launch.py); `deciding`:
    the block variables the size plan treats as sizes (prover.sizes.deciding_blocks)."""
    from .engine.nodes import expr_text
    launch = program.launch
    if not launch.symbolic_blocks:
        return ""
    inert, sized = [], []
    for name, axis in launch.block_vars.items():
        if axis not in launch.symbolic_blocks:
            continue
        text = f"{axis} ({name}, extent {expr_text(launch.symbolic_blocks[axis])})"
        if deciding is None:
            deciding = program.symbolic_block_vars
        (sized if name in deciding else inert).append(text)
    out = []
    if inert:
        out.append(f"grid {', '.join(inert)}: the block index decides no branch, bound, shared "
                   "address or barrier (outside global input addresses), so one block stands for "
                   "every block of every grid size")
    if sized:
        out.append(f"grid {', '.join(sized)}: the block index decides something, so it is one "
                   "more symbolic size with every index below the extent (the size line says "
                   "what was proved)")
    return "; ".join(out) + "; a grid extent below 1 is not a launch (CUDA refuses it)"


# ---------------------------------------------------------------- resource bounds (issue 9)
def _file_too_large(text: str, path: str, limits: Limits) -> FileReport | None:
    """A file over `max_file_bytes` is not parsed (the LALR parser takes ~20 s and ~350 MB per
    MB of dense TIR; 50 MB would take many minutes and GBs): one AG002 finding, verdict unknown."""
    cap = limits.max_file_bytes
    if not cap or len(text) <= cap // 4:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= cap:
        return None
    from .checks.unsupported import ENGINE_LIMIT
    msg = (f"file is {size:,} bytes: more than --max-file-size {cap:,}; too large to parse, "
           "not checked")
    return FileReport(path, [KernelReport("<file>", [Finding(ENGINE_LIMIT, 1, 1, msg,
                                                             {"reason": msg, "bytes": size}, path)],
                                          scope=["not parsed: file too large"])])


def _cell_of(key_fn, env):
    try:
        return key_fn(env)
    except Exception:  # noqa: BLE001 -- an address this block cannot compute matches no cell
        return None


# ... and more, up to MORE_INPUT_PATTERNS, while the runs of every (size, block) of the kernel
# together stay under INPUT_PATTERN_STEPS statement instances of 128 threads (a step count, the
# same on every machine): a pipelined block-sparse GEMM's 256 patterns of ~160 instances, not a
# block-sparse attention's hundreds of patterns of ~200 instances of 256 threads in each block
MORE_INPUT_PATTERNS = 1024
INPUT_PATTERN_STEPS = 60_000
# statement instances the blocks run beyond the sampled ones may take, in all, counted as
# instances of 128 threads (analyze.py, the block loop): sixteen blocks of a small kernel; none of
# a kernel whose one run costs more
EXTRA_BLOCK_STEPS = 4_000

# the longest trip count an unproved size plan runs (prover.sizes.plan_sizes' max_trips)
UNPROVED_MAX_TRIPS = 12


def _long_unproved(sizes, size: dict) -> bool:
    """Whether `size` is the long value a size plan without proof runs (prover/sizes.py: one
    value of thousands of trips, where the size loops may skip). No proof covers the values past
    it, so it is one more value checked, not a proof's case; where its loops read data-dependent
    cells each iteration opens new outcomes, no loop skips, and each pattern is a run of
    thousands of iterations (a split-KV decode: 4,148 iterations, 14 s a run, 64 patterns)."""
    if not size or sizes is None or not sizes.values:
        return False
    ind = getattr(sizes, "induction", None)
    if sizes.proof == "proved" and ind is not None and ind.status == "proved":
        return False
    trips = dict(zip(map(str, sizes.values), sizes.trips)).get(str(size), ())
    return max(trips, default=0) > UNPROVED_MAX_TRIPS


class _Deadline(BaseException):
    """Raised by the alarm; BaseException so the engine's own `except Exception` (which turns
    model bugs into AG003) lets it through."""


class _Clock:
    """`--timeout` for one kernel: SIGALRM after `seconds`, repeated every 50 ms (a raise that
    lands in a gc callback or __del__ is swallowed by Python). Only in a process's main thread
    (the CLI and its --jobs workers); in other threads (a Dask worker runs tasks in threads) the
    machine checks the same deadline itself between statements."""

    def __init__(self, seconds: float):
        self.seconds, self.armed, self.expired, self._old = seconds, False, False, None
        self._old_hook = sys.unraisablehook
        self.start = 0.0

    def __enter__(self):
        import signal
        import threading
        import time
        self.start = time.monotonic()
        if self.seconds and hasattr(signal, "setitimer") and \
                threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGALRM, self._alarm)
            self._old_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
            self.armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)
        return self

    def _alarm(self, signum, frame):
        if self.armed:
            self.expired = True
            raise _Deadline()

    def _unraisable(self, unraisable) -> None:
        """An alarm swallowed in a gc callback or __del__ is dropped here, at once: the alarm
        fires again in 50 ms. Handed to the usual hook (pytest's formats a traceback, reading
        source files) it was interrupted there by the next alarm and failed a test run."""
        if not isinstance(unraisable.exc_value, _Deadline):
            self._old_hook(unraisable)

    def disarm(self) -> None:
        self.armed = False

    def __exit__(self, *exc):
        import signal
        self.armed = False
        if self._old is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
            sys.unraisablehook = self._old_hook
        return False


def _run_machine(machine, clock: "_Clock | None", seconds: float):
    """machine.run(); past the kernel's deadline, stop it and report AG002 with what it found.
    After that the clock is disarmed: the checks on the partial result run to completion."""
    if clock is not None and clock.expired:
        machine.result.limit_hit = f"more than --timeout {seconds:g} s for this kernel; not run"
        return machine.result
    if clock is not None and clock.seconds and not clock.armed:   # no signal here: poll
        machine.deadline = clock.start + clock.seconds
    try:
        res = machine.run()
        if clock is not None and clock.expired and res.internal_error:
            # the alarm's exception, turned into another by the code it landed in (numpy raises
            # TypeError for any exception while comparing structured arrays): a deadline
            clock.disarm()
            res.internal_error, res.limit_hit = None, machine.DEADLINE
        if res.limit_hit == machine.DEADLINE:
            clock.expired = True
            res.limit_hit = (f"more than --timeout {seconds:g} s in the concrete engine after "
                             f"{res.steps:,} statement instances; stopped, the rest is not checked")
        return res
    except _Deadline:
        clock.disarm()
        res = machine.result
        res.limit_hit = (f"more than --timeout {seconds:g} s in the concrete engine after "
                         f"{res.steps:,} statement instances; stopped, the rest is not checked")
        return res


def _internal_error(err: Exception, func, path: str) -> Finding:
    from .checks.unsupported import INTERNAL_ERROR
    msg = f"{type(err).__name__}: {err}"[:500]
    span = getattr(func, "span", None)
    return Finding(INTERNAL_ERROR, max(getattr(span, "line", 1) or 1, 1),
                   max(getattr(span, "col", 1) or 1, 1), f"internal error: {msg}", {"error": msg}, path)


def min_steps(program, env: dict, cap: int) -> tuple:
    """A lower bound on the statement instances the concrete machine executes without loop
    acceleration (one step per statement instance; irrelevant loops and ifs count once), and
    the span of the loop contributing most. Loops whose bounds are not one concrete value count
    once; an if counts its condition only, unless the condition is one concrete value."""
    total, span = _walk(program.body, env, cap)
    return total, span


def _walk(body, env: dict, cap: int) -> tuple:
    import numpy as np
    from .engine.nodes import PIf, PLet, PLoop
    total, best, best_span = 0, -1, None
    env = dict(env)
    for s in body:
        total += 1
        if isinstance(s, PLoop) and s.relevant:
            try:
                n, start = s.extent(env), s.start(env)
                if isinstance(n, np.ndarray) or isinstance(start, np.ndarray):
                    continue
                n = int(n)
            except Exception:  # noqa: BLE001 -- bounds the machine cannot evaluate: counted once
                continue
            if n <= 0:
                continue
            inner = dict(env)
            inner.pop(s.var, None)         # the body's count must hold for every iteration
            sub, sub_span = _walk(s.body, inner, cap)
            if n * sub > best:
                best, best_span = n * sub, (sub_span if sub > cap else s.span)
            total += n * sub
        elif isinstance(s, PIf) and s.relevant:
            try:
                c = s.cond(env)
                if isinstance(c, np.ndarray):
                    continue
            except Exception:  # noqa: BLE001
                continue
            sub, sub_span = _walk(s.then if c else s.other, env, cap)
            total += sub
            if sub > best:
                best, best_span = sub, sub_span
        elif isinstance(s, PLet):
            try:
                env[s.name] = s.value(env)
            except Exception:  # noqa: BLE001
                env.pop(s.name, None)
    return total, best_span
