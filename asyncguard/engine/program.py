"""Elaboration: the syntax tree of one prim_func -> a Program the machine can execute.

Resolves launch extents, shared allocations and their aliases, compiles every expression to a
numpy closure and every operation to a model's `run(env, tids)`. What the models do not know
becomes an `Unsupported` note at its line (never silently dropped).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import ir
from ..events import Access, AccessKind
from ..models import OPS, PURE, VALUE_OPS, NotModelled, per_thread
from ..models.extern import extern_effect
from ..models.launch import Launch, shuffle_elect
from ..models.memory import (BARRIER_SCOPES, SHARED_SCOPES, Region, SharedLayout, View, byte_span,
                             dtype_bits)
from .exprs import NotConcrete, compile_expr, free_names


LAUNCH_AXES = tuple(f"{k}.{a}" for k in ("threadIdx", "blockIdx") for a in "xyz")


# ---------------------------------------------------------------- program nodes
@dataclass
class POp:
    name: str
    span: ir.Span
    run: Callable  # (env, tids) -> list[Event]
    src: object = None   # the syntax it came from (for the symbolic prover)


@dataclass
class PLet:
    name: str
    span: ir.Span
    value: Callable
    src: object = None


@dataclass
class PLoop:
    var: str
    start: Callable
    extent: Callable
    body: tuple
    span: ir.Span
    relevant: bool = True
    src: tuple = ()      # (start, extent) expressions
    plan: object = None  # acceleration plan cached by the prover (engine/accelerate.py)


@dataclass
class PIf:
    cond: Callable
    then: tuple
    other: tuple
    span: ir.Span
    relevant: bool = True
    names: frozenset = frozenset()
    src: object = None


@dataclass
class PNote:
    """A construct the engine cannot execute: reported as `unsupported` if reached. Unless it
    is only a memory access of a shape the models cannot address (`access_only`), it may also
    synchronize, complete copies or end the path: the threads that reach it, the mbarriers
    (`barriers`: fn(env) -> ids) and shared views (`views`) its arguments name are tainted
    (engine/taint.py)."""
    reason: str
    span: ir.Span
    barriers: tuple = ()
    views: tuple = ()
    access_only: bool = False


@dataclass
class AccessPtr:
    view: View
    elem_size: int
    offset: Callable   # elements of elem_size from the view's byte 0
    extent: Callable
    rw: Callable


@dataclass
class Program:
    name: str
    launch: Launch
    layout: SharedLayout
    body: tuple
    attrs: dict
    notes: list = field(default_factory=list)     # (reason, span) found while elaborating
    views: dict = field(default_factory=dict)
    barrier_regions: list = field(default_factory=list)
    symbols: list = field(default_factory=list)    # scalar params (symbolic sizes)
    block_dependent: bool = False   # control flow depends on blockIdx: check several blocks
    control_names: set = field(default_factory=set)  # names loop bounds / branches / lets use


def _relevant(stmts) -> bool:
    for s in stmts:
        if isinstance(s, (POp, PNote)):
            return True
        if isinstance(s, PLoop) and s.relevant or isinstance(s, PIf) and s.relevant:
            return True
    return False


class Elaborator:
    def __init__(self, func: ir.Function):
        self.func = func
        self.launch = Launch()
        self.layout = SharedLayout()
        self.views: dict[str, View] = {}
        self.attrs: dict = {}
        self.notes: list = []
        self.symbols: list = []
        self.barrier_regions: list = []
        self._in_extern = False
        self.control_names: set = set()   # names that loop bounds / branches / lets depend on
        for p in func.params:
            ann = p.annotation
            if isinstance(ann, ir.Call) and ann.name == "T.handle":
                dtype = self.literal(ann.args[0]) if ann.args else "handle"
                scope = self.literal(ann.args[1]) if len(ann.args) > 1 else "global"
                self.views[p.name] = View(p.name, str(dtype), None, scope=str(scope))
            elif isinstance(ann, (ir.Attr, ir.Call, ir.Var)):
                self.symbols.append(p.name)

    # ---- helpers the models use
    def literal(self, e):
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Call) and e.name in ("T.bool", "T.int32", "T.int64", "T.float32",
                                                 "T.uint32", "T.StringImm") and e.args:
            return self.literal(e.args[0])
        if isinstance(e, (ir.ListE, ir.TupleE)):
            return [self.literal(x) for x in e.items]
        if isinstance(e, ir.DictE):
            return {self.literal(k): self.literal(v) for k, v in e.items}
        if isinstance(e, ir.Call) and e.name == "T.target" and e.args:
            return self.literal(e.args[0])
        if isinstance(e, ir.UnaryOp) and e.op == "-":
            v = self.literal(e.operand)
            return -v if isinstance(v, (int, float)) else None
        return None

    def compile(self, e: ir.Expr):
        return compile_expr(e, self._call_hook)

    def _call_hook(self, call: ir.Call):
        if call.name == "T.tl_shuffle_elect" and len(call.args) == 1:
            n_fn, nthreads = self.compile(call.args[0]), self.launch.num_threads

            def elect(env):
                n = n_fn(env)
                if isinstance(n, np.ndarray):
                    raise NotConcrete("tl_shuffle_elect with a thread-dependent size", call.span)
                try:
                    return shuffle_elect(nthreads, n)
                except NotModelled as err:   # a value, not a statement: reported where it is used
                    raise NotConcrete(str(err), call.span) from None
            return elect
        return None

    def thread_x(self) -> np.ndarray:
        """threadIdx.x of every linear thread id (what device templates call threadIdx.x)."""
        return self.launch.axis_values("threadIdx.x")

    def view_of(self, e) -> View | None:
        if isinstance(e, ir.Var):
            return self.views.get(e.name)
        if isinstance(e, ir.Attr) and e.name == "data":
            return self.view_of(e.value)
        return None

    def make_ptr(self, view: View, offset_expr, elem_size: int | None = None,
                 extent_expr=None, rw_expr=None, elem_bits: int | None = None) -> AccessPtr:
        zero = lambda env: 0  # noqa: E731
        offset = self.compile(offset_expr) if offset_expr is not None else zero
        extent = self.compile(extent_expr) if extent_expr is not None else zero
        bits = elem_bits or (elem_size * 8 if elem_size else view.elem_bits)
        if bits % 8:   # sub-byte elements: a byte-granular pointer over the bytes they cover
            def byte_offset(env, offset=offset):
                return byte_span(offset(env), 0, bits)[0]

            def byte_extent(env, offset=offset, extent=extent):
                lo, hi = byte_span(offset(env), extent(env), bits)
                return hi - lo
            offset, extent, bits = byte_offset, byte_extent, 8
        return AccessPtr(view, bits // 8, offset, extent,
                         self.compile(rw_expr) if rw_expr is not None else zero)

    def access_ptr(self, e) -> AccessPtr | None:
        if not (isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5):
            return None
        ann, data, off, ext, rw = e.args
        dtype = self.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else None
        view = self.view_of(data)
        if view is None:
            raise NotModelled(f"T.tvm_access_ptr over unknown data {data!r:.40}")
        bits = dtype_bits(str(dtype)) if dtype else view.elem_bits
        if bits is None:
            raise NotModelled(f"T.tvm_access_ptr with unknown dtype {dtype!r:.40}")
        return self.make_ptr(view, off, None, ext, rw, elem_bits=bits)

    def access_ptr_or_none(self, e) -> AccessPtr | None:
        try:
            return self.access_ptr(e)
        except NotModelled:
            return None

    def address(self, e):
        """A pointer expression -> (view, fn(env) -> flat byte address). Understands
        T.tvm_access_ptr, T.handle_add_byte_offset(p, bytes) and plain buffer data."""
        if isinstance(e, ir.Call) and e.name == "T.handle_add_byte_offset" and len(e.args) == 2:
            inner = self.address(e.args[0])
            if inner is None:
                return None
            view, base = inner
            off = self.compile(e.args[1])
            return view, lambda env: base(env) + off(env)
        ptr = self.access_ptr_or_none(e)
        if ptr is not None:
            return ptr.view, lambda env: ptr.view.flat_base + ptr.offset(env) * ptr.elem_size
        view = self.view_of(e)
        if view is not None:
            return view, lambda env: view.flat_base
        return None

    def barrier_ref(self, e):
        """`mbarrier_1[k % 3]` (or an access_ptr into a shared.barrier buffer) -> fn(env) giving
        global barrier ids; None when `e` does not name an mbarrier."""
        if isinstance(e, ir.Subscript) and len(e.indices) == 1 and not isinstance(e.indices[0], ir.Slice):
            view, idx = self.view_of(e.value), e.indices[0]
        elif isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
            view, idx = self.view_of(e.args[1]), e.args[2]
        else:
            return None
        if view is None or not view.is_barrier:
            return None
        region, fn = view.region, self.compile(idx)
        shift = view.byte_offset // 8
        return lambda env: region.barrier_base + shift + fn(env)

    def _mentions_shared(self, e) -> bool:
        return any((v := self.views.get(n)) is not None and (v.is_shared or v.is_barrier)
                   for n in free_names(e))

    # ---- declarations
    def _declare(self, name: str, call: ir.Call, annotation) -> bool:
        """Buffer / pointer / launch declarations. True when handled."""
        cname = call.name
        if cname == "T.launch_thread":
            axis = self.literal(call.args[0]) if call.args else None
            extent = self.literal(call.args[1]) if len(call.args) > 1 else None
            if not isinstance(axis, str) or not isinstance(extent, int):
                self.notes.append((f"launch_thread with non-constant extent", call.span))
                return True
            if axis not in LAUNCH_AXES:   # threadIdx.w, vthread: no launch dimension to model
                self.notes.append((f"launch_thread over {axis!r:.40}: not a threadIdx or blockIdx "
                                   "axis x, y or z", call.span))
                return True
            extent = self._extent(axis, extent, call.span)
            if axis.startswith("threadIdx."):
                self.launch.thread_vars[name] = axis
                dims = list(self.launch.threads)
                dims["xyz".index(axis[-1])] = extent
                self.launch.threads = tuple(dims)
            else:
                self.launch.block_vars[name] = axis
            return True
        if cname in ("T.alloc_buffer", "T.decl_buffer", "T.Buffer", "T.match_buffer", "T.allocate"):
            shape = self.literal(call.args[0]) if call.args else None
            if isinstance(shape, int):
                shape = [shape]
            dtype = self.literal(call.args[1]) if len(call.args) > 1 else None
            dtype = dtype or self.literal(call.kwarg("dtype")) or "float32"
            scope = self.literal(call.kwarg("scope")) if call.kwarg("scope") is not None else None
            if cname == "T.allocate" and len(call.args) > 2:
                scope = self.literal(call.args[2])
            data = call.kwarg("data")
            base = self.view_of(data) if data is not None else None
            if data is not None and base is None:
                self.views[name] = View(name, str(dtype), None, scope=str(scope or "global"))
                return True
            if base is not None:
                self.views[name] = View(name, str(dtype), base.region, base.byte_offset,
                                        tuple(shape or ()), scope or base.scope)
                return True
            scope = scope or "global"
            if not isinstance(shape, list) or not all(isinstance(s, int) for s in shape):
                if scope in SHARED_SCOPES:
                    self.notes.append(("shared buffer with a non-constant shape", call.span))
                self.views[name] = View(name, str(dtype), None, scope=scope)
                return True
            bits = dtype_bits(str(dtype))
            if bits is None and scope in SHARED_SCOPES:
                self.notes.append((f"unknown dtype {dtype!r}", call.span))
            nbytes = byte_span(0, int(np.prod(shape)), bits or 8)[1]
            region = Region(name, scope, nbytes, line=call.span.line, elem_dtype=str(dtype),
                            shape=tuple(shape))
            if scope in SHARED_SCOPES:
                self.layout.add(region)
            elif scope in BARRIER_SCOPES:
                region.barrier_base = sum(r.nbytes // 8 for r in self.barrier_regions)
                self.barrier_regions.append(region)
            self.views[name] = View(name, str(dtype), region, 0, tuple(shape), scope)
            return True
        if cname == "T.handle_add_byte_offset":
            base = self.view_of(call.args[0]) if call.args else None
            off = self.literal(call.args[1]) if len(call.args) > 1 else None
            dtype = "uint8"
            if isinstance(annotation, ir.Call) and annotation.name == "T.handle" and annotation.args:
                dtype = self.literal(annotation.args[0]) or "uint8"
            if base is None or not isinstance(off, int):
                self.notes.append(("pointer arithmetic the model cannot resolve", call.span))
                return True
            self.views[name] = View(name, str(dtype), base.region, base.byte_offset + off,
                                    (), base.scope)
            return True
        return False

    def _extent(self, axis: str, extent, span) -> int:
        """A launch extent. CUDA refuses a launch dimension below 1: such a launch is an
        unsupported note (verdict unknown) and runs no thread, never a crash or `clean`."""
        if isinstance(extent, int) and extent >= 1:
            return extent
        self.notes.append((f"invalid launch: {axis} extent {extent!r:.30} (CUDA needs at least 1)",
                           span))
        return 0

    # ---- accesses inside expressions
    def _subscript_access(self, sub: ir.Subscript, kind: AccessKind, span) -> POp | PNote | None:
        view = self.view_of(sub.value)
        if view is None or not view.is_shared:
            if view is not None and view.is_barrier:
                return None  # barrier words are named, not loaded/stored, in TileLang TIR
            return None
        shape = view.shape or (1 << 40,)
        idx = sub.indices
        if len(idx) == 1 and isinstance(idx[0], ir.Slice):
            s = idx[0]
            if s.step is not None and self.literal(s.step) not in (1, None):
                return PNote("strided vector access to shared memory", sub.span, access_only=True)
            lo_fn = self.compile(s.lo) if s.lo is not None else (lambda env: 0)
            hi_fn = self.compile(s.hi) if s.hi is not None else (lambda env: shape[0])
        elif all(not isinstance(i, ir.Slice) for i in idx):
            if len(idx) != len(shape) and len(idx) != 1:
                return PNote("subscript rank differs from the buffer's shape", sub.span, access_only=True)
            strides = [int(np.prod(shape[k + 1:])) for k in range(len(idx))] if len(idx) > 1 else [1]
            fns = [self.compile(i) for i in idx]

            def lo_fn(env, fns=fns, strides=strides):
                return sum(f(env) * s for f, s in zip(fns, strides))
            hi_fn = lambda env, lo_fn=lo_fn: lo_fn(env) + 1  # noqa: E731
        else:
            return PNote("multi-dimensional slice of a shared buffer", sub.span, access_only=True)
        esize, bits = view.elem_size, view.elem_bits

        def run(env, tids):
            lo = per_thread(lo_fn(env), tids)
            hi = per_thread(hi_fn(env), tids)
            base = view.flat_base
            lo, hi = byte_span(lo, hi - lo, bits)   # sub-byte elements cover their whole byte
            return [Access(kind, tids, base + lo, base + hi, view.name, base, esize,
                           "load" if kind == AccessKind.READ else "store")]
        return POp("load" if kind == AccessKind.READ else "store", span, run, sub)

    def _expr_effects(self, e, out: list) -> None:
        """Shared loads and extern calls inside an expression, in evaluation order."""
        if isinstance(e, ir.Subscript):
            for i in e.indices:
                for part in ((i.lo, i.hi, i.step) if isinstance(i, ir.Slice) else (i,)):
                    if part is not None:
                        self._expr_effects(part, out)
            acc = self._subscript_access(e, AccessKind.READ, e.span)
            if acc is not None:
                out.append(acc)
            return
        if isinstance(e, ir.Call):
            name = e.name
            outer, self._in_extern = self._in_extern, name == "T.call_extern" or name in VALUE_OPS
            for a in e.args:
                self._expr_effects(a, out)
            for _, a in e.kwargs:
                self._expr_effects(a, out)
            self._in_extern = outer
            if name == "T.call_extern":
                try:
                    run = extern_effect(self, e)
                except NotModelled as err:
                    out.append(self._opaque(str(err), e))
                else:
                    if run is not None:
                        out.append(POp("AllReduce", e.span, run, e))
            elif name in VALUE_OPS:
                try:
                    run = VALUE_OPS[name](self, e)
                except (NotModelled, NotConcrete) as err:
                    out.append(self._opaque(getattr(err, "reason", str(err)), e))
                else:
                    if run is not None:
                        out.append(POp(name.removeprefix("T."), e.span, run, e))
            elif name in OPS:
                out.append(self._opaque(f"{name} used as a value", e))
            elif name == "T.tvm_access_ptr" and self._mentions_shared(e) and not self._in_extern:
                out.append(self._opaque("pointer to shared memory passed to an unmodelled call", e))
            return
        if isinstance(e, (ir.BinOp,)):
            self._expr_effects(e.left, out)
            self._expr_effects(e.right, out)
        elif isinstance(e, ir.UnaryOp):
            self._expr_effects(e.operand, out)
        elif isinstance(e, ir.IfExp):
            for x in (e.cond, e.then, e.other):
                self._expr_effects(x, out)
        elif isinstance(e, (ir.TupleE, ir.ListE)):
            for x in e.items:
                self._expr_effects(x, out)
        elif isinstance(e, ir.Attr):
            self._expr_effects(e.value, out)

    # ---- statements
    def _op_stmt(self, call: ir.Call, span) -> list:
        name = call.name
        if name in PURE:
            return []
        out: list = []
        if name == "T.call_extern":
            self._expr_effects(call, out)
            return out
        if name in OPS:
            try:
                run = OPS[name](self, call)
            except NotModelled as err:
                return [self._opaque(str(err), call)]
            except NotConcrete as err:
                return [self._opaque(err.reason, call)]
            return [POp(name.removeprefix("T."), call.span, run, call)] if run is not None else []
        # An unknown call: harmless only if it cannot reach shared memory or synchronize.
        for a in call.args:
            self._expr_effects(a, out)
        return out + [self._opaque(f"unknown operation {name or 'call'}(...)", call)]

    def _opaque(self, reason: str, call: ir.Call) -> PNote:
        """An operation no model executes, with the mbarriers and shared views its arguments
        name (at any depth): what it may arrive on, complete or touch."""
        barriers, views, stack = [], [], list(call.args) + [v for _, v in call.kwargs]
        while stack:
            e = stack.pop()
            ref = self.barrier_ref(e)
            if ref is not None:
                barriers.append(ref)
                continue
            view = self.view_of(e)
            if view is not None:
                if view.is_barrier:   # the whole barrier array (`mbarrier.data`)
                    region = view.region
                    barriers.append(lambda env, r=region: r.barrier_base + np.arange(r.nbytes // 8))
                elif view.is_shared:
                    views.append(view)
                continue
            if isinstance(e, ir.Call):
                stack.extend(e.args)
                stack.extend(v for _, v in e.kwargs)
            elif isinstance(e, (ir.TupleE, ir.ListE)):
                stack.extend(e.items)
            elif isinstance(e, ir.BinOp):
                stack.extend((e.left, e.right))
        return PNote(reason, call.span, tuple(barriers), tuple(views))

    def block(self, stmts) -> tuple:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s) -> list:
        if isinstance(s, ir.ExprStmt):
            e = s.expr
            if isinstance(e, ir.Call):
                if e.name == "T.func_attr" and e.args:
                    self._func_attr(self.literal(e.args[0]) or {}, e.span)
                    return []
                return self._op_stmt(e, s.span)
            return []
        if isinstance(s, ir.Assign):
            return self._assign(s)
        if isinstance(s, ir.For):
            return self._for(s)
        if isinstance(s, ir.If):
            cond_effects: list = []
            self._expr_effects(s.cond, cond_effects)
            self.control_names |= free_names(s.cond)
            then, other = self.block(s.then), self.block(s.other)
            node = PIf(self.compile(s.cond), then, other, s.cond.span if hasattr(s.cond, "span") else s.span,
                       _relevant(then) or _relevant(other), frozenset(free_names(s.cond)), s.cond)
            return cond_effects + [node]
        if isinstance(s, ir.With):
            return list(self.block(s.body))
        if isinstance(s, ir.While):
            return [PNote("while loop (trip count unknown to the concrete engine)", s.span)]
        return []

    def _func_attr(self, attrs: dict, span) -> None:
        if not isinstance(attrs, dict):
            return
        self.attrs.update(attrs)
        te = attrs.get("thread_extent")
        if isinstance(te, dict):
            def extent(axis):   # a value that is not a literal (None) counts as 1, as before
                v = te.get(axis)
                return 1 if v is None else self._extent(axis, v, span)
            self.launch.threads = tuple(extent(f"threadIdx.{a}") for a in "xyz")
            self.launch.blocks = tuple(extent(f"blockIdx.{a}") for a in "xyz")

    def _assign(self, s: ir.Assign) -> list:
        tgt, val = s.target, s.value
        if isinstance(tgt, ir.Var) and isinstance(val, ir.Call) and self._declare(tgt.name, val, s.annotation):
            return []
        out: list = []
        self._expr_effects(val, out)
        if isinstance(tgt, ir.Subscript):
            for i in tgt.indices:
                for part in ((i.lo, i.hi, i.step) if isinstance(i, ir.Slice) else (i,)):
                    if part is not None:
                        self._expr_effects(part, out)
            acc = self._subscript_access(tgt, AccessKind.WRITE, s.span)
            if acc is not None:
                out.append(acc)
            return out
        if isinstance(tgt, ir.Var):
            view = self.view_of(val)
            if view is not None:  # pointer alias: `p = buf.data`
                self.views[tgt.name] = view
                return out
            self.control_names |= free_names(val)
            return out + [PLet(tgt.name, s.span, self.compile(val), val)]
        return out + [PNote("assignment to an unsupported target", s.span)]

    def _for(self, s: ir.For) -> list:
        it = s.iter
        self.control_names |= free_names(it)
        if not isinstance(it, ir.Call):
            return [PNote("loop over a non-range iterable", s.span)]
        name, args = it.name, it.args
        if name in ("range", "T.serial", "T.unroll", "T.vectorized", "T.parallel") and 1 <= len(args) <= 2:
            start = self.compile(args[0]) if len(args) == 2 else (lambda env: 0)
            if len(args) == 2:   # (start, stop), as TVMScript prints range / T.serial
                extent = self.compile(ir.BinOp("-", args[1], args[0], it.span))
            else:
                extent = self.compile(args[0])
            body = self.block(s.body)
            if len(s.names) != 1:
                return [PNote("loop with several targets", s.span)]
            start_expr = args[0] if len(args) == 2 else ir.Const(0)
            extent_expr = ir.BinOp("-", args[1], args[0]) if len(args) == 2 else args[0]
            return [PLoop(s.names[0], start, extent, body, s.span, _relevant(body),
                          (start_expr, extent_expr))]
        if name == "T.grid" and len(args) == len(s.names) and args:
            body = self.block(s.body)
            for var, ext in reversed(list(zip(s.names, args))):
                loop = PLoop(var, lambda env: 0, self.compile(ext), body, s.span, _relevant(body),
                             (ir.Const(0), ext))
                body = (loop,)
            return list(body)
        if name == "T.thread_binding":
            return [PNote("T.thread_binding loop (use launch_thread)", s.span)]
        return [PNote(f"loop over {name or 'an expression'}", s.span)]


def elaborate(func: ir.Function) -> Program:
    el = Elaborator(func)
    body = el.block(func.body)
    el.layout.assign_bases()
    return Program(func.name, el.launch, el.layout, body, el.attrs, el.notes, el.views,
                   el.barrier_regions, el.symbols,
                   block_dependent=bool(el.control_names & set(el.launch.block_vars)),
                   control_names=set(el.control_names))
