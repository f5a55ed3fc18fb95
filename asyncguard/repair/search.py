"""The search: the checker is the oracle.

For the findings of a file, generate candidate edits, apply each to the text and re-run the
checker; take a candidate that leaves nothing to report, else the one that removes the most
findings, and repeat. Then minimise (drop edits that are not needed, raise wait counts as far
as they stay safe, hoist barriers and mbarrier waits out of loops when that stays clean) and prove minimality:
removing any single inserted statement, or raising any wait count the fix sets, brings a
finding back.
"""
from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace

from ..analyze import check_text
from ..checks.redundant import GROW_CALLS
from ..parse import InputError, parse
from ..prover import one_thread_at_a_time
from .candidates import Generator
from .edits import Edit, Fix, apply_edits
from .splice import Splicer
from .tree import Gap, Tree, call_of

_PAD = "    "
_ALONE = "@T.prim_func\ndef f():\n" + _PAD    # a statement parsed on its own: a one-statement kernel


class SearchBudget(BaseException):
    """The search's time budget ran out (Oracle.deadline). A BaseException: the oracle's own
    `except Exception` (a candidate the engine cannot check is no repair) must not swallow it."""


@dataclass
class Repair:
    path: str
    text: str
    status: str                   # clean | fixed | unrepairable | timeout | error
    fix: Fix | None = None
    new_text: str | None = None
    remaining: list = field(default_factory=list)   # findings left (unrepairable)
    checks: int = 0
    message: str = ""


def is_problem(f, baseline_notes) -> bool:
    return f.rule.severity == "error" or (f.rule.code, f.line) not in baseline_notes


