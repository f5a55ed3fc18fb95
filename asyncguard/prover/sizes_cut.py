"""Independent groups of symbolic sizes that compose: a sum of runs, not their product.

plan_several (prover/sizes.py) runs independent groups of sizes (no site expression mentions
names of two groups: behaviours.groups) as the product of their representative values: 8
values of K and 8 of K2 are 64 runs. Two groups compose when the kernel reads them one after
the other: a top-level statement, the cut, before which nothing reads the second group and
from which nothing reads the first, following every let, loop variable and register a size
flows into, through its value or the branches and loops around its definition. Then a run for
(a, b) is its run up to the cut, which depends on a alone, followed by the rest, which depends
on b and on the machine's state at the cut. Where that state is the same for every a (checked
concretely, below), the rest of (a, b) is the rest of (a0, b): the runs (a, b0) for every a and
(a0, b) for every b meet every event the product would, and the other combinations are not run.

The state at the cut must be the whole of what the rest can see, so the check is strict: one
task holding every live thread at the cut, no live access record, no uncompleted async copy,
no block or named barrier generation open, no mbarrier or cluster, no proxy record, nothing
noted or tainted so far; in every run of the first group the same threads alive and the same
environment, but for the names the first group decides (a wgmma descriptor set from a
K-dependent address differs, and keeps the product); and the run with the first values wrote
no shared byte another did not (`Cut.holds`). Vector clocks differ between runs, but with no
record live nothing compares against an earlier clock. Anything else (a feature this module
does not know, data-dependent inputs met by a run) keeps the product: the runs it leaves out
are run after all.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..engine.exprs import free_names
from ..engine.machine import Machine
from ..engine.nodes import PIf, PLet, PLoop, PNote, POp, PStore, statements

# the machine's features whose whole state at a cut `_quiet` knows how to read
_KNOWN_FEATURES = {"cluster", "memory", "cp_async", "barriers", "mbarrier", "proxy", "tcgen05"}


@dataclass
class CutReached:
    """The event of the checkpoint op placed at the cut (handled by CutMachine alone)."""
    tids: np.ndarray


@dataclass
class Cut:
    index: int                    # top-level statement before which the cut is
    line: int
    before: list                  # the size names read before the cut (the first group)
    after: list                   # ... and from it on
    program: object = None        # the kernel with the checkpoint op at the cut
    first_after: dict = field(default_factory=dict)   # the second group's first values (b0)
    first_before: dict = field(default_factory=dict)  # the first group's (a0)
    # str(block) -> {str(first-group values): the state at the cut, or why it is not quiet}
    states: dict = field(default_factory=dict)
    composed: list = field(default_factory=list)      # values left out when the cut holds
    rows: list = field(default_factory=list)          # the first group's values (each run once)
    # (names, register key prefixes) whose values the first group decides: left out of the
    # environment compared at the cut (nothing from the cut on reads them)
    flows: tuple = (frozenset(), ())
    # after the runs reached the left-out values: why the product ran, or "" when it did not
    outcome: str | None = None
    head: str = ""                # plan_several's scope head ("proved for every size") ...
    scopes: list = field(default_factory=list)        # ... and each group's own scope

    def composable(self, size: dict) -> bool:
        """A value the cut may leave out: neither the first group's first values nor the
        second's (every such value is one of the combinations run as two halves)."""
        return any(size == v for v in self.composed)

    def scope_text(self, product: str, runs: int) -> str:
        """The size line: `product` (plan_several's, for the product) when the product ran."""
        if self.outcome is None:   # the runs stopped before the left-out values (stop_when)
            return product
        if self.outcome:
            return f"{product}; not composed at line {self.line}: {self.outcome}"
        first, second = ", ".join(self.before), ", ".join(self.after)
        total = runs + len(self.composed)
        return (f"{self.head} ({runs} runs for the {total} combinations of {len(self.scopes)} "
                f"independent groups: {first} {'is' if len(self.before) == 1 else 'are'} read only "
                f"before line {self.line} and {second} only from it on, the lets and registers they "
                f"flow into included; every run of {first} reached that line with the same state "
                "(every thread there, no access, async copy or barrier open, the same threads alive "
                f"and the same value of every name {first} does not decide), "
                f"the run with {_values(self.first_before)} having written no shared byte the others "
                f"had not, so each of the {len(self.composed)} other combinations runs as the run "
                f"with {_values(self.first_after)} up to that line and the run with "
                f"{_values(self.first_before)} from it): " + " | ".join(self.scopes))

    def holds(self, searches: list) -> str | None:
        """None when the runs made so far prove the left-out values; else why not. The state at
        the cut must be the same in every run of the first group, but for the shared bytes
        written: the run with the first values may have written fewer (a shorter loop), as
        `written` only decides unwritten-read findings, and fewer bytes written only adds
        those: the rest of that run reports every one the rest of another would."""
        if any(s.names or s.truncated for s in searches):
            return "a run met data-dependent values (their outcome patterns may differ past the cut)"
        base_key = str({n: self.first_before.get(n) for n in self.before})
        if not self.states:
            return "no run reached the cut"
        for block, by_values in self.states.items():
            for st in by_values.values():
                if isinstance(st, str):
                    return st
            base = by_values.get(base_key)
            if base is None or len(by_values) != len(self.rows):
                return f"not every run of block {block} reached the cut (line {self.line})"
            written0, alive0, env0 = base
            for written, alive, env in by_values.values():
                if alive != alive0:
                    return f"the runs of {', '.join(self.before)} reached the cut with other threads alive"
                if env != env0:
                    what = sorted({k for k, _ in set(env) ^ set(env0)})
                    return (f"the runs of {', '.join(self.before)} reached the cut (line {self.line}) "
                            f"with other values of {', '.join(what[:4])}")
                n = max(len(written), len(written0))
                if (np.pad(written0, (0, n - len(written0))) & ~np.pad(written, (0, n - len(written)))).any():
                    return (f"the run with {_values(self.first_before)} wrote shared bytes before the "
                            f"cut (line {self.line}) that another run of {', '.join(self.before)} did not")
        return None


