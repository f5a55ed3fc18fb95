"""Where statements are: blocks, enclosing loops and branches, thread-dependent branches, and
the insertion points ("gaps") between statements."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ir
from ..engine.exprs import NotConcrete, compile_expr, free_names
from ..parse import parse
from .edits import Edit, body, split_lines

_THREAD_CALLS = {"T.tl_shuffle_elect", "T.get_thread_binding", "T.get_lane_idx", "T.get_warp_idx",
                 "T.get_warp_idx_sync", "T.get_warp_group_idx"}


def children(s) -> list[tuple]:
    if isinstance(s, ir.If):
        return [s.then] + ([s.other] if s.other else [])
    if isinstance(s, (ir.For, ir.With, ir.While)):
        return [s.body]
    return []


def last_line(s) -> int:
    kids = children(s)
    if kids and kids[-1]:
        return last_line(kids[-1][-1])
    return s.span.end_line if s.span.end_line >= s.span.line else s.span.line


def names_in(e) -> set:
    out = set()

    def go(x):
        if isinstance(x, ir.Var):
            out.add(x.name)
        elif isinstance(x, (tuple, list)):
            for y in x:
                go(y)
        elif hasattr(x, "__dataclass_fields__"):
            for f in x.__dataclass_fields__:
                if f != "span":
                    go(getattr(x, f))
    go(e)
    return out


def calls_in(e) -> list:
    out = []

    def go(x):
        if isinstance(x, ir.Call):
            out.append(x)
        if isinstance(x, (tuple, list)):
            for y in x:
                go(y)
        elif hasattr(x, "__dataclass_fields__"):
            for f in x.__dataclass_fields__:
                if f != "span":
                    go(getattr(x, f))
    go(e)
    return out


def call_of(s):
    """The call of an expression statement (`T.foo(...)`), else None."""
    if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Call):
        return s.expr
    return None


@dataclass
class Block:
    stmts: tuple
    parent: object          # the statement owning it (None: function body)
    depth_loops: int        # enclosing loops
    thread_dep: bool        # inside a thread-dependent branch


@dataclass(frozen=True)
class Gap:
    block: int              # index into Tree.blocks
    index: int              # insert before stmts[index]; == len: after the last statement


class Tree:
    def __init__(self, text: str, path: str = "<string>", module=None):
        """`module`: the text already parsed (the repair oracle's)."""
        self.text = text
        self.module = module if module is not None else parse(text, path)
        self.lines = split_lines(text)
        self.blocks: list[Block] = []
        self.where: dict[int, tuple] = {}      # id(stmt) -> (block index, index)
        self.stmts: list = []                  # every statement, source order
        for func in self.module.functions:
            tainted = set()
            self._walk(func.body, None, 0, False, tainted)

    # ---------------------------------------------------------------- building
    def _walk(self, stmts, parent, loops, tdep, tainted):
        bi = len(self.blocks)
        self.blocks.append(Block(stmts, parent, loops, tdep))
        for i, s in enumerate(stmts):
            self.where[id(s)] = (bi, i)
            self.stmts.append(s)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Var):
                v = s.value
                if (isinstance(v, ir.Call) and v.name in ("T.launch_thread", "T.env_thread") and v.args
                        and isinstance(v.args[0], ir.Const) and str(v.args[0].value).startswith("threadIdx")):
                    tainted.add(s.target.name)
                elif names_in(v) & tainted or any(c.name in _THREAD_CALLS for c in calls_in(v)):
                    tainted.add(s.target.name)
            if isinstance(s, ir.With) and s.name and isinstance(s.ctx, ir.Call) and \
                    s.ctx.name == "T.launch_thread" and s.ctx.args and "threadIdx" in str(
                        getattr(s.ctx.args[0], "value", "")):
                tainted.add(s.name)
            if isinstance(s, ir.If):
                dep = tdep or self.cond_thread_dependent(s.cond, tainted)
                self._walk(s.then, s, loops, dep, tainted)
                if s.other:
                    self._walk(s.other, s, loops, dep, tainted)
            elif isinstance(s, (ir.For, ir.While)):
                self._walk(s.body, s, loops + 1, tdep, tainted)
            elif isinstance(s, ir.With):
                self._walk(s.body, s, loops, tdep, tainted)

    @staticmethod
    def cond_thread_dependent(cond, tainted) -> bool:
        if names_in(cond) & tainted:
            return True
        for c in calls_in(cond):
            if c.name in _THREAD_CALLS or not c.name.startswith("T."):
                return True
        # a branch on loaded data is not uniform either
        return any(isinstance(x, ir.Subscript) for x in ir.nodes(cond))

    # ---------------------------------------------------------------- queries
    def stmt_at(self, line: int):
        """The innermost statement whose lines include `line`."""
        best = None
        for s in self.stmts:
            if s.span.line <= line <= last_line(s):
                if best is None or s.span.line >= best.span.line:
                    best = s
        return best

    def chain(self, s) -> list[tuple]:
        """(block index, index) from the function body down to `s`."""
        out = []
        while s is not None:
            bi, i = self.where[id(s)]
            out.append((bi, i))
            s = self.blocks[bi].parent
        return out[::-1]

    def indent_of(self, s) -> str:
        ln = body(self.lines[s.span.line - 1])
        return ln[: len(ln) - len(ln.lstrip(" \t"))]

    def gap_edit(self, gap: Gap, text: str, why: str = "") -> Edit | None:
        b = self.blocks[gap.block]
        if not b.stmts:
            return None
        if gap.index < len(b.stmts):
            s = b.stmts[gap.index]
            return Edit(s.span.line, "insert-before", text, self.indent_of(s), why)
        s = b.stmts[-1]
        return Edit(last_line(s), "insert-after", text, self.indent_of(s), why)

    def gaps_before(self, line: int) -> list[Gap]:
        s = self.stmt_at(line)
        return [Gap(bi, i) for bi, i in reversed(self.chain(s))] if s else []

    def gaps_after(self, line: int) -> list[Gap]:
        s = self.stmt_at(line)
        return [Gap(bi, i + 1) for bi, i in reversed(self.chain(s))] if s else []

    def gaps_between(self, a: int, b: int) -> list[Gap]:
        """Insertion points after the statement at line `a` and before the one at line `b`,
        nearest to `b` first; for a loop-carried pair (b before a in the loop body) the loop
        body's head and tail too."""
        sa, sb = self.stmt_at(a), self.stmt_at(b)
        if sa is None or sb is None:
            return []
        ca, cb = self.chain(sa), self.chain(sb)
        out: list[Gap] = []
        common = 0
        while common < min(len(ca), len(cb)) and ca[common][0] == cb[common][0]:
            if ca[common][1] != cb[common][1]:
                break
            common += 1
        # ca[common] and cb[common] lie in the same block (the lowest common block) if any
        if common < min(len(ca), len(cb)) and ca[common][0] == cb[common][0]:
            blk, ia, ib = ca[common][0], ca[common][1], cb[common][1]
            inner_b = [Gap(bi, j) for bi, i in reversed(cb[common + 1:]) for j in range(i, -1, -1)]
            inner_a = [Gap(bi, i + 1) for bi, i in reversed(ca[common + 1:])]
            if ia < ib:
                out += inner_b + [Gap(blk, i) for i in range(ib, ia, -1)] + inner_a
            else:   # loop-carried: the earlier access is later in the body
                n = len(self.blocks[blk].stmts)
                out += inner_b + [Gap(blk, i) for i in range(ib, -1, -1)]
                out += inner_a + [Gap(blk, i) for i in range(ia + 1, n + 1)]
        else:       # same statement (e.g. one loop statement, two iterations)
            out += [Gap(bi, i) for bi, i in reversed(cb)] + [Gap(bi, i + 1) for bi, i in reversed(ca)]
            if cb:
                bi = cb[-1][0]
                out += [Gap(bi, 0), Gap(bi, len(self.blocks[bi].stmts))]
        seen, uniq = set(), []
        for g in out:
            key = self.norm(g)
            if key not in seen:
                seen.add(key)
                uniq.append(g)
        return uniq

    def norm(self, g: Gap):
        e = self.gap_edit(g, "")
        return (e.line, e.op) if e else None

    def uniform(self, g: Gap) -> bool:
        """Every thread of the block reaches this point (no thread-dependent branch above)."""
        return not self.blocks[g.block].thread_dep

    def threads_at(self, g: Gap) -> int | None:
        """How many threads reach gap `g`: the threadIdx.x values that satisfy every `if` on the
        way down (a branch's `else` negated), when the launch is one-dimensional in threads and
        each condition is a function of the thread index and constants alone; else None."""
        lanes = self._thread_index()
        if lanes is None:
            return None
        name, tx = lanes
        keep = np.ones(len(tx), dtype=bool)
        block = self.blocks[g.block]
        while block.parent is not None:
            owner = block.parent
            if isinstance(owner, ir.If):
                took = _eval_cond(owner.cond, name, tx)
                if took is None:
                    return None
                took = took.astype(bool)
                keep &= took if block.stmts is owner.then else ~took
            owner_block, _ = self.where[id(owner)]
            block = self.blocks[owner_block]
        return int(keep.sum())

    def _thread_index(self):
        """(name, all values) of the kernel's threadIdx.x, when threadIdx.y and .z are 1."""
        found, extents = None, {}
        for s in self.stmts:
            call, target = None, None
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Var) and isinstance(s.value, ir.Call):
                call, target = s.value, s.target.name
            elif isinstance(s, ir.With) and s.name and isinstance(s.ctx, ir.Call):
                call, target = s.ctx, s.name
            if call is None or call.name not in ("T.launch_thread", "T.env_thread") or len(call.args) < 2:
                continue
            axis, ext = call.args[0], call.args[1]
            if not (isinstance(axis, ir.Const) and str(axis.value).startswith("threadIdx")):
                continue
            if not isinstance(ext, ir.Const) or not isinstance(ext.value, int):
                return None
            extents[str(axis.value)] = ext.value
            if str(axis.value) == "threadIdx.x":
                found = (target, np.arange(ext.value, dtype=np.int64))
        if found is None or any(v != 1 for k, v in extents.items() if k != "threadIdx.x"):
            return None
        return found

    def calls(self, name: str) -> list:
        return [s for s in self.stmts if (c := call_of(s)) is not None and c.name == name]

    @property
    def clustered(self) -> bool:
        """Whether a kernel is launched as a thread-block cluster (`cluster_dims` among its
        `T.func_attr` keys), not whether the words appear somewhere in the text."""
        return any(isinstance(arg, ir.DictE) and
                   any(isinstance(k, ir.Const) and k.value == "cluster_dims" for k, _ in arg.items)
                   for s in self.calls("T.func_attr") for arg in call_of(s).args[:1])

    def src(self, node) -> str:
        return self.text[node.span.start:node.span.end]


def _eval_cond(e, name: str, tx: np.ndarray):
    """`e` evaluated for every thread index (`name` bound to `tx`), by the engine's own
    expression compiler, or None when it reads anything else (a loop variable, a register, a
    load, a call the engine does not evaluate)."""
    if free_names(e) - {name}:
        return None
    try:
        value = compile_expr(e)({name: tx})
    except NotConcrete:
        return None
    return np.broadcast_to(np.asarray(value), tx.shape)
