"""The redundant lint's shared prefix: one run of the unedited kernel, forked where a removal
starts to matter.

Removing a synchronization statement changes nothing a run does before the first time a task
reaches it. So the lint (repair/redundant.py) runs the unedited kernel once, and when a task
is about to run the statement of a candidate removal for the first time, copies the machine
(copy.deepcopy: tasks, clocks, records, the elaborated program with its caches, the resource
observer) and runs the copy on to its end with that statement left out (Machine.watched: not
run, no step counted), then lets the unedited run go on to the next candidate. A late
statement's check costs the copy and the rest of the run, not the whole run.

It answers `Oracle.clean` only (clean_memo), and only where this is the edited kernel's own
check, else it leaves the candidate to the oracle's check from scratch:

* the kernel: one function, no symbolic size, no block-dependent control, no number loaded
  from memory, within the step budget (one run of one block is its whole check: analyze.py);
* the edited kernel, elaborated from its own (spliced) tree, is the unedited one's program
  without the removed statement's operations, node for node: `same_program` compares every
  field (spans by the line map; ints, strings, closures' cells and code, arrays), so any
  analysis of the elaborator that the removal changes (a loop that is no longer relevant, a
  note, a register) sends the candidate back to the oracle;
* the copied run met no data-dependent value (one outcome pattern), hit no limit, and needs
  no second run (loops whose skips disagreed): analyze.py's own conditions;
* the statement is deleted (not a block's only statement, which becomes `T.evaluate(0)`).

Findings of the copied run are in the unedited kernel's lines (its spans); the resource
checks read the edited kernel's own KernelContext, with what the copy's observer saw. Lines
are renamed one to one, so whether there is a problem is the same (the lint asks nothing
else).
"""
from __future__ import annotations

import copy
import dataclasses
import types

import numpy as np

from .. import checks, ir
from ..analyze import MAX_INPUT_PATTERNS, Limits, _race_stop, min_steps
from ..checks.resources import KernelContext
from ..engine.inputs import INPUTS, InputSearch
from ..engine.machine import Machine
from ..models import _TIDS
from ..engine.nodes import POp
from ..engine.program import elaborate
from ..events import SetDescriptor, Unsupported
from ..prover import one_thread_at_a_time
from .edits import apply_edits

# a fork is worth its copy (~0.1-0.3 s on flashmla) when the unedited run has made this share
# of its steps before the statement (else the candidate is checked from scratch)
MIN_SHARE = 0.2


def _ops_at(program, line: int) -> list:
    """The POps of `program` made from the statement at `line` (every copy an unrolled loop
    made of it)."""
    out = []

    def walk(body):
        for s in body:
            if isinstance(s, POp) and s.span.line == line:
                out.append(s)
            for a in ("body", "then", "other"):
                b = getattr(s, a, None)
                if isinstance(b, (list, tuple)):
                    walk(b)
    walk(program.body)
    return out


class _Lines:
    """Spans of the edited text in the unedited text's terms (a line map and the line starts)."""

    def __init__(self, old: str, new: str, lmap: list):
        self.old_starts = _starts(old)
        self.new_starts = _starts(new)
        # a span may end on the line after the last one (the end of the text)
        self.lmap = list(lmap) + [len(self.old_starts)]

    def line(self, a: int, b: int) -> bool:
        """Whether line `a` (unedited text) is line `b` (edited text)."""
        return 1 <= b <= len(self.lmap) and self.lmap[b - 1] == a if a else a == b

    def same(self, a: ir.Span, b: ir.Span) -> bool:
        """Whether span `a` (unedited text) starts where span `b` (edited text) does, moved.
        Where a span ends is read by nothing a check runs (only emit/cuda.py; a compound
        statement's end is where the next statement starts: the removed one, for some);
        tests/test_redundant_prefix.py asserts it."""
        if a == b == ir.NO_SPAN:
            return True
        try:
            return (self.lmap[b.line - 1] == a.line and a.col == b.col and
                    a.start - self.old_starts[a.line - 1] == b.start - self.new_starts[b.line - 1])
        except (IndexError, TypeError):
            return False


def _starts(text: str) -> list:
    out, at = [0], 0
    for ln in text.splitlines(keepends=True):
        at += len(ln)
        out.append(at)
    return out