def _values(values: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items())


def find_cut(program, before_groups: list, after_groups: list) -> Cut | None:
    """A cut between the statements that read `before_groups`' names and those that read
    `after_groups`' (lists of name lists), or None. Conservative: a statement whose reads are
    not known (an op without its syntax, an unmodelled construct) reads every name."""
    if program.launch.cluster_size > 1 or getattr(program, "numeric", None) is not None:
        return None
    if any(isinstance(s, PNote) for s in statements(program.body)):
        return None
    first = sorted({n for g in before_groups for n in g})
    second = sorted({n for g in after_groups for n in g})
    for view in program.views.values():   # a shared or register view shaped by a size
        region = getattr(view, "region", None)
        if region is not None and getattr(region, "scope", "global") != "global" and any(
                not isinstance(d, (int, np.integer)) and free_names(d) & set(first + second)
                for d in getattr(view, "shape", ())):
            return None
    (mine, my_regions), (theirs, _) = _flows(program, set(first)), _flows(program, set(second))
    reads_first, reads_second = [], []
    for i, s in enumerate(program.body):
        names = _reads(s)
        if names is None:    # unknown: it reads both
            reads_first.append(i)
            reads_second.append(i)
            continue
        if names & mine:
            reads_first.append(i)
        if names & theirs:
            reads_second.append(i)
    if not reads_first or not reads_second or max(reads_first) >= min(reads_second):
        return None
    at = min(reads_second)
    span = getattr(program.body[at], "span", None)
    cut = Cut(at, getattr(span, "line", 0) or 0, first, second)
    cut.program = _with_checkpoint(program, at, span)
    cut.flows = (frozenset(mine), tuple(f"{r}[" for r in sorted(my_regions)))
    return cut


def _flows(program, names: set) -> tuple:
    """(`names` and every let, loop variable or register view whose value depends on them --
    through the expression it is computed from, or through a branch or loop around its
    definition --, the register regions among them). The machine's environment is flat: a name
    bound inside a branch on K keeps its value after it, so it counts wherever it is read."""
    views = program.views
    defs: list = []   # (kind, name or region, names its value depends on)

    def walk(body, around: frozenset):
        for s in body:
            if isinstance(s, PLet):
                defs.append(("let", s.name, around | _names(s.src)))
            elif isinstance(s, PStore):
                used = set(around)
                for x in s.src:
                    used |= _names(x)
                defs.append(("store", s.region, frozenset(used)))
            elif isinstance(s, PIf):
                inner = around | _names(s.src)
                walk(s.then, inner)
                walk(s.other, inner)
            elif isinstance(s, PLoop):
                inner = around | frozenset().union(*(_names(x) for x in s.src))
                defs.append(("let", s.var, inner))   # its value after the loop: the last one
                walk(s.body, inner | {s.var})
    walk(program.body, frozenset())
    out, regions = set(names), set()
    changed = True
    while changed:
        changed = False
        for kind, name, used in defs:
            if not used & out:
                continue
            if kind == "let" and name not in out:
                out.add(name)
                changed = True
            elif kind == "store" and name not in regions:
                regions.add(name)
                changed = True
                out |= {n for n, v in views.items()
                        if getattr(getattr(v, "region", None), "name", None) == name}
    return out, regions