class Oracle:
    """check_text with memo: text -> findings that count as problems, lines in original terms.

    The original is parsed once; an edited text's tree is spliced from it (repair/splice.py:
    only the edited statements are parsed), so a re-check is the checker's runs, not a parse."""

    def __init__(self, text: str, path: str, limits=None, stop_at_race: bool = False):
        """stop_at_race: the stop-early checks may end a run at its first race certain to be a
        problem (Limits.stop_at_race). For the lint, which asks clean() only; the search's
        proof reads the codes of a stop-early check, which a run cut shorter would change."""
        self.text, self.path, self.limits = text, path, limits
        self.deadline: float | None = None   # spend_at_most
        self.stop_at_race = stop_at_race
        self.memo: dict[str, object] = {}
        self.clean_memo: dict[str, bool] = {}   # text -> clean? (checks that stopped early)
        # text -> the problems a stop-early check found (original lines): the evidence that
        # the text is not clean, without a full check (prove)
        self.evidence_memo: dict[str, list] = {}
        # text -> the problems of a stop-early check that ran failing_blocks first (a bound for
        # the scoring, never the proof's evidence)
        self.seen_memo: dict[str, list] = {}
        self.failing_blocks: tuple = ()     # blocks where the last scanned candidates failed
        self.calls = 0
        self.forked = 0          # checks answered by a copy of the unedited run (repair/prefix.py)
        self.base_steps = 0
        self.module = parse(text, path)          # InputError: not a file we can check
        self.splicer = Splicer(text, self.module)
        self.sized = self._has_symbols()
        base = self._raw(text, self.module)
        if base is None:
            raise InputError("cannot check the file", 1, 1, path)
        self.notes = {(f.rule.code, f.line) for f in base if f.rule.severity != "error"}
        self.base = [f for f in base if is_problem(f, self.notes)]
        self.first_sizes = self._failing_size() if self.base else ()

    def spend_at_most(self, seconds: float | None) -> None:
        """No check starts `seconds` from now on (SearchBudget); None or 0: no limit. The
        unedited kernel's own check, made when the oracle was, is not counted."""
        self.deadline = time.monotonic() + seconds if seconds else None

    def _budget(self) -> None:
        """Raise SearchBudget once the deadline has passed (before a check starts)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchBudget()

    def _has_symbols(self) -> bool:
        """Whether a kernel has symbolic sizes. Without them a stop-early check runs the same
        runs, in the same order, as the full check until it stops, so one that did not stop
        early is the full check (clean() keeps it as one). The edits of the search and the
        lint touch synchronization statements only, never a size: the original decides."""
        from ..engine.program import elaborate
        try:
            return any(elaborate(func).symbols for func in self.module.functions)
        except Exception:        # the check will say what is wrong; treat it as sized (no reuse)
            return True

    def _failing_size(self) -> tuple:
        """The smallest size value where the unedited kernel goes wrong (a symbolic size: one
        of its few smallest trip counts, else where the full check found it). An edit that does
        not repair the kernel mostly still fails there, so clean() runs it first
        (Limits.first_sizes): one short run refutes it, before the proof plans the rest."""
        from dataclasses import replace

        from ..analyze import Limits
        from ..engine.program import elaborate
        from ..prover.sizes import small_sizes
        witnessed = [f.witness["sizes"] for f in self.base
                     if isinstance(f.witness, dict) and f.witness.get("sizes")]
        if not witnessed:
            return ()
        small = [v for func in self.module.functions for v in small_sizes(elaborate(func), [], count=8)]
        if not small:      # several sizes: no short list to scan; the full check's witness
            return (dict(witnessed[0]),)
        probe = replace(self.limits or Limits(), first_sizes=tuple(small),
                        stop_when=lambda fs: any(is_problem(f, self.notes) for f in fs))
        try:
            found = check_text(self.text, self.path, probe, module=self.module).findings
        except Exception:        # the full check above worked: keep its witness
            found = []
        sizes = [f.witness["sizes"] for f in found if is_problem(f, self.notes)
                 and isinstance(f.witness, dict) and f.witness.get("sizes")]
        return (dict((sizes or witnessed)[0]),)

    def _module(self, edits, new: str, lmap):
        """The edited text's tree, spliced; None: check_text parses `new` itself."""
        try:
            return self.splicer.module_for(list(edits), new, lmap) if edits else self.module
        except Exception:        # a splice it did not foresee: the parser decides, as before
            return None

    def _raw(self, text, module=None):
        if text in self.memo:
            return self.memo[text]
        self._budget()
        self.calls += 1
        try:
            report = check_text(text, self.path, self.limits, module=module)
            res = report.findings
            if text is self.text:   # the unedited kernel's statement instances (repair/prefix.py)
                self.base_steps = sum(k.steps for k in report.kernels)
        except InputError:
            res = None
        except Exception:        # an engine crash on a candidate: not a repair
            res = None
        self.memo[text] = res
        return res

    def clean(self, edits, failing_first: bool = False) -> bool:
        """Whether the edited text checks clean (nothing counts as a problem): the same answer
        as `problems(edits) == []`, but the check stops at the first run with a problem (a
        dynamic size's first, small values before the probe and the proofs; the first block).
        failing_first (the search's scan of its candidates): run first the block where the
        last candidate failed. The answer is the same in any block order; what that check
        found is kept apart (seen_problems), since the proof's evidence and the remembered
        full checks are those of the blocks in their own order."""
        try:
            new, lmap = apply_edits(self.text, edits)
        except ValueError:
            return False
        if new in self.memo:
            raw = self.memo[new]
            return raw is not None and not self._mapped(raw, lmap, keep=False)
        if new not in self.clean_memo:
            self._stop_early(edits, new, lmap, self.failing_blocks if failing_first and not self.sized else ())
        return self.clean_memo[new]

    def _stop_early(self, edits, new: str, lmap, first_blocks: tuple) -> None:
        """The stop-early check of `new` (clean_memo; its problems in evidence_memo, or in
        seen_memo when `first_blocks` changed the order of the runs)."""
        from dataclasses import replace

        from ..analyze import Limits

        def problem(f) -> bool:
            return f.rule.severity == "error" or (f.rule.code, _orig(lmap, f.line)) not in self.notes
        stopped = []     # stop_when is asked only when a run is left to do: True there cuts it

        def stop(fs) -> bool:
            if any(problem(f) for f in fs):
                stopped.append(True)
                return True
            return False
        # stop_at_race: inside a run too, at a race certain to be a problem; certain only when
        # any note would be one as well (the unedited kernel has none: analyze._race_stop)
        limits = replace(self.limits or Limits(), stop_when=stop, first_sizes=self.first_sizes,
                         first_blocks=first_blocks, stop_at_race=self.stop_at_race and not self.notes)
        self._budget()
        self.calls += 1
        try:
            report = check_text(new, self.path, limits, module=self._module(edits, new, lmap))
            found = report.findings
            ok = not any(problem(f) for f in found)
        except Exception:        # not valid input, or an engine crash on a candidate: not clean
            found, ok = None, False
        self.clean_memo[new] = ok
        if found is None:
            return
        problems = self._mapped(found, lmap)
        self._learn_block([f for f in found if problem(f)])
        if first_blocks and not all(_in_order(k, first_blocks) for k in report.kernels):
            self.seen_memo[new] = problems
            return
        self.evidence_memo[new] = problems
        if not stopped and not self.sized:   # every run was made: the full check's findings
            self.memo[new] = found
        self._learn_size(problems)

    def _learn_block(self, problems) -> None:
        """Run first, in later scans, the block where this text failed: every problem of a
        stopped check is its last run's (it stops before the next run)."""
        if self.sized:
            return
        block = next((f.witness["block"] for f in problems if isinstance(f.witness, dict)
                      and f.witness.get("block")), None)
        if block is not None:
            block = dict(block)
            self.failing_blocks = (block,) + tuple(b for b in self.failing_blocks if b != block)[:2]

    def _learn_size(self, problems) -> None:
        """Run first, in later stop-early checks, the size value where this candidate failed
        (candidates of one search mostly fail where the last one did). A clean candidate still
        makes every run of its own plan, and at most these three values besides when its plan
        lacks them (a problem there is a real one, at a size the kernel takes)."""
        if not self.sized:
            return
        sizes = next((f.witness["sizes"] for f in problems
                      if isinstance(f.witness, dict) and f.witness.get("sizes")), None)
        if sizes is None:
            return
        sizes = dict(sizes)
        self.first_sizes = (sizes,) + tuple(s for s in self.first_sizes if s != sizes)[:2]

    def evidence(self, edits) -> list:
        """Problems of the edited text (original lines), as evidence that it is not clean: all
        of them when its full check is remembered, else those of a stop-early check (its runs
        up to the first with a problem: maybe fewer codes, never none when it is not clean).
        [] when the edited text is clean or not valid input."""
        try:
            new, lmap = apply_edits(self.text, edits)
        except ValueError:
            return []
        if new in self.memo:
            raw = self.memo[new]
            return [] if raw is None else self._mapped(raw, lmap)
        if self.clean(edits):
            return []
        if new not in self.evidence_memo and new in self.seen_memo:   # the blocks in their order
            self._stop_early(edits, new, lmap, ())
        return list(self.evidence_memo.get(new, []))

    def seen_problems(self, edits) -> set | None:
        """(code, line) of problems a stop-early check of the edited text already found (original
        lines), when they are a subset of what its full check would report; None when unknown.

        Without symbolic sizes a stop-early check makes the full check's first runs, in the same
        order, and a run's findings do not depend on the runs after it: every problem it found
        is among the full check's (which keeps one finding per code, line and column). With
        symbolic sizes it may have run a size the full check's plan does not hold, so no bound."""
        if self.sized:
            return None
        try:
            new, _ = apply_edits(self.text, edits)
        except ValueError:
            return None
        if new in self.memo:        # the full check is remembered: nothing to bound
            return None
        seen = self.evidence_memo.get(new) or self.seen_memo.get(new)
        return _keys(seen) if seen else None

    def _mapped(self, raw, lmap, keep: bool = True) -> list:
        """The problems among `raw` (edited-text lines); keep: as copies in original lines
        (the remembered findings stay in their own text's lines, to be mapped again)."""
        out = []
        for f in raw:
            orig = _orig(lmap, f.line)
            if f.rule.severity == "error" or (f.rule.code, orig) not in self.notes:
                out.append(dc_replace(f, line=orig) if keep else f)
        return out

    def problems(self, edits) -> list | None:
        """Findings of the edited text (lines mapped back to the original), None if it is not
        valid input."""
        try:
            new, lmap = apply_edits(self.text, edits)
        except ValueError:
            return None
        raw = self.memo[new] if new in self.memo else self._raw(new, self._module(edits, new, lmap))
        if raw is None:
            return None
        return self._mapped(raw, lmap)


