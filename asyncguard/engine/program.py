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
                             dtype_bits, dtype_bytes)
from .exprs import NotConcrete, compile_expr, free_names, memoize
from .inputs import INPUTS


LAUNCH_AXES = tuple(f"{k}.{a}" for k in ("threadIdx", "blockIdx") for a in "xyz")

# Per-thread registers the engine evaluates exactly: integer `local` buffers of a few elements
# (phase counters, tile counters, loop-carried indices). Larger or floating-point local buffers
# hold data (accumulators, fragments) whose values never decide shared bytes or synchronization.
REGISTER_SCOPES = ("local", "local.var")
REGISTER_DTYPES = {"int8": (-2**7, 2**7), "int16": (-2**15, 2**15), "int32": (-2**31, 2**31),
                   "int64": (-2**63, 2**63), "uint8": (0, 2**8), "uint16": (0, 2**16),
                   "uint32": (0, 2**32), "uint64": (0, 2**64), "bool": (0, 2)}
MAX_REGISTER_ELEMS = 8


def register_key(region: str, k: int) -> str:
    """The environment key of element `k` of register buffer `region` (never a TIR name)."""
    return f"{region}[{k}]"


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
class PStore:
    """A store into a per-thread register: the task's environment keeps element k of `region`
    under register_key(region, k), one value per thread like any other per-thread value. A value
    the engine cannot compute (data, an out-of-range result) leaves the element unknown, so a
    later use of it is reported where it decides something, never guessed."""
    region: str
    index: Callable          # element index from the region's element 0
    value: Callable
    size: int
    bounds: tuple            # (lo, hi): the dtype's range; a value outside it is unknown (wraps)
    span: ir.Span
    src: tuple = ()          # (index, value) expressions, for the prover

    def apply(self, env: dict) -> None:
        k = self.index(env)
        try:
            v = self.value(env)
        except NotConcrete:
            v = None
        if v is not None:
            arr = np.asarray(v)
            if arr.dtype.kind == "b":
                v = arr.astype(np.int64) if isinstance(v, np.ndarray) else int(bool(v))
            elif arr.dtype.kind not in "iu" or arr.size and (
                    int(arr.min()) < self.bounds[0] or int(arr.max()) >= self.bounds[1]):
                v = None   # a float, or a value its dtype would wrap: not modelled exactly
        if isinstance(k, np.ndarray):
            ks = np.unique(k)
            if ks.size == 1:
                k = int(ks[0])
            else:   # a per-thread index: each element changes for the threads that name it
                for kk in ks.tolist():
                    self._check(kk)
                    key, old = register_key(self.region, kk), env.get(register_key(self.region, kk))
                    if v is None or old is None:
                        env.pop(key, None)
                    else:
                        env[key] = np.where(k == kk, v, old)
                return
        self._check(int(k))
        key = register_key(self.region, int(k))
        if v is None:
            env.pop(key, None)
        else:
            env[key] = v

    def _check(self, k: int) -> None:
        if not 0 <= k < self.size:
            raise NotConcrete(f"register {self.region}[{k}] out of its {self.size} element(s)",
                              self.span)


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
    blocks_alike: bool = False   # control depends on blockIdx only through input-cell addresses


def _relevant(stmts) -> bool:
    for s in stmts:
        if isinstance(s, (POp, PNote, PStore)):
            return True
        if isinstance(s, PLoop) and s.relevant or isinstance(s, PIf) and s.relevant:
            return True
    return False


