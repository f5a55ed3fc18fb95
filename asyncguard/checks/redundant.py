"""Redundant synchronization (opt-in: `asyncguard check --redundant`, `asyncguard fix
--remove-redundant`): a barrier or wait whose removal leaves the kernel clean, or a wait whose
count can grow. Each candidate costs one more run of the checker, so it is never part of the
default `check`.

Only kernels the checker proves clean are linted: "redundant" means the checker still proves
the kernel race-free without the sync, for the launch the file states.
"""
from __future__ import annotations

from functools import partial

from ..diagnostics import Finding, rule

_KIND = "resource"     # a redundant sync costs time (serialization), like AG505 costs occupancy

REDUNDANT_BARRIER = rule("AG601", "redundant-barrier", _KIND, "warning",
                         "a barrier whose removal leaves the kernel provably race-free", """
## What it does
For a kernel the checker proves clean, removes each `T.tvm_storage_sync("shared")` (and
`"shared.dyn"`) in turn and re-runs the checker; a barrier whose removal still leaves the
kernel clean is reported. Opt-in: `asyncguard check --redundant`.

## Why is this bad?
Every block barrier makes all warps wait for the slowest one: it serializes the pipeline it
sits in. Compilers insert them conservatively (TileLang puts one after every wait); one that
orders nothing the kernel depends on is pure cost.

## Example
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
x = S_1[tx]          # each thread reads only the bytes its own cp.async wrote
```

## Use instead
```python
T.ptx_wait_group(0)
x = S_1[tx]          # the issuer's own wait is enough for its own bytes
```

## Witness
The statement's line; the proof is the checker's clean verdict on the kernel without it
(valid for the launch as written: thread count, trip counts). Removing two redundant syncs
at once may not be safe: `fix --remove-redundant` removes them one at a time, re-checking.
""")

REDUNDANT_WAIT = rule("AG602", "redundant-wait", _KIND, "warning",
                      "a wait whose removal leaves the kernel provably race-free", """
## What it does
For a kernel the checker proves clean, removes each wait (`T.ptx_wait_group`,
`T.warpgroup_wait`, `T.tma_store_wait`, `T.mbarrier_wait_parity`) in turn and re-runs the
checker; a wait whose removal still leaves the kernel clean is reported.

## Why is this bad?
A wait stalls the thread until the async operations it covers complete; one that protects no
access only removes overlap between copies, tensor-core work and computation.

## Example
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
T.ptx_wait_group(0)      # nothing was issued since the last wait
```

## Use instead
```python
T.ptx_wait_group(0)
T.tvm_storage_sync("shared")
```

## Witness
The statement's line; the checker's clean verdict on the kernel without it.
""")

WAIT_CAN_GROW = rule("AG603", "wait-count-can-grow", _KIND, "warning",
                     "a wait count that can be raised and keep every read safe", """
## What it does
For a kernel the checker proves clean, raises the count of each `T.ptx_wait_group(n)` /
`T.warpgroup_wait(n)` one at a time while the checker stays clean and reports the largest
safe count.

## Why is this bad?
`wait_group(n)` leaves the `n` newest groups in flight; a count smaller than needed waits for
copies nobody reads yet, shortening the pipeline's overlap.

## Example
```python
T.ptx_commit_group()     # stage k + 1
T.ptx_wait_group(0)      # also waits for stage k + 1, read only in the next iteration
```

## Use instead
```python
T.ptx_commit_group()
T.ptx_wait_group(1)      # stage k has landed; stage k + 1 keeps loading
```

## Witness
The statement's line, its count and the largest count the checker still proves safe.
""")

SYNC_CALLS = ("T.tvm_storage_sync",)
WAIT_CALLS = ("T.ptx_wait_group", "T.warpgroup_wait", "T.tma_store_wait", "T.mbarrier_wait_parity")
GROW_CALLS = ("T.ptx_wait_group", "T.warpgroup_wait")