# Elaborator fields that are a function of others compared (and keyed by ids): not compared
# (engine/program.py: `_definition_sites(el)` is made from `el.body`)
_DERIVED = frozenset({"_definition_sites"})
_OWN = ("asyncguard.", "asyncguard")   # classes whose whole state is their fields (ours)
_ATOMS = (int, float, complex, str, bytes, bool, type(None), np.generic, range)
_OPAQUE = (type, types.ModuleType, types.BuiltinFunctionType, types.BuiltinMethodType,
           types.MethodWrapperType, types.WrapperDescriptorType)


def same_program(a, b, dropped: set, lines: _Lines) -> bool:
    """Whether object graph `a` (the unedited kernel's) is `b` (the edited kernel's) with the
    objects whose ids are in `dropped` left out of every sequence, spans compared by `lines`.
    Every field of every object is compared; shared objects must be shared alike."""
    pairs: dict = {}
    keep: list = []     # the compared objects stay alive: their ids stay theirs

    def field(k, x, y) -> bool:
        if k == "line" and type(x) is int and type(y) is int:   # a line number (Region.line)
            return lines.line(x, y)
        if k in _DERIVED:
            return True
        return eq(x, y)

    def eq(x, y) -> bool:
        tx = type(x)
        if tx is not type(y):
            return False
        if tx in _ATOMS or isinstance(x, _ATOMS):
            return x == y
        if tx is ir.Span:
            return lines.same(x, y)
        got = pairs.get(id(x))
        if got is not None:
            return got is y
        pairs[id(x)] = y
        keep.append(x)
        if isinstance(x, _OPAQUE):
            return x is y
        if isinstance(x, (list, tuple)):
            xs = [v for v in x if id(v) not in dropped]
            if len(xs) != len(y) or not all(eq(u, v) for u, v in zip(xs, y)):
                return False
            if tx in (list, tuple):
                return True          # (a namedtuple's fields: below)
        elif isinstance(x, dict):
            if len(x) != len(y) or not all(eq(k1, k2) and eq(v1, v2) for (k1, v1), (k2, v2)
                                           in zip(x.items(), y.items())):
                return False
            if tx is dict:
                return True
        elif isinstance(x, (set, frozenset)):
            if not (all(isinstance(v, _ATOMS) for v in x) and x == y):
                return False
            if tx in (set, frozenset):
                return True
        elif isinstance(x, np.ndarray):
            return tx is np.ndarray and x.shape == y.shape and x.dtype == y.dtype and \
                bool(np.array_equal(x, y)) and x.flags.writeable == y.flags.writeable
        if tx is types.FunctionType:
            if x.__code__ is not y.__code__ or x.__globals__ is not y.__globals__:
                return False
            cx, cy = x.__closure__ or (), y.__closure__ or ()
            if len(cx) != len(cy):
                return False
            for c1, c2 in zip(cx, cy):
                try:
                    v1 = c1.cell_contents
                except ValueError:
                    v1 = _EMPTY
                try:
                    v2 = c2.cell_contents
                except ValueError:
                    v2 = _EMPTY
                if not eq(v1, v2):
                    return False
            return eq(x.__defaults__, y.__defaults__) and eq(x.__kwdefaults__, y.__kwdefaults__) \
                and eq(getattr(x, "__dict__", {}), getattr(y, "__dict__", {}))
        if tx is types.MethodType:
            return eq(x.__func__, y.__func__) and eq(x.__self__, y.__self__)
        if not str(getattr(tx, "__module__", "")).startswith(_OWN):
            return False     # another library's type may hold state no field shows (partial)
        d1, d2 = getattr(x, "__dict__", None), getattr(y, "__dict__", None)
        if (d1 is None) != (d2 is None):
            return False
        if d1 is not None:
            if list(d1) != list(d2) or not all(field(k, d1[k], d2[k]) for k in d1):
                return False
        slots = [k for c in tx.__mro__ for k in getattr(c, "__slots__", ())
                 if k not in ("__dict__", "__weakref__")]
        for k in slots:
            v1, v2 = getattr(x, k, _EMPTY), getattr(y, k, _EMPTY)
            if not field(k, v1, v2):
                return False
        if d1 is None and not slots and not isinstance(x, (list, tuple, dict, set, frozenset)):
            return x == y if tx.__eq__ is not object.__eq__ else False
        return True
    try:
        return eq(a, b)
    except RecursionError:
        return False


class _Empty:
    pass


