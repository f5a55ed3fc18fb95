"""Sampled blocks that run alike, proved by z3 before a block is run (analyze.py's block loop).

analyze.py runs the concrete machine once per sampled block (models/launch.py `sample_blocks`).
Block b runs exactly as an already-run block b0 when every expression the machine evaluates
that decides what it does takes the same value in both, for every thread, every value of the
loop variables in their ranges (constant extents give ranges; others: any value) and every value
of every other name. Then b's run is b0's with other global-memory addresses, and no check reads
those: the events the checks see (events.py) carry shared bytes, barrier ids, parities, counts,
thread ids and loop values, never a global address or a block index. So b's findings are b0's
and b need not run.

The deciding expressions (`deciding_sites`), by what the machine evaluates (engine/machine.py
`_step`): the bounds of relevant loops, the conditions of relevant branches and while loops
(the machine skips an irrelevant one unevaluated), an operation's arguments except global-memory
operands (a copy's source address, TMA coordinates, cp.async's zero-fill predicate: they reach
no event), a register store's element index (out of range is a note), and the lets and register
stores those read, to a fixpoint (prover/behaviours.py's closure; a register element holds only
what register stores put there: engine/program.py `_load_hook`). By induction over the run,
thread t of both blocks is at the same statement with equal lets, registers and loop variables,
so a name other than a block index is one unknown value in both: only the expressions that read
a block index need a proof. Where the list cannot be complete (an operation or branch that kept
no syntax, an unmodelled operation naming mbarriers, a let or store the closure needs without
its syntax), `deciding_sites` says why, and every block runs.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import z3

from .. import ir
from ..engine.exprs import free_names
from ..engine.nodes import PIf, PLet, PLoop, PNote, POp, PStore, PWhile
from ..engine.program import REGISTER_DTYPES, REGISTER_SCOPES
from ..models.cp_async import global_operand_indices
from ..models.launch import CLUSTER_RANK
from .behaviours import Site, _int
from .encode import Encoder, Unencodable
from .periodic import memo
from .solve import Query


@dataclass
class DecidingSites:
    sites: list = field(default_factory=list)   # the deciding expressions that read a block index
    reason: str = ""                            # why the list may be incomplete ("" when it is not)


# operand positions the models never read (TMA coordinates, a copy's global source, cp.async's
# zero-fill predicate): per form, models/tma.py, models/cluster.py, models/cp_async.py. A global
# pointer (`T.tvm_access_ptr` or `T.address_of` of a global buffer) anywhere is left out by
# `_operand_exprs` as well.
def _global_operands(call: ir.Call, views: dict) -> set:
    name, n = call.name, len(call.args)
    one_d = n and _pointer_view(call.args[0], views) is not None   # the 1-D bulk forms
    if name in ("T.tma_load", "T.tma_load_im2col", "T.tma_load_gather4"):
        return {1} if one_d else set(range(3, n))       # (smem, gmem, mbar, bytes) | (desc, mbar, smem, coords)
    if name == "T.tma_load_multicast":
        return {1} if one_d else set(range(4, n))       # (smem, gmem, mbar, bytes, mask) | (desc, mbar, smem, mask, coords)
    if name in ("T.tma_store", "T.tma_store_scatter4"):
        return {0} if one_d else set(range(2, n))       # (gmem, smem, bytes) | (desc, smem, coords)
    if name == "T.ptx_cp_async":
        return global_operand_indices(call)
    return set()


def _pointer_view(e, views: dict):
    """The view a `T.tvm_access_ptr` names, or None."""
    if isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
        return _view(e.args[1], views)
    return None


def _view(e, views: dict):
    if isinstance(e, ir.Attr) and e.name == "data":
        e = e.value
    return views.get(e.name) if isinstance(e, ir.Var) else None


def _is_global(view) -> bool:
    return view is not None and view.region is None


def _operand_exprs(e, views: dict, out: list) -> None:
    """The parts of an operation's operand whose values reach its events: a shared or register
    pointer's offset and extent, a shared element's index, a value; not a global pointer."""
    if isinstance(e, ir.Call):
        if e.name == "T.tvm_access_ptr" and len(e.args) == 5:
            if not _is_global(_view(e.args[1], views)):
                out.extend(x for x in e.args[2:] if not isinstance(x, ir.Const))
            return
        if e.name == "T.address_of" and len(e.args) == 1 and isinstance(e.args[0], ir.Subscript):
            sub = e.args[0]
            if not _is_global(_view(sub.value, views)):
                _index_exprs(sub, out)
            return
        for a in list(e.args) + [v for _, v in e.kwargs]:
            _operand_exprs(a, views, out)
        return
    if isinstance(e, ir.Subscript):
        view = _view(e.value, views)
        if view is not None and (view.is_shared or view.is_barrier):
            _index_exprs(e, out)       # an element named (a barrier word, a shared address)
        else:
            out.append(e)              # a value: a register's, or loaded from global memory
        return
    if isinstance(e, (ir.TupleE, ir.ListE)):
        for x in e.items:
            _operand_exprs(x, views, out)
        return
    if isinstance(e, (ir.BinOp, ir.UnaryOp, ir.IfExp, ir.Var)):
        out.append(e)


def _index_exprs(sub: ir.Subscript, out: list) -> None:
    for i in sub.indices:
        out.extend(x for x in ((i.lo, i.hi) if isinstance(i, ir.Slice) else (i,)) if x is not None)


def _is_register(view) -> bool:
    """A per-thread integer register buffer: its elements hold only what register stores put
    there (engine/program.py `register_of`, `_load_hook`)."""
    r = view.region if view is not None else None
    return r is not None and r.scope in REGISTER_SCOPES and r.elem_dtype in REGISTER_DTYPES


def deciding_sites(program) -> DecidingSites:
    """The expressions deciding what the machine does that read a block index of a grid axis with
    a constant extent, or why that list may be incomplete (see the module's docstring)."""
    views = program.views
    base: list = []
    lets: list = []      # (name, Site or None)
    stores: list = []    # (register region, Site or None)
    gaps: list = []
    whiles: list = []    # (PWhile, the statements around it)
    placed: list = []    # (PStore, the statements around it, its Site or None)

    def walk(body, ranges):
        for s in body:
            line = s.span.line
            if isinstance(s, POp):
                if s.src is None:
                    gaps.append(f"the operation at line {line} kept no syntax")
                    continue
                found: list = []
                if isinstance(s.src, ir.Call):
                    skip = _global_operands(s.src, views)
                    for k, a in enumerate(s.src.args):
                        if k not in skip:
                            _operand_exprs(a, views, found)
                    for _, v in s.src.kwargs:
                        _operand_exprs(v, views, found)
                elif isinstance(s.src, ir.Subscript):   # a shared load or store: its address
                    _index_exprs(s.src, found)
                else:
                    gaps.append(f"the operation at line {line} is not a call or an access")
                    continue
                base.extend(Site(e, ranges) for e in found)
            elif isinstance(s, PIf):          # and PWhile
                if not s.relevant:
                    continue                  # the machine skips it unevaluated
                if s.src is None:
                    gaps.append(f"the branch at line {line} kept no syntax")
                    continue
                base.append(Site(s.src, ranges))
                if isinstance(s, PWhile):
                    whiles.append((s, body))
                walk(s.then, ranges)
                walk(s.other, ranges)
            elif isinstance(s, PLoop):
                if not s.relevant:
                    continue
                if len(s.src) < 2 or any(x is None for x in s.src[:2]):
                    gaps.append(f"the loop at line {line} kept no syntax")
                    continue
                base.extend(Site(x, ranges) for x in s.src[:2])
                inner = dict(ranges)
                inner.pop(s.var, None)
                lo, ext = _int(s.src[0]), _int(s.src[1])
                if lo is not None and ext is not None:
                    inner[s.var] = (lo, lo + ext)
                walk(s.body, inner)
            elif isinstance(s, PLet):
                lets.append((s.name, Site(s.src, ranges) if s.src is not None else None, line))
            elif isinstance(s, PStore):
                index, value = (tuple(s.src) + (None, None))[:2]
                if index is None:
                    gaps.append(f"the register store at line {line} kept no syntax")
                    continue
                base.append(Site(index, ranges))   # out of the register's range: a note
                stores.append((s.region, Site(value, ranges) if value is not None else None, line))
                placed.append((s, body, stores[-1][1]))
            elif isinstance(s, PNote) and s.barriers:
                gaps.append(f"the operation no model runs at line {line} names mbarriers")
    walk(program.body, {})
    if gaps:
        return DecidingSites([], gaps[0])

    used: set = set()
    for st in base:
        used |= free_names(st.expr)
    pending = lets + stores
    changed = True
    while changed:
        changed = False
        regions = {views[n].region.name for n in used if n in views and views[n].region is not None}
        for item in list(pending):
            key, site, line = item
            if key in used or key in regions:
                if site is None:
                    return DecidingSites([], f"the {'let' if item in lets else 'register store'} at "
                                             f"line {line} decides something and kept no syntax")
                pending.remove(item)
                base.append(site)
                used |= free_names(site.expr)
                changed = True
    counted = _while_counters(views, whiles, placed, base)
    base = [counted.get(id(st), st) for st in base]
    blocks = _block_names(program)
    return DecidingSites([st for st in base if free_names(st.expr) & blocks])


def _while_counters(views: dict, whiles: list, placed: list, base: list) -> dict:
    """The first values of while-loop counters that need only give the same trip count.

    A persistent kernel's tile loop `r[0] = bx // 2; while r[0] < 1024: ...; r[0] = r[0] + 74`
    starts its counter at a block-dependent value. When the while conditions are the only
    deciding reads of `r` (besides its own steps), and every store to `r` is either the last one
    before such a loop in the statements around it, or the loop's one step by a positive constant
    d at the top level of its body (a warp-specialized kernel's roles each run their own loop on
    the same register), two blocks run alike as soon as each loop runs the same number of trips,
    max(0, ceil((C - r0) / d)): the conditions take the same values in both, and r's other readers
    (tile coordinates) reach only global addresses.
    -> {id of a first store's Site: the Site of its trip count}."""
    by_region: dict = {}
    for loop, around in whiles:
        bound = _counter_bound(loop.src, views)
        if bound is not None:
            by_region.setdefault(bound[0], []).append((loop, around, bound[1]))
    out: dict = {}
    for region, loops in by_region.items():
        mine = [(st, body, site) for st, body, site in placed if st.region == region]
        allowed = {id(loop.src) for loop, _, _ in loops}
        trips: dict = {}
        used: set = set()
        for loop, around, limit in loops:
            steps = [(st, site) for st, body, site in mine if body is loop.then]
            before = [(st, site) for st, body, site in mine if body is around and
                      _position(around, st) < _position(around, loop)]
            if len(steps) != 1 or not before or steps[0][1] is None:
                break
            step = _counter_step(steps[0][0].src, region, views)
            first, first_site = before[-1]
            if step is None or first_site is None or not _index_zero(first.src) or \
                    _reads_region(first_site.expr, region, views):
                break
            used |= {id(steps[0][0]), id(first)}
            allowed.add(id(steps[0][1].expr))
            v = first_site.expr
            trips[id(first_site)] = Site(ir.Call(ir.Var("T.max"), (ir.Const(0), ir.BinOp("//", ir.BinOp(
                "+", ir.BinOp("-", ir.Const(limit), v), ir.Const(step - 1)), ir.Const(step))), (),
                getattr(v, "span", ir.NO_SPAN)), first_site.ranges)
        else:
            if len(used) != len(mine) or len(trips) != len(loops):
                continue   # another store to the counter (or one first store for two loops)
            if any(id(st.expr) not in allowed and _reads_region(st.expr, region, views) for st in base):
                continue   # another deciding expression reads the counter: its values must agree
            out.update(trips)
    return out


def _position(body, statement) -> int:
    return next(k for k, x in enumerate(body) if x is statement)


def _register_element(e, views: dict) -> str | None:
    """The region of `e` when it is element 0 of a per-thread integer register, else None."""
    if isinstance(e, ir.Subscript) and len(e.indices) == 1 and _index_zero((e.indices[0],)):
        view = _view(e.value, views)
        if _is_register(view):
            return view.region.name
    return None


def _index_zero(src) -> bool:
    return bool(src) and isinstance(src[0], ir.Const) and src[0].value == 0 and \
        not isinstance(src[0].value, bool)


def _counter_bound(cond, views: dict) -> tuple | None:
    """(region, C) of a while condition `r[0] < C` (C an integer constant), else None."""
    if isinstance(cond, ir.BinOp) and cond.op == "<" and isinstance(cond.right, ir.Const) and \
            isinstance(cond.right.value, int) and not isinstance(cond.right.value, bool):
        region = _register_element(cond.left, views)
        if region is not None:
            return region, cond.right.value
    return None


def _counter_step(src, region: str, views: dict) -> int | None:
    """d of a store `r[0] = r[0] + d` (d a positive integer constant), else None."""
    index, value = (tuple(src) + (None, None))[:2]
    if not _index_zero((index,)) or not (isinstance(value, ir.BinOp) and value.op == "+"):
        return None
    if _register_element(value.left, views) != region or not isinstance(value.right, ir.Const):
        return None
    d = value.right.value
    return d if isinstance(d, int) and not isinstance(d, bool) and d > 0 else None


def _reads_region(e, region: str, views: dict) -> bool:
    return any(views[n].region is not None and views[n].region.name == region
               for n in free_names(e) if n in views)


def _block_names(program) -> set:
    launch = program.launch
    return {n for n, axis in launch.block_vars.items() if axis not in launch.symbolic_blocks}


def block_values(program, block: dict) -> dict:
    """Block variable -> the ir expression of its value in a CTA of `block`'s cluster (the CTA's
    cluster rank is the name CLUSTER_RANK, the same in both runs): models/launch.py base_env."""
    launch = program.launch
    cx, cy, _ = launch.cluster
    rank = ir.Var(CLUSTER_RANK)
    out = {}
    for name, axis in launch.block_vars.items():
        if axis in launch.symbolic_blocks:
            continue
        k = "xyz".index(axis[-1])
        c = launch.cluster[k]
        first = ir.Const(block.get(axis, 0) // c * c)
        if c == 1:
            out[name] = first
            continue
        coord = (rank if k == 0 else ir.BinOp("//", rank, ir.Const(cx if k == 1 else cx * cy)))
        if k < 2:
            coord = ir.BinOp("%", coord, ir.Const(c))
        out[name] = ir.BinOp("+", first, coord)
    return out


class _RunEncoder(Encoder):
    """encode() for one run of the machine: every name an integer (a truth value where one is
    needed), a register element an uninterpreted function of its view and indices (one per
    thread, the same in both runs: the induction of the module's docstring), and a call or an
    operator the exact encoding lacks an uninterpreted function of its operands (the machine's
    value calls are pure functions of their operands and the thread: engine/exprs.py CALLS,
    program.py `_call_hook`). Loads from shared or global memory are not encoded."""

    def __init__(self, env: dict, views: dict):
        super().__init__(env)
        self.views = views

    @staticmethod
    def _bool(t):
        return t if z3.is_bool(t) else t != 0

    @staticmethod
    def _num(t):
        return z3.If(t, z3.IntVal(1), z3.IntVal(0)) if z3.is_bool(t) else t

    def _uf(self, name: str, args: list, result=None):
        args = [self._num(a) for a in args]
        f = z3.Function(name, *([z3.IntSort()] * len(args)), result or z3.IntSort())
        return f(*args) if args else z3.Int(name)

    def expr(self, e):
        if isinstance(e, ir.Var):
            if e.name not in self.env:
                self.env[e.name] = z3.Int(e.name)
            return self.env[e.name]
        if isinstance(e, ir.Const) and isinstance(e.value, str):
            return z3.IntVal(zlib.crc32(e.value.encode()))   # the same literal in both runs
        if isinstance(e, ir.UnaryOp) and e.op == "not":
            return z3.Not(self._bool(self.expr(e.operand)))
        if isinstance(e, ir.UnaryOp) and e.op == "-":
            return -self._num(self.expr(e.operand))
        if isinstance(e, ir.IfExp):
            return z3.If(self._bool(self.expr(e.cond)), self.expr(e.then), self.expr(e.other))
        if isinstance(e, ir.Subscript):
            view = _view(e.value, self.views)
            if not _is_register(view) or any(isinstance(i, ir.Slice) for i in e.indices):
                raise Unencodable("a value loaded from memory")
            return self._uf(f"register:{view.name}", [self.expr(i) for i in e.indices])
        return super().expr(e)

    def binop(self, op, a, b, right):
        if op in ("and", "or"):
            a, b = self._bool(a), self._bool(b)
            return z3.And(a, b) if op == "and" else z3.Or(a, b)
        if op in ("==", "!=") and z3.is_bool(a) and z3.is_bool(b):
            return a == b if op == "==" else a != b
        a, b = self._num(a), self._num(b)
        try:
            return super().binop(op, a, b, right)
        except Unencodable:
            if op in ("//", "/", "%", ">>", "<<", "&", "|", "^", "**"):
                return self._uf(f"operator {op}", [a, b])
            raise

    def call(self, e: ir.Call):
        if e.name in ("T.Select", "T.if_then_else") and len(e.args) == 3:
            return z3.If(self._bool(self.expr(e.args[0])), self.expr(e.args[1]), self.expr(e.args[2]))
        if e.name in ("T.min", "T.max") and len(e.args) == 2:
            a, b = self._num(self.expr(e.args[0])), self._num(self.expr(e.args[1]))
            return z3.If(a <= b, a, b) if e.name == "T.min" else z3.If(a >= b, a, b)
        if e.name == "T.Cast" and len(e.args) == 2 and isinstance(e.args[0], ir.Const) and \
                not str(e.args[0].value).startswith(("int", "uint", "bool")):
            return self._uf(f"cast {e.args[0].value}", [self.expr(e.args[1])])
        try:
            return super().call(e)
        except Unencodable:
            if e.kwargs:
                raise
            return self._uf(f"call {e.name or '?'}/{len(e.args)}", [self.expr(a) for a in e.args])


def _prove_site(program, site: Site, block: dict, ref: dict, rlimit: int | None) -> str:
    """'proved' when the site has the same value in a CTA of `block` as in the same CTA rank of
    `ref`, for every thread and loop values in their ranges; else why not."""
    launch = program.launch
    env: dict = {}
    dom = []
    for n, axis in launch.thread_vars.items():
        env[n] = z3.Int(n)
        dom += [env[n] >= 0, env[n] < launch.threads["xyz".index(axis[-1])]]
    rank = env[CLUSTER_RANK] = z3.Int(CLUSTER_RANK)
    dom += [rank >= 0, rank < launch.cluster_size]
    for n, (lo, hi) in site.ranges.items():
        env.setdefault(n, z3.Int(n))
        dom += [env[n] >= lo, env[n] < hi]
    mine, theirs = block_values(program, block), block_values(program, ref)
    try:
        enc = _RunEncoder(env, program.views)
        a = enc.expr(ir.rewrite(site.expr, lambda x: mine.get(x.name) if isinstance(x, ir.Var) else None))
        b = enc.expr(ir.rewrite(site.expr, lambda x: theirs.get(x.name) if isinstance(x, ir.Var) else None))
        goal = a != b
    except Unencodable as err:
        return f"cannot encode ({err})"
    except z3.Z3Exception as err:
        return f"z3: {err}"
    query = Query(*dom, *enc.side, goal, **({} if rlimit is None else {"rlimit": rlimit}))
    return query.proof_outcome() or f"unknown ({query.reason_unknown()})"


class BlockAlike:
    """Which sampled blocks run as a block already run, for one kernel; the proofs are remembered
    (they do not depend on the symbolic sizes: every name but the block indices is free)."""

    # z3 queries per kernel: a 3-D grid samples 64 blocks, and comparing each with every block
    # run before it, when none is alike, would be about 2000 queries of a few milliseconds
    MAX_QUERIES = 256

    def __init__(self, program, rlimit: int | None = None):
        self.program = program
        self.rlimit = rlimit
        self.deciding = deciding_sites(program)
        self.why_not: dict = {}    # (block, ref) -> the first site that was not proved
        self.queries = 0

    def runs_as(self, block: dict, ref: dict) -> bool:
        """Whether z3 proves that `block` runs exactly as `ref` (see the module's docstring)."""
        if self.deciding.reason:
            return False
        key = (tuple(sorted(block.items())), tuple(sorted(ref.items())))
        if key in self.why_not:
            return not self.why_not[key]
        launch = self.program.launch
        shape = (tuple(sorted(launch.thread_vars.items())), launch.threads, launch.cluster,
                 tuple(sorted(launch.block_vars.items())))
        why = ""
        views = self.program.views
        for st in self.deciding.sites:
            # how the encoding reads each buffer the site names (a register or not) is part of
            # the question: the answers are shared between kernels (periodic.memo)
            buffers = tuple(sorted((n, _is_register(views[n])) for n in free_names(st.expr) if n in views))
            if self.queries >= self.MAX_QUERIES:
                why = f"more than {self.MAX_QUERIES} z3 queries for this kernel"
                break
            res = memo(("block alike", st.expr, tuple(sorted(st.ranges.items())), key, shape,
                        buffers, self.rlimit),
                       lambda st=st: self._prove(st, block, ref))
            if res != "proved":
                line = getattr(getattr(st.expr, "span", None), "line", None)
                why = f"{res} at line {line}" if line else res
                break
        self.why_not[key] = why
        return not why

    def _prove(self, site: Site, block: dict, ref: dict) -> str:
        self.queries += 1
        return _prove_site(self.program, site, block, ref, self.rlimit)