def _sync_stmts(tree):
    from ..repair.tree import call_of
    out = []
    for s in tree.stmts:
        c = call_of(s)
        if c is None or c.name not in SYNC_CALLS + WAIT_CALLS:
            continue
        if c.name == "T.tvm_storage_sync" and not (
                c.args and getattr(c.args[0], "value", None) in ("shared", "shared.dyn")):
            continue
        if s.span.line != s.span.end_line:
            continue
        out.append((s, c))
    return out


def _removal(tree, s):
    """Edit deleting statement `s` (T.evaluate(0) when it is its block's only statement)."""
    from ..repair.edits import Edit
    bi, _ = tree.where[id(s)]
    if len(tree.blocks[bi].stmts) == 1:
        return Edit(s.span.line, "replace", tree.indent_of(s) + "T.evaluate(0)", "", "remove the sync")
    return Edit(s.span.line, "delete", "", "", "remove the sync")


def _raise(tree, s, n):
    """The edit setting the count of wait statement `s` to n, or None."""
    from ..repair.candidates import Generator
    e = Generator(tree, lambda x: x).replace_arg(s, 0, str(n), "raise the wait count")
    return e[0] if e else None


def lint_text(text: str, path: str = "<string>", limits=None, oracle=None) -> list[Finding]:
    """AG601/602/603 findings for a clean kernel (none for anything else)."""
    from ..repair.search import Oracle, raise_while_safe
    from ..repair.tree import Tree
    oracle = oracle or Oracle(text, path, limits)
    if oracle.base or oracle.notes:
        return []
    tree = Tree(text, path)
    out = []
    for s, c in _sync_stmts(tree):
        rm = _removal(tree, s)
        if oracle.clean([rm]):
            r = REDUNDANT_BARRIER if c.name in SYNC_CALLS else REDUNDANT_WAIT
            what = "barrier" if r is REDUNDANT_BARRIER else c.name.split(".")[-1]
            out.append(Finding(r, s.span.line, s.span.col,
                               f"{what} at line {s.span.line} is redundant: the kernel stays "
                               f"race-free without it", {"statement": tree.src(s),
                                                         "proof": "checker clean without it"}, path))
            continue
        if c.name in GROW_CALLS and c.args and isinstance(getattr(c.args[0], "value", None), int):
            n = c.args[0].value
            _, best = raise_while_safe(oracle, [], n, partial(_raise, tree, s))
            if best > n:
                out.append(Finding(WAIT_CAN_GROW, s.span.line, s.span.col,
                                   f"{c.name.split('.')[-1]}({n}) at line {s.span.line} can wait "
                                   f"for fewer groups: {best} keeps every read safe",
                                   {"statement": tree.src(s), "count": n, "largest_safe": best}, path))
    return out


def remove_redundant(text: str, path: str = "<string>", limits=None):
    """Remove redundant syncs one at a time (each removal re-checked with the previous ones),
    and raise wait counts as far as they stay safe. Returns (new text, edits)."""
    from ..repair.edits import apply_edits
    from ..repair.search import Oracle, raise_while_safe
    from ..repair.tree import Tree
    oracle = Oracle(text, path, limits)
    if oracle.base or oracle.notes:
        return text, []
    tree = Tree(text, path)
    edits: list = []
    for s, c in _sync_stmts(tree):
        rm = _removal(tree, s)
        if oracle.clean(edits + [rm]):
            edits.append(rm)
            continue
        if c.name in GROW_CALLS and c.args and isinstance(getattr(c.args[0], "value", None), int):
            edits, _ = raise_while_safe(oracle, edits, c.args[0].value, partial(_raise, tree, s))
    return apply_edits(text, edits)[0], edits


def add_to_results(results, limits=None) -> None:
    """`check --redundant`: append the lint's findings to each clean file's report."""
    from pathlib import Path
    for res in results:
        rep = res.report
        if rep is None or rep.findings:
            continue
        text = Path(res.path).read_text(encoding="utf-8")
        found = lint_text(text, res.path, limits)
        for k in rep.kernels:
            k.findings.extend(found)
            k.findings.sort(key=lambda f: (f.line, f.col, f.rule.code))
            break