_EMPTY = _Empty()
_ATOMS = _ATOMS + (_Empty,)


def _keep_read_only(x, memo):
    """copy.deepcopy of an array: a read-only one over read-only bytes is shared (nothing
    writes it: the models and the race check remember such arrays by identity); a read-only
    view of writable bytes is copied and stays read-only; a writable one is copied."""
    if not x.flags.writeable:
        root = x
        while isinstance(root.base, np.ndarray):
            root = root.base
        if not root.flags.writeable:
            return x
        y = x.__deepcopy__(memo)
        y.flags.writeable = False
        return y
    return x.__deepcopy__(memo)


def _frozen_nodes(module) -> dict:
    """id -> node of every syntax-tree node of `module` (asyncguard.ir's frozen dataclasses:
    a copy shares them, as it shares the interned thread ids)."""
    out: dict = {}
    stack = [module]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
            continue
        if type(x).__module__ != ir.__name__ or id(x) in out or not dataclasses.is_dataclass(x):
            continue
        out[id(x)] = x
        stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    return out


def _copy_run(machine, kernel, task, shared: dict):
    """A copy of the running machine, its resource observer and `task` (one deepcopy, so they
    share what they shared); the machine's handlers bound to the copy's features. `shared`:
    objects the copy shares (id -> object), besides the interned thread ids."""
    memo = dict(shared)
    memo.update((id(a), a) for a in _TIDS.values())
    old = copy._deepcopy_dispatch.get(np.ndarray)
    copy._deepcopy_dispatch[np.ndarray] = _keep_read_only
    try:
        m2, k2, t2 = copy.deepcopy((machine, kernel, task), memo)
    finally:
        if old is None:
            del copy._deepcopy_dispatch[np.ndarray]
        else:
            copy._deepcopy_dispatch[np.ndarray] = old
    # a writable view shares its base's bytes; its copy would not: not a faithful copy (the
    # originals copied are those deepcopy keeps alive in memo[id(memo)])
    for v in memo.get(id(memo), ()):
        if isinstance(v, np.ndarray) and v.base is not None and v.flags.writeable:
            return None
    m2.handlers = {SetDescriptor: m2._set_descriptor, Unsupported: m2._unsupported}
    for feature in m2.features:
        for event, method in type(feature).EVENTS.items():
            m2.handlers[event] = getattr(feature, method)
    k2.observe(m2)
    return m2, k2, t2, memo


