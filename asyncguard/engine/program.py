"""Elaboration: the syntax tree of one prim_func -> a Program the machine can execute.

Resolves launch extents, shared allocations and their aliases, compiles every expression to a
numpy closure and every operation to a model's `run(env, tids)`. What the models do not know
becomes an `Unsupported` note at its line (never silently dropped).

The program's nodes live in engine/nodes.py. Once built, `elaborate` hands the program to the
passes that rewrite it, each a module of its own: engine/loaded_numbers.py (numbers loaded from
global memory), engine/loop_sizes.py (count loops, cluster launch control, skipping loops) and
engine/same_value.py (one value per shared address, asked while building).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import ir
from .scopes import scoped_lets
from ..events import Access, AccessKind
from ..models import OPS, PURE, VALUE_OPS, NotModelled, per_thread
from ..models import cp_async as cp_async_model
from ..models.atomics import shared_atomic, shared_destination, shared_source, source_read
from ..models.clc import CANCELLED, CLC_STATE, QUERIES as CLC_QUERIES, response_address as clc_response_address
from ..models.cluster import cluster_launch, cluster_value
from ..models.extern import extern_effect
from ..models.mbarrier import CARVED, CARVED_POOL, CARVED_SCOPE
from ..models.launch import CLUSTER_RANK, THREAD_INDEX_CALLS, Launch, shuffle_elect, thread_index
from ..models.memory import (BARRIER_SCOPES, SHARED_SCOPES, Region, SharedLayout, View, byte_span,
                             dtype_bits, dtype_bytes)
from ..models.warp_vote import warp_vote
from .exprs import HardwareData, NotConcrete, compile_expr, free_names, memoize
from .inputs import INPUTS, NumericInputs
from .loaded_numbers import _guarded, _numeric_pass, _only_value
from .loop_sizes import _clc_sizes, _count_loops, _count_sizes, _fixed_width, _range_view, _ranges_meet
from .nodes import (_ACCESS_ONLY_OPS, _UNIFORM_SAFE_CALLS, _UNIFORM_SAFE_PREFIXES, _WGMMA_ISSUE, RANGE_TRUTHS,
                    AccessPtr, PIf, PLet, PLoop, PNote, POp, Program, PStore, PWhile, _access_only, _bare_load,
                    _guarding_load, _range_truth_guard, _range_truth_ptr, _signed_terms, _subscripts,
                    _without_load, expr_text, register_key, statements)
from .same_value import _definition_sites, same_value_per_address


LAUNCH_AXES = tuple(f"{k}.{a}" for k in ("threadIdx", "blockIdx") for a in "xyz")

# Per-thread registers the engine evaluates exactly: integer `local` buffers of a few elements
# (phase counters, tile counters, loop-carried indices). Larger or floating-point local buffers
# hold data (accumulators, fragments) whose values never decide shared bytes or synchronization.
REGISTER_SCOPES = ("local", "local.var")
REGISTER_DTYPES = {"int8": (-2**7, 2**7), "int16": (-2**15, 2**15), "int32": (-2**31, 2**31),
                   "int64": (-2**63, 2**63), "uint8": (0, 2**8), "uint16": (0, 2**16),
                   "uint32": (0, 2**32), "uint64": (0, 2**64), "bool": (0, 2)}
MAX_REGISTER_ELEMS = 8
# A larger integer register is evaluated only when it holds a block mask: every store to it a
# vector copy from global memory, truth-cast (`m[i * 16:i * 16 + 16] = T.Cast("int8x16",
# T.Cast("boolx16", M[...]))`: TileLang's block-sparse attention over 128 key blocks) or plain and
# read only as truth (SeerAttention), `Elaborator._mask_registers`. Other large ones (a sparse
# GEMM's metadata fragment loaded from shared memory) hold data.
MAX_MASK_REGISTER_ELEMS = 256


def _assignments(stmts):
    """Every assignment in a statement list, at any depth."""
    for s in stmts:
        if isinstance(s, ir.Assign):
            yield s
        for body in (getattr(s, "body", None), getattr(s, "then", None), getattr(s, "other", None)):
            if isinstance(body, (list, tuple)):
                yield from _assignments(body)


def _relevant(stmts) -> bool:
    for s in stmts:
        if isinstance(s, (POp, PNote, PStore)):
            return True
        if isinstance(s, PLoop) and s.relevant or isinstance(s, PIf) and s.relevant:
            return True
    return False


def _echoes_condition(then, other, cond) -> bool:
    """Whether every effect of a branch's arms is a load of an element its condition already
    reads (or a branch of this kind): the condition's reads are recorded before the branch
    (`cond_effects`), so the arms touch no byte the same thread did not just read, with nothing
    between, and whether they run changes no verdict. Megatron's DSA indexer backward:
    `if -1 < idx[t] < n: if 0 <= idx[t]: if idx[t] < n: atomicAdd(&dK[idx[t] * 128 + ..], v)`,
    the atomic on global memory, its address read from shared `idx` (int64 casts aside)."""
    reads = {_int_plain(x) for x in ir.nodes(cond) if isinstance(x, ir.Subscript)}
    if not reads:
        return False

    def covered(stmts) -> bool:
        return all(isinstance(x, PIf) and not x.relevant or
                   isinstance(x, POp) and x.name == "load" and isinstance(x.src, ir.Subscript)
                   and _int_plain(x.src) in reads for x in stmts)
    return covered(then) and covered(other)


_INT_TYPES = ("int32", "int64")


def _int_plain(e):
    """`e` without integer casts and integer-typed constants (`T.Cast("int64", tx)`, `T.int64(64)`):
    one index printed in 32- and in 64-bit arithmetic compares equal."""
    def plain(x):
        if isinstance(x, ir.Call) and len(x.args) == 2 and x.name == "T.Cast" \
                and isinstance(x.args[0], ir.Const) and x.args[0].value in _INT_TYPES:
            return _int_plain(x.args[1])
        if isinstance(x, ir.Call) and len(x.args) == 1 and x.name in ("T.int32", "T.int64") \
                and isinstance(x.args[0], ir.Const):
            return x.args[0]
        return None
    return ir.rewrite(e, plain)


def _clc_value(what: str, span):
    """fn(env) raising HardwareData: whether a try_cancel cancelled a cluster, and which, is the
    hardware's to decide (models/clc.py); no run enumerates it."""
    reason = (f"{what}: whether the hardware cancelled a cluster (and which) is data that is "
              "not enumerated")

    def value(env):
        raise HardwareData(reason, span)
    return value