def _in_order(kernel, first_blocks: tuple) -> bool:
    """Whether a check that ran `first_blocks` first ran this kernel's blocks in their own order
    (they were its first blocks already, or it has none of them; a kernel whose check failed
    reports no threads and no blocks: not known)."""
    first = [b for b in first_blocks if b in kernel.blocks]
    return kernel.threads > 0 and first == kernel.blocks[:len(first)]


def _orig(lmap, line):
    i = min(max(line, 1), len(lmap)) - 1 if lmap else 0
    while i >= 0 and lmap and lmap[i] is None:
        i -= 1
    return lmap[i] if lmap and i >= 0 else 1


def _keys(fs):
    return {(f.rule.code, f.line) for f in fs}


@contextmanager
def _rarer_collections(young: int = 50_000):
    """Run the cyclic garbage collector less often while a search runs. Every candidate check
    elaborates and runs the kernel anew, hundreds of thousands of short-lived objects, many in
    reference cycles; at Python's default first threshold (700 allocations) the collector ran
    17 full collections in the 130-check search of fa_fwd_causal_sm80_s2 drop-commit L99, 1 at
    50,000 (8.9 -> 7.9 CPU s, three runs each; peak memory 110 -> 120 MB). The collector's
    thresholds are put back afterwards; what is collected, and when, changes no answer."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], young), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


@one_thread_at_a_time
def repair_text(text: str, path: str = "<string>", limits=None, max_rounds: int = 4,
                max_candidates: int = 120, seconds: float | None = None) -> Repair:
    """The minimal proved repair of `text`. `seconds`: the search's time budget (None: none);
    when it runs out no further check starts, and the result is `timeout`, with the unedited
    kernel's findings in `remaining` and nothing edited (the unedited kernel's own check is not
    counted: Oracle.spend_at_most)."""
    with _rarer_collections():
        return _search(text, path, limits, max_rounds, max_candidates, seconds)


def _search(text: str, path: str, limits, max_rounds: int, max_candidates: int,
            seconds: float | None = None) -> Repair:
    try:
        oracle = Oracle(text, path, limits)
        tree = Tree(text, path, module=oracle.module)
    except InputError as e:
        return Repair(path, text, "error", message=str(e))
    if not oracle.base:
        return Repair(path, text, "clean", checks=oracle.calls)
    oracle.spend_at_most(seconds)
    try:
        return _rounds(oracle, tree, text, path, max_rounds, max_candidates)
    except SearchBudget:
        return Repair(path, text, "timeout", remaining=oracle.base, checks=oracle.calls,
                      message=f"no repair proved within the time budget ({oracle.calls} checker runs); "
                              "the file is left as it is")


def _rounds(oracle: "Oracle", tree: Tree, text: str, path: str, max_rounds: int,
            max_candidates: int) -> Repair:
    """The search proper: rounds of candidates, then minimisation and the minimality proof."""
    edits: list[Edit] = []
    cur = oracle.base
    for _ in range(max_rounds):
        gen = Generator(tree, lambda n: n)
        cands, seen = [], set()
        for f in cur:
            for c in gen.for_finding(f):
                if c not in seen and not set(c) & set(edits):
                    seen.add(c)
                    cands.append(c)
        # the first candidate that leaves the kernel clean wins: find it with checks that stop
        # at the first problem; only when none is clean, score them all by their findings
        winner = next((c for c in cands[:max_candidates]
                       if oracle.clean(edits + list(c), failing_first=True)), None)
        if winner is not None:
            edits += list(winner)
            cur = []
            break
        best = best_candidate(oracle, edits, cands[:max_candidates], cur)
        if best is None:
            break
        edits += list(best[2])
        cur = best[3]
        if not cur:
            break
    if cur:
        return Repair(path, text, "unrepairable", remaining=cur, checks=oracle.calls,
                      message=_unrepairable(cur))
    edits = minimise(oracle, tree, edits)
    proof = prove(oracle, edits)
    safety = "proved" if all(p[2] for p in proof) else "unproved"
    new, _ = apply_edits(text, edits)
    fix = Fix(tuple(edits), safety, tuple(sorted(_keys(oracle.base))), tuple(proof))
    return Repair(path, text, "fixed", fix, new, checks=oracle.calls)


def best_candidate(oracle: Oracle, edits: list, cands: list, cur: list, bound: bool = True):
    """(problems, new problems, candidate, its problems) of the candidate whose full check leaves
    the fewest problems, fewer than `cur`'s (ties: fewer new ones, then the earlier candidate);
    None when no candidate leaves fewer. `bound`: skip the full check of a candidate whose
    stop-early check already found too many problems to win (_cannot_beat); the same answer."""
    best = None
    for c in cands:
        if bound and _cannot_beat(oracle.seen_problems(edits + list(c)), cur, best):
            continue     # its full check could not give a better score: not made
        ps = oracle.problems(edits + list(c))
        if ps is None:
            continue
        if not ps:
            return (0, 0, c, ps)
        new_keys = len(_keys(ps) - _keys(cur))
        score = (len(ps), new_keys)
        if len(ps) < len(cur) and (best is None or score < best[:2]):
            best = (*score, c, ps)
    return best


def _cannot_beat(seen: set | None, cur: list, best) -> bool:
    """Whether a candidate whose full check finds at least the problems `seen` (distinct code
    and line; Oracle.seen_problems) can neither be taken (fewer problems than `cur`) nor beat
    `best`'s score (problems, new ones) in the scoring loop below. Its full check's count is at
    least len(seen); were it equal, its problems would be `seen`'s, and so its score the bound:
    an equal score does not replace `best` (the earlier candidate wins a tie)."""
    if not seen:
        return False
    bound = (len(seen), len(seen - _keys(cur)))
    return bound[0] >= len(cur) or (best is not None and bound >= best[:2])


def _unrepairable(fs) -> str:
    parts = [f"{f.rule.code} at line {f.line}" for f in fs[:5]]
    more = f" and {len(fs) - 5} more" if len(fs) > 5 else ""
    return ("cannot repair: no candidate synchronization makes the kernel clean (" +
            ", ".join(parts) + more + "); the file is left unchanged")


# ------------------------------------------------------------------ wait counts
def count_site(e: Edit):
    """(n, set_count) when edit `e` writes a wait whose count can grow (`T.ptx_wait_group(n)`,
    `T.warpgroup_wait(n)`; inserted, or an existing line changed), else None. `set_count(k)` is
    `e` with count k, rewritten by `Generator.replace_arg` on the edit's statement parsed alone."""
    if not (e.inserts or e.op == "replace"):
        return None
    stmt = e.text.lstrip(" \t")
    lead = e.text[:len(e.text) - len(stmt)]      # a replaced line keeps its own indentation
    try:
        tree = Tree(_ALONE + stmt + "\n")
    except InputError:
        return None
    if len(tree.stmts) != 1 or (c := call_of(tree.stmts[0])) is None or c.name not in GROW_CALLS:
        return None
    s, gen = tree.stmts[0], Generator(tree, lambda x: x)
    n = gen.int_arg(s, 0)
    if n is None:
        return None

    def set_count(k: int) -> Edit | None:
        new = gen.replace_arg(s, 0, str(k), e.why)
        if new is None:
            return None
        text = new[0].text[len(_PAD):]
        return Edit(e.line, e.op, lead + text, e.indent, e.why)
    return n, set_count