@one_thread_at_a_time
def check_removals(oracle, removals: list) -> int:
    """Fill `oracle.clean_memo` for the removals it can answer from one shared run (module
    docstring). `removals`: (ir statement, its deleting Edit). Returns how many it answered."""
    limits = oracle.limits or Limits()
    module, text, path = oracle.module, oracle.text, oracle.path
    if len(module.functions) != 1 or oracle.sized or oracle.base or oracle.notes \
            or limits.first_blocks or limits.stop_when is not None:
        return 0
    func = module.functions[0]
    try:
        ref = elaborate(func)
        run_p = elaborate(func)
    except Exception:
        return 0
    if ref.symbols or ref.block_dependent or ref.numeric is not None or ref.notes \
            or ref.launch.num_threads > limits.max_threads:
        return 0
    # (min_steps evaluates the program's memoized expressions: on run_p, never on ref, which
    # is compared with each edited program as elaborated)
    need, _ = min_steps(run_p, dict(run_p.launch.base_env({})), limits.max_steps)
    if need * run_p.launch.cluster_size > limits.max_steps:
        return 0

    def edited(s, e):
        """(new text, its program, its function) when the edited kernel's program is the
        unedited one without `s`'s operations (else None)."""
        try:
            new, lmap = apply_edits(text, [e])
        except ValueError:
            return None
        if new in oracle.clean_memo or new in oracle.memo:
            return None
        try:
            mod = oracle.splicer.module_for([e], new, lmap)
            if mod is None or len(mod.functions) != 1:
                return None
            prog = elaborate(mod.functions[0])
        except Exception:
            return None
        ops = _ops_at(ref, s.span.line)
        if not ops or not same_program(ref, prog, {id(o) for o in ops} | {id(s)}, _Lines(text, new, lmap)):
            return None
        need_e, _ = min_steps(prog, dict(prog.launch.base_env({})), limits.max_steps)
        if need_e * prog.launch.cluster_size > limits.max_steps:
            return None
        return new, prog, mod.functions[0]

    cands = {s.span.line: (s, e) for s, e in removals if e.op == "delete"}
    owner = {id(o): line for line in cands for o in _ops_at(run_p, line)}
    if not owner:
        return 0
    kernel = KernelContext(run_p, func, text, None)
    inputs = next(iter(InputSearch(MAX_INPUT_PATTERNS, numbers=[{}])))
    machine = Machine(run_p, max_steps=limits.max_steps, max_threads=limits.max_threads,
                      block={}, sizes={INPUTS: inputs}, strict=limits.strict)
    kernel.observe(machine)
    total = oracle.base_steps or 1
    answered = 0
    shared = _frozen_nodes(module)

    def problem(f) -> bool:
        return f.rule.severity == "error" or (f.rule.code, f.line) not in oracle.notes

    def at_stmt(m, task, s) -> bool:
        nonlocal answered
        line = owner.get(id(s))
        if line is None:
            return False
        gone = {i for i, ln in owner.items() if ln == line}
        m.watched.difference_update(gone)   # the unedited run goes on through it; asked once
        for i in gone:
            owner.pop(i)
        if not owner:    # the last candidate: the unedited run ends after this one's fork
            stop_after.append(True)
        res = m.result
        if res.races or res.limit_hit or res.internal_error or m.stopped_at_race \
                or res.steps < MIN_SHARE * total:
            return False
        got = edited(*cands[line])
        if got is None:
            return False
        new, prog, func_e = got
        ok = _forked_clean(m, kernel, task, gone, prog, func_e, new, path, limits, problem,
                           oracle.stop_at_race, shared)
        if ok is not None:
            oracle.clean_memo[new] = ok
            oracle.calls += 1
            oracle.forked += 1
            answered += 1
        return False

    stop_after: list = []

    def at_stmt_then_stop(m, task, s) -> bool:
        skip = at_stmt(m, task, s)
        if stop_after:    # nothing left to fork: the unedited run's rest is not needed
            m.result.limit_hit = "every removal was reached (repair/prefix.py)"
        return skip

    machine.watched = set(owner)
    machine.at_stmt = at_stmt_then_stop
    machine.deadline = _deadline(limits)   # past it, the removals left go to the oracle's checks
    machine.run()
    return answered


def _deadline(limits) -> float | None:
    """--timeout for one run here (the shared run, each fork), as a check of one kernel has it:
    the machine stops itself there (Machine.deadline; no alarm signal is armed here)."""
    import time
    return time.monotonic() + limits.max_seconds if limits.max_seconds else None


def _forked_clean(m, kernel, task, gone: set, prog, func_e, new: str, path: str, limits,
                  problem, stop_at_race: bool, shared: dict) -> bool | None:
    """Run a copy of machine `m` (at `task`'s next statement) on without the statements of
    `gone`: whether the edited kernel is clean, or None (not known this way)."""
    made = _copy_run(m, kernel, task, shared)
    if made is None:
        return None
    m2, k2, t2, memo = made
    m2.watched = {id(memo[i]) for i in gone if i in memo}
    if len(m2.watched) != len(gone):
        return None
    m2.at_stmt = lambda *_: True
    m2.deadline = _deadline(limits)   # its own, as a check of the edited kernel from scratch
    found: list = []
    at_race: list = []
    stop = (lambda fs: any(problem(f) for f in fs))
    if stop_at_race:    # as the oracle's stop-early check (analyze.py: the first run, no size)
        m2.on_race = _race_stop(stop, found, at_race, path, limits.strict)
    result = m2.resume(t2)
    if result.limit_hit or result.internal_error or result.mixed():
        return None      # analyze.py would run it again, or report the limit
    if m2.sizes[INPUTS].names:
        return None      # a data-dependent value: more outcome patterns to run
    if m2.stopped_at_race:
        found = at_race
    else:
        own = KernelContext(prog, func_e, new, None)   # the edited kernel's resource facts
        own.dyn_hi, own.dyn_hi_where, own.cp_async_bad = k2.dyn_hi, k2.dyn_hi_where, k2.cp_async_bad
        found = checks.run_all(result, path, kernel=own, strict=limits.strict)
    if result.control_lost:
        found = [f for f in found if f.rule.kind == "unsupported"]
    return not any(problem(f) for f in found)