def _clc_cancelled(address, span):
    """fn(env): `T.clc_is_canceled`'s value. The response at `address` (models/clc.py
    response_address) answers request k of the run (ClcState.slots), and says "cancelled"
    exactly when k < the size CANCELLED, the number of clusters this cluster's requests cancel
    (`_clc_sizes`). Without that size, or a numbered request there, it is hardware data."""
    def value(env):
        state, c, lo = env.get(CLC_STATE), env.get(CANCELLED), address(env)
        k = state.slots.get((int(env.get(CLUSTER_RANK, 0)), lo)) if state is not None and lo is not None else None
        if c is None or k is None or isinstance(c, np.ndarray):
            raise HardwareData("T.clc_is_canceled: whether the hardware cancelled a cluster is data "
                               "that is not enumerated", span)
        return int(k < int(c))
    return value


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
        self.pointer_lets: dict = {}   # `p: T.handle = T.tvm_access_ptr(...)`: name -> the pointer (_pointer_let)
        # global-memory parameters: the parameter every view of one aliases (data-dependent
        # inputs), the ones the kernel may write, the ones used only as truth values
        self.roots: dict = {}
        self.written_roots: set = set()
        # TMA descriptor parameters handed to anything but a load or a prefetch (_scan_globals)
        self.stored_descriptors: set = set()
        self.truth_only: dict = {}
        # root -> the vector loads copied into registers read only as truth values
        # (_register_slice_store): the root is truth-valued when they are all its loads
        self.truth_copies: dict = {}
        self._taken_site = None   # the load that is the whole condition of an access-only branch
        self._clc_regions: dict | None = None   # (shared region, offset) -> the CLC queries it holds (_clc_held)
        self._stores_at: dict | None = None   # (shared region, offset) -> its plain stores (_shared_stores)
        self._shared_copies: dict | None = None   # (shared region, offset) -> a parameter copy (_shared_copy)
        self.program_shared_copies: list = []   # Program.shared_copies, as the lets that read them elaborate
        # truth registers copied from global memory (_register_slice_store): the branches whose
        # whole condition is one element and whose only arm is access-only, per region, and the
        # regions read anywhere else (elaborate() decides from both which cells are taken)
        self.taken_register_reads: dict = {}
        self.register_both: set = set()
        self._register_site = None   # (load, region) while a truth copy into a register compiles
        # shared regions holding copies of a truth mask read by all_of / any_of conditions of
        # access-only branches: those sites per region, and the regions where that is every read
        # (_shared_masks_taken)
        self.taken_shared_reads: dict = {}
        self.shared_taken: set = set()
        self.shared_mask_lines: dict = {}   # region -> the lines of those sites
        self.shared_mask_roots: dict = {}   # region in shared_taken -> the parameters copied in
        self.numeric_info: NumericInputs | None = None   # set by _numeric_pass
        self.count_roots: dict = {}   # set by _count_loops: inputs searched by their count
        self.count_ranges: set = set()   # ids of the all_of / any_of calls of those loops
        self.tied_roots: set = set()   # Program.tied_roots (the same set once elaborated)
        self.taken_guards: set = set()   # ids of the loads of input cells taken as true (_taken_site)
        # of those, the guards of closed wgmma arms (`_closed_wgmma_arm`), taken only where the
        # whole kernel allows it (`_closed_arms_hold`, decided after elaboration: closed_arms_ok)
        self.closed_guards: set = set()
        self.closed_register_regions: set = set()   # register masks read by closed arms' guards
        self.closed_shared_regions: set = set()     # shared masks read by closed arms' guards
        self._taken_closed = False
        self.closed_arms_ok = False
        self.escaped_registers: set = set()   # register regions an operation gets a pointer to
        # control names outside the addresses of global loads, and those addresses per parameter:
        # blocks that differ only in which input cells they read behave alike (elaborate())
        self.plain_control_names: set = set()
        self.input_sites: list = []   # (root, index expressions, strides)
        # the same for the starts of all_of / any_of ranges over read-only global buffers
        # (_range_truth): truth values of their own, whatever the buffer's other loads are
        self.range_sites: list = []
        self.control_names: set = set()   # names that loop bounds / branches / lets depend on
        # names whose value is the same in every thread of a block (block ids, kernel
        # parameters, loop variables and lets built from them): a store of a value built only
        # from these and read-only global memory writes the same value in every thread
        self.uniform_names: set = set()
        self.let_values: dict = {}   # let name -> its expression, None when assigned more than once
        # scope lines: lets whose value a `tl.assume` right after them pins (_pinned_by_assume)
        self.assumed_facts: list = []
        self._by_tvm = None   # printed_by_tvm(), once asked
        self.indexed_barriers = False   # T.create_barriers seen: TVM's builtins name barriers by index
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
    def printed_by_tvm(self) -> bool:
        """Whether the kernel is TVM's own output, compiled by TVM's CUDA codegen rather than
        TileLang's: nothing in it names TileLang (a `"tl.` attr or key, a `tl::` template, a
        `T.tl_` call: every TileLang output has one), and it uses a form only TVM prints, the
        builtin `T.ptx_cp_async(dtype, buf.data, off, src, off, bytes[, pred])` or
        `T.create_barriers`. The two codegens print `T.ptx_wait_group(0)` differently
        (models/cp_async.py)."""
        if self._by_tvm is None:
            tilelang, tvm_form = False, False
            for x in ir.nodes(self.func.body):
                if isinstance(x, ir.Const) and isinstance(x.value, str) and (
                        x.value.startswith("tl.") or "tl::" in x.value):
                    tilelang = True
                    break
                if isinstance(x, ir.Call):
                    if x.name.startswith("T.tl_"):
                        tilelang = True
                        break
                    if x.name == "T.create_barriers" or x.name == "T.ptx_cp_async" and x.args and \
                            isinstance(x.args[0], ir.Const) and isinstance(x.args[0].value, str) and \
                            len(x.args) in (6, 7):
                        tvm_form = True
            self._by_tvm = tvm_form and not tilelang
        return self._by_tvm

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

    def compile_if_known(self, e: ir.Expr):
        """`compile` for a value only a shortcut needs (a branch's condition, `value_term`):
        fn(env) giving None where the value is not concrete; None when `e` does not compile."""
        try:
            fn = self.compile(e)
        except (NotConcrete, NotModelled):
            return None

        def known(env):
            try:
                return fn(env)
            except (NotConcrete, NotModelled):
                return None
        return known

    def value_term(self, e: ir.Expr):
        """fn(env, tid) -> a hashable stand-in for the value of `e` in thread `tid`, or None: the
        value where it is concrete, else the expression's shape over its concrete parts, with
        each load of a global parameter the kernel never writes named by its byte address, and
        each unknown let (assigned once) by its expression. Two equal terms have one value (the
        same arithmetic over the same cells of unchanging memory), so a shortcut that needs only
        *equal* values (models/tma.py `_value_key`: two loads of one box) holds where the numbers
        are data-dependent (a paged kernel's `block_table` entry as a TMA coordinate). Unequal
        terms say nothing. None when `e` does not compile."""
        return self._term(e, set())

    def _term(self, e, lets: set):
        whole = self.compile_if_known(e)
        parts, unchanging = None, None
        if isinstance(e, ir.Var) and self.let_values.get(e.name) is not None and e.name not in lets \
                and self._reads_globals_only(self.let_values[e.name]):
            # (a register or shared element it reads may have changed since the let was bound)
            parts = [self._term(self.let_values[e.name], lets | {e.name})]
            kind = "let"
        elif isinstance(e, ir.Subscript) and self.view_of(e.value) is not None \
                and self.view_of(e.value).name in self.roots \
                and not any(isinstance(i, ir.Slice) for i in e.indices):
            view = self.view_of(e.value)
            parts = [self._term(i, lets) for i in e.indices]
            kind = ("cell", self.roots[view.name], view.byte_offset, view.elem_size, view.shape)
            unchanging = e.value   # (whether the kernel writes it is known only after elaboration)
        elif isinstance(e, ir.Call) and e.name == "T.if_then_else" and len(e.args) == 3:
            parts, kind = [self._term(a, lets) for a in e.args], "ite"
        elif isinstance(e, ir.BinOp):
            parts, kind = [self._term(e.left, lets), self._term(e.right, lets)], e.op
        elif isinstance(e, ir.UnaryOp):
            parts, kind = [self._term(e.operand, lets)], e.op
        elif isinstance(e, ir.IfExp):
            parts, kind = [self._term(x, lets) for x in (e.cond, e.then, e.other)], "ite"
        elif isinstance(e, ir.Call) and (e.name in _UNIFORM_SAFE_CALLS or e.name.startswith(_UNIFORM_SAFE_PREFIXES)):
            parts, kind = [self._term(a, lets) for a in e.args], e.name
        if whole is None and (parts is None or None in parts):
            return None

        def term(env, tid):
            v = whole(env) if whole is not None else None
            if isinstance(v, np.ndarray):
                v = v[tid] if v.ndim else v.item()
            if isinstance(v, (int, np.integer, bool, np.bool_)):
                return int(v)
            if isinstance(v, (float, np.floating)):
                return ("float", float(v))
            if parts is None or (unchanging is not None and not self._read_only_global(unchanging)):
                return None
            got = tuple(part(env, tid) for part in parts)
            return None if None in got else (kind, got)
        return term

    def _reads_globals_only(self, e) -> bool:
        """Every element `e` loads is of a global parameter (no register, no shared memory)."""
        return all(self.view_of(x.value) is not None and self.view_of(x.value).name in self.roots
                   for x in _subscripts(e, []))

    def _control(self, e) -> None:
        self.control_names |= free_names(e)
        self.plain_control_names |= self._names_outside_inputs(e)

    def _names_outside_inputs(self, e) -> set:
        """free_names(e) without the names that only address a global parameter's element, or
        the range of a `T.all_of` / `T.any_of` over one (one truth value of the run, keyed by the
        range: `_range_truth`)."""
        def loaded(x) -> bool:
            if isinstance(x, ir.Call) and x.name in RANGE_TRUTHS:
                v = _range_view(self, x)
                return v is not None and not v.is_shared and self.register_of(v) is None
            v = self.view_of(x.value) if isinstance(x, ir.Subscript) else None
            return v is not None and v.name in self.roots
        return {x.name for x in ir.nodes(e, skip=loaded) if isinstance(x, ir.Var)}

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
        if n > MAX_REGISTER_ELEMS and not (n <= MAX_MASK_REGISTER_ELEMS and r.name in self._mask_registers()) \
                or view.dtype != r.elem_dtype or view.byte_offset % esize:
            return None
        return r.name, view.byte_offset // esize, n, REGISTER_DTYPES[r.elem_dtype]

    def _mask_registers(self) -> set:
        """Regions of local buffers every store to which is a vector copy of a slice of a buffer
        outside registers, truth-cast, or plain with every read of the register a truth test
        (SeerAttention's `m[i * 16:i * 16 + 16] = BlockSparseMask[...]`, `_read_as_truth`)
        (MAX_MASK_REGISTER_ELEMS). Asked again when more views were declared since."""
        cached = self.__dict__.get("_masks")
        if cached is not None and cached[0] == len(self.views):
            return cached[1]
        good: dict = {}
        for st in ir.nodes(self.func.body):
            if not isinstance(st, ir.Assign) or not isinstance(st.target, ir.Subscript):
                continue
            view = self.view_of(st.target.value)
            if view is None or view.region is None or view.region.scope not in REGISTER_SCOPES:
                continue
            src, truth = self._uncast(st.value)
            g = self.view_of(src.value) if isinstance(src, ir.Subscript) else None
            ok = g is not None and (g.region is None or g.region.scope not in REGISTER_SCOPES) and \
                len(st.target.indices) == 1 and isinstance(st.target.indices[0], ir.Slice) and \
                (truth or src is st.value and g.dtype == view.dtype and self._read_as_truth(view.region.name))
            good[view.region.name] = good.get(view.region.name, True) and ok
        masks = {name for name, ok in good.items() if ok}
        self._masks = (len(self.views), masks)
        return masks

    def _uncast(self, e) -> tuple:
        """(`e` under its `T.Cast`s, whether one of them casts to a bool type: a truth value)."""
        truth = False
        while isinstance(e, ir.Call) and e.name == "T.Cast" and len(e.args) == 2:
            truth = truth or str(self.literal(e.args[0]) or "").startswith("bool")
            e = e.args[1]
        return e, truth

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
        src, truth = self._uncast(val)
        g = self.view_of(src.value) if isinstance(src, ir.Subscript) else None
        root = self.roots.get(g.name) if g is not None else None
        gsl = src.indices[0] if root is not None and len(src.indices) == 1 and \
            isinstance(src.indices[0], ir.Slice) and src.indices[0].step is None else None
        if not truth and root is not None and g.dtype == self.view_of(tgt.value).dtype and \
                self._read_as_truth(region):
            # a plain copy into a register every read of which only asks `!= 0` (SeerAttention's
            # `block_mask[0:4] = BlockSparseMask[...]`): its elements are truth values too; the
            # parameter counts as truth-valued when every load of it is such a copy (elaborate)
            truth = True
            self.truth_copies.setdefault(root, []).append(src)
        # the slice's start: a constant, or (a copy in an unrolled loop, `m[i * 16:i * 16 + 16]`,
        # TileLang's block mask of more than 16 blocks) an expression of width-many elements
        width = hi - lo if isinstance(lo, int) and isinstance(hi, int) else \
            _fixed_width(sl) if sl is not None and sl.lo is not None else None
        if isinstance(lo, int) and not 0 <= lo < lo + (width or 0) <= size - first:
            width = None
        if width and truth and gsl is not None and gsl.lo is not None:
            start = self.compile(gsl.lo)
            at = (lambda env, lo=lo: lo) if isinstance(lo, int) else self.compile(sl.lo)
            self.input_sites.append((root, (gsl.lo,), (1,), g.byte_offset, g.elem_size))
            length = self.compile(ir.BinOp("-", gsl.hi, gsl.lo)) if gsl.hi is not None else None
            out = []
            for j in range(width):
                # both outcomes matter unless every read of the register is the whole condition
                # of an access-only branch (decided once the kernel is elaborated)
                cell = self._input_cell(g, root, lambda env, j=j: start(env) + j, src.span,
                                        both=lambda region=region: region in self.register_both)

                def value(env, cell=cell, n=width):
                    if length is None or length(env) != n:
                        raise NotConcrete("vector load and register slice of different lengths", span)
                    return int(bool(cell(env)))

                def element(env, j=j):
                    k = at(env)
                    if not isinstance(k, (int, np.integer)) or not 0 <= k <= size - first - width:
                        raise NotConcrete("a register slice outside its register, or not the same "
                                          "for every thread", span)
                    return first + int(k) + j
                out.append(PStore(region, element, value, size, bounds, span, (None, val)))
            return out

        def unknown(env):
            raise NotConcrete("a register slice written with a value the engine does not compute", span)
        return [PStore(region, lambda env, k=first + k: k, unknown, size, bounds, span, (None, val))
                for k in range(size - first)]

    def _read_as_truth(self, region: str) -> bool:
        """Every read of register `region` in the kernel is a truth test: `T.Cast(t, r[k]) != 0`
        or `== 0`, `r[k] != 0`, `T.Cast("bool", r[k])`, or the bare condition of a branch; its
        only writes are slice stores (the copies themselves)."""
        # every view of the region (not `register_of`, which asks `_mask_registers`, which asks this)
        names = {n for n, v in self.views.items() if v.region is not None and v.region.name == region}
        ok = True

        def is_reg(x) -> bool:
            return isinstance(x, ir.Subscript) and isinstance(x.value, ir.Var) and x.value.name in names

        def zero(x) -> bool:
            return isinstance(x, ir.Const) and x.value == 0

        def bare(x):
            return self._uncast(x)[0]

        def look(x):
            nonlocal ok
            if not ok:
                return ()
            if isinstance(x, ir.Assign) and isinstance(x.target, ir.Var):
                return (x.value,)   # `r = T.alloc_buffer(...)`: the name bound, not read
            if isinstance(x, ir.Assign) and is_reg(x.target):
                if not (len(x.target.indices) == 1 and isinstance(x.target.indices[0], ir.Slice)):
                    ok = False
                return (x.value,)
            if isinstance(x, ir.Call) and x.name in ("T.decl_buffer", "T.alloc_buffer", "T.Buffer",
                                                    "T.match_buffer"):
                return ()   # a declaration names the buffer, never reads it
            if isinstance(x, ir.If) and is_reg(bare(x.cond)):
                return (x.then, x.other)
            if isinstance(x, ir.BinOp) and x.op in ("!=", "==") and (
                    is_reg(bare(x.left)) and zero(x.right) or is_reg(bare(x.right)) and zero(x.left)):
                return ()
            if isinstance(x, ir.Call) and x.name == "T.Cast" and len(x.args) == 2 and \
                    str(self.literal(x.args[0]) or "").startswith("bool") and is_reg(bare(x.args[1])):
                return ()
            if is_reg(x) or isinstance(x, ir.Var) and x.name in names or \
                    isinstance(x, ir.Attr) and isinstance(x.value, ir.Var) and x.value.name in names:
                ok = False   # a read as a number, or the buffer handed on by pointer
                return ()
            return None
        ir.visit(self.func.body, look)
        return ok

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
        both = sub is not self._taken_site
        if not both and self._taken_closed:   # decided after elaboration (`_closed_arms_hold`)
            both = lambda: not self.closed_arms_ok   # noqa: E731
        if self._register_site is not None and self._register_site[0] is sub:
            region = self._register_site[1]
            both = lambda: region in self.register_both   # noqa: E731 -- decided after elaboration
        return self._input_cell(view, root, lambda env: sum(f(env) * st for f, st in zip(fns, strides)),
                                sub.span, both=both)

    def _range_truth(self, call: ir.Call):
        """`T.all_of(T.tvm_access_ptr(.., Mask, off, n, 1), n)` / `T.any_of(...)` (TileLang's
        block-sparse tests): whether all / any of n consecutive elements of a read-only global
        buffer are non-zero. One unknown truth value of the run, like a mask cell (engine/
        inputs.py), the same for the same range: its key is the range and the reduction, so it
        is never tied to a plain load of the buffer or to another range (treating overlapping
        ranges as independent runs every pattern they can make, and more). None (the call stays
        unmodelled) where the pointer is not into such a buffer or n is not a constant."""
        if len(call.args) != 2:
            return None
        ptr = self.access_ptr_or_none(call.args[0])
        n = self.literal(call.args[1])
        if ptr is None or not isinstance(n, int) or n <= 0:
            return None
        reg = _register_range_truth(self, call)
        if reg is not None:
            return self._register_range(call, reg, ptr, n)
        if ptr.view.is_shared:
            return self._shared_range(call, ptr)
        view = ptr.view
        root = self.roots.get(view.name)
        if root is None or root in self.written_roots:
            return None
        kind, span, name = call.name.removeprefix("T."), call.span, view.name
        both = call is not self._taken_site
        if not both and self._taken_closed:   # decided after elaboration (`_closed_arms_hold`)
            both = lambda: not self.closed_arms_ok   # noqa: E731
        offset, esize = ptr.offset, ptr.elem_size
        # its key is the range's start (with kind and length): blocks whose starts are F(block) +
        # G(rest), one F per parameter, share ranges alike (inputs_alike_across_blocks)
        self.range_sites.append((root, (call.args[0].args[2],), (1,), view.byte_offset, esize))

        def load(env):
            inputs = env.get(INPUTS)
            if inputs is None:
                raise NotConcrete(f"{kind} over a global buffer (data-dependent)", span)
            if root in self.written_roots:   # (known once the kernel is elaborated: _scan_globals)
                raise NotConcrete(f"{kind} over {root}, which the kernel also writes "
                                  "(data-dependent)", span)
            flat = _one_address(offset(env), f"{kind} over an address", span)
            key = (root, view.byte_offset + flat * esize, kind, n)
            if root in self.tied_roots and id(call) in self.count_ranges:
                return inputs.value(key, f"{name}[{flat}:{flat + n}] ({kind})", False, tied=True)
            return inputs.value(key, f"{name}[{flat}:{flat + n}] ({kind})", both() if callable(both) else both,
                                group=root if id(call) in self.count_ranges else None)
        return load

    def _register_range(self, call: ir.Call, reg, ptr: AccessPtr, n: int):
        """`T.all_of` / `T.any_of` over n elements of a register buffer (TileLang's block-sparse
        test with the mask copied into `block_mask_local`): computed from the elements' values,
        each thread its own. Where the elements hold loaded mask cells and every read of the
        register is the whole condition of an access-only branch, those cells are taken
        (`_register_reads_taken`), so the value is true in every run."""
        region, first, size, _ = reg
        kind, span, offset = call.name.removeprefix("T."), call.span, ptr.offset

        def value(env):
            if region in self.escaped_registers:
                raise NotConcrete(f"register {region} is handed to an operation by pointer", span)
            k = _one_address(offset(env), f"{kind} over a register range", span)
            if k < 0 or first + k + n > size:
                raise NotConcrete(f"{kind} over register {region}[{first + k}:{first + k + n}], "
                                  "outside the register", span)
            out = None
            for j in range(n):
                v = _register_value(env, region, first + k + j, span) != 0
                out = v if out is None else (out & v if kind == "all_of" else out | v)
            return out
        return value

    def _shared_range(self, call: ir.Call, ptr: AccessPtr):
        """`T.all_of` / `T.any_of` over a shared range (the mask copied into shared memory): the
        machine keeps no shared values, so the value is known only where the call is the whole
        condition of an access-only branch over a region holding nothing but copies of a
        read-only truth mask (`_shared_masks_taken`, decided once the kernel is elaborated):
        taken as true there, as the mask cells would be. Its reads of the shared bytes stay
        modelled (models/logical.py). Anywhere else: None (unmodelled, `unknown`)."""
        region = ptr.view.region.name if ptr.view.region is not None else None
        if call is not self._taken_site or region is None:
            return None
        self.taken_shared_reads[region] = self.taken_shared_reads.get(region, 0) + 1
        self.shared_mask_lines.setdefault(region, []).append(call.span.line)
        if self._taken_closed:   # not taken unless the kernel allows the closed arms
            self.closed_shared_regions.add(region)
        kind, span = call.name.removeprefix("T."), call.span

        def value(env):
            if region not in self.shared_taken:
                raise NotConcrete(f"T.{kind} over shared memory whose contents the engine does not "
                                  "know (data-dependent)", span)
            return True
        return value

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
            flat = _one_address(flat_fn(env), f"a value loaded from {root} at an address", span)
            if not self.truth_only.get(root, False):
                # a number: the value the numeric plan chose for this run (engine/inputs.py)
                v = inputs.number((root, offset + flat * esize), f"{name}[{flat}]")
                if v is None:
                    info = self.numeric_info
                    why = (info.problem if info is not None else None) or \
                        "its values are not enumerated here"
                    raise NotConcrete(f"a value loaded from {root} used as a number "
                                      f"(data-dependent: {why})", span)
                return v
            if root in self.tied_roots:
                return inputs.value((root, offset + flat * esize), f"{name}[{flat}]", False, tied=True)
            return inputs.value((root, offset + flat * esize), f"{name}[{flat}]",
                                both() if callable(both) else both,
                                group=root if root in self.count_roots else None)
        return load

    def _load_hook(self, sub: ir.Subscript):
        view = self.view_of(sub.value)
        reg = self.register_of(view)
        if reg is None:
            held = self._clc_held(view)
            if held is not None:
                return self._clc_cell_load(sub, view, held)
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
        if call.name in RANGE_TRUTHS:
            return self._range_truth(call)
        if call.name == "T.clc_is_canceled" and len(call.args) == 1:
            return _clc_cancelled(clc_response_address(self, call), call.span)
        if call.name in CLC_QUERIES:
            return _clc_value(f"{call.name} at line {call.span.line} is a cluster launch control "
                              "response", call.span)
        if call.name == "T.tl_shuffle_elect" and len(call.args) == 1:
            n_fn, nthreads = self.compile(call.args[0]), self.launch.num_threads
            ctas = self.launch.cluster_size

            def elect(env):
                n = n_fn(env)
                if isinstance(n, np.ndarray):
                    raise NotConcrete("tl_shuffle_elect with a thread-dependent size", call.span)
                try:
                    return shuffle_elect(nthreads, n, ctas)
                except NotModelled as err:   # a value, not a statement: reported where it is used
                    raise NotConcrete(str(err), call.span) from None
            return elect
        if call.name in THREAD_INDEX_CALLS and len(call.args) <= THREAD_INDEX_CALLS[call.name]:
            return self._thread_index(call)
        return cluster_value(self, call)

    def _thread_index(self, call: ir.Call):
        """`T.get_warp_idx_sync()` and its kin (models/launch.py `thread_index`): a per-thread
        number; sizes that differ between threads, or a launch it is not modelled for, make it
        not concrete where it is used."""
        size_fns, launch = [self.compile(a) for a in call.args], self.launch

        def value(env):
            sizes = tuple(f(env) for f in size_fns)
            if any(isinstance(s, np.ndarray) for s in sizes):
                raise NotConcrete(f"{call.name} with a thread-dependent size", call.span)
            try:
                return thread_index(launch, call.name, sizes)
            except NotModelled as err:   # a value, not a statement: reported where it is used
                raise NotConcrete(str(err), call.span) from None
        return value

    def _clc_cell_key(self, sub: ir.Subscript, view):
        """fn(env) -> (rank, region, byte) of the element `sub` names in a CLC-held shared view
        (None where the index is not one value for the task's threads)."""
        index = self.compile(sub.indices[0]) if len(sub.indices) == 1 and \
            not isinstance(sub.indices[0], ir.Slice) else None
        esize = view.elem_size

        def key(env):
            if index is None:
                return None
            k = index(env)
            if isinstance(k, np.ndarray):
                ks = np.unique(k)
                if ks.size != 1:
                    return None
                k = ks[0]
            return int(env.get(CLUSTER_RANK, 0)), view.region.name, view.byte_offset + int(k) * esize
        return key

    def _clc_cell_load(self, sub: ir.Subscript, view, held: str):
        """A load of a shared word every store to which is a CLC query's value: the value the
        task's CTA stored there last in this run (models/clc.py ClcState). The race checks order
        that store before the load, or report them; with none stored (or a store the engine
        could not compute: which cluster was cancelled) the value is hardware data."""
        key, span = self._clc_cell_key(sub, view), sub.span
        what = f"{expr_text(sub)} holds a cluster launch control response ({held})"
        unknown = _clc_value(what, span)

        def load(env):
            state, k = env.get(CLC_STATE), key(env)
            v = state.cells.get(k) if state is not None and k is not None else None
            return unknown(env) if v is None else v
        return load

    def _clc_store(self, tgt: ir.Subscript, val, acc: POp) -> POp:
        """`acc`, the store of a CLC query's value into a CLC-held shared word, also recording the
        value for the loads of its CTA (`_clc_cell_load`)."""
        view = self.view_of(tgt.value)
        key, value, inner = self._clc_cell_key(tgt, view), self.compile(val), acc.run

        def run(env, tids):
            state, k = env.get(CLC_STATE), key(env)
            if state is not None and k is not None:
                try:
                    v = value(env)
                    if isinstance(v, np.ndarray):
                        vs = np.unique(per_thread(v, tids))
                        v = int(vs[0]) if vs.size == 1 else None
                except NotConcrete:
                    v = None   # which cluster: not computed, and no later load computes it
                state.cells[k] = None if v is None else int(v)
            return inner(env, tids)
        return dataclasses.replace(acc, run=run)

    def _clc_held(self, view) -> str | None:
        """Where the value of a shared view comes from when every write through the views at its
        bytes (its region and byte offset) is a plain store of a cluster launch control query
        (`schedule_valid[0] = T.clc_is_canceled(...)`): "line N: T.clc_is_canceled" (None
        otherwise). It names the data in the note only: such a load is not evaluated either
        way."""
        if view is None or not view.is_shared or view.region is None:
            return None
        if self._clc_regions is None:
            self._clc_regions = {}
            for region, writes in self._shared_stores().items():
                queries = [[c for c in ir.nodes(w.value) if isinstance(c, ir.Call) and c.name in CLC_QUERIES]
                           for w in writes]
                if all(queries):
                    self._clc_regions[region] = ", ".join(
                        f"line {w.span.line}: {q[0].name}" for w, q in zip(writes, queries))
        return self._clc_regions.get((view.region.name, view.byte_offset))

    def _shared_stores(self) -> dict:
        """(shared region, byte offset) -> every plain store through a view at those bytes (as
        written: views are names for bytes, so the key is where they start)."""
        if self._stores_at is None:
            self._stores_at = {}
            for x in ir.nodes(self.func.body):
                if isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript):
                    v = self.view_of(x.target.value)
                    if v is not None and v.is_shared and v.region is not None:
                        self._stores_at.setdefault((v.region.name, v.byte_offset), []).append(x)
        return self._stores_at

    def _shared_copy(self, view) -> tuple | None:
        """(parameter view expression, its index expression in `%v`, element type, the stores) when
        every store through the views at `view`'s bytes (its region and byte offset) is one plain
        copy `S[v] = P[f(v)]` of a global parameter P of S's element type, `f` reading only `v`,
        block indices and sizes: S[x] then holds P[f(x)] wherever a copy wrote it (TileOPs' split
        decode: `split_length_shared[tx] = split_length[bid * 16 + tx]`, read back as a loop
        bound). None otherwise. Other statements writing those bytes through other views are
        found by the machine (`Memory._forwarded_bytes`)."""
        if view is None or not view.is_shared or view.region is None or self.register_of(view) is not None:
            return None
        if self._shared_copies is None:
            uniform = set(self.launch.block_vars) | set(self.symbols)
            self._shared_copies = {}
            for key, writes in self._shared_stores().items():
                forms = set()   # (parameter, index form, element type) of each store: one allowed
                for w in writes:
                    tv, val = self.view_of(w.target.value), w.value
                    if len(w.target.indices) != 1 or not isinstance(w.target.indices[0], ir.Var) or \
                            not isinstance(val, ir.Subscript) or len(val.indices) != 1 or \
                            isinstance(val.indices[0], ir.Slice):
                        break
                    pv = self.view_of(val.value)
                    var = w.target.indices[0].name
                    if pv is None or self.roots.get(pv.name) is None or pv.dtype != tv.dtype or \
                            not free_names(val.indices[0]) <= uniform | {var}:
                        break
                    # the index expression with its variable renamed (two element types: two forms)
                    f = ir.rewrite(val.indices[0], lambda y, var=var: ir.Var("%v") if
                                   isinstance(y, ir.Var) and y.name == var else None)
                    forms.add((val.value, f, tv.dtype))
                else:
                    if len(forms) == 1:
                        (pexpr, f, dtype), = forms
                        self._shared_copies[key] = (pexpr, f, dtype, writes)
        return self._shared_copies.get((view.region.name, view.byte_offset))

    def forwarded(self, e) -> tuple:
        """(`e` with every one-element load of a shared parameter copy (`_shared_copy`) read as
        the parameter's element it holds, [(view, parameter expression, its stores, line)] of each
        load replaced). For the value only: the load's shared access is taken from the original
        expression (its race and unwritten-byte checks stay). The gate's emitter prints the same."""
        found: list = []

        def replace(x):
            if not isinstance(x, ir.Subscript) or len(x.indices) != 1 or isinstance(x.indices[0], ir.Slice):
                return None
            view = self.view_of(x.value)
            copy = self._shared_copy(view)
            if copy is None or view.dtype != copy[2]:
                return None   # (read through a view of another element type: another value)
            pexpr, f, _, writes = copy
            idx = x.indices[0]
            found.append((view, pexpr, writes, x.span.line))
            return ir.Subscript(pexpr, (ir.rewrite(f, lambda y: idx if isinstance(y, ir.Var) and y.name == "%v"
                                                   else None),), x.span)
        return (ir.rewrite(e, replace) if self.views else e), found

    def _forward_copies(self, e):
        """`forwarded(e)`, each copy it reads recorded for the scope line and the machine's check
        (Program.shared_copies)."""
        out, found = self.forwarded(e)
        for view, pexpr, writes, line in found:
            name = ir.dotted(pexpr) or expr_text(pexpr)
            for entry in self.program_shared_copies:
                if entry[0] is view:
                    entry[3].append(line)
                    break
            else:
                self.program_shared_copies.append(
                    (view, name, sorted({w.span.line for w in writes}), [line],
                     frozenset(w.span.start for w in writes)))
        return out

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
        elem_bits = bits
        if bits % 8:   # sub-byte elements: a byte-granular pointer over the bytes they cover
            # (the element width is bound now: `bits` is rebound to 8 below)
            def byte_offset(env, offset=offset, elem_bits=bits):
                return byte_span(offset(env), 0, elem_bits)[0]

            def byte_extent(env, offset=offset, extent=extent, elem_bits=bits):
                lo, hi = byte_span(offset(env), extent(env), elem_bits)
                return hi - lo
            offset, extent, bits = byte_offset, byte_extent, 8
        return AccessPtr(view, bits // 8, offset, extent,
                         self.compile(rw_expr) if rw_expr is not None else zero, elem_bits)

    def access_ptr(self, e) -> AccessPtr | None:
        """A pointer operand: `T.tvm_access_ptr(type, data, offset, extent, rw)`, or TVM's
        `T.address_of(buf[i])` (a pointer to element i of a flat buffer, of its dtype: codegen
        prints `&buf[i]`); None for anything else."""
        if isinstance(e, ir.Call) and e.name == "T.address_of" and len(e.args) == 1 \
                and isinstance(e.args[0], ir.Subscript) and len(e.args[0].indices) == 1 \
                and not isinstance(e.args[0].indices[0], ir.Slice):
            view = self.view_of(e.args[0].value)
            if view is None:
                raise NotModelled(f"T.address_of over unknown data {e.args[0].value!r:.40}")
            return self.make_ptr(view, e.args[0].indices[0])
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

    def _create_barriers(self, call: ir.Call) -> list:
        """TVM's `T.create_barriers(n)`: codegen_cuda.cc declares `__shared__ __align__(16) uint64_t
        barrier[n']` (n rounded up to even) where the call stands and zeroes it; the other TVM
        builtins then name a barrier by its index (`barrier_view`). One per kernel. The zeroing
        stores touch barrier words only, which the engine names rather than loads or stores."""
        n = self.literal(call.args[0]) if len(call.args) == 1 else None
        if type(n) is not int or n <= 0 or "barrier" in self.views:
            return [PNote("T.create_barriers with a count other than one positive constant, or twice",
                          call.span)]
        n += n % 2
        region = Region("barrier", "shared.barrier", 8 * n, line=call.span.line, elem_dtype="uint64", shape=(n,))
        region.barrier_base = sum(r.nbytes // 8 for r in self.barrier_regions)
        self.barrier_regions.append(region)
        self.views["barrier"] = View("barrier", "uint64", region, 0, (n,), "shared.barrier")
        self.indexed_barriers = True
        return []

    def barrier_view(self, e, carve: bool = False):
        """(the shared.barrier view, the element index expression) an mbarrier operand names:
        `mbarrier_1[k % 3]`, an access_ptr into a shared.barrier buffer, or TileLang 0.1.8's
        `T.get_mbarrier(i)`, which its codegen prints `mbarrier[i]`: element i of the buffer it
        always names "mbarrier" (codegen_cuda.h `mbarrier_name_`). None for anything else."""
        if isinstance(e, ir.Subscript) and len(e.indices) == 1 and not isinstance(e.indices[0], ir.Slice):
            view, idx = self.view_of(e.value), e.indices[0]
        elif isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
            view, idx = self.view_of(e.args[1]), e.args[2]
        elif isinstance(e, ir.Call) and e.name == "T.get_mbarrier" and len(e.args) == 1:
            view, idx = self.views.get("mbarrier"), e.args[0]
        elif self.indexed_barriers and not isinstance(e, (ir.Subscript, ir.Call)) or \
                self.indexed_barriers and isinstance(e, ir.Call) and e.name in ("T.int32", "T.int64"):
            view, idx = self.views.get("barrier"), e   # TVM's builtins: an index into create_barriers' array
        else:
            return None
        return (view, idx) if view is not None and (view.is_barrier or carve and self._carves(view, e)) else None

    def _carves(self, view: View, e) -> bool:
        """`view` is an ordinary shared buffer of 64-bit words whose element `e` names is used as
        an mbarrier (models/mbarrier.py CARVED_POOL): in a launch without clusters (a barrier's
        id is then one CTA's byte address), named as an element rather than through a pointer."""
        return view.is_shared and view.dtype in ("uint64", "int64") and isinstance(e, ir.Subscript) and \
            self.launch.cluster_size == 1

    def _carved_pool(self) -> Region:
        """The pseudo region whose ids the carved mbarriers take (created when first needed)."""
        pool = next((r for r in self.barrier_regions if r.scope == CARVED_SCOPE), None)
        if pool is None:
            pool = Region("carved mbarrier", CARVED_SCOPE, 8 * CARVED_POOL, elem_dtype="uint64",
                          shape=(CARVED_POOL,))
            pool.barrier_base = sum(r.nbytes // 8 for r in self.barrier_regions)
            self.barrier_regions.append(pool)
        return pool

    def barrier_ref(self, e, carve: bool = True):
        """An mbarrier operand (`barrier_view`) -> fn(env) giving global barrier ids; None when
        `e` does not name an mbarrier. `carve`: an element of an ordinary shared buffer of 64-bit
        words names one (`_carves`: its byte address picks a barrier of the run's pool)."""
        named = self.barrier_view(e, carve)
        if named is None:
            return None
        view, idx = named
        region, fn = view.region, self.compile(idx)
        if not view.is_barrier:
            self._carved_pool()
            span = e.span

            def carved(env):
                pool = env.get(CARVED)
                if pool is None:
                    raise NotConcrete("an mbarrier carved out of shared memory, outside a run", span)
                return pool.ids(view.flat_base + np.asarray(fn(env), dtype=np.int64) * 8,
                                lambda a: f"{view.name}[{(a - view.flat_base) // 8}]", span)
            return carved
        shift = view.byte_offset // 8
        return lambda env: region.barrier_base + shift + fn(env)

    def _mentions_shared(self, e) -> bool:
        """Whether a `T.tvm_access_ptr` may point into shared memory (or an mbarrier). Its buffer
        operand decides: an offset that loads from shared memory (`dIndexK` addressed by
        `indices_shared[...]`) is a value read there, not a pointer to it (the load is a read
        `_expr_effects` records). Other shapes: any shared name in the expression."""
        if isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
            view = self.view_of(e.args[1])
            if view is not None:
                return view.is_shared or view.is_barrier
        return any((v := self.views.get(n)) is not None and (v.is_shared or v.is_barrier)
                   for n in free_names(e))

    # ---- declarations
    def _declare(self, name: str, call: ir.Call, annotation) -> bool:
        """Buffer / pointer / launch declarations. True when handled."""
        cname = call.name
        if cname == "T.launch_thread":
            axis = self.literal(call.args[0]) if call.args else None
            extent = self.literal(call.args[1]) if len(call.args) > 1 else None
            if isinstance(axis, str) and not isinstance(extent, int) and len(call.args) > 1:
                return self._symbolic_launch(name, axis, call.args[1], call.span)
            if not isinstance(axis, str) or not isinstance(extent, int):
                self.notes.append(("launch_thread with non-constant extent", call.span))
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
            earlier = self.views.get(name)
            if cname == "T.Buffer" and data is None and earlier is not None and earlier.region is not None \
                    and earlier.scope == scope and earlier.dtype == str(dtype) and isinstance(shape, list) \
                    and tuple(shape) == earlier.shape:
                # TVMScript prints a buffer used outside the block that allocated it (a reduction's
                # `red_buf0`, read after its `reduce_scope`) as `name = T.Buffer(...)` with no data:
                # the same allocation, not a new one (the CUDA has one `__shared__ red_buf0`)
                self.views[name] = View(name, str(dtype), earlier.region, earlier.byte_offset, tuple(shape), scope)
                return True
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
        if cname == "T.handle" and len(call.args) == 2:
            # TVM's wmma fragment handles (`frag = T.handle("float16", "wmma.matrix_a")`): a name
            # whose scope models/wmma.py reads. (Other handles, `acc_s = T.handle("float32",
            # "local")` in TileLang 0.1.8, stay what they were: the buffer declared over them.)
            dtype, scope = self.literal(call.args[0]), self.literal(call.args[1])
            if isinstance(scope, str) and scope.startswith("wmma."):
                self.views[name] = View(name, str(dtype), None, scope=scope)
                return True
            return False
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

    def _symbolic_launch(self, name: str, axis: str, extent: ir.Expr, span) -> bool:
        """`T.launch_thread("blockIdx.x", (M + 31) // 32)`: a grid extent that is an expression
        of scalar kernel parameters. Shared memory is per block, so the blocks are checked through
        their index: analyze/prover.sizes decide which indices a verdict for every extent needs.
        A symbolic threadIdx extent (the threads of one block unknown) stays not modelled."""
        if axis not in LAUNCH_AXES:
            self.notes.append((f"launch_thread over {axis!r:.40}: not a threadIdx or blockIdx "
                               "axis x, y or z", span))
            return True
        names = free_names(extent)
        if axis.startswith("threadIdx."):
            self.notes.append((f"launch_thread {axis} with a symbolic extent ({_text(extent)}): the "
                               "threads of a block are not known", span))
            return True
        if not names or not names <= set(self.symbols):
            self.notes.append((f"launch_thread {axis} extent {_text(extent)}: not a constant or an "
                               "expression of scalar kernel parameters", span))
            return True
        self.launch.block_vars[name] = axis
        self.launch.symbolic_blocks[axis] = extent
        self.launch.symbolic_spans[axis] = span
        self.uniform_names.add(name)
        return True

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

    def read_only_descriptor(self, desc: str) -> bool:
        """A TMA descriptor parameter whose tensor the kernel never writes: no operation but a
        load or prefetch takes the descriptor, the function is `noalias`, and no global parameter
        it writes is the tensor TileLang made the descriptor from (it names one `<tensor>_desc`,
        lower_hopper_intrin.cc, and may pass the tensor's pointer beside it). Asked at run
        time, after elaboration has collected the written parameters."""
        view = self.views.get(desc)
        if view is None or view.scope != "grid_constant" or desc in self.stored_descriptors:
            return False
        if not (self.attrs.get("tir.noalias") or self.attrs.get("tirx.noalias")):
            return False
        return desc.removesuffix("_desc") not in self.written_roots

    def _read_only_global(self, data) -> bool:
        """`data` names a global parameter the kernel never writes."""
        view = self.view_of(data)
        return view is not None and view.name in self.roots and \
            self.roots[view.name] not in self.written_roots

    def same_in_every_thread(self, e) -> bool:
        """Whether `e` has one value in every thread of the block at one statement instance:
        built from uniform names, constants, pure arithmetic and casts, and loads at uniform
        addresses of global parameters the kernel never writes. Asked at run time, after
        elaboration has collected the written parameters."""
        stack, seen = [e], set()
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                if not self._read_only_global(x.value):
                    return False
                stack.extend(x.indices)
            elif isinstance(x, ir.Call):
                if x.name in _GLOBAL_LOADS and x.args:   # ldg*: a load like a subscript's
                    ptr = x.args[0]
                    if not (isinstance(ptr, ir.Call) and ptr.name == "T.tvm_access_ptr" and len(ptr.args) == 5) \
                            or not self._read_only_global(ptr.args[1]):
                        return False
                    stack.append(ptr.args[2])
                    stack.extend(x.args[1:])
                    continue
                if not (x.name in _UNIFORM_SAFE_CALLS or x.name.startswith(_UNIFORM_SAFE_PREFIXES)):
                    return False
                stack.extend(a for a in x.args if not isinstance(a, ir.Const))
            elif isinstance(x, ir.Var):
                if x.name in self.uniform_names:
                    continue
                value = self.let_values.get(x.name)
                if value is None or x.name in seen:
                    return False
                seen.add(x.name)   # a let assigned once: one value where its definition has one
                stack.append(value)
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
                return self._strided_access(view, s, kind, span, sub)
            lo_fn = self.compile(s.lo) if s.lo is not None else (lambda env: 0)
            hi_fn = self.compile(s.hi) if s.hi is not None else (lambda env: shape[0])
            width = _fixed_width(s)
        elif all(not isinstance(i, ir.Slice) for i in idx):
            if len(idx) != len(shape) and len(idx) != 1:
                return PNote("subscript rank differs from the buffer's shape", sub.span, access_only=True)
            strides = [int(np.prod(shape[k + 1:])) for k in range(len(idx))] if len(idx) > 1 else [1]
            fns = [self.compile(i) for i in idx]
            if len(fns) == 1 and not isinstance(idx[0], (ir.Var, ir.Const)):
                lo_fn = fns[0]   # the index itself: compile_expr memoized it where it could
            else:
                def lo_fn(env, fns=fns, strides=strides):
                    return sum(f(env) * s for f, s in zip(fns, strides))
                names = [getattr(f, "pure_names", None) for f in fns]
                if all(n is not None for n in names):   # the flat index, once per distinct input
                    lo_fn = memoize(lo_fn, frozenset().union(*names))
            hi_fn, width = None, 1   # one element: hi is lo + 1
        else:
            return PNote("multi-dimensional slice of a shared buffer", sub.span, access_only=True)
        esize, bits = view.elem_size, view.elem_bits
        same_value = []   # decided once, at the first run (after elaboration)
        # with a fixed width (hi is lo + width): the byte ranges of the last few (first element,
        # threads) pairs, by identity. A memoized address is the same read-only array while the
        # names it reads hold the same values (every iteration of an outer loop, every block),
        # and so are a task's thread ids: the per-thread selection and byte arithmetic is then
        # done once. The entries hold the arrays they are keyed by, so the ids stay theirs.
        recent: dict = {}

        def run(env, tids):
            base = view.flat_base
            lo_v = lo_fn(env)
            if width is None:
                lo = per_thread(lo_v, tids)
                hi = per_thread(hi_fn(env), tids)
            else:
                t = type(lo_v)
                key = (t is int, lo_v if t is int else id(lo_v), id(tids), base) \
                    if t is int or (t is np.ndarray and not lo_v.flags.writeable) else None
                hit = recent.get(key) if key is not None else None
                if hit is not None and hit[1] is tids and (t is int or hit[0] is lo_v):
                    lo, hi = hit[2], hit[3]
                else:
                    lo = per_thread(lo_v, tids)
                    hi = per_thread(lo_v + width, tids)   # what hi_fn gives, without evaluating it
                    lo, hi = byte_span(lo, hi - lo, bits)   # sub-byte elements cover their whole byte
                    lo, hi = base + lo, base + hi
                    lo.flags.writeable = hi.flags.writeable = False
                    if key is not None:
                        if len(recent) >= 128:
                            recent.clear()
                        recent[key] = [lo_v, tids, lo, hi]
            if width is None:
                lo, hi = byte_span(lo, hi - lo, bits)
                lo, hi = base + lo, base + hi
            if value is not None and not same_value:
                # sub-byte elements: two threads' elements share a byte, which each thread
                # rewrites whole (a read-modify-write), so one value does not make it safe
                if bits < 8:
                    same_value.append(False)
                elif self.same_in_every_thread(value):
                    same_value.append(True)
                elif _ranges_meet(lo, hi, recent.get(key) if width is not None and key is not None else None):
                    # the flag is read only where two of the instance's ranges meet (the self
                    # clash check, state/memory.py `_check_self`: with no two meeting it finds
                    # no clash whatever the flag); until an instance's ranges meet it stays
                    # undecided (False), and the proof, a z3 query that can take seconds, is
                    # asked only then. The answer depends on the elaborated kernel alone, not on
                    # the instance, so it is the one the first run would have given.
                    same_value.append(same_value_per_address(self, sub, value))
            return [Access(kind, tids, lo, hi, view.name, base, esize,
                           "load" if kind == AccessKind.READ else "store",
                           same_value=bool(same_value and same_value[0]))]
        return POp("load" if kind == AccessKind.READ else "store", span, run, sub)

    def strided_shape(self, s: ir.Slice) -> tuple[int, int] | None:
        """(step, lanes) of a slice `[e : e + c : k]` with a constant step k above 1 and k
        dividing c (lanes c // k); None for any other slice."""
        step, width = self.literal(s.step) if s.step is not None else None, _fixed_width(s)
        if type(step) is int and step > 1 and width and width % step == 0:
            return step, width // step
        return None

    def _strided_access(self, view, s: ir.Slice, kind: AccessKind, span, sub) -> POp | PNote:
        """`S[e : e + c : k]`: a vector of c // k lanes (TVM's Ramp(e, k, lanes), printed as a
        strided slice; dlight's SIMT GEMM loads `A_shared[tx : tx + 64 : 32]`), element e + j * k
        for lane j. Each element is one access of the thread (its id repeated per lane). Only a
        constant step above 1 and a fixed width, over whole-byte elements."""
        shape = self.strided_shape(s)
        if shape is None or view.elem_bits % 8:
            return PNote("strided vector access to shared memory", sub.span, access_only=True)
        step, lanes = shape
        esize, lo_fn = view.elem_size, self.compile(s.lo)
        offsets = np.arange(lanes, dtype=np.int64) * step

        def run(env, tids):
            first = per_thread(lo_fn(env), tids)
            lo = view.flat_base + (first[:, None] + offsets[None, :]).ravel() * esize
            return [Access(kind, np.repeat(tids, lanes), lo, lo + esize, view.name, view.flat_base, esize,
                           "load" if kind == AccessKind.READ else "store")]
        return POp("load" if kind == AccessKind.READ else "store", span, run, sub)

    def _expr_effects(self, e, out: list) -> None:
        """Shared loads and extern calls inside an expression, in evaluation order."""
        if isinstance(e, (ir.Var, ir.Call)) and self.pointer_lets:
            e = self._with_pointers(e)   # a pointer let: the pointer it names
        if isinstance(e, ir.Subscript):
            for i in e.indices:
                for part in ((i.lo, i.hi, i.step) if isinstance(i, ir.Slice) else (i,)):
                    if part is not None:
                        self._expr_effects(part, out)
            acc = self._subscript_access(e, AccessKind.READ, e.span)
            if acc is not None:
                out.append(acc)
            return
        if isinstance(e, ir.Call) and e.name in ("T.if_then_else", "T.Select") and len(e.args) == 3 \
                and not e.kwargs:
            self._selected_effects(e.args[0], e.args[1], e.args[2], out, e.name == "T.Select")
            return
        if isinstance(e, ir.BinOp) and e.op in ("and", "or"):
            self._expr_effects(e.left, out)
            right: list = []
            self._expr_effects(e.right, right)
            out.extend(_guarded(right, self._selector(e.left), e.left, e.op == "and"))
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
            self._selected_effects(e.cond, e.then, e.other, out, False)
        elif isinstance(e, (ir.TupleE, ir.ListE)):
            for x in e.items:
                self._expr_effects(x, out)
        elif isinstance(e, ir.Attr):
            self._expr_effects(e.value, out)

    def _selected_effects(self, cond, then, other, out: list, both: bool) -> None:
        """The effects of `T.if_then_else(cond, then, other)` (CUDA's `cond ? then : other`:
        only the selected arm is evaluated, per thread) or of `T.Select`, which evaluates both.
        The condition's own effects always happen; each arm's happen in the threads that select
        it (`_guarded`), all of them where the condition has no value in a run (a superset: as
        if both arms were read)."""
        self._expr_effects(cond, out)
        arms: tuple = ([], [])
        self._expr_effects(then, arms[0])
        self._expr_effects(other, arms[1])
        if both:
            out.extend(arms[0] + arms[1])
            return
        fn = self._selector(cond)
        out.extend(_guarded(arms[0], fn, cond, True))
        out.extend(_guarded(arms[1], fn, cond, False))

    def _selector(self, cond):
        """`cond` compiled for `_guarded` when it reads no memory (indices, loop variables, lets,
        sizes: compiling a load would make it an input of the run, which it was not); else None."""
        return self.compile_if_known(cond) if not _subscripts(cond, []) else None

    # ---- statements
    def _pointer_let(self, name: str, val) -> bool:
        """`chunk_ptr: T.handle = T.tvm_access_ptr(..., SFA_shared, off, ...)` (TileLang's
        block-scaled GEMMs name the shared chunk a tcgen05.cp or a scale-factor transpose takes):
        the name stands for the pointer expression, put back in the calls that use it
        (`_with_pointers`), so each model sees the pointer as if written inline. Exact when the
        expression loads nothing: its names are lets and loop variables, which hold the same
        values wherever the name is in scope. True when `name` is such a pointer."""
        if not (isinstance(val, ir.Call) and val.name == "T.tvm_access_ptr" and self._mentions_shared(val)):
            return False
        if any(isinstance(x, ir.Subscript) for x in ir.nodes(val)) or self.access_ptr_or_none(val) is None:
            return False
        self.pointer_lets[name] = val
        return True

    def _with_pointers(self, e):
        """`e` with the pointer lets it names replaced by their pointers (_pointer_let)."""
        if not self.pointer_lets:
            return e
        lets = self.pointer_lets
        return ir.rewrite(e, lambda x: lets.get(x.name) if isinstance(x, ir.Var) else None)

    def _op_stmt(self, call: ir.Call, span) -> list:
        call = self._with_pointers(call)
        name = call.name
        out: list = []
        if name == "T.create_barriers":
            return self._create_barriers(call)
        ptr = shared_destination(self, call) if name.startswith("T.atomic_") else None
        if ptr is not None:   # an atomic read-modify-write of shared bytes (models/atomics.py)
            for a in call.args[1:]:
                self._expr_effects(a, out)
            try:
                run = shared_atomic(self, call, ptr)
            except NotModelled as err:
                return out + [self._opaque(str(err), call)]
            return out + [POp(name.removeprefix("T."), call.span, run, call)]
        if name in PURE:
            if name.startswith("T.atomic_"):
                # a global atomic's operands: its value may be read from shared memory
                # (`atomic_addx4_elem_op(&dKV[...], &acc_shared[...])`), a read like any other
                src = shared_source(self, call)
                for i, a in enumerate(call.args):
                    if i == 1 and src is not None:
                        self._expr_effects(a.args[2], out)   # the pointer's offset
                        out.append(POp(name.removeprefix("T."), a.span, source_read(self, call, src), a))
                    else:
                        self._expr_effects(a, out)
            return out
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
        note = self._opaque(f"unknown operation {name or 'call'}(...)", call)
        if name.startswith("T.atomic_") and not note.barriers and not note.views:
            return out   # an atomic on global memory (a stream-K fixup flag's store): no shared effect
        return out + [note]

    def _opaque(self, reason: str, call: ir.Call) -> PNote:
        """An operation no model executes, with the mbarriers and shared views its arguments
        name (at any depth): what it may arrive on, complete or touch."""
        barriers, views, stack = [], [], list(call.args) + [v for _, v in call.kwargs]
        while stack:
            e = stack.pop()
            ref = self.barrier_ref(e, carve=False)
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
        stmts = tuple(stmts)
        for i, s in enumerate(stmts):
            queue = self._queue_attr(s) if isinstance(s, ir.ExprStmt) else None
            if queue is not None:   # a statement-form attr: its body is the rest of the block
                out.extend(self._async_queue(s, queue, stmts[i + 1:]))
                break
            pinned = self._pinned_by_assume(s, stmts[i + 1] if i + 1 < len(stmts) else None)
            out.extend(self.stmt(s) if pinned is None else pinned)
        return tuple(out)

    def _queue_attr(self, s):
        """(key, node, value) of a `T.attr(node, key, value)` statement or `with` over one of
        TVM's async-queue keys (models/cp_async.py), else None. The value is the queue of a commit
        or wait scope, the count of an inflight count."""
        e = s.expr if isinstance(s, ir.ExprStmt) else s.ctx if isinstance(s, ir.With) else None
        if not (isinstance(e, ir.Call) and e.name == "T.attr" and len(e.args) == 3):
            return None
        key = self.literal(e.args[1])
        return (key, e.args[0], e.args[2]) if key in cp_async_model.QUEUE_ATTRS else None

    def _async_queue(self, s, queue, body) -> list:
        """TileLang 0.1.8's async-queue attrs as the commit / wait calls its codegen prints
        (models/cp_async.py); `body` is the attr's body."""
        key, _, queue_id = queue   # the queue is the attr's value (codegen_cuda.cc reads op->value)
        if key == cp_async_model.INFLIGHT_COUNT:   # read only under a wait scope
            return list(self.block(body))
        if self.literal(queue_id) != 0:
            return [PNote(f"{key} on async queue {expr_text(queue_id):.40}: CUDA codegen allows "
                          "only queue 0", s.span)]
        if key == cp_async_model.COMMIT_SCOPE:
            commit = ir.ExprStmt(ir.Call(ir.Attr(ir.Var("T"), "ptx_commit_group"), (), (), s.span), s.span)
            return list(self.block(body)) + self.stmt(commit)
        inner = self._queue_attr(body[0]) if body else None
        if inner is None or inner[0] != cp_async_model.INFLIGHT_COUNT:
            return [PNote(f"{key} without its {cp_async_model.INFLIGHT_COUNT}", s.span)]
        rest = tuple(body[1:]) if isinstance(body[0], ir.ExprStmt) else tuple(body[0].body) + tuple(body[1:])
        wait = ir.ExprStmt(ir.Call(ir.Attr(ir.Var("T"), "ptx_wait_group"), (inner[2],), (), body[0].span), body[0].span)
        return self.stmt(wait) + list(self.block(rest))

    def _pinned_by_assume(self, s, nxt) -> list | None:
        """`x: T.int32 = v` followed at once by `T.attr(c, "tl.assume", text)` where `c` reads
        only `x` and admits exactly one value `k` (z3): the let runs as `x = k`, and the scope
        line says the verdict assumes it. TileLang turns a user's `T.assume(c)` into that attr
        (src/transform/inject_assumes.cc); where `c` reads a load, a thread index or a local,
        no run-time check is made (split_host_device.cc): the compiler optimizes on it, a
        precondition of the kernel. None where the shape does not fit (the let runs as written)."""
        if not (isinstance(s, ir.Assign) and isinstance(s.target, ir.Var) and s.annotation is not None
                and isinstance(s.annotation, ir.Attr) and s.annotation.name.startswith(("int", "uint"))
                and isinstance(nxt, ir.ExprStmt) and isinstance(nxt.expr, ir.Call)
                and nxt.expr.name == "T.attr" and len(nxt.expr.args) >= 2
                and self.literal(nxt.expr.args[1]) == "tl.assume"):
            return None
        name, cond = s.target.name, nxt.expr.args[0]
        if free_names(cond) != {name} or _subscripts(cond, []) or self.view_of(s.value) is not None:
            return None
        value = _only_value(cond, name)
        if value is None:
            return None
        out: list = []
        self._expr_effects(s.value, out)   # what the value's own reads touch still happens
        text = self.literal(nxt.expr.args[2]) if len(nxt.expr.args) > 2 else None
        self.assumed_facts.append(
            f"line {s.span.line}: {name} = {value}, the one value the kernel's tl.assume at line "
            f"{nxt.span.line} admits ({text or expr_text(cond)}; TileLang makes no run-time check of "
            "it): the verdict holds for inputs that satisfy it")
        return out + self.stmt(ir.Assign(s.target, ir.Const(value), s.annotation, s.span))

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
            bare = _guarding_load(s.cond)
            taken = bare is not None and not other and _access_only(then)
            # a closed wgmma arm is taken too, once the whole kernel allows it (`closed_arms_ok`)
            closed = bare is not None and not other and not taken and _closed_wgmma_arm(then) and \
                self.register_of(self.view_of(bare.value)) is None
            taken = taken or closed
            self._taken_site = bare if taken else None
            if bare is None and not other and _access_only(then):
                self._taken_site = _range_truth_guard(s.cond)   # an all_of / any_of cell
            elif bare is None and not other and _closed_wgmma_arm(then):
                self._taken_site = _range_truth_guard(s.cond)
                closed = self._taken_site is not None
            self._taken_closed = closed
            if taken:
                self.taken_guards.add(id(bare))
            if closed:
                self.closed_guards.add(id(bare if bare is not None else self._taken_site))
            # an all_of / any_of over a register range guarding an access-only arm is a taken read
            # of the register, as a bare element read is
            ranged = _register_range_truth(self, self._taken_site) \
                if self._taken_site is not None and not taken else None
            for region in _register_regions(self, s.cond):
                reg = self.register_of(self.view_of(bare.value)) if taken else ranged
                if reg is not None and reg[0] == region:
                    self.taken_register_reads[region] = self.taken_register_reads.get(region, 0) + 1
                    if closed:   # searched both ways unless the kernel allows the closed arms
                        self.closed_register_regions.add(region)
                else:
                    self.register_both.add(region)
            cond = self.compile(s.cond)
            self._taken_site = None
            self._taken_closed = False
            relevant = (_relevant(then) or _relevant(other)) and not _echoes_condition(then, other, s.cond)
            node = PIf(cond, then, other, s.cond.span if hasattr(s.cond, "span") else s.span,
                       relevant, frozenset(free_names(s.cond)), s.cond,
                       blind_arm=not other and _blind_arm(then))
            return cond_effects + [node]
        if isinstance(s, ir.With):
            queue = self._queue_attr(s)
            if queue is not None:
                return self._async_queue(s, queue, s.body)
            return list(self.block(s.body))
        if isinstance(s, ir.While):
            return self._while(s)
        return []

    def _while(self, s: ir.While) -> list:
        """A while loop whose condition reads global memory waits on data (another block's flag,
        a stream-K fixup counter): its trip count is not the engine's to choose. Any other
        condition is evaluated per thread, iteration by iteration."""
        cond_effects: list = []
        self._expr_effects(s.cond, cond_effects)
        self._control(s.cond)
        polled = self._global_in(s.cond)
        if polled is None:   # a register the body reloads from global memory: a spin on a flag
            regs = {getattr(x.value, "name", None) for x in _subscripts(s.cond, [])}
            polled = next((self._global_in(a.value) for a in _assignments(s.body)
                           if isinstance(a.target, ir.Subscript) and getattr(a.target.value, "name", None) in regs
                           and self._global_in(a.value) is not None), None)
        body = self.block(s.body)
        if polled is not None:
            reason = f"while loop polling global memory ({polled}): its trip count depends on other blocks or on data"
            if all(isinstance(x, (PStore, PLet)) for x in body):
                # a spin that only reloads registers: it orders nothing in shared memory and
                # holds up only its own threads, whose progress then counts as uncertain (taint)
                clears = tuple(dict.fromkeys((x.region, x.size) for x in body if isinstance(x, PStore)))
                return cond_effects + [PNote(reason, s.span, assumed=True, clears=clears)]
            return [PNote(reason, s.span)]
        cond = self.compile(s.cond)
        return cond_effects + [PWhile(cond, body, (), s.cond.span if hasattr(s.cond, "span") else s.span,
                                      _relevant(body), frozenset(free_names(s.cond)), s.cond)]

    def _global_in(self, e):
        """The name of a buffer outside shared memory and per-thread registers the expression
        loads from, or None."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                view = self.view_of(x.value)
                if view is None or not (view.is_shared or self.register_of(view) is not None):
                    return getattr(x.value, "name", None) or "a global buffer"
                stack.extend(i for i in x.indices if not isinstance(i, ir.Slice))
            elif isinstance(x, ir.Call) and x.name.startswith("T.atomic_"):
                # an atomic load / read-modify-write through T.tvm_access_ptr(type, buffer, ...)
                ptr = next((a for a in x.args if isinstance(a, ir.Call) and a.name == "T.tvm_access_ptr"), None)
                buf = ptr.args[1] if ptr is not None and len(ptr.args) > 1 else None
                view = self.view_of(buf) if buf is not None else None
                if view is None or not view.is_shared:
                    return getattr(buf, "name", None) or "a global buffer"
                stack.extend(x.args)
            elif isinstance(x, ir.Call):
                stack.extend(x.args)
            elif isinstance(x, ir.BinOp):
                stack.extend((x.left, x.right))
            elif isinstance(x, (ir.TupleE, ir.ListE)):
                stack.extend(x.items)
            elif isinstance(x, ir.IfExp):
                stack.extend((x.cond, x.then, x.other))
            elif isinstance(x, ir.UnaryOp):
                stack.append(x.operand)
        return None

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
        if "cluster_dims" in attrs:
            cluster_launch(self, attrs["cluster_dims"], span)

    def _assign(self, s: ir.Assign) -> list:
        tgt, val = s.target, self._with_pointers(s.value)
        if isinstance(tgt, ir.Var) and isinstance(val, ir.Call) and self._declare(tgt.name, val, s.annotation):
            return []
        if isinstance(tgt, ir.Var):
            if self._pointer_let(tgt.name, val):
                return []
            self.pointer_lets.pop(tgt.name, None)   # the name now stands for another value
        out: list = []
        self._expr_effects(val, out)
        if isinstance(tgt, ir.Subscript):
            reg = self.register_of(self.view_of(tgt.value))
            index = self._register_index(reg, tgt) if reg is not None else None
            if index is not None:
                self._control(val)
                # `r[0] = T.Cast("int8", T.Cast("bool", M[i]))`: the load's cell is taken like
                # the register's branches are (_register_reads_taken)
                bare = _bare_load(val)
                self._register_site = (bare, reg[0]) if bare is not None else None
                value = self.compile(val)
                self._register_site = None
                return out + [PStore(reg[0], index, value, reg[2], reg[3], s.span,
                                     (tgt.indices[0] if len(tgt.indices) == 1 else None, val))]
            if reg is not None:
                self._control(val)
                return out + self._register_slice_store(reg, tgt, val, s.span)
            for i in tgt.indices:
                for part in ((i.lo, i.hi, i.step) if isinstance(i, ir.Slice) else (i,)):
                    if part is not None:
                        self._expr_effects(part, out)
            acc = self._subscript_access(tgt, AccessKind.WRITE, s.span, value=val)
            if isinstance(acc, POp) and self._clc_held(self.view_of(tgt.value)) is not None:
                acc = self._clc_store(tgt, val, acc)
            if acc is not None:
                out.append(acc)
            return out
        if isinstance(tgt, ir.Var):
            view = self.view_of(val)
            if view is not None:  # pointer alias: `p = buf.data`
                self.views[tgt.name] = view
                return out
            val = self._forward_copies(val)
            self._control(val)
            vote = warp_vote(self, val)
            if vote is not None:
                self.let_values[tgt.name] = None

                def lanes(env, tids, vote=vote):
                    try:
                        return vote(env, tids)
                    except NotModelled as err:   # a value: unknown where it is used
                        raise NotConcrete(str(err), s.span) from None
                return out + [PLet(tgt.name, s.span, lanes, val, lanes=True)]
            if self._uniform_names_only(val):
                self.uniform_names.add(tgt.name)
            # a name assigned once keeps its expression (same_in_every_thread); twice, none
            self.let_values[tgt.name] = None if tgt.name in self.let_values else val
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
            extent_expr = _range_extent(args[0], args[1]) if len(args) == 2 else args[0]
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


def _range_extent(start, stop):
    """The trip count of `range(start, stop)` as the provers read it: `x` where TVMScript printed
    a loop of min `start` and extent x as `range(start, start + x)`, else `stop - start`."""
    if isinstance(stop, ir.BinOp) and stop.op == "+" and stop.left == start:
        return stop.right
    return ir.BinOp("-", stop, start)


# TileLang's explicit-width global loads (tl::load_global_N): a load at their pointer
_GLOBAL_LOADS = ("T.ldg32", "T.ldg64", "T.ldg128", "T.ldg256")
# operations that only read through a TMA descriptor (Elaborator.read_only_descriptor)
_DESCRIPTOR_READS = ("T.tma_load", "T.tma_load_im2col", "T.tma_load_gather4", "T.tma_load_multicast",
                     "T.prefetch_tma_descriptor")


# tensor-memory loads and stores: synchronous (TileLang's templates wait for them), no ordering
_TMEM_ACCESS_OPS = {"tcgen05_ld", "tcgen05_st"}


def _blind_arm(stmts) -> bool:
    """An arm that only reads shared or tensor memory, or writes tensor memory (a loop of them
    included), and has at least one such access: skipping it removes accesses, never
    synchronization, and writes no shared byte another statement may read (a read of bytes only
    a taken arm wrote would go unchecked). Where its branch's condition has no value the engine
    can compute (a warp vote over floats, `T.any_sync(mask, scale[i] < 1.0)`: Blackwell flash
    attention's conditional rescale), every thread that reaches it runs it
    (engine/machine.py `_branch`): every outcome pattern runs a subset of those accesses, with
    the same synchronization."""
    ops = [x for x in statements(stmts) if not isinstance(x, (PLoop, PNote))]
    return bool(ops) and all(isinstance(x, POp) and (x.name == "load" or x.name in _TMEM_ACCESS_OPS)
                             for x in ops)


_SHARED_WRITE_OPS = {"store", "ptx_stmatrix", "ptx_cp_async"}   # (generic writes a fence must follow)
# a wgmma sequence the arm closes itself (issue, commit, wait(0)), with the proxy fence before it
_CLOSED_ARM_OPS = _WGMMA_ISSUE | {"warpgroup_arrive", "warpgroup_commit_batch", "warpgroup_wait",
                                  "warpgroup_fence_operand", "initialize_wgmma_descriptor",
                                  "increase_descriptor_offset", "fence_proxy_async"}


def _waits_all(op) -> bool:
    """`warpgroup_wait(0)`: every wgmma group of the warpgroup complete."""
    src = op.src
    return isinstance(src, ir.Call) and len(src.args) >= 1 and src.args[0] == ir.Const(0)


def _closed_wgmma_arm(stmts) -> bool:
    """An arm of shared accesses and wgmma whose every wgmma it commits and waits for itself
    (`wait(0)` after its last issue and commit): TileLang's block-sparse GEMM without warp
    specialization, `if M[k]: fence; wgmma ...; commit; wait(0)`, and the pipeline epilogue's
    arms, which rely on the fence after the main loop. Skipping it removes accesses, the waits of
    its own wgmma only (where no wgmma is in flight when it starts), and its own proxy fence, if
    it has one, which no operation outside it may rely on (`_closed_arms_hold`)."""
    ops = [x for x in statements(stmts) if isinstance(x, POp)]
    if not all(isinstance(x, (PLoop, PNote)) or isinstance(x, POp) and
               (x.name in _ACCESS_ONLY_OPS or x.name in _CLOSED_ARM_OPS) for x in statements(stmts)):
        return False   # (a branch inside the arm would decide which wgmma run)
    if not any(x.name in _WGMMA_ISSUE for x in ops):
        return False
    last = max(i for i, x in enumerate(ops) if x.name in _WGMMA_ISSUE or x.name == "warpgroup_commit_batch")
    return any(x.name == "warpgroup_wait" and _waits_all(x) for x in ops[last + 1:])


def _self_fenced(stmts) -> bool:
    """A closed wgmma arm (`_closed_wgmma_arm`) with a proxy fence before its first issue and no
    shared write between: its wgmma need no fence from outside."""
    ops = [x for x in statements(stmts) if isinstance(x, POp)]
    first = next(i for i, x in enumerate(ops) if x.name in _WGMMA_ISSUE)
    fences = [i for i, x in enumerate(ops) if x.name == "fence_proxy_async"]
    return any(f < first and not any(f < w < first and x.name in _SHARED_WRITE_OPS
                                     for w, x in enumerate(ops)) for f in fences)


def _closed_arms_hold(body) -> bool:
    """What taking the closed wgmma arms (`_closed_wgmma_arm`) every time needs of the whole
    kernel: (1) in program order every wgmma issue is followed by a commit before a wait, and
    every commit by `wait(0)` before any other wgmma op, so no wgmma is in flight where an arm
    starts and an arm's wait completes its own wgmma only; (2) every other operation that may
    touch shared memory through the async proxy (anything but plain accesses, barriers, fences
    and the TMA store's own waits), an arm's wgmma without its own fence included, follows a
    `fence_proxy_async` outside every arm, with no shared write between, so no arm's fence is
    what orders it."""
    seq = [x for x in statements(body) if isinstance(x, POp) and
           (x.name in _WGMMA_ISSUE or x.name in ("warpgroup_commit_batch", "warpgroup_wait"))]
    for a, b in zip(seq, seq[1:] + [None]):
        if a.name in _WGMMA_ISSUE and (b is None or b.name == "warpgroup_wait"):
            return False
        if a.name == "warpgroup_commit_batch" and (b is None or b.name != "warpgroup_wait" or not _waits_all(b)):
            return False
    return _fenced_outside(body, False)


_GENERIC_OPS = _ACCESS_ONLY_OPS | {"tvm_storage_sync", "fence_proxy_async", "tma_store_arrive",
                                   "tma_store_wait", "prefetch_tma_descriptor", "ptx_commit_group",
                                   "ptx_wait_group", "all_of", "any_of"}   # (generic reads of a mask)


def _fenced_outside(stmts, fenced: bool) -> bool:
    """Whether every async-proxy operation in `stmts` follows a fence that no arm holds, with no
    shared write between (`fenced`: such a fence is in effect where `stmts` start). A fence inside
    a branch or a loop counts only inside it; a branch or loop that may write shared memory ends
    the effect of a fence before it, and a loop body is checked as its second iteration sees it."""
    for st in stmts:
        if isinstance(st, PIf):
            own = _closed_wgmma_arm(st.then) and not st.other and _self_fenced(st.then)
            if not own and not (_fenced_outside(st.then, fenced) and _fenced_outside(st.other, fenced)):
                return False
            fenced = fenced and _access_free(st.then) and _access_free(st.other)
        elif isinstance(st, PLoop):
            fenced = fenced and _access_free(st.body)
            if not _fenced_outside(st.body, fenced):
                return False
        elif isinstance(st, POp):
            if st.name == "fence_proxy_async":
                fenced = True
            elif st.name in _SHARED_WRITE_OPS:
                fenced = False
            elif st.name not in _GENERIC_OPS and not fenced:
                return False
    return True


def _access_free(stmts) -> bool:
    return not any(isinstance(x, POp) and x.name in _SHARED_WRITE_OPS for x in statements(stmts))


def _one_address(flat, what: str, span) -> int:
    """The one element index every thread of the block reads (`flat`: an int or per-thread array);
    NotConcrete where threads read different ones (a per-thread cell is no block input)."""
    if isinstance(flat, np.ndarray):
        vals = np.unique(flat)
        if vals.size != 1:
            raise NotConcrete(f"{what} that differs between threads (data-dependent)", span)
        flat = vals[0]
    return int(flat)


def _register_range_truth(el, call):
    """The register region (`Elaborator.register_of`'s tuple) a `T.all_of` / `T.any_of` call
    reads with a read-only `T.tvm_access_ptr` into a register buffer of the same element width,
    or None."""
    ptr = _range_truth_ptr(call)
    if ptr is None:
        return None
    view = el.view_of(ptr.args[1])
    reg = el.register_of(view)
    if reg is None or el.literal(ptr.args[4]) != 1:
        return None
    ann = ptr.args[0]
    dtype = el.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else None
    bits = dtype_bits(str(dtype)) if dtype else None
    if bits is None or bits != view.elem_bits:
        return None
    return reg


def _scan_globals(el, node, truth: bool = False) -> None:
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
        if _register_range_truth(el, node) is not None:
            # `T.all_of(T.tvm_access_ptr(.., r.data, off, n, 1), n)` over a register: a read of
            # n elements the engine evaluates (Elaborator._range_truth), not a pointer handed on
            _scan_globals(el, node.args[0].args[2:4])
            _scan_globals(el, node.args[1])
            return
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
            if view is not None and view.scope == "grid_constant" and node.name not in _DESCRIPTOR_READS \
                    and not (node.name == "T.call_extern" and len(node.args) > 1
                             and el.literal(node.args[1]) == "tl::prefetch_tma_descriptor"):
                el.stored_descriptors.add(view.name)
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


_text = expr_text


def inputs_alike_across_blocks(el) -> bool:
    """Blocks differ only in which input cells they read, the same way for every cell: no
    control expression mentions a blockIdx variable outside a global load's address, and every
    load of one parameter addresses F(block) + G(rest) with one F. Then two loads of a block read
    one cell exactly when they do in any other block, so the outcome patterns of one block are
    those of every block (analyze checks one block for all).
    The same for the starts of `T.all_of` / `T.any_of` ranges over a read-only global buffer
    (`_range_truth`, `range_sites`): each is one unknown truth value of the run keyed by (start,
    kind, length), both outcomes possible for any block (all cells 0, all cells 1), never tied
    to a plain load; with their starts F(block) + G(rest) two of them share a key in one block
    exactly when they do in every block. Their parameter must have no load used as a number."""
    block_vars = set(el.launch.block_vars)
    if el.plain_control_names & block_vars:
        return False
    if any(not el.truth_only.get(site[0]) or site[0] in el.written_roots for site in el.input_sites):
        return False   # some load is not an input the search enumerates: nothing to share
    if any(not el.truth_only.get(site[0], True) or site[0] in el.written_roots for site in el.range_sites):
        return False
    form: dict = {}
    for root, indices, strides, offset, esize in el.input_sites + el.range_sites:
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
    func = scoped_lets(func)   # one name per let binding: name-keyed let tables are scoped (engine/scopes.py)
    el = Elaborator(func)
    body = el.block(func.body)
    el.closed_arms_ok = bool(el.closed_guards) and _closed_arms_hold(body)
    if not el.closed_arms_ok:
        el.taken_guards -= el.closed_guards   # their cells are searched both ways
        el.register_both |= el.closed_register_regions
    _scan_globals(el, func.body)
    _register_reads_taken(el, func)
    truth_from_copies(el, func)
    _shared_masks_taken(el, func)
    if not el.closed_arms_ok:
        el.shared_taken -= el.closed_shared_regions
    el.layout.assign_bases()
    program = Program(func.name, el.launch, el.layout, body, el.attrs, el.notes, el.views,
                       el.barrier_regions, el.symbols,
                       # block variables of symbolic grid axes are symbolic sizes (prover.sizes)
                       block_dependent=bool(el.control_names & {
                           n for n, a in el.launch.block_vars.items() if a not in el.launch.symbolic_blocks}),
                       blocks_alike=bool(el.input_sites or el.range_sites) and inputs_alike_across_blocks(el),
                       control_names=set(el.control_names),
                       symbolic_block_vars=_symbolic_block_vars(el, body),
                       read_only_globals=frozenset(n for n, root in el.roots.items()
                                                   if root not in el.written_roots))
    program.assumed_facts = list(el.assumed_facts)
    program.shared_copies = list(el.program_shared_copies)
    program.closed_arms = el.closed_arms_ok
    el.tied_roots = program.tied_roots
    program.shared_masks = [(region, el.shared_mask_roots[region], sorted(set(el.shared_mask_lines[region])))
                            for region in sorted(el.shared_taken)]
    el.body = body   # same_value_per_address reads where registers and lets are defined,
    _definition_sites(el)   # as written (the numeric pass drops the sources provers need not read)
    _drop_dead_registers(el, program)
    _forward_size_registers(el, program)
    _numeric_pass(el, program)
    _count_loops(el, program, func)
    _count_sizes(el, program)
    _clc_sizes(el, program)
    _read_taken_guards(el, program)
    _entry_constants(program.body, el.escaped_registers)
    program.escaped_registers = frozenset(el.escaped_registers)
    return program


# the calls an integer value of sizes may hold that `_forward_size_registers` writes into a use
_INT_ARITHMETIC = frozenset({"T.min", "T.max", "T.Cast", "T.if_then_else", "T.Select", "T.floordiv", "T.floormod",
                             "T.truncdiv", "T.truncmod", "T.int32", "T.int64", "T.shift_left", "T.shift_right",
                             "T.bitwise_and", "T.bitwise_or", "T.bitwise_xor"})


def _forward_size_registers(el, program: Program) -> None:
    """For the provers, a read of a register cell whose one reaching store is a value of sizes,
    launch indices and constants reads as that value, and a let of such a value and the
    enclosing loops' variables reads as its value (the statements' `src` only; the machine
    still reads the register and the let; a register store's own source is not changed). TileLang users keep sizes in `T.alloc_var` scalars
    (`num_iters[0] = (seq_end[0] + 63 - seq_start[0]) // 64` with `seq_end[0] = num_tokens`)
    and bounds in lets (`left = i_s * 64 + seq_start[0]`, `if left + 64 <= seq_end[0]`): a loop
    `range(num_iters[0])` is then a trip count of the size and the branch a bound of the loop
    variable, which the provers reason about, where a register read is a value they cannot
    encode and a let a name of any value. The reaching store is found as `_entry_constants`
    finds one: earlier in the same statement list or an enclosing one, with no statement
    between (at any depth, an enclosing loop's body included) storing that register, and not a
    register an operation writes through a pointer. A let is read as its value only where no
    loop between rebinds a name its value reads."""
    names = set(program.symbols) | set(el.launch.thread_vars) | set(el.launch.block_vars)
    escaped = el.escaped_registers

    def read_cell(x):
        if not (isinstance(x, ir.Subscript) and len(x.indices) == 1):
            return None
        reg = el.register_of(el.view_of(x.value))
        k = el.literal(x.indices[0])
        if reg is None or type(k) is not int or reg[0] in escaped:
            return None
        return reg[0], reg[1] + k

    def forwarded(e, known: dict):
        if e is None or not known:
            return e

        def replace(x):
            if isinstance(x, ir.Subscript):
                return known.get(read_cell(x))
            if isinstance(x, ir.Var):
                return known.get(("let", x.name))
            return None
        return ir.rewrite(e, replace)

    def plain(e, scope: set) -> bool:
        """Integer arithmetic in `e` (no load, no pointer), on sizes, launch indices and loop
        variables in scope."""
        nodes = list(ir.nodes(e))
        return len(nodes) <= 200 and free_names(e) <= names | scope and not any(
            isinstance(x, ir.Subscript) or isinstance(x, ir.Call) and x.name not in _INT_ARITHMETIC
            for x in nodes)

    def walk(body, known: dict, scope: set) -> None:
        for st in body:
            if isinstance(st, PStore):
                # (the store's own source stays as written: a counter `r = r + 1` and a fold
                # `m = T.max(m, x)` are recognised by their reads of themselves)
                value = forwarded(st.src[1], known) if st.src and st.src[1] is not None else None
                for cell in [c for c in known if c[0] == st.region]:
                    del known[cell]
                try:
                    k = st.index({})
                except (NotConcrete, KeyError, TypeError):
                    k = None
                if isinstance(k, (int, np.integer)) and value is not None and plain(value, set()) and \
                        st.region not in escaped:
                    known[(st.region, int(k))] = value
                continue
            written = {x.region for x in statements((st,)) if isinstance(x, PStore)}
            if isinstance(st, PLet) and st.src is not None:
                st.src = forwarded(st.src, known)
                if not st.lanes and st.name not in el.views and plain(st.src, scope):
                    known[("let", st.name)] = st.src
            elif isinstance(st, POp) and st.src is not None:
                st.src = forwarded(st.src, known)
            elif isinstance(st, PWhile):   # (before PIf, which it extends) its condition and
                # body run again after the body's stores
                inner = {c: v for c, v in known.items() if c[0] not in written}
                if st.src is not None:
                    st.src = forwarded(st.src, inner)
                walk(st.then, inner, scope)
            elif isinstance(st, PIf):
                if st.src is not None:
                    st.src = forwarded(st.src, known)
                walk(st.then, dict(known), scope)
                walk(st.other, dict(known), scope)
            elif isinstance(st, PLoop):
                if st.src:
                    st.src = tuple(forwarded(x, known) for x in st.src)
                # (a later iteration sees the body's stores; the loop's variable is a new value)
                inner = {c: v for c, v in known.items() if c[0] not in written and
                         not (c[0] == "let" and st.var in free_names(v))}
                walk(st.body, inner, scope | {st.var})
            for cell in [c for c in known if c[0] in written]:
                del known[cell]
    walk(program.body, {}, set())
    # a let of sizes every read of which now reads its value is, for the provers, no value of its
    # own: it leaves its source (a loop body's `left = k * 64` would otherwise read as a value
    # that changes with the loop). (A register keeps its stores' sources: a value stored into
    # shared memory or a global address may read it where no source shows, and the numeric
    # pass follows those; the induction leaves out what nothing deciding reads.)
    if any(isinstance(st, PNote) and not st.access_only or
           not isinstance(st, PNote) and getattr(st, "src", None) is None for st in statements(program.body)):
        return   # (what a statement without a source reads is not known)
    mentioned: set = set()
    for st in statements(program.body):
        for e in (st.src if isinstance(st.src, tuple) else (st.src,)) if hasattr(st, "src") else ():
            if e is not None:
                mentioned |= free_names(e)
    for st in statements(program.body):
        if isinstance(st, PLet) and st.src is not None and st.name not in mentioned and not st.lanes and \
                st.name not in el.views and plain(st.src, set(el.launch.thread_vars) | names | _loop_vars(program.body)):
            st.src = None


def _loop_vars(body) -> set:
    """The variables of every for loop in `body`."""
    return {st.var for st in statements(body) if isinstance(st, PLoop)}


def _entry_constants(body, escaped: set) -> None:
    """Set each loop's `entry`: the register cells a store of a constant earlier in the same
    statement list sets, with no statement between (at any depth) storing that register. Every
    thread that reaches the loop ran that list in order, so the cell holds the constant when the
    loop starts (engine/accelerate.py reads a counter `r = r + d` as `entry + d * k`). Not for a
    register an operation writes through a pointer (`escaped`): no store shows that write."""
    known: dict = {}
    for st in body:
        if isinstance(st, PStore) and st.region not in escaped:
            index, value = (st.src + (None, None))[:2]
            for cell in [c for c in known if c[0] == st.region]:
                del known[cell]
            if isinstance(index, ir.Const) and isinstance(value, ir.Const) and \
                    isinstance(value.value, int) and not isinstance(value.value, bool) and \
                    isinstance(index.value, int):
                known[(st.region, index.value)] = value.value
            continue
        if isinstance(st, PLoop):
            st.entry = dict(known)
            _entry_constants(st.body, escaped)
        elif isinstance(st, PIf):
            _entry_constants(st.then, escaped)
            _entry_constants(st.other, escaped)
        if isinstance(st, (PLoop, PIf)):
            written = {x.region for x in statements((st,)) if isinstance(x, PStore)}
            for cell in [c for c in known if c[0] in written]:
                del known[cell]


def _read_taken_guards(el, program: Program) -> None:
    """For the provers, a branch guarded by an input cell taken as true (`_guarding_load`: the
    condition is the load, or the load and a bound) reads as the rest of its condition, when every
    load of that input buffer the machine evaluates is such a guard: no cell of the buffer is then
    ever searched both ways (engine/inputs.py), so every run reads 1 there and the condition the
    machine evaluates is the bound alone. Without it the provers meet a load they cannot encode
    (prover/sizes.py, engine/accelerate.py) and prove nothing about the loops around it."""
    guards: list = []       # (PIf, the load)
    loads: dict = {}        # input root -> every load of it the machine evaluates

    def root_of(sub):
        view = el.view_of(sub.value) if isinstance(sub, ir.Subscript) else None
        root = el.roots.get(view.name) if view is not None else None
        return root if root is not None and el.truth_only.get(root) and root not in el.written_roots else None

    def note(e):
        for x in ir.nodes(e):
            root = root_of(x)
            if root is not None:
                loads.setdefault(root, []).append(x)

    def walk(stmts) -> bool:
        for st in stmts:
            if isinstance(st, PNote):
                return False
            if isinstance(st, PIf):
                if st.relevant:
                    if st.src is None:
                        return False
                    note(st.src)
                    sub = _guarding_load(st.src)
                    if sub is not None and id(sub) in el.taken_guards and root_of(sub) is not None:
                        guards.append((st, sub))
                if not (walk(st.then) and walk(st.other)):
                    return False
            elif isinstance(st, PLoop):
                if st.relevant:
                    note(st.src)
                if not walk(st.body):
                    return False
            elif isinstance(st, (POp, PLet)):
                note(st.src)
            elif isinstance(st, PStore):
                note(st.src)
        return True
    if not walk(program.body):
        return
    for st, sub in guards:
        root = root_of(sub)
        if any(not any(x is g for _, g in guards) for x in loads[root]):
            continue   # a load of the buffer outside a guard: its cells may be searched both ways
        st.src = _without_load(st.src, sub)


def truth_from_copies(el, func: ir.Function) -> None:
    """A parameter every load of which is a copy into a register read only as truth values
    (_register_slice_store) is truth-valued (el.truth_only)."""
    for root, copies in el.truth_copies.items():
        loads = [x for x in _subscripts(func.body, []) if
                 (lambda v: v is not None and el.roots.get(v.name) == root)(el.view_of(x.value))]
        if len(loads) == len(copies) and all(any(x is c for c in copies) for x in loads):
            el.truth_only[root] = True


def _register_reads_taken(el, func: ir.Function) -> None:
    """A truth register whose every element read is the whole condition of an access-only
    branch (counted while elaborating) has cells taken as true (engine/inputs.py: skipping such
    a branch only removes accesses); a read anywhere else, a copy of one included, needs both."""
    for region, taken in el.taken_register_reads.items():
        if region in el.register_both:
            continue
        names = {n for n, v in el.views.items() if el.register_of(v) is not None and
                 el.register_of(v)[0] == region}
        stores = {id(x.target) for x in ir.nodes(func.body) if isinstance(x, ir.Assign)}
        reads = [x for x in ir.nodes(func.body) if isinstance(x, ir.Subscript) and
                 isinstance(x.value, ir.Var) and x.value.name in names and id(x) not in stores and
                 not (len(x.indices) == 1 and isinstance(x.indices[0], ir.Slice))]
        # all_of / any_of over the register: reads of it too (taken where they guard an
        # access-only arm, counted while elaborating); any other pointer to it escapes it
        reads += [x for x in ir.nodes(func.body) if isinstance(x, ir.Call) and
                  (lambda r: r is not None and r[0] == region)(_register_range_truth(el, x))]
        if len(reads) != taken:
            el.register_both.add(region)


def _shared_masks_taken(el, func: ir.Function) -> None:
    """A shared region read by `T.all_of` / `T.any_of` conditions of access-only branches
    (`Elaborator._shared_range`) has those conditions taken as true when (a) every read of the
    region in the kernel is such a condition, (b) every write to it is a plain store of a load
    of a read-only, truth-valued global parameter (`_bare_load`: `T.Cast("int8", T.Cast("bool",
    M[i]))`), and (c) every load of that parameter is such a store. Then skipping a branch only
    removes accesses (no synchronization inside: engine/inputs.py), so the taken run finds every
    race any mask finds; and with every mask cell 1, every stored byte is non-zero, so every
    such condition is true in every thread and the taken run is that input's run: what it
    finds is real. The conditions' reads of the shared bytes stay modelled (models/logical.py),
    so a race on the mask itself is found."""
    for region, taken in el.taken_shared_reads.items():
        names = {n for n, v in el.views.items() if v.region is not None and v.region.name == region}
        ok, reads, copies, roots = True, 0, [], set()

        def in_region(x) -> bool:
            return isinstance(x, ir.Var) and x.name in names or \
                isinstance(x, ir.Attr) and isinstance(x.value, ir.Var) and x.value.name in names

        def look(x):
            nonlocal ok, reads
            if not ok:
                return ()
            if isinstance(x, ir.Assign) and isinstance(x.target, ir.Var) and isinstance(x.value, ir.Call) \
                    and x.value.name in ("T.decl_buffer", "T.alloc_buffer", "T.Buffer", "T.match_buffer"):
                return ()   # a declaration names the buffer, never reads it
            if isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript) and in_region(x.target.value):
                src = _bare_load(x.value)
                view = el.view_of(src.value) if src is not None else None
                root = el.roots.get(view.name) if view is not None else None
                if root is None or root in el.written_roots or not el.truth_only.get(root):
                    ok = False
                    return ()
                copies.append(src)
                roots.add(root)
                return (x.target.indices, src.indices)
            ptr = _range_truth_ptr(x)
            if ptr is not None and in_region(ptr.args[1]):
                reads += 1
                return (ptr.args[2:4], x.args[1])
            if in_region(x):
                ok = False   # any other read, write or pointer
                return ()
            return None
        ir.visit(func.body, look)
        if not ok or reads != taken or not copies:
            continue
        loads = [x for x in ir.nodes(func.body) if isinstance(x, ir.Subscript) and
                 (lambda v: v is not None and el.roots.get(v.name) in roots)(el.view_of(x.value))]
        pointers = [x for x in ir.nodes(func.body) if isinstance(x, ir.Call) and x.name == "T.tvm_access_ptr"
                    and len(x.args) == 5 and (lambda v: v is not None and el.roots.get(v.name) in roots)(
                        el.view_of(x.args[1]))]
        if pointers or len(loads) != len(copies) or not all(any(x is c for c in copies) for x in loads):
            continue
        el.shared_taken.add(region)
        el.shared_mask_roots[region] = sorted(roots)


def _register_regions(el, e) -> set:
    """The register regions expression `e` reads or names (`r[i]`, `r.data`, `r`)."""
    regs = (el.register_of(el.view_of(x)) for x in ir.nodes(e) if isinstance(x, (ir.Var, ir.Attr)))
    return {reg[0] for reg in regs if reg is not None}


def _drop_dead_registers(el, program: Program) -> None:
    """Register stores nothing the machine evaluates ever reads: a per-thread register decides
    nothing unless a shared address, a synchronization argument, a relevant branch or loop
    bound, or a let or register store those read, reads it. Such stores are removed, and a
    branch or loop left around nothing relevant is marked irrelevant (the machine skips it
    unevaluated), so a register computed from data (a sparse kernel's non-zero count, deciding
    only which other register element it writes) no longer stops the run where no model needs
    its value. The least fixed point: a store counts only once its region is read by something
    that counts. Where an operation no model runs (PNote) or a store whose source is not kept
    is met, nothing is dropped: what they read is not known."""
    nodes: list = []

    def collect(stmts) -> bool:
        for st in stmts:
            if isinstance(st, PNote) or isinstance(st, PStore) and not st.src:
                return False
            if isinstance(st, (PLet, POp)) and st.src is None or \
                    isinstance(st, (PIf, PLoop)) and st.relevant and st.src is None:
                return False
            nodes.append(st)
            if isinstance(st, PIf) and not (collect(st.then) and collect(st.other)):
                return False
            if isinstance(st, PLoop) and not collect(st.body):
                return False
        return True
    if not collect(program.body) or not any(isinstance(st, PStore) for st in nodes):
        return
    lets: dict = {}
    for st in nodes:
        if isinstance(st, PLet):
            lets.setdefault(st.name, []).append(st.src)
    # a value stored into shared memory may be loaded back and decide something (a flag
    # computed from a register, `_taint_registers`): what it reads counts from the start
    shared_values = [x.value for x in ir.nodes(el.func.body)
                     if isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript)
                     and (view := el.view_of(x.target.value)) is not None and view.is_shared]
    needed_regs: set = set()
    needed_lets: set = set()

    def need(e) -> bool:
        regs, names = _register_regions(el, e), free_names(e) & set(lets)
        if regs <= needed_regs and names <= needed_lets:
            return False
        needed_regs.update(regs)
        needed_lets.update(names)
        return True

    def counts(st) -> bool:
        if isinstance(st, POp):
            return True
        if isinstance(st, PStore):
            return st.region in needed_regs
        if isinstance(st, PIf):
            return st.relevant and any(counts(x) for x in st.then + st.other)
        if isinstance(st, PLoop):
            return st.relevant and any(counts(x) for x in st.body)
        return False
    need(shared_values)
    changed = True
    while changed:
        changed = False
        for st in nodes:
            if isinstance(st, POp) or isinstance(st, (PIf, PLoop, PStore)) and counts(st):
                srcs = [x for x in st.src if x is not None] if isinstance(st, (PStore, PLoop)) else [st.src]
                changed |= need(srcs)
            elif isinstance(st, PLet) and st.name in needed_lets:
                changed |= need(st.src)
    dropped: list = []

    def prune(stmts) -> tuple:
        out = []
        for st in stmts:
            if isinstance(st, PStore) and st.region not in needed_regs:
                dropped.append(st)
                continue
            if isinstance(st, PIf):
                st.then, st.other = prune(st.then), prune(st.other)
                if isinstance(st, PWhile):
                    st.cycle = tuple(st.then) + (st,)
                if st.relevant and not (_relevant(st.then) or _relevant(st.other)):
                    st.relevant = False
                    skipped.append(st.span.line)
            elif isinstance(st, PLoop):
                st.body = prune(st.body)
                if st.relevant and not _relevant(st.body):
                    st.relevant = False
                    skipped.append(st.span.line)
            out.append(st)
        return tuple(out)
    skipped: list = []   # lines of branches and loops left around nothing relevant
    if not any(isinstance(st, PStore) and st.region not in needed_regs for st in nodes):
        return
    program.body = prune(program.body)
    # the scope line names them where it matters: a store reading global memory or another
    # register, or a branch or loop the machine no longer evaluates
    named = sorted({st.region for st in dropped
                    if any(el._global_in(x) is not None or _register_regions(el, x)
                           for x in st.src if x is not None)})
    if named or skipped:
        regions = sorted({st.region for st in dropped})
        program.unread_registers = (
            f"registers {', '.join(regions)} decide nothing checked (no shared address, barrier, "
            "branch or loop bound the machine evaluates reads them, directly or through another "
            "register or let): their stores were not run" +
            (f", nor the branches and loops at lines {sorted(set(skipped))} around nothing else"
             if skipped else "") +
            (f" (registers {', '.join(named)} hold values computed from memory or other registers)" if named else ""))


def _symbolic_block_vars(el, body) -> list:
    """The block variables of symbolic grid axes that some elaborated expression (an operation's
    arguments, a branch, a bound, a let, a register store) mentions outside the address of a
    global input cell: the candidates. prover.sizes keeps those an expression deciding control,
    shared bytes or synchronization mentions (global addresses of copies, for one, decide
    nothing)."""
    syms = [n for n, axis in el.launch.block_vars.items() if axis in el.launch.symbolic_blocks]
    if not syms:
        return []
    names: set = set(el.plain_control_names)
    stack = list(body)
    while stack:
        s = stack.pop()
        if isinstance(s, (POp, PLet)) and s.src is not None:
            names |= el._names_outside_inputs(s.src)
        elif isinstance(s, PStore):
            names |= set().union(*(el._names_outside_inputs(x) for x in s.src if x is not None))
        elif isinstance(s, PIf):
            stack += list(s.then) + list(s.other)
        elif isinstance(s, PLoop):
            stack += list(s.body)
    sized = [n for n in syms if n in names]
    through_inputs = [n for n in syms if n in el.control_names and n not in sized]
    enumerated = [site for site in el.input_sites
                  if el.truth_only.get(site[0]) and site[0] not in el.written_roots] + \
        [site for site in el.range_sites if site[0] not in el.written_roots]
    if through_inputs and enumerated and not inputs_alike_across_blocks(el):
        # the input search enumerates cells by address: which cells two loads share may differ
        # between blocks, and no block of a symbolic grid can be sampled. Without enumerated
        # cells a loaded value is opaque wherever it is used (the engine reports a use that
        # decides something), so the block index only moves global addresses: one block stands
        # for all.
        el.notes.append((f"block index {', '.join(through_inputs)} of a symbolic grid addresses "
                         "data-dependent values whose sharing between loads differs across blocks",
                         el.launch.symbolic_spans[el.launch.block_vars[through_inputs[0]]]))
    return sized


