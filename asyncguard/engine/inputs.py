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
"""
from __future__ import annotations

INPUTS = "\x00inputs"   # environment key of the run's Inputs (never a TIR name)


class Inputs:
    """The outcomes of one run: cells fixed by the search, the others taken (1)."""

    def __init__(self, fixed: dict | None = None):
        self.fixed = dict(fixed or {})
        self.order: list = []        # cells met, in the order this run met them
        self.both: set = set()       # cells met where both outcomes matter
        self.names: dict = {}        # cell -> "BlockMask_1[8]", for witnesses and the scope line

    def value(self, cell, text: str, both: bool) -> int:
        if cell not in self.names:
            self.order.append(cell)
            self.names[cell] = text
        if both:
            self.both.add(cell)
        return self.fixed.get(cell, 1)

    def alternatives(self) -> list:
        """The patterns this run opens: for each new cell where both outcomes matter, the same
        outcomes for the cells met before it and the other outcome for it."""
        out = []
        for i, cell in enumerate(self.order):
            if cell in self.fixed or cell not in self.both:
                continue
            alt = dict(self.fixed)
            for earlier in self.order[:i]:
                alt[earlier] = self.fixed.get(earlier, 1)
            alt[cell] = 0
            out.append(alt)
        return out

    def pattern(self) -> dict:
        """The outcomes of the cells where both matter, by name (a witness's input)."""
        return {self.names[c]: int(self.fixed.get(c, 1)) for c in self.order if c in self.both}


class InputSearch:
    """Iterate the Inputs of every outcome pattern, learning new cells from each finished run."""

    def __init__(self, limit: int = 64):
        self.limit = limit
        self.runs = 0
        self.truncated = False
        self.names: dict = {}        # every cell met, over all runs
        self.both: set = set()

    def __iter__(self):
        todo = [{}]
        while todo:
            if self.runs >= self.limit:
                self.truncated = True
                return
            inputs = Inputs(todo.pop())
            yield inputs
            self.runs += 1
            self.names.update(inputs.names)
            self.both |= inputs.both
            todo.extend(reversed(inputs.alternatives()))


def scope_line(searches: list) -> str | None:
    """What the verdict assumed and covered, in words, over the searches of every block and
    size; None when no run met a data-dependent value."""
    met = [s for s in searches if s.names]
    if not met:
        return None
    buffers = sorted({n.split("[", 1)[0] for s in met for n in s.names.values()})
    cells = sum(len(s.names) for s in met)
    taken = sum(len(s.names) - len(s.both) for s in met)
    runs = sum(s.runs for s in met)
    text = (f"data-dependent branches on {', '.join(buffers)} treated as unknown inputs (assumed: "
            f"read-only global memory, one value per block): {cells} value(s) met, ")
    if any(s.truncated for s in met):
        text += f"only the first {runs} outcome patterns checked, not every one"
    else:
        text += f"every outcome pattern checked ({runs} run(s))"
    if taken:
        text += (f"; {taken} of them only guard shared accesses without synchronization and were "
                 "checked taken (skipping them removes accesses, never synchronization)")
    return text