def raise_while_safe(oracle: Oracle, edits: list, n: int, set_count, old: Edit | None = None,
                     limit: int = 8) -> tuple[list, int]:
    """Raise a wait count from `n` one step at a time while the checker finds nothing in the
    text with `edits` and the count's edit. `set_count(k)`: the edit that sets the count to k
    (None: it cannot); it takes the place of `old` in `edits` (None: it is added). Returns the
    edits and the largest safe count (`edits` and `n` when no raise is safe)."""
    best, cur = n, old
    for k in range(n + 1, n + 1 + limit):
        e = set_count(k)
        if e is None:
            break
        trial = [e if x == cur else x for x in edits] if cur in edits else edits + [e]
        if not oracle.clean(trial):
            break
        edits, cur, best = trial, e, k
    return edits, best


# ------------------------------------------------------------------ minimise
def minimise(oracle: Oracle, tree: Tree, edits: list) -> list:
    edits = list(edits)
    # 1. drop what is not needed (a delete travels with its insert: a move)
    for e in list(reversed(edits)):
        if e.op == "delete" or e not in edits:
            continue
        trial = [x for x in edits if x != e]
        if e.inserts:
            trial = [x for x in trial if not (x.op == "delete" and x.text == "" and _moved(x, e, tree))]
        if oracle.clean(trial):
            edits = trial
    # 2. raise wait counts while safe (the largest n that keeps every read safe)
    for e in list(edits):
        site = count_site(e)
        if site is not None:
            edits, _ = raise_while_safe(oracle, edits, *site, old=e)
    # 3. hoist inserted barriers and mbarrier waits out of loops when that stays clean (a wait
    # at a loop's head runs every iteration)
    for e in list(edits):
        if not e.inserts or not any(name in e.text for name in _HOISTED):
            continue
        cur = e
        while True:
            moved = _hoist(tree, cur)
            if not moved:
                break
            ok = None
            for cand in moved:
                trial = [cand if x == cur else x for x in edits]
                if oracle.clean(trial):
                    ok = (trial, cand)
                    break
            if ok is None:
                break
            edits, cur = ok
    return edits