def _register_value(env: dict, region: str, k: int, span):
    try:
        return env[register_key(region, k)]
    except KeyError:
        raise NotConcrete(f"register {region}[{k}] has no known value here (never written, or "
                          "written with a value the engine cannot compute)", span) from None


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
        # global-memory parameters: the parameter every view of one aliases (data-dependent
        # inputs), the ones the kernel may write, the ones used only as truth values
        self.roots: dict = {}
        self.written_roots: set = set()
        self.truth_only: dict = {}
        self._taken_site = None   # the load that is the whole condition of an access-only branch
        self.escaped_registers: set = set()   # register regions an operation gets a pointer to
        # control names outside the addresses of global loads, and those addresses per parameter:
        # blocks that differ only in which input cells they read behave alike (elaborate())
        self.plain_control_names: set = set()
        self.input_sites: list = []   # (root, index expressions, strides)
        self.control_names: set = set()   # names that loop bounds / branches / lets depend on
        # names whose value is the same in every thread of a block (block ids, kernel
        # parameters, loop variables and lets built from them): a store of a value built only
        # from these and read-only global memory writes the same value in every thread
        self.uniform_names: set = set()
        for p in func.params:
            ann = p.annotation
            if isinstance(ann, ir.Call) and ann.name == "T.handle":
                dtype = self.literal(ann.args[0]) if ann.args else "handle"
                scope = self.literal(ann.args[1]) if len(ann.args) > 1 else "global"
                self.views[p.name] = View(p.name, str(dtype), None, scope=str(scope))
                if scope == "global":
                    self.roots[p.name] = p.name
            elif isinstance(ann, (ir.Attr, ir.Call, ir.Var)):
                self.symbols.append(p.name)
                self.uniform_names.add(p.name)

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
        return compile_expr(e, self._call_hook, self._load_hook)

    def _control(self, e) -> None:
        self.control_names |= free_names(e)
        self.plain_control_names |= self._names_outside_inputs(e)

    def _names_outside_inputs(self, e) -> set:
        """free_names(e) without the names that only address a global parameter's element."""
        out: set = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                v = self.view_of(x.value)
                if v is not None and v.name in self.roots:
                    continue
            if isinstance(x, ir.Var):
                out.add(x.name)
            elif isinstance(x, (tuple, list)):
                stack.extend(x)
            elif hasattr(x, "__dataclass_fields__") and not isinstance(x, ir.Span):
                stack.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")
        return out

    def register_of(self, view: View | None):
        """(region name, first element, element count, dtype range) when `view` is a per-thread
        register buffer the engine evaluates, else None."""
        if view is None or view.region is None:
            return None
        r = view.region
        if r.scope not in REGISTER_SCOPES or r.elem_dtype not in REGISTER_DTYPES:
            return None
        esize = dtype_bytes(r.elem_dtype) or 1
        n = r.nbytes // esize
        if n > MAX_REGISTER_ELEMS or view.dtype != r.elem_dtype or view.byte_offset % esize:
            return None
        return r.name, view.byte_offset // esize, n, REGISTER_DTYPES[r.elem_dtype]

    def _register_index(self, reg, sub: ir.Subscript):
        """fn(env) -> element index (from the region's element 0) of a 1-element subscript."""
        idx = sub.indices
        if len(idx) != 1 and reg is not None:
            shape = self.view_of(sub.value).shape or ()
            if len(idx) == len(shape) and not any(isinstance(i, ir.Slice) for i in idx):
                strides = [int(np.prod(shape[k + 1:])) for k in range(len(idx))]
                fns = [self.compile(i) for i in idx]
                first = reg[1]
                return lambda env: first + sum(f(env) * st for f, st in zip(fns, strides))
            return None
        if len(idx) != 1 or isinstance(idx[0], ir.Slice):
            return None
        fn, first = self.compile(idx[0]), reg[1]
        return lambda env: first + fn(env)

    def _register_slice_store(self, reg, tgt: ir.Subscript, val, span) -> list:
        """`r[lo:hi] = ...` into a register: element by element when the value is a truth-cast
        vector load of the same length from global memory (`T.Cast("int8x4", T.Cast("boolx4",
        M[a:a + 4]))`, how TileLang copies a block mask into registers); any other value leaves
        every element of the register unknown."""
        region, first, size, bounds = reg
        sl = tgt.indices[0] if len(tgt.indices) == 1 and isinstance(tgt.indices[0], ir.Slice) else None
        lo = self.literal(sl.lo) if sl is not None and sl.lo is not None else None
        hi = self.literal(sl.hi) if sl is not None and sl.hi is not None else None
        src, truth = val, False
        while isinstance(src, ir.Call) and src.name == "T.Cast" and len(src.args) == 2:
            truth = truth or str(self.literal(src.args[0]) or "").startswith("bool")
            src = src.args[1]
        g = self.view_of(src.value) if isinstance(src, ir.Subscript) else None
        root = self.roots.get(g.name) if g is not None else None
        gsl = src.indices[0] if root is not None and len(src.indices) == 1 and \
            isinstance(src.indices[0], ir.Slice) and src.indices[0].step is None else None
        if isinstance(lo, int) and isinstance(hi, int) and truth and gsl is not None and \
                gsl.lo is not None and 0 <= lo < hi <= size - first:
            start = self.compile(gsl.lo)
            self.input_sites.append((root, (gsl.lo,), (1,), g.byte_offset, g.elem_size))
            length = self.compile(ir.BinOp("-", gsl.hi, gsl.lo)) if gsl.hi is not None else None
            out = []
            for j in range(hi - lo):
                cell = self._input_cell(g, root, lambda env, j=j: start(env) + j, src.span, both=True)

                def value(env, cell=cell, n=hi - lo):
                    if length is None or length(env) != n:
                        raise NotConcrete("vector load and register slice of different lengths", span)
                    return int(bool(cell(env)))
                out.append(PStore(region, lambda env, k=first + lo + j: k, value, size, bounds, span,
                                  (None, val)))
            return out

        def unknown(env):
            raise NotConcrete("a register slice written with a value the engine does not compute", span)
        return [PStore(region, lambda env, k=first + k: k, unknown, size, bounds, span, (None, val))
                for k in range(size - first)]

    def _input_load(self, sub: ir.Subscript):
        """A load from a global parameter: an unknown input of the run (engine/inputs.py), when
        every thread of the block reads one address, the kernel never writes the buffer, and
        every use of the buffer is a truth value (two outcomes stand for every value)."""
        view = self.view_of(sub.value)
        root = self.roots.get(view.name) if view is not None else None
        if root is None or any(isinstance(i, ir.Slice) for i in sub.indices):
            return None
        shape = view.shape or ()
        if len(sub.indices) != 1 and len(sub.indices) != len(shape):
            return None
        strides = [int(np.prod(shape[k + 1:])) for k in range(len(sub.indices))] \
            if len(sub.indices) > 1 else [1]
        fns = [self.compile(i) for i in sub.indices]
        self.input_sites.append((root, tuple(sub.indices), tuple(strides), view.byte_offset, view.elem_size))
        return self._input_cell(view, root, lambda env: sum(f(env) * st for f, st in zip(fns, strides)),
                                sub.span, both=sub is not self._taken_site)

    def _input_cell(self, view: View, root: str, flat_fn, span, both: bool):
        """fn(env) -> the run's outcome for the element `flat_fn(env)` of global view `view`."""
        esize, offset, name = view.elem_size, view.byte_offset, view.name

        def load(env):
            inputs = env.get(INPUTS)
            if inputs is None:
                raise NotConcrete("a value loaded from global memory (data-dependent)", span)
            if root in self.written_roots:
                raise NotConcrete(f"a value loaded from {root}, which the kernel also writes "
                                  "(data-dependent)", span)
            if not self.truth_only.get(root, False):
                raise NotConcrete(f"a value loaded from {root} used as a number (data-dependent: "
                                  "only truth values are enumerated)", span)
            flat = flat_fn(env)
            if isinstance(flat, np.ndarray):
                vals = np.unique(flat)
                if vals.size != 1:
                    raise NotConcrete(f"a value loaded from {root} at an address that differs "
                                      "between threads (data-dependent)", span)
                flat = vals[0]
            flat = int(flat)
            return inputs.value((root, offset + flat * esize), f"{name}[{flat}]", both)
        return load

    def _load_hook(self, sub: ir.Subscript):
        reg = self.register_of(self.view_of(sub.value))
        if reg is None:
            return self._input_load(sub)
        index = self._register_index(reg, sub)
        if index is None:
            return None
        region, span = reg[0], sub.span

        def load(env):
            if region in self.escaped_registers:
                raise NotConcrete(f"register {region} is handed to an operation by pointer", span)
            k = index(env)
            if isinstance(k, np.ndarray):
                ks = np.unique(k)
                if ks.size != 1:   # a per-thread index: gather each thread's element
                    out = None
                    for kk in ks.tolist():
                        v = _register_value(env, region, kk, span)
                        out = np.where(k == kk, v, 0 if out is None else out)
                    return out
                k = int(ks[0])
            return _register_value(env, region, int(k), span)
        return load

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
                self.uniform_names.add(name)
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
                if base.region is None and base.name in self.roots:   # an alias of a parameter
                    self.roots[name] = self.roots[base.name]
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
    def _uniform_names_only(self, e) -> bool:
        return free_names(e) <= self.uniform_names

    def same_in_every_thread(self, e) -> bool:
        """Whether `e` has one value in every thread of the block at one statement instance:
        built from uniform names, constants, pure arithmetic and casts, and loads at uniform
        addresses of global parameters the kernel never writes. Asked at run time, after
        elaboration has collected the written parameters."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                view = self.view_of(x.value)
                if view is None or view.name not in self.roots or \
                        self.roots[view.name] in self.written_roots:
                    return False
                stack.extend(x.indices)
            elif isinstance(x, ir.Call):
                if not (x.name in _UNIFORM_SAFE_CALLS or x.name.startswith(_UNIFORM_SAFE_PREFIXES)):
                    return False
                stack.extend(a for a in x.args if not isinstance(a, ir.Const))
            elif isinstance(x, ir.Var):
                if x.name not in self.uniform_names:
                    return False
            elif isinstance(x, ir.Slice):
                stack.extend(p for p in (x.lo, x.hi, x.step) if p is not None)
            elif isinstance(x, (ir.BinOp,)):
                stack.extend((x.left, x.right))
            elif isinstance(x, ir.UnaryOp):
                stack.append(x.operand)
            elif isinstance(x, (tuple, list)):
                stack.extend(x)
            elif not isinstance(x, ir.Const):
                return False   # anything else (a conditional, a lambda, ...): not shown uniform
        return True

    def _subscript_access(self, sub: ir.Subscript, kind: AccessKind, span,
                          value=None) -> POp | PNote | None:
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
            names = [getattr(f, "pure_names", None) for f in fns]
            if all(n is not None for n in names):   # the flat index, once per distinct input
                lo_fn = memoize(lo_fn, frozenset().union(*names))
            hi_fn = memoize(lambda env, lo_fn=lo_fn: lo_fn(env) + 1, lo_fn.pure_names) \
                if getattr(lo_fn, "pure_names", None) else (lambda env, lo_fn=lo_fn: lo_fn(env) + 1)
        else:
            return PNote("multi-dimensional slice of a shared buffer", sub.span, access_only=True)
        esize, bits = view.elem_size, view.elem_bits
        same_value = []   # decided once, at the first run (after elaboration)

        def run(env, tids):
            lo = per_thread(lo_fn(env), tids)
            hi = per_thread(hi_fn(env), tids)
            base = view.flat_base
            lo, hi = byte_span(lo, hi - lo, bits)   # sub-byte elements cover their whole byte
            if value is not None and not same_value:
                # sub-byte elements: two threads' elements share a byte, which each thread
                # rewrites whole (a read-modify-write), so one value does not make it safe
                same_value.append(bits >= 8 and self.same_in_every_thread(value))
            return [Access(kind, tids, base + lo, base + hi, view.name, base, esize,
                           "load" if kind == AccessKind.READ else "store",
                           same_value=bool(same_value and same_value[0]))]
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
            self._control(s.cond)
            then, other = self.block(s.then), self.block(s.other)
            bare = _bare_load(s.cond)
            self._taken_site = bare if bare is not None and not other and _access_only(then) else None
            cond = self.compile(s.cond)
            self._taken_site = None
            node = PIf(cond, then, other, s.cond.span if hasattr(s.cond, "span") else s.span,
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
            reg = self.register_of(self.view_of(tgt.value))
            index = self._register_index(reg, tgt) if reg is not None else None
            if index is not None:
                self._control(val)
                return out + [PStore(reg[0], index, self.compile(val), reg[2], reg[3], s.span,
                                     (tgt.indices[0] if len(tgt.indices) == 1 else None, val))]
            if reg is not None:
                self._control(val)
                return out + self._register_slice_store(reg, tgt, val, s.span)
            for i in tgt.indices:
                for part in ((i.lo, i.hi, i.step) if isinstance(i, ir.Slice) else (i,)):
                    if part is not None:
                        self._expr_effects(part, out)
            acc = self._subscript_access(tgt, AccessKind.WRITE, s.span, value=val)
            if acc is not None:
                out.append(acc)
            return out
        if isinstance(tgt, ir.Var):
            view = self.view_of(val)
            if view is not None:  # pointer alias: `p = buf.data`
                self.views[tgt.name] = view
                return out
            self._control(val)
            if self._uniform_names_only(val):
                self.uniform_names.add(tgt.name)
            return out + [PLet(tgt.name, s.span, self.compile(val), val)]
        return out + [PNote("assignment to an unsupported target", s.span)]

    def _for(self, s: ir.For) -> list:
        it = s.iter
        self._control(it)
        if not isinstance(it, ir.Call):
            return [PNote("loop over a non-range iterable", s.span)]
        name, args = it.name, it.args
        if name in ("range", "T.serial", "T.unroll", "T.vectorized", "T.parallel") and 1 <= len(args) <= 2:
            start = self.compile(args[0]) if len(args) == 2 else (lambda env: 0)
            if len(args) == 2:   # (start, stop), as TVMScript prints range / T.serial
                extent = self.compile(ir.BinOp("-", args[1], args[0], it.span))
            else:
                extent = self.compile(args[0])
            if len(s.names) == 1 and all(self._uniform_names_only(a) for a in args):
                self.uniform_names.add(s.names[0])
            body = self.block(s.body)
            if len(s.names) != 1:
                return [PNote("loop with several targets", s.span)]
            start_expr = args[0] if len(args) == 2 else ir.Const(0)
            extent_expr = ir.BinOp("-", args[1], args[0]) if len(args) == 2 else args[0]
            return [PLoop(s.names[0], start, extent, body, s.span, _relevant(body),
                          (start_expr, extent_expr))]
        if name == "T.grid" and len(args) == len(s.names) and args:
            self.uniform_names |= {n for n, a in zip(s.names, args) if self._uniform_names_only(a)}
            body = self.block(s.body)
            for var, ext in reversed(list(zip(s.names, args))):
                loop = PLoop(var, lambda env: 0, self.compile(ext), body, s.span, _relevant(body),
                             (ir.Const(0), ext))
                body = (loop,)
            return list(body)
        if name == "T.thread_binding":
            return [PNote("T.thread_binding loop (use launch_thread)", s.span)]
        return [PNote(f"loop over {name or 'an expression'}", s.span)]


# calls that compute a value from their arguments alone (no memory, no thread identity)
_UNIFORM_SAFE_CALLS = {"T.Cast", "T.Broadcast", "T.reinterpret", "T.bitwise_and", "T.bitwise_or",
                       "T.bitwise_xor", "T.bitwise_not", "T.shift_left", "T.shift_right", "T.max",
                       "T.min", "T.abs", "T.truncdiv", "T.truncmod", "T.floordiv", "T.floormod",
                       "T.type_annotation"}
_UNIFORM_SAFE_PREFIXES = ("T.float", "T.int", "T.uint", "T.bfloat", "T.bool")


# operations whose only events are shared accesses (no barrier, group, arrive or register)
_ACCESS_ONLY_OPS = {"load", "store", "ptx_cp_async", "ptx_ldmatrix", "ptx_stmatrix"}


def _access_only(stmts) -> bool:
    for s in stmts:
        if isinstance(s, POp) and s.name in _ACCESS_ONLY_OPS or isinstance(s, PNote):
            continue
        if isinstance(s, PLoop) and _access_only(s.body):
            continue
        if isinstance(s, PIf) and _access_only(s.then) and _access_only(s.other):
            continue
        return False
    return True


def _bare_load(cond):
    """The load a condition consists of (`M[i]`, `T.Cast("bool", M[i])`, `T.bool(M[i])`), or None."""
    while isinstance(cond, ir.Call) and (cond.name == "T.bool" and len(cond.args) == 1 or
                                         cond.name == "T.Cast" and len(cond.args) == 2):
        cond = cond.args[-1]
    return cond if isinstance(cond, ir.Subscript) else None


def _scan_globals(el: Elaborator, node, truth: bool = False) -> None:
    """Which global parameters the kernel may write, and which are read only as truth values
    (a condition, `not`, `and`/`or`, `T.Cast("bool", ...)`, `T.bool`)."""
    if isinstance(node, (list, tuple)):
        for x in node:
            _scan_globals(el, x, truth)
        return
    if isinstance(node, ir.If) or isinstance(node, ir.While):
        _scan_globals(el, node.cond, True)
        _scan_globals(el, node.body if isinstance(node, ir.While) else (node.then, node.other))
        return
    if isinstance(node, ir.Assign):
        if isinstance(node.target, ir.Subscript):
            view = el.view_of(node.target.value)
            if view is not None and view.name in el.roots:
                el.written_roots.add(el.roots[view.name])
            _scan_globals(el, node.target.indices)
        _scan_globals(el, node.value)
        return
    if isinstance(node, ir.Subscript):
        view = el.view_of(node.value)
        if view is not None and view.name in el.roots:
            root = el.roots[view.name]
            el.truth_only[root] = el.truth_only.get(root, True) and (truth or view.dtype == "bool")
        _scan_globals(el, node.indices)
        return
    if isinstance(node, ir.Call):
        if node.name == "T.tvm_access_ptr" and len(node.args) == 5:
            view = el.view_of(node.args[1])
            rw = el.literal(node.args[4])
            if el.register_of(view) is not None:
                el.escaped_registers.add(view.region.name)
            if view is not None and view.name in el.roots and not (isinstance(rw, int) and rw & 2 == 0):
                el.written_roots.add(el.roots[view.name])
            _scan_globals(el, node.args[2:4])
            return
        if node.name in ("T.decl_buffer", "T.Buffer", "T.match_buffer"):
            return
        cast_bool = node.name == "T.Cast" and len(node.args) == 2 and \
            str(el.literal(node.args[0]) or "").startswith("bool")
        for a in node.args:
            view = el.view_of(a)   # a buffer handed to an operation: it may write it
            if view is not None and view.name in el.roots:
                el.written_roots.add(el.roots[view.name])
            if el.register_of(view) is not None:
                el.escaped_registers.add(view.region.name)
            _scan_globals(el, a, cast_bool or node.name == "T.bool" or node.name == "T.likely" and truth)
        for _, a in node.kwargs:
            _scan_globals(el, a)
        return
    if isinstance(node, ir.UnaryOp):
        _scan_globals(el, node.operand, node.op == "not")
        return
    if isinstance(node, ir.BinOp):
        logic = node.op in ("and", "or")
        _scan_globals(el, node.left, logic)
        _scan_globals(el, node.right, logic)
        return
    if isinstance(node, ir.IfExp):
        _scan_globals(el, node.cond, True)
        _scan_globals(el, (node.then, node.other))
        return
    if isinstance(node, (ir.ExprStmt,)):
        _scan_globals(el, node.expr)
    elif isinstance(node, (ir.For, ir.With)):
        _scan_globals(el, node.body)
        _scan_globals(el, getattr(node, "iter", None) or getattr(node, "ctx", None))
    elif isinstance(node, (ir.TupleE, ir.ListE)):
        _scan_globals(el, node.items)
    elif isinstance(node, ir.Attr):
        _scan_globals(el, node.value)
    elif isinstance(node, ir.Other):
        _scan_globals(el, node.exprs)


def _signed_terms(e, sign: int = 1) -> list:
    """e as a sum of signed terms (over + and -)."""
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        return _signed_terms(e.left, sign) + _signed_terms(e.right, sign if e.op == "+" else -sign)
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return _signed_terms(e.operand, -sign)
    return [(sign, e)]


def _block_part(e, block_vars: set):
    """The signed terms of `e` that mention a blockIdx variable, when every such term mentions
    nothing else (so e = F(block) + G(rest)); None otherwise."""
    part = []
    for sign, t in _signed_terms(e):
        names = free_names(t)
        if names & block_vars:
            if not names <= block_vars:
                return None
            part.append((sign, t))
    return part


def _same_terms(a: list, b: list) -> bool:
    rest = list(b)
    for x in a:
        if x not in rest:
            return False
        rest.remove(x)
    return not rest


def inputs_alike_across_blocks(el: Elaborator) -> bool:
    """Blocks differ only in which input cells they read, the same way for every cell: no
    control expression mentions a blockIdx variable outside a global load's address, and every
    load of one parameter addresses F(block) + G(rest) with one F. Then two loads of a block read
    one cell exactly when they do in any other block, so the outcome patterns of one block are
    those of every block (analyze checks one block for all)."""
    block_vars = set(el.launch.block_vars)
    if el.plain_control_names & block_vars:
        return False
    if any(not el.truth_only.get(site[0]) or site[0] in el.written_roots for site in el.input_sites):
        return False   # some load is not an input the search enumerates: nothing to share
    form: dict = {}
    for root, indices, strides, offset, esize in el.input_sites:
        parts = []
        for idx in indices:
            part = _block_part(idx, block_vars)
            if part is None:
                return False
            parts.append(part)
        key = (strides, offset, esize)
        if root not in form:
            form[root] = (key, parts)
            continue
        key0, parts0 = form[root]
        if key0 != key or len(parts0) != len(parts) or \
                not all(_same_terms(a, b) for a, b in zip(parts0, parts)):
            return False
    return True


def elaborate(func: ir.Function) -> Program:
    el = Elaborator(func)
    body = el.block(func.body)
    _scan_globals(el, func.body)
    el.layout.assign_bases()
    return Program(func.name, el.launch, el.layout, body, el.attrs, el.notes, el.views,
                   el.barrier_regions, el.symbols,
                   block_dependent=bool(el.control_names & set(el.launch.block_vars)),
                   blocks_alike=bool(el.input_sites) and inputs_alike_across_blocks(el),
                   control_names=set(el.control_names))