def _names(e) -> frozenset:
    return frozenset(free_names(e)) if e is not None else frozenset()


def _reads(s) -> set | None:
    """Every name statement `s` (and what it holds) reads that it does not bind itself (a loop
    variable inside it, a let before its use in one body); None when not known."""
    out: set = set()

    def walk(body, bound: frozenset) -> bool:
        for x in body:
            if isinstance(x, PNote):
                return False
            if isinstance(x, POp):
                if x.src is None:
                    return False
                out.update(free_names(x.src) - bound)
            elif isinstance(x, PIf):
                if x.src is None and x.relevant:
                    return False
                out.update(_names(x.src) - bound)
                if not (walk(x.then, bound) and walk(x.other, bound)):
                    return False
            elif isinstance(x, PLoop):
                for e in x.src:
                    out.update(_names(e) - bound)
                if not walk(x.body, bound | {x.var}):
                    return False
            elif isinstance(x, PLet):
                out.update(_names(x.src) - bound)
                bound = bound | {x.name}
            elif isinstance(x, PStore):
                for e in x.src:
                    out.update(_names(e) - bound)
        return True
    return out if walk((s,), frozenset()) else None


def _with_checkpoint(program, at: int, span):
    """The kernel with an op before statement `at` that raises CutReached (no effect else)."""
    def reach(env, tids):
        return [CutReached(tids)]
    op = POp("size cut", span, reach, None)
    body = tuple(program.body[:at]) + (op,) + tuple(program.body[at:])
    return dataclasses.replace(program, body=body)


class CutMachine(Machine):
    """The machine for a plan with a cut: at the checkpoint it records the state (`_quiet`)."""
    cut: Cut | None = None

    def __init__(self, *args, cut: Cut | None = None, **kw):
        super().__init__(*args, **kw)
        self.cut = cut
        self._reached = False
        self.handlers[CutReached] = self._at_cut

    def _at_cut(self, task, ev: CutReached, s) -> None:
        cut = self.cut
        if cut is None:
            return
        sizes = {k: v for k, v in self.sizes.items() if isinstance(k, str) and not k.startswith("\x00")}
        if any(sizes.get(n) != v for n, v in cut.first_after.items()):
            return   # a run of the second group: its state at the cut is not compared
        key = str({n: sizes.get(n) for n in cut.before})
        slot = cut.states.setdefault(str(self.block), {})
        if self._reached:   # a second task of this run: the threads are not together
            slot[key] = f"the threads reached the cut (line {cut.line}) apart"
            return
        self._reached = True
        slot[key] = self._quiet(task)   # a run made again (analyze.py) replaces the first

    def _environment(self, task) -> tuple:
        """The task's environment at the cut, but for what the first group decides and the
        run's own inputs object: every other value must be the same in every run."""
        names, prefixes = self.cut.flows
        out = []
        for key in sorted(k for k in task.env if isinstance(k, str)):
            if key.startswith("\x00") or key in names or key.startswith(prefixes):
                continue
            v = task.env[key]
            out.append((key, v.tobytes() + str(v.dtype).encode() if isinstance(v, np.ndarray) else repr(v)))
        return tuple(out)

    def _quiet(self, task):
        """The state at the cut as a value to compare, or why the cut cannot stand (str)."""
        line = self.cut.line
        try:
            if {a for a, _ in self.FEATURES} - _KNOWN_FEATURES:
                return "the machine has state this check does not read"
            live = [t for t in self.tasks if t.state != "gone"]
            if len(live) != 1 or live[0] is not task or len(task.frames) != 1 or \
                    not np.array_equal(task.mask, self.alive):
                return f"the threads reached the cut (line {line}) apart"
            res = self.result
            if res.notes or res.limit_hit or res.control_lost or res.internal_error:
                return f"a run noted something before the cut (line {line})"
            if self.NB or self.cluster.active:
                return "the kernel has mbarriers or a cluster (their phases cross the cut)"
            if self.memory.live or self.memory.other_live or self.cp_async.live or \
                    self.barriers.barriers:
                return (f"accesses, async copies or a barrier were still open at the cut "
                        f"(line {line})")
            proxy = self.proxy
            if proxy.unfenced.order or proxy.unfenced_reads.order or proxy.tracked.order:
                return f"proxy fences were still owed at the cut (line {line})"
            if self.tcgen05.kept:
                return f"tensor-memory operations were kept for their fences at the cut (line {line})"
            if self.vc[:, self.taint.column].any():   # progress resting on an unmodelled op
                return f"a run was tainted before the cut (line {line})"
            return (self.memory.written.copy(), self.alive.tobytes(), self._environment(task))
        except AttributeError as err:   # state laid out otherwise than this check reads it
            return f"the state at the cut could not be read ({err})"