_HOISTED = ("T.tvm_storage_sync", "T.mbarrier_wait_parity")


def _moved(delete: Edit, insert: Edit, tree: Tree) -> bool:
    s = tree.stmt_at(delete.line)
    return s is not None and tree.src(s) == insert.text


def _hoist(tree: Tree, e: Edit) -> list:
    """The same statement just before / after the loop whose body `e` opens or closes."""
    s = tree.stmt_at(e.line)
    if s is None:
        return []
    bi, i = tree.where[id(s)]
    blk = tree.blocks[bi]
    at_head = e.op == "insert-before" and i == 0
    at_tail = e.op == "insert-after" and i == len(blk.stmts) - 1
    loop = blk.parent
    if not (at_head or at_tail) or loop is None or type(loop).__name__ not in ("For", "While"):
        return []
    pb, pi = tree.where[id(loop)]
    before = tree.gap_edit(Gap(pb, pi), e.text, e.why + " (hoisted out of the loop)")
    after = tree.gap_edit(Gap(pb, pi + 1), e.text, e.why + " (hoisted out of the loop)")
    # a barrier needs every thread of the block there; an mbarrier wait is any thread's own
    if "T.mbarrier_wait_parity" not in e.text and not tree.uniform(Gap(pb, pi)):
        return []
    return [x for x in ((before, after) if at_head else (after, before)) if x is not None]


# ------------------------------------------------------------------ proof
def prove(oracle: Oracle, edits: list) -> list:
    """(kind, edit, codes that come back) for every inserted statement removed and every wait
    count raised; an empty codes tuple would mean the fix is not minimal. The codes are those
    of the trial's full check when it was made, else of its stop-early check (minimise made
    most of these trials already): one problem is the proof, not every finding."""
    out = []
    for e in edits:
        if e.inserts or e.op == "replace":
            trial = [x for x in edits if x != e]
            ps = oracle.evidence(trial)
            out.append(("remove" if e.inserts else "revert", e.describe(),
                        tuple(sorted({f.rule.code for f in ps}))))
        site = count_site(e)
        up = site[1](site[0] + 1) if site else None
        if up is not None:
            trial = [up if x == e else x for x in edits]
            ps = oracle.evidence(trial)
            out.append(("raise", e.describe(), tuple(sorted({f.rule.code for f in ps}))))
    return out
