"""Every z3 query runs here, each in a z3 context of its own.

Why a context per query: under a resource limit z3's search order follows the ids of the terms,
and in a shared context those ids depend on every term the process built before (other kernels,
other tests, Python's hash seed ordering a set). The same question then came back `unknown` in
one run and proved in another (the varlen split's case decisions, in some full-suite runs).
Translated into a fresh context, a query's ids depend only on its own terms, so the answer,
unknown included, is the same in every process. The cost is about a millisecond per query.
"""
from __future__ import annotations

import z3

# (a query's context is cheap only with glibc's heap padding, which the package sets as it is
# imported: asyncguard/heap.py)
RLIMIT = 2_000_000   # z3's deterministic resource limit per query (never a wall-clock timeout)


class Query:
    """A z3 Solver (or Optimize, with `optimize=True`) in its own context. Terms built in any
    context are translated on the way in (`add`, `minimize`, `value`)."""

    def __init__(self, *terms, optimize: bool = False, rlimit: int | None = RLIMIT):
        self.ctx = z3.Context()
        self.solver = (z3.Optimize if optimize else z3.Solver)(ctx=self.ctx)
        if rlimit is not None:
            self.solver.set("rlimit", rlimit)
        self.add(*terms)

    def _here(self, term):
        if isinstance(term, bool):
            return z3.BoolVal(term, ctx=self.ctx)
        return term.translate(self.ctx)

    def add(self, *terms) -> "Query":
        self.solver.add(*[self._here(t) for t in terms])
        return self

    def minimize(self, term):
        return self.solver.minimize(self._here(term))

    def check(self) -> z3.CheckSatResult:
        return self.solver.check()

    def model(self) -> z3.ModelRef:
        return self.solver.model()

    def value(self, term, model: z3.ModelRef | None = None):
        """`term`'s value in the last model (completed where the model leaves it free)."""
        return (model or self.solver.model()).eval(self._here(term), model_completion=True)

    def number(self, term) -> int | bool:
        """`term`'s value in the last model as a Python int or bool."""
        v = self.value(term)
        return bool(z3.is_true(v)) if z3.is_bool(v) else v.as_long()

    def reason_unknown(self) -> str:
        return self.solver.reason_unknown()

    def proof_outcome(self) -> str | None:
        """For a query that asks for a counterexample (the claim's negation): "proved" when
        there is none, "refuted" when there is one, None when z3 could not tell
        (`reason_unknown` says why)."""
        res = self.check()
        return "proved" if res == z3.unsat else "refuted" if res == z3.sat else None


def unsat(*terms, rlimit: int | None = RLIMIT) -> bool:
    """Whether z3 proves the conjunction of `terms` unsatisfiable (False on sat or unknown)."""
    return Query(*terms, rlimit=rlimit).check() == z3.unsat
