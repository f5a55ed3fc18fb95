"""Elaboration: the syntax tree of one prim_func -> a Program the machine can execute.

Resolves launch extents, shared allocations and their aliases, compiles every expression to a
numpy closure and every operation to a model's `run(env, tids)`. What the models do not know
becomes an `Unsupported` note at its line (never silently dropped).
"""
from __future__ import annotations

import itertools
import math
import dataclasses
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import ir
from .inputs import MAX_PATTERN_TRIPS, PATTERN_ITERATIONS
from .scopes import scoped_lets
from ..events import Access, AccessKind
from ..models import OPS, PURE, VALUE_OPS, NotModelled, interned, per_thread
from ..models import cp_async as cp_async_model
from ..models.atomics import SHARED_ATOMICS, shared_atomic, shared_destination, shared_source, source_read
from ..models.clc import CANCELLED, CLC_STATE, QUERIES as CLC_QUERIES, response_address as clc_response_address
from ..models.cluster import cluster_launch, cluster_value
from ..models.extern import extern_effect
from ..models.launch import CLUSTER_RANK, THREAD_INDEX_CALLS, Launch, shuffle_elect, thread_index
from ..models.memory import (BARRIER_SCOPES, SHARED_SCOPES, Region, SharedLayout, View, byte_span,
                             dtype_bits, dtype_bytes)
from ..models.warp_vote import warp_vote
from .exprs import HardwareData, NotConcrete, compile_expr, free_names, memoize
from .inputs import INPUTS, NumericInputs, pair_order


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
    # ((condition, side), ...), outermost first: an operand of a selection (`_guarded`), run only
    # by the threads whose conditions take those sides (the gate's emitter guards it alike)
    guard: tuple = ()


@dataclass
class PLet:
    name: str
    span: ir.Span
    value: Callable
    src: object = None
    lanes: bool = False   # value(env, tids): a warp vote, decided by the lanes executing it


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
    # each iteration's branches run on a loaded number's unknown truth value (_iteration_choice):
    # the search varies the values of the iterations a run makes, so none may be skipped
    per_iteration_inputs: bool = False
    syncs: bool | None = None   # synchronizes(body), once asked (loop_synchronizes)
    # register cells the statements just before the loop set to a constant, nothing between
    # changing them ({(region, element): value}, `_entry_constants`): a counter's first value
    entry: dict = field(default_factory=dict)
    # the trip count the kernel wrote, where `_clc_sizes` cut the loop to a size (a run that
    # reaches the cut is stopped, engine/machine.py)
    cut: int | None = None


@dataclass
class PIf:
    cond: Callable
    then: tuple
    other: tuple
    span: ir.Span
    relevant: bool = True
    names: frozenset = frozenset()
    src: object = None
    # no `else`, and an arm of shared and tensor-memory accesses alone (`_blind_arm`): where the
    # condition has no value the engine can compute, the arm is run by every thread that gets
    # here (engine/machine.py `_branch`)
    blind_arm: bool = False


@dataclass(eq=False)
class PWhile(PIf):
    """`while cond: body`, run iteration by iteration (engine/machine.py): the condition is
    evaluated per thread before each iteration, like a branch, so a value the engine cannot
    compute (a number loaded from global memory, a register another thread wrote) stops the
    path honestly. A PIf whose `then` is the body, so every pass that walks branches sees it;
    `cycle` is the body followed by the loop itself (the frame the machine runs)."""
    # trips -> the for loop a counting while runs as (engine/machine.py `_counted`), kept here so
    # that its skip plans are cached across runs as a for loop's are
    counted_loops: dict = field(default_factory=dict)

    def __post_init__(self):
        self.cycle = tuple(self.then) + (self,)


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
    # an assumption rather than a gap (a spin on a global flag that touches no shared memory:
    # assumed to end): reported only when a finding it taints is dropped, else a scope line.
    # `clears`: the (register region, size) it writes, unknown after it
    assumed: bool = False
    clears: tuple = ()


def statements(body):
    """Every statement of a program body, nested ones included, in program order (a branch's
    `then` before its `other`)."""
    for s in body:
        yield s
        if isinstance(s, PIf):
            yield from statements(s.then)
            yield from statements(s.other)
        elif isinstance(s, PLoop):
            yield from statements(s.body)


def synchronizes(body) -> bool:
    """Whether a statement of `body` may block a thread or release another: anything but shared
    accesses (`_ACCESS_ONLY_OPS`, and wgmma issues: `_WGMMA_ISSUE`), register stores, lets,
    and notes of accesses the models cannot address. A loop of such a body can neither wait for
    arrivals nor owe them."""
    for s in statements(body):
        if isinstance(s, POp) and s.name not in _ACCESS_ONLY_OPS and s.name not in _WGMMA_ISSUE or \
                isinstance(s, PNote) and not s.access_only:
            return True
    return False


def loop_synchronizes(loop: PLoop) -> bool:
    """`synchronizes(loop.body)`, worked out once per loop (PLoop.syncs)."""
    if loop.syncs is None:
        loop.syncs = synchronizes(loop.body)
    return loop.syncs


# the op names a `break` elaborates to (models/control.py)
LOOP_BREAKS = ("loop_break", "break_loop")


def breaks_out(body) -> bool:
    """Whether a `T.loop_break` in `body` (outside the loops nested in it) may end the loop
    whose body it is before its last iteration."""
    for s in body:
        if isinstance(s, POp) and s.name in LOOP_BREAKS:
            return True
        if isinstance(s, PIf) and not isinstance(s, PWhile) and (breaks_out(s.then) or breaks_out(s.other)):
            return True
    return False


@dataclass
class AccessPtr:
    view: View
    elem_size: int
    offset: Callable   # elements of elem_size from the view's byte 0
    extent: Callable
    rw: Callable
    elem_bits: int = 0     # the element's own width (sub-byte pointers have elem_size 1)

    def count_bytes(self, count: int) -> int:
        """Bytes of `count` whole elements (a sub-byte count rounds up to a whole byte)."""
        bits = self.elem_bits or self.elem_size * 8
        return -(-count * bits // 8)


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
    # block variables of symbolic grid axes that decide control, shared bytes or synchronization
    # (outside input-cell addresses): prover.sizes treats each as one more symbolic size
    symbolic_block_vars: list = field(default_factory=list)
    # views of global parameters the kernel never writes: a load from one gives the same value
    # whenever its address is the same (prover.behaviours compares two runs on one memory)
    read_only_globals: frozenset = frozenset()
    numeric: object = None       # inputs.NumericInputs: numbers loaded from global memory
    # (span, first, last source offset) of the arms of branches checked taken every time because
    # they are fenced (_fenced_branch): the machine checks that nothing outside meets their bytes
    fenced_arms: list = field(default_factory=list)
    # truth-valued inputs whose every load is the whole condition of a loop iteration that does
    # nothing when it is false (_count_loops): root -> (loop lines, iterations), for the scope line
    count_roots: dict = field(default_factory=dict)
    # symbolic counts of count roots past the search's limit (`_count_sizes`): symbol -> (root,
    # the loops' lines, their constant trip count)
    count_sizes: dict = field(default_factory=dict)
    # lines of the tile loops cut to the CANCELLED size (`_clc_sizes`), for the scope line
    clc_loops: list = field(default_factory=list)
    # sizes no induction can cover -> why (prover/sizes.py plan_one runs no probe for them)
    no_induction: dict = field(default_factory=dict)
    # count roots whose loops' trip count is a derived size d (prover.behaviours._tied_count_roots):
    # run with every cell true, the runs at smaller d standing for fewer true cells; set by the
    # size plan (analyze), read by the loads (one set, shared with the elaborator's closures)
    tied_roots: set = field(default_factory=set)
    size_assumptions: list = field(default_factory=list)   # what the kernel's own symbols assume
    size_lowest: dict = field(default_factory=dict)        # symbol -> smallest value to check
    # a loop start named by `_start_residue` -> the block indices its expression reads: the runs
    # of each block load the remainders that block reaches, so those blocks are run apart
    start_blocks: dict = field(default_factory=dict)
    closed_arms: bool = False   # closed wgmma arms checked taken (`_closed_wgmma_arm`)
    # registers computed from data whose stores were not run because nothing the machine
    # evaluates reads them (_drop_dead_registers), in words for the scope line; "" when none
    unread_registers: str = ""
    # register regions an operation gets a pointer to (Elaborator.escaped_registers): a write
    # through it is no register store, so no rule about a register's stores covers them
    escaped_registers: frozenset = frozenset()
    # a let a tl.assume pins to one value (Elaborator._pinned_by_assume), in words for the scope
    assumed_facts: list = field(default_factory=list)
    # (loop line, branch lines, parameter, mode, both outcomes possible in every block): branches
    # whose every iteration's outcome is an unknown truth value searched by pattern
    # (_iteration_choice)
    iteration_choices: list = field(default_factory=list)
    # (loop line, parameter): loops whose iterations' outcomes are run pattern by pattern
    # (_iteration_choice's "pattern" mode) that are longer than a search covers (_pattern_open)
    open_patterns: list = field(default_factory=list)
    # (shared buffer, mask parameters, lines): all_of / any_of conditions over a shared copy of a
    # truth mask checked taken (_shared_masks_taken), for the scope line
    shared_masks: list = field(default_factory=list)
    # (register, parameter, copy line, read lines): registers whose reads read as the cells
    # they copy (_register_copies), for the scope line
    register_copies: list = field(default_factory=list)
    # (shared view, parameter, copy lines, read lines, the copies' span starts): shared buffers
    # read as the read-only parameter they copy (Elaborator._forward_copies); the machine checks
    # that nothing else writes their bytes (state/memory.py `_forwarded_bytes`)
    shared_copies: list = field(default_factory=list)


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
            uniform = set(self.launch.block_vars) | set(self.symbols) | {"T"}
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

    def barrier_view(self, e):
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
        return (view, idx) if view is not None and view.is_barrier else None

    def barrier_ref(self, e):
        """An mbarrier operand (`barrier_view`) -> fn(env) giving global barrier ids; None when
        `e` does not name an mbarrier."""
        named = self.barrier_view(e)
        if named is None:
            return None
        view, idx = named
        region, fn = view.region, self.compile(idx)
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
        if free_names(cond) - {"T"} != {name} or _subscripts(cond, []) or self.view_of(s.value) is not None:
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


# calls that compute a value from their arguments alone (no memory, no thread identity)
_UNIFORM_SAFE_CALLS = {"T.Cast", "T.Broadcast", "T.reinterpret", "T.bitwise_and", "T.bitwise_or",
                       "T.bitwise_xor", "T.bitwise_not", "T.shift_left", "T.shift_right", "T.max",
                       "T.min", "T.abs", "T.truncdiv", "T.truncmod", "T.floordiv", "T.floormod",
                       "T.type_annotation",
                       # pure math: one result for one argument in every thread
                       "T.exp", "T.exp2", "T.log", "T.log2", "T.sqrt", "T.rsqrt", "T.tanh", "T.fabs"}
_UNIFORM_SAFE_PREFIXES = ("T.float", "T.int", "T.uint", "T.bfloat", "T.bool")
# TileLang's explicit-width global loads (tl::load_global_N): a load at their pointer
_GLOBAL_LOADS = ("T.ldg32", "T.ldg64", "T.ldg128", "T.ldg256")
# operations that only read through a TMA descriptor (Elaborator.read_only_descriptor)
_DESCRIPTOR_READS = ("T.tma_load", "T.tma_load_im2col", "T.tma_load_gather4", "T.tma_load_multicast",
                     "T.prefetch_tma_descriptor")


# operations whose only events are shared accesses (no barrier, group, arrive or register)
# (an atomic statement is a read-modify-write of shared bytes, or a global one reading its addends
# through a shared pointer: an access like a store, blocking and releasing nobody; models/atomics.py)
_ACCESS_ONLY_OPS = {"load", "store", "ptx_cp_async", "ptx_ldmatrix", "ptx_stmatrix"} | \
    {name.removeprefix("T.") for name in SHARED_ATOMICS}
# wgmma issues: asynchronous shared reads that only the issuing warpgroup's own wait completes.
# They neither block a thread nor release another (an unrolled loop of them, `for ki in
# T.unroll(32)`, is no loop a skip beside it must match), but they are no access-only arm
# either (`_access_only`: the arm leaves reads in flight; `_closed_wgmma_arm`)
_WGMMA_ISSUE = {"ptx_wgmma_ss", "ptx_wgmma_rs", "ptx_wgmma_sp_ss", "ptx_wgmma_sp_rs"}
# one truth value over a range of a global buffer's elements (Elaborator._range_truth)
RANGE_TRUTHS = ("T.all_of", "T.any_of")


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


def _bare_load(cond):
    """The load a condition consists of (`M[i]`, `T.Cast("bool", M[i])`, `T.bool(M[i])`,
    `0 < T.Cast("int32", T.Cast("bool", M[i]))`, how TileLang tests an int8 mask, and
    `T.Cast("int32", M[i]) != 0`, how it tests a mask copied into a register), or None."""
    if isinstance(cond, ir.BinOp) and cond.op == "!=" and ir.Const(0) in (cond.left, cond.right):
        cond = cond.left if cond.right == ir.Const(0) else cond.right
    if isinstance(cond, ir.BinOp) and cond.op == "<" and cond.left == ir.Const(0) and \
            isinstance(cond.right, ir.Call) and cond.right.name == "T.Cast" and \
            len(cond.right.args) == 2 and isinstance(cond.right.args[1], ir.Call) and \
            cond.right.args[1].name == "T.Cast" and len(cond.right.args[1].args) == 2 and \
            str(getattr(cond.right.args[1].args[0], "value", "")).startswith("bool"):
        cond = cond.right.args[1]
    while isinstance(cond, ir.Call) and (cond.name == "T.bool" and len(cond.args) == 1 or
                                         cond.name == "T.Cast" and len(cond.args) == 2):
        cond = cond.args[-1]
    return cond if isinstance(cond, ir.Subscript) else None


def _one_address(flat, what: str, span) -> int:
    """The one element index every thread of the block reads (`flat`: an int or per-thread array);
    NotConcrete where threads read different ones (a per-thread cell is no block input)."""
    if isinstance(flat, np.ndarray):
        vals = np.unique(flat)
        if vals.size != 1:
            raise NotConcrete(f"{what} that differs between threads (data-dependent)", span)
        flat = vals[0]
    return int(flat)


def _range_truth_guard(cond):
    """The `T.all_of` / `T.any_of` call a branch condition consists of (through bool casts), or
    is conjoined with, as `_guarding_load` finds a load; None otherwise."""
    if isinstance(cond, ir.BinOp) and cond.op == "and":
        return _range_truth_guard(cond.right) or _range_truth_guard(cond.left)
    while isinstance(cond, ir.Call) and (cond.name == "T.bool" and len(cond.args) == 1 or
                                         cond.name == "T.Cast" and len(cond.args) == 2):
        cond = cond.args[-1]
    return cond if isinstance(cond, ir.Call) and cond.name in RANGE_TRUTHS else None


def _range_truth_ptr(call):
    """The `T.tvm_access_ptr(type, buffer, offset, extent, access)` a `T.all_of` / `T.any_of`
    call reads through, or None (another call, or another pointer form)."""
    if not (isinstance(call, ir.Call) and call.name in RANGE_TRUTHS and len(call.args) == 2):
        return None
    ptr = call.args[0]
    if not (isinstance(ptr, ir.Call) and ptr.name == "T.tvm_access_ptr" and len(ptr.args) == 5):
        return None
    return ptr


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


def _guarding_load(cond):
    """The load a branch condition consists of (`_bare_load`), or the one it is conjoined with
    (`T.if_then_else(k < n, M[i], T.bool(False))`, `k < n and M[i]`, how TileLang guards a mask
    read by its bounds): where the rest of the condition is false the branch is skipped whatever
    the cell holds, so the cell decides only whether an access-only body runs (taken as true)."""
    bare = _bare_load(cond)
    if bare is not None:
        return bare
    if isinstance(cond, ir.Call) and cond.name in ("T.if_then_else", "T.Select") and len(cond.args) == 3 and \
            _false(cond.args[2]):
        return _bare_load(cond.args[1])
    if isinstance(cond, ir.BinOp) and cond.op == "and":
        return _bare_load(cond.right) or _bare_load(cond.left)
    return None


def _false(e) -> bool:
    """`False` or `T.bool(False)`."""
    if isinstance(e, ir.Call) and e.name == "T.bool" and len(e.args) == 1:
        e = e.args[0]
    return isinstance(e, ir.Const) and e.value is False


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


# Python's binding strength of the operators TVMScript prints (weakest first): expr_text
# parenthesizes exactly where the text would otherwise read as another expression
_BINDING = {op: level for level, ops in enumerate((
    ("or",), ("and",), ("==", "!=", "<", "<=", ">", ">="), ("|",), ("^",), ("&",),
    ("<<", ">>"), ("+", "-"), ("*", "/", "//", "%"))) for op in ops}
_UNARY_BINDING = {"not": 2, "-": 9, "~": 9}
_ATOM = 10


def expr_text(e) -> str:
    """A TIR expression back as text, for messages, scope lines and the names of loaded values
    ('(M + 31) // 32', 'cu_seqlens[bx + 1] - cu_seqlens[bx]'); '...' for what it cannot print.
    A name made of an expression (a length `seqlen - seq_start`) is one operand: parenthesized
    inside a larger expression."""
    return _printed(e)[0]


def _printed(e) -> tuple[str, int]:
    """`e` as text and how strongly that text binds (_BINDING's levels; _ATOM: not at all)."""
    if isinstance(e, ir.BinOp) and e.op in _BINDING:
        level = _BINDING[e.op]
        (lt, ll), (rt, rl) = _printed(e.left), _printed(e.right)
        # left to right: an operand of the same strength groups by itself on the left only
        left = lt if ll >= level else f"({lt})"
        right = rt if rl > level else f"({rt})"
        return f"{left} {e.op} {right}", level
    if isinstance(e, ir.UnaryOp) and e.op in _UNARY_BINDING:
        level = _UNARY_BINDING[e.op]
        t, lv = _printed(e.operand)
        return f"{e.op}{'' if e.op in '-~' else ' '}{t if lv >= level else f'({t})'}", level
    if isinstance(e, ir.Var):
        return e.name, (_ATOM if " " not in e.name else 0)
    if isinstance(e, ir.Const):
        return str(e.value), (_ATOM if not (isinstance(e.value, (int, float)) and e.value < 0) else 9)
    if isinstance(e, ir.Subscript):
        return f"{expr_text(e.value)}[{', '.join(expr_text(i) for i in e.indices)}]", _ATOM
    if isinstance(e, ir.Call):
        return f"{e.name}({', '.join(expr_text(a) for a in e.args)})", _ATOM
    return "...", _ATOM


_text = expr_text


def inputs_alike_across_blocks(el: Elaborator) -> bool:
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
    _numeric_pass(el, program)
    _count_loops(el, program, func)
    _count_sizes(el, program)
    _clc_sizes(el, program)
    _read_taken_guards(el, program)
    _entry_constants(program.body, el.escaped_registers)
    program.escaped_registers = frozenset(el.escaped_registers)
    return program


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


def _read_taken_guards(el: Elaborator, program: Program) -> None:
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


def _without_load(cond, sub):
    """`cond` (a `_guarding_load` form around `sub`) read with the load true."""
    if _bare_load(cond) is sub:
        return ir.Const(True, getattr(cond, "span", ir.NO_SPAN))
    if isinstance(cond, ir.Call):      # T.if_then_else(c, load, False)
        return cond.args[0]
    return cond.left if _bare_load(cond.right) is sub else cond.right   # c and load


def truth_from_copies(el: Elaborator, func: ir.Function) -> None:
    """A parameter every load of which is a copy into a register read only as truth values
    (_register_slice_store) is truth-valued (el.truth_only)."""
    for root, copies in el.truth_copies.items():
        loads = [x for x in _subscripts(func.body, []) if
                 (lambda v: v is not None and el.roots.get(v.name) == root)(el.view_of(x.value))]
        if len(loads) == len(copies) and all(any(x is c for c in copies) for x in loads):
            el.truth_only[root] = True


def _register_reads_taken(el: Elaborator, func: ir.Function) -> None:
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


def _shared_masks_taken(el: Elaborator, func: ir.Function) -> None:
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


def _register_regions(el: Elaborator, e) -> set:
    """The register regions expression `e` reads or names (`r[i]`, `r.data`, `r`)."""
    regs = (el.register_of(el.view_of(x)) for x in ir.nodes(e) if isinstance(x, (ir.Var, ir.Attr)))
    return {reg[0] for reg in regs if reg is not None}


def _drop_dead_registers(el: Elaborator, program: Program) -> None:
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


def _symbolic_block_vars(el: Elaborator, body) -> list:
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


# ---------------------------------------------------------------- numbers loaded from global memory
def _rewrite(e, mapping: dict):
    """`e` with every Var named in `mapping` replaced by mapping[name] (an ir expression)."""
    return ir.rewrite(e, lambda x: mapping.get(x.name) if isinstance(x, ir.Var) else None)


def _subscripts(e, out: list) -> list:
    out.extend(x for x in ir.nodes(e) if isinstance(x, ir.Subscript))
    return out


# what a fenced arm (_fenced_branch) may do: shared stores and loads, CTA-local named barriers,
# fences, and TMA stores it waits for itself
_FENCED_ARM_OPS = {"load", "store", "ptx_stmatrix", "ptx_ldmatrix", "tvm_storage_sync", "fence_proxy_async",
                   "tcgen05_before_thread_sync", "tcgen05_after_thread_sync", "tma_store", "tma_store_arrive",
                   "tma_store_wait"}
_BARRIER_OPS = {"tvm_storage_sync", "named_barrier_arrive", "named_barrier_sync"}
# calls whose value is the same for every thread of a CTA given the same arguments
_UNIFORM_CALLS = {"T.min", "T.max", "T.Cast", "T.if_then_else", "T.block_rank_in_cluster", "T.bitwise_and",
                  "T.bitwise_or", "T.bitwise_xor", "T.shift_left", "T.shift_right", "T.truncdiv", "T.truncmod",
                  "T.floordiv", "T.floormod", "T.int32", "T.int64", "T.bool", "T.uint32"}


def _fenced_branch(el, program, st: PIf, cond, names: set, block_vars: set) -> bool:
    """A branch on a loaded number whose outcome may differ between loop iterations (a grouped
    GEMM's epilogue: stage the tile through shared memory and a TMA store when it is full, store
    straight to global memory when it is ragged) is checked taken every time when every pattern
    of outcomes can only leave instances of its arm out, and leaving them out cannot create a
    race or a hang (docs/model.md, "Data-dependent values"):
    - the condition is the same for every thread that reaches it at one iteration: block
      indices, sizes, the cluster rank and variables of enclosing loops with uniform bounds;
    - the other arm touches no shared memory and synchronizes nothing;
    - the arm synchronizes only through named barriers no statement outside it uses (the threads
      that skip an instance skip it together), starts with one before any shared access, and
      waits for every TMA store it issues (an instance is fenced off from every other);
    - registers written in either arm are read nowhere outside the branch;
    - (checked by the machine, `fenced_arms`) no access outside the arm meets the arm's bytes."""
    if isinstance(st, PWhile) or not st.then:
        return False
    path = _path_to(program.body, st)
    if path is None or any(isinstance(x, PWhile) for x in path):
        return False
    thread_vars = set(el.launch.thread_vars)
    loop_vars: set = set()
    for node in path:
        if isinstance(node, PLoop):
            exprs = [x for x in node.src if x is not None]
            if any(_subscripts(x, []) or free_names(x) & thread_vars or not _uniform_calls(x) for x in exprs) \
                    or set().union(*(free_names(x) for x in exprs)) - block_vars - set(program.symbols) \
                    - loop_vars - {"T"}:
                return False
            loop_vars.add(node.var)
    if names - block_vars - set(program.symbols) - loop_vars or not _uniform_calls(cond):
        return False
    if not _inert(st.other) or not _fenced_arm(st.then):
        return False
    ids = _barrier_ids(st.then)
    if ids is None or 0 in ids:
        return False
    written = {x.region for x in statements(st.then + st.other) if isinstance(x, PStore)}
    for node in _outside(program.body, st):
        if isinstance(node, POp) and node.name in _BARRIER_OPS:
            other_ids = _barrier_ids((node,))
            if other_ids is None or other_ids & ids:
                return False
        for e in _sources(node):
            for x in _subscripts(e, []):
                reg = el.register_of(el.view_of(x.value))
                if reg is not None and reg[0] in written:
                    return False
    return True


def _uniform_calls(e) -> bool:
    return all(x.name in _UNIFORM_CALLS for x in ir.nodes(e) if isinstance(x, ir.Call))


def _path_to(body, target, path=()) -> tuple | None:
    """The loops and branches around `target`, outermost first, or None."""
    for s in body:
        if s is target:
            return path
        for sub in _children(s):
            got = _path_to(sub, target, path + (s,))
            if got is not None:
                return got
    return None


def _children(s) -> tuple:
    if isinstance(s, PIf):
        return (s.then, s.other)
    if isinstance(s, PLoop):
        return (s.body,)
    return ()


def _outside(body, skip):
    """Every statement at any depth except `skip` and what it holds."""
    for s in body:
        if s is skip:
            continue
        yield s
        for sub in _children(s):
            yield from _outside(sub, skip)


def _sources(node) -> list:
    """The syntax a statement was elaborated from (ir.nodes walks tuples), if it kept any."""
    src = getattr(node, "src", None)
    return [] if src is None else [src]


def _inert(stmts) -> bool:
    """Only register stores and lets, at any depth: no shared access, no synchronization."""
    for s in stmts:
        if isinstance(s, (PStore, PLet)):
            continue
        if isinstance(s, PIf) and not isinstance(s, PWhile) and _inert(s.then) and _inert(s.other):
            continue
        if isinstance(s, PLoop) and _inert(s.body):
            continue
        return False
    return True


def _fenced_arm(stmts) -> bool:
    """The arm's operations are _FENCED_ARM_OPS; a named barrier comes before its first shared
    access; every TMA store is followed in its own statement list by a `tma_store_wait(0)`."""
    for s in statements(stmts):
        if isinstance(s, PNote) or isinstance(s, PWhile) or isinstance(s, POp) and s.name not in _FENCED_ARM_OPS:
            return False
    if _first_event(stmts) != "barrier":
        return False
    return _stores_waited(stmts)


def _first_event(stmts) -> str | None:
    """"barrier" when a barrier surely comes before any shared access, "access" when an access
    may come first, None when neither happens."""
    for s in stmts:
        if isinstance(s, POp):
            if s.name in ("tvm_storage_sync", "named_barrier_sync"):   # an arrive alone waits for nobody
                return "barrier"
            if s.name in _ACCESS_ONLY_OPS or s.name == "tma_store":
                return "access"
        elif isinstance(s, PLoop):
            got = _first_event(s.body)
            extent = s.src[1] if len(s.src) > 1 else None
            runs = isinstance(extent, ir.Const) and isinstance(extent.value, int) and extent.value > 0 \
                and isinstance(s.src[0], ir.Const)
            if got == "access" or got == "barrier" and runs:
                return got
        elif isinstance(s, PIf):
            a, b = _first_event(s.then), _first_event(s.other)
            if "access" in (a, b):
                return "access"
            if a == b == "barrier":
                return "barrier"
    return None


def _stores_waited(stmts) -> bool:
    for i, s in enumerate(stmts):
        if isinstance(s, POp) and s.name == "tma_store":
            if not any(isinstance(x, POp) and x.name == "tma_store_wait" and isinstance(x.src, ir.Call)
                       and x.src.args and x.src.args[0] == ir.Const(0) for x in stmts[i + 1:]):
                return False
        for sub in _children(s):
            if not _stores_waited(sub):
                return False
    return True


def _barrier_ids(stmts) -> set | None:
    """The barrier ids the statements use (0: `__syncthreads`, every thread of the block); None
    when one is not a literal."""
    ids: set = set()
    for s in statements(stmts):
        if isinstance(s, POp) and s.name in _BARRIER_OPS:
            args = s.src.args if isinstance(s.src, ir.Call) else ()
            if s.name == "tvm_storage_sync":
                if len(args) == 1:
                    ids.add(0)
                    continue
                if len(args) == 2 and args[1] != ir.Const(0):
                    return None   # `bar.sync id, 0`: every thread of the block, on barrier id
                args = args[1:]
            if not args or not isinstance(args[0], ir.Const) or not isinstance(args[0].value, int):
                return None
            ids.add(args[0].value)
    return ids


def arm_lines(st: PIf) -> tuple:
    """(the branch's line, the lines where its taken arm's statements start): a branch the numeric
    pass checks taken every time, whose reads of shared memory may then run where the real
    outcome skips them (analyze.py: a read of unwritten bytes there is not a definite bug). Start
    lines only: the repair's reuse of a run compares where spans start (repair/prefix.py)."""
    return (st.span.line, frozenset(s.span.line for s in statements(st.then)
                                    if getattr(s, "span", None) is not None))


def _arm_extent(st: PIf) -> tuple:
    """(the branch's span, first and last source offsets of the arm's statements): what the machine treats as
    inside a fenced arm."""
    spans = [s.span for s in statements(st.then) if getattr(s, "span", None) is not None]
    return (st.span, min(x.start for x in spans), max(x.end for x in spans))


def _guarded(effects: list, cond, src, side: bool) -> list:
    """`effects` (POps of one arm of a selection) run only by the threads whose `cond` is `side`;
    by every thread where `cond` (Elaborator.compile_if_known) has no value in the run, or where
    it is None (no compiled condition). Names and syntax stay the POps' own, so every analysis
    that reads them is unchanged; only a run's threads differ. `src`: the condition's syntax, in
    `POp.guard` for the gate's emitter."""
    if cond is None:
        return effects

    def guard(run):
        def guarded(env, tids):
            c = cond(env)
            if c is None:
                return run(env, tids)
            if isinstance(c, np.ndarray):
                keep = c[tids].astype(bool) == side
                if keep.all():
                    return run(env, tids)
                if not keep.any():
                    return []
                return run(env, interned(tids[keep]))
            return run(env, tids) if bool(c) == side else []
        return guarded
    return [POp(x.name, x.span, guard(x.run), x.src, ((src, side),) + x.guard) if isinstance(x, POp) else x
            for x in effects]


def _same_accesses(a, b) -> bool:
    """Two access-only statement lists that touch the same shared bytes in the same order (the
    arms of `if row < len: S[i] = G[..] else: S[i] = 0`): only the values they store differ."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if type(x) is not type(y):
            return False
        if isinstance(x, POp):
            if x.name != y.name or x.src is None or y.src is None:
                return False
            if x.name in ("load", "store"):
                if x.src != y.src:   # the shared subscript (spans are not compared)
                    return False
            else:
                if not isinstance(x.src, ir.Call) or not isinstance(y.src, ir.Call) or \
                        x.src.name != y.src.name or len(x.src.args) != len(y.src.args):
                    return False
                ptr_x = [a for a in x.src.args if isinstance(a, ir.Call) and a.name == "T.tvm_access_ptr"]
                ptr_y = [a for a in y.src.args if isinstance(a, ir.Call) and a.name == "T.tvm_access_ptr"]
                if ptr_x != ptr_y or not ptr_x:
                    return False
        elif isinstance(x, PLoop):
            if x.var != y.var or x.src != y.src or not _same_accesses(x.body, y.body):
                return False
        elif isinstance(x, PIf):
            if x.src != y.src or not _same_accesses(x.then, y.then) or \
                    not _same_accesses(x.other, y.other):
                return False
        elif not isinstance(x, PNote):
            return False
    return True


def _numeric_pass(el: Elaborator, program: Program) -> None:
    """Find where numbers loaded from read-only global memory decide anything the machine runs,
    and prepare what engine/inputs.py enumerates (its module text says the cases)."""
    from .exprs import shared_index_exprs as _shared_exprs
    numeric_roots = {r for r, t in el.truth_only.items() if not t and r not in el.written_roots}
    if not numeric_roots:
        return
    info = NumericInputs()
    program.numeric = el.numeric_info = info
    block_vars = set(el.launch.block_vars)
    lets: dict = {}      # let name -> its value as written (names of earlier lets inside)
    conds: list = []     # (PIf, loop variables around it): relevant branches on a loaded number
    loops: list = []     # relevant loops whose bounds mention a loaded number
    problems: list = []

    def is_cell(x) -> bool:
        view = el.view_of(x.value) if isinstance(x, ir.Subscript) else None
        return view is not None and el.roots.get(view.name) in numeric_roots

    data_registers: set = set()   # register regions that hold a value computed from a loaded number
    data_shared: set = set()      # shared regions whose every write stores such a value

    def is_data(x) -> bool:
        """A load of a loaded number, of a register holding one, or of shared memory holding one."""
        if is_cell(x):
            return True
        view = el.view_of(x.value) if isinstance(x, ir.Subscript) else None
        reg = el.register_of(view)
        if reg is not None:
            return reg[0] in data_registers
        return view is not None and view.is_shared and view.region is not None and \
            view.region.name in data_shared

    def mentions(e) -> bool:
        return bool(free_names(e) & set(lets)) or any(is_data(x) for x in _subscripts(e, []))

    _fold_trips(el, program, info, is_cell)
    _register_lets(el, program, is_cell)
    _register_copies(el, program, is_cell)
    _taint_registers(el, program.body, el.func.body, lets, data_registers, data_shared, mentions)

    def walk(stmts, loop_vars: frozenset, loop=None, around: tuple = ()) -> None:
        for st in stmts:
            if isinstance(st, PLet):
                if st.src is not None and mentions(st.src):
                    lets[st.name] = st.src
            elif isinstance(st, PIf):
                if st.src is not None and mentions(st.src):
                    if not st.relevant:
                        skipped.append(st)
                        continue
                    conds.append((st, loop_vars))
                    parents[id(st)] = loop
                    enclosing[id(st)] = around
                if st.relevant:
                    walk(st.then, loop_vars, around=around)
                    walk(st.other, loop_vars, around=around)
            elif isinstance(st, PLoop):
                if not st.relevant:
                    continue
                if any(mentions(x) for x in st.src):
                    loops.append(st)
                walk(st.body, loop_vars | {st.var}, st, around + (st,))
            elif isinstance(st, POp) and st.src is not None:
                out: list = []
                _shared_exprs(st.src, el.views, out)
                if any(mentions(x) for x in out):
                    uses.append((out, f"line {st.span.line}: a loaded number decides a shared "
                                      "address or a synchronization argument"))
            elif isinstance(st, PStore):
                # a value computed from a loaded number only makes the register data (its uses
                # are judged where they decide something); an element chosen by one is unknown
                if st.src and st.src[0] is not None and mentions(st.src[0]):
                    uses.append(([st.src[0]], f"line {st.span.line}: a loaded number decides "
                                              "which register element is written"))

    uses: list = []      # (expressions, why): shared addresses / registers reading a loaded number
    skipped: list = []   # branches the machine skips (nothing shared inside) on a loaded number
    parents: dict = {}   # id(branch) -> the loop whose body holds it directly (None: none)
    enclosing: dict = {}  # id(branch) -> the relevant loops around it, outermost first
    walk(program.body, frozenset())
    if not (lets or conds or loops or uses or info.fold_trips):
        program.numeric = el.numeric_info = None   # loaded numbers decide nothing: as before
        return
    for st in skipped:
        st.src = None   # nothing for a prover to read
    replaced, fix = _length_symbols(el, program, info, lets, conds, loops, numeric_roots, problems)
    other_lets = {n: v for n, v in lets.items() if n not in replaced}

    def expand(e):
        return fix(_inline(fix(e), other_lets))

    # a length symbol may decide shared addresses: the size prover reads them like a dynamic K's
    for exprs, why in uses:
        if any(free_names(expand(x)) & set(lets) or any(is_data(c) for c in _subscripts(expand(x), []))
               for x in exprs):
            problems.append(why)

    # branches around shared accesses only whose condition also reads a symbolic size (`bos +
    # max_kv_i < S`): enumerating their cells would tie the size to loaded numbers, which no size
    # proof follows, so they are taken by every thread instead, with every other branch on the
    # same cells (all of them around shared accesses only: a branch on one of those cells around
    # a barrier must see the same outcome as they do), where no bound or use reads the cells
    def cell_texts(e) -> set:
        return {expr_text(x) for x in _subscripts(expand(e), []) if is_cell(x)}
    owner: dict = {}     # cell text -> the ids of the branches reading it
    for st, _ in conds:
        for c in cell_texts(st.src):
            owner.setdefault(c, set()).add(id(st))
    by_id = {id(st): st for st, _ in conds}
    used = set()
    for x in [x for lp in loops for x in lp.src] + [x for exprs, _ in uses for x in exprs]:
        used |= cell_texts(x)
    takes: set = set()
    for st, _ in conds:
        if id(st) in takes or not cell_texts(st.src) or not free_names(expand(st.src)) & set(program.symbols):
            continue   # (a condition of length symbols alone is the size provers' to decide)
        group, todo = set(), [id(st)]
        while todo:   # the branches linked to this one by a shared cell
            i = todo.pop()
            if i not in group:
                group.add(i)
                todo += [j for c in cell_texts(by_id[i].src) for j in owner[c]]
        members = [by_id[i] for i in group]
        if all(not m.other and _access_only(m.then) and _may_hold(expand(m.src), is_data) and
               not cell_texts(m.src) & used for m in members):
            takes |= group

    for st, loop_vars in conds:
        cond = expand(st.src)
        cells = [x for x in _subscripts(cond, []) if is_cell(x)]
        # registers and shared memory holding a value computed from a loaded number: the
        # machine never knows it, for any thread (only the reductions below apply)
        held = [x for x in _subscripts(cond, []) if not is_cell(x) and is_data(x)]
        # `T` only names TVMScript's namespace (`T.int8(1)`), never a value
        names = free_names(cond) - {x.value.name for x in cells if isinstance(x.value, ir.Var)} - {"T"}
        uniform = names <= block_vars | set(program.symbols)
        if id(st) in takes:
            # it only guards shared accesses: taken by every thread, every pattern of outcomes
            # runs a subset of its accesses, and no condition of it is left to enumerate or for
            # the size provers (`bos + max_kv_i < S` would tie S to loaded numbers)
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "taken"))
            info.taken_arms.append(arm_lines(st))
        elif uniform and cells and not held:
            for sub in cells:
                info.cells[id(sub)] = _cell_key(el, sub)
            info.conditions.append((cond, st.span.line))
        elif cells and all(c == cells[0] for c in cells) and not held and \
                _iteration_choice(el, program, st, parents.get(id(st)), cond, cells[0], lets, mentions):
            continue
        elif not cells and not held and not (
                names & set(el.launch.thread_vars) and _access_only(st.then)
                and _access_only(st.other) and _same_accesses(st.then, st.other)):
            # decided by sizes, loop counters and thread ids: the size prover reads it (a
            # condition it cannot reduce to trip counts refutes the proof, never the verdict)
            continue
        elif cells and not held and not st.other and _access_only(st.then) and \
                _unrolled_conditions(el, program, info, cond, st, names - block_vars,
                                     enclosing.get(id(st), ()), is_cell):
            continue   # an arm of accesses alone, decided per iteration rather than taken every time
        elif not st.other and _access_only(st.then):
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "taken"))
            info.taken_arms.append(arm_lines(st))
        elif _access_only(st.then) and _access_only(st.other) and _same_accesses(st.then, st.other):
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "same"))
        elif not held and _fenced_branch(el, program, st, cond, names, block_vars):
            # every outcome pattern runs a subset of the taken-everywhere run's fenced instances
            st.cond, st.src = (lambda env: True), ir.Const(True)
            info.reduced.append((st.span.line, "fenced"))
            info.taken_arms.append(arm_lines(st))
            program.fenced_arms.append(_arm_extent(st))
        elif cells and not held and _unrolled_conditions(el, program, info, cond, st, names - block_vars,
                                                         enclosing.get(id(st), ()), is_cell):
            continue   # (the fenced reduction first: one run where it applies, not a pattern each)
        elif cells and all(c == cells[0] for c in cells) and not held and \
                _iteration_choice(el, program, st, parents.get(id(st)), cond, cells[0], lets, mentions,
                                  allow_pattern=True):
            continue   # every pattern run as it is (no reduction above applies)
        else:
            problems.append(f"line {st.span.line}: a branch on a loaded number" +
                            (f" (held in {', '.join(sorted({expr_text(x.value) for x in held}))})"
                             if held else "") +
                            " that differs between threads or loop iterations, or decides "
                            "synchronization")
    _check_iteration_roots(el, program, problems)
    if problems:
        info.problem = problems[0]
        for sym, _ in info.lengths:   # no size to plan: the kernel stays unknown, quickly
            if sym in program.symbols:
                program.symbols.remove(sym)
        program.size_assumptions.clear()
    # a loaded number left in a let decides nothing the machine runs (or a problem above says
    # so): the provers need not read it (a page-table lookup feeding a global address)
    _drop_let_sources(program.body, set(lets) - replaced)
    _live_control(el, program)


_FULL_BARRIER_SCOPES = ("shared", "shared.dyn")


# the most iterations of the loops around a branch `_unrolled_conditions` writes out
UNROLLED_CONDITIONS = 16


def _unrolled_conditions(el: Elaborator, program: Program, info, cond, st: PIf, names: set,
                         around: tuple, is_cell) -> bool:
    """A branch on loaded cells inside loops of few constant trips (TileLang's pipelined sparse
    attention with 4 selected blocks: `for i in T.serial(2): if M[i_t * 4 + i] * 64 <= i_t:` around
    the compute of stage i, beside the prologue's loads of the same cells under the same test)
    whose condition reads, besides the cells, only block indices, sizes and those loops' variables:
    in each iteration it is a block-uniform condition on one set of cells, as a branch outside the
    loops is. Written out once per iteration (the loop variables replaced by their values), each
    copy joins the uniform conditions whose outcome combinations the runs enumerate, so a cell
    that the prologue's branch reads as well gets one value in both (before, such a branch was
    taken every time, and a run read a stage whose load the prologue's outcome had skipped: an
    unknown). True when written out; False leaves the branch to the other reductions."""
    free = names - set(program.symbols) - {"T"}
    loops = [lp for lp in around if lp.var in free]
    if not free or {lp.var for lp in loops} != free or len(loops) != len(free):
        return False
    ranges = []
    for lp in loops:
        if len(lp.src) != 2 or not all(isinstance(e, ir.Const) and isinstance(e.value, int)
                                       and not isinstance(e.value, bool) for e in lp.src):
            return False
        ranges.append(range(lp.src[0].value, lp.src[0].value + lp.src[1].value))
    if not ranges or math.prod(len(r) for r in ranges) > UNROLLED_CONDITIONS:
        return False
    copies = []
    for values in itertools.product(*ranges):
        bound = dict(zip((lp.var for lp in loops), values))
        copies.append(ir.rewrite(cond, lambda x: ir.Const(bound[x.name])
                                 if isinstance(x, ir.Var) and x.name in bound else None))
    # each cell doubles the outcome combinations: past the runs' pattern limit the search would
    # stop unfinished (an unknown, after many runs); the branch is then left as before
    texts = {expr_text(x) for c in [c for c, _ in info.conditions] + copies
             for x in _subscripts(c, []) if is_cell(x)}
    if 2 ** len(texts) > info.max_patterns:
        return False
    for copy in copies:
        for sub in (x for x in _subscripts(copy, []) if is_cell(x)):
            info.cells[id(sub)] = _cell_key(el, sub)
        info.conditions.append((copy, st.span.line))
    return True


def _iteration_choice(el: Elaborator, program: Program, st: PIf, loop, cond, cell, lets: dict,
                      mentions, allow_pattern: bool = False) -> bool:
    """`for k: x = M[f(k)]; __syncthreads(); if c(x): B1; __syncthreads(); if c(x): B2 ...`
    (NSA's selected blocks): one cell per iteration, at an address the same for every thread,
    decides whether the iteration's branches run, and nothing else the machine evaluates reads
    the cell or `k`. The outcome of each iteration is then an unknown truth value of the run
    (engine/inputs.py), the same for every thread, searched by pattern. What is required:
    - the loop body is lets of the loaded number (all before the first branch), full-block
      barriers (`__syncthreads`, every thread) and branches with no `else` on one condition, so
      a false iteration has no event but those barriers;
    - the branches read neither `k` nor a loaded number in anything the machine evaluates
      (shared addresses, synchronization arguments, branches, bounds, registers, lets): a true
      iteration does the same whichever k it is;
    - the loop's bounds are the same for every thread and read no loaded number;
    - the parameter is loaded nowhere else, the cell address reads only `k`, block indices and
      sizes, distinct k read distinct cells (z3), and the condition reads only the cell, block
      indices and sizes: the outcomes of different iterations are independent, and for each
      block z3 decides whether both outcomes are possible (else the one possible is taken).
    So every outcome pattern is possible, and a run depends on it only through its sequence of
    false iterations (F: barriers only) and true ones (T). Two barriers with nothing between
    order what one orders, so consecutive Fs run like one, and an F next to a T's own barrier
    (before its first branch, or after its last) runs like nothing: with a barrier before the
    first branch a pattern runs like T^m or T^m F, with one after the last like T^m or F T^m (m
    true iterations); with no barrier at all an F does nothing and only m matters. The search
    (`Inputs.value`) runs the patterns whose outcome changes at most once (mode "monotone": true
    ones all first, or all last) or the counts (mode "count"): every class is among them. A
    barrier only between branches would not collapse (T F T differs from T T): not taken.
    Barriers inside a branch's arm (TileLang's block-sparse TMA copy: shared stores, sync, an
    elected TMA store and its wait) change none of this: every thread takes the same outcome, so
    a true iteration's own barriers are passed by all threads alike, and the collapse only reads
    the loop-level barriers next to a false iteration's (two barriers with nothing between,
    whatever is in flight). The cell may be read through a register copy (`_register_copies`).

    Where the patterns do not collapse (a branch evaluates `k` or a value of the loaded number,
    a barrier lies only between branches) and `allow_pattern` (asked last, where no other
    reduction of `_numeric_pass` applies), mode "pattern" runs each pattern as it is: exact, as
    every pattern is an input; a loop longer than MAX_PATTERN_TRIPS or of symbolic length varies
    only its first PATTERN_ITERATIONS iterations and is never proved (`Program.open_patterns`)."""
    from .inputs import INPUTS
    if loop is None or not loop.relevant or not loop.body:
        return False
    plans = el.__dict__.setdefault("_iteration_plans", {})
    if id(loop) in plans:   # the loop's other branches: one plan, one cell per iteration
        plan = plans[id(loop)]
        if plan is None or plan[0] != cond or st not in plan[2]:
            return False
        st.cond = plan[1]
        return True
    plans[id(loop)] = None
    branches, barriers = [], []
    for pos, x in enumerate(loop.body):
        if isinstance(x, PLet) and x.name in lets and not branches:
            continue
        if isinstance(x, POp) and x.name == "tvm_storage_sync" and isinstance(x.src, ir.Call) \
                and len(x.src.args) == 1 and el.literal(x.src.args[0]) in _FULL_BARRIER_SCOPES:
            barriers.append(pos)
            continue
        if isinstance(x, PIf) and not isinstance(x, PWhile) and not x.other and x.src == st.src:
            branches.append(x)
            continue
        return False
    first, last = loop.body.index(branches[0]), loop.body.index(branches[-1])
    # where the patterns do not collapse (an arm that reads k or a loaded number, a barrier
    # only between branches), every pattern is run as it is: "pattern" mode, below
    collapses = not barriers or (barriers[0] < first or barriers[-1] > last) and \
        _outside_branches(program.body, loop)
    for b in branches:
        evaluated = _evaluated_names(el, b.then)
        if evaluated is None:
            return False
        if evaluated & (set(lets) | {loop.var}):
            collapses = False
        stack = list(b.then)
        while stack:   # no loaded number decides anything inside (no other data branch or bound)
            x = stack.pop()
            if isinstance(x, PIf):
                if x.src is not None and mentions(x.src):
                    return False
                stack += list(x.then) + list(x.other)
            elif isinstance(x, PLoop):
                if any(mentions(e) for e in x.src):
                    return False
                stack += list(x.body)
            elif isinstance(x, PStore) and x.src and x.src[0] is not None and mentions(x.src[0]):
                return False   # (a register element chosen by a loaded number)
            elif isinstance(x, (PLet, PStore)) and x.src is not None and any(
                    e is not None and mentions(e) for e in (x.src if isinstance(x, PStore) else (x.src,))):
                collapses = False   # a value computed from it: exact only pattern by pattern
    uniform = set(el.launch.block_vars) | set(program.symbols) | {"T"}
    if not loop.src or free_names(loop.src) - uniform or any(mentions(e) for e in loop.src):
        return False
    placeholder = ir.Var("\x00cell")
    outside = _replace_subscripts(cond, [(cell, placeholder)])
    if free_names(outside) - uniform - {placeholder.name, loop.var} or \
            free_names(cell.indices) - uniform - {loop.var}:
        return False
    view = el.view_of(cell.value)
    root = el.roots.get(view.name) if view is not None else None
    if root is None or root in el.written_roots:
        return False
    if not _injective(tuple(cell.indices), loop.var, loop.src):
        return False
    if not collapses and not allow_pattern:
        del plans[id(loop)]   # (asked again, last, where no reduction of _numeric_pass applies)
        return False
    _, key_fn, bits = _cell_key(el, cell)
    names = sorted(free_names(outside) - {placeholder.name, "T"})
    mode = "pattern" if not collapses else "monotone" if barriers else "count"
    lines = tuple(b.span.line for b in branches)
    # several loops meeting the same cells in the same order (a producer's and a consumer's)
    # share one group: _check_iteration_roots requires them all counted, or runs them all by
    # pattern (`plan_mode`, shared by the loops of one parameter)
    plan_mode = el.__dict__.setdefault("_iteration_modes", {}).setdefault(root, {"mode": mode})
    if mode == "pattern":
        plan_mode["mode"] = "pattern"
    possible: dict = {}   # values of the condition's other names -> None (both) or the one outcome
    witness_values: dict = {}   # the same -> {outcome: a cell value that gives it}
    span, esize, offset = st.span, view.elem_size, view.byte_offset
    open_loop = _pattern_open(loop)

    def choose(env):
        inputs = env.get(INPUTS)
        if inputs is None:
            raise NotConcrete("a value loaded from global memory (data-dependent)", span)
        try:
            key = key_fn(env)
            here = tuple(int(env[n]) for n in names)
        except Exception as err:  # noqa: BLE001 -- a cell or size this run cannot compute: unknown
            raise NotConcrete(f"the cell deciding this branch ({err})", span) from None
        mode_now = plan_mode["mode"]   # (final before any run: _check_iteration_roots)
        if here not in possible:
            witness_values[here] = {}
            possible[here] = _outcomes(outside, placeholder.name, bits, dict(zip(names, here)), span,
                                       signed=not str(view.dtype).startswith("uint"),
                                       witnesses=witness_values[here])
        if possible[here] is not None:
            if mode_now == "monotone":   # the shape of the pattern matters, not only its count
                raise NotConcrete("an iteration whose outcome the loaded value cannot change, in a "
                                  "loop searched by the shape of its pattern", span)
            return possible[here]   # counted (or every pattern run): every possible count is reached
        # by pattern: the plain depth-first search, every pattern of the cells met (inputs.py).
        # A loop of symbolic length is never proved this way (analyze.py says so): only its first
        # PATTERN_ITERATIONS iterations vary, the rest taken, so a long size run stays one run
        # per pattern of those (what it finds is real: it is a possible input)
        varied = not (mode_now == "pattern" and open_loop and
                      _iteration_index(env, loop) >= PATTERN_ITERATIONS)
        group = None if mode_now == "pattern" else ("iteration", root, mode_now)
        outcome = bool(inputs.value(key, f"{view.name}[{(key[1] - offset) // esize}]", varied,
                                    group=group))
        if outcome in witness_values[here]:
            # a witness names the cell's value, not the outcome (`0 <= idx` false: idx = -1),
            # which the sanitizer gate launches with
            inputs.shown.setdefault(key, witness_values[here][outcome])
        return outcome
    # where z3 shows both outcomes possible in every block (the condition's other names are
    # block indices of fixed extents), the branches decide nothing that differs between blocks:
    # their conditions leave the control names, so one block stands for all (`_live_control`)
    ranges = {n: el.launch.block_range(el.launch.block_vars[n]) for n in names
              if n in el.launch.block_vars}
    if len(ranges) == len(names) and all(r is not None for r in ranges.values()) and \
            _possible_everywhere(outside, placeholder.name, bits, ranges,
                                 signed=not str(view.dtype).startswith("uint")):
        program.__dict__.setdefault("uniform_choice_lines", set()).update(lines)
        everywhere = True
    else:
        everywhere = False
    originals = [(b, b.cond) for b in branches]
    for b in branches:
        b.cond = choose
    plans[id(loop)] = (cond, choose, branches)
    loop.per_iteration_inputs = True
    canon = _rewrite(tuple(cell.indices), {loop.var: ir.Var("%k")})
    el.__dict__.setdefault("_iteration_roots", {}).setdefault(root, []).append(
        (loop, canon, mode, originals))
    program.iteration_choices.append((loop.span.line, lines, root, mode, everywhere))
    return True


def _pattern_open(loop: PLoop) -> bool:
    """Whether a loop run pattern by pattern has more patterns than a search runs: a length
    that is not one constant of at most MAX_PATTERN_TRIPS (a symbolic size, a long loop)."""
    try:
        trips = int(loop.extent({}))
    except Exception:  # noqa: BLE001 -- a length that reads a size or a block index
        return True
    return trips > MAX_PATTERN_TRIPS


def _iteration_index(env: dict, loop: PLoop) -> int:
    """How many iterations of `loop` came before the current one (its bounds are uniform)."""
    try:
        return int(np.max(env[loop.var])) - int(np.max(loop.start(env)))
    except Exception:  # noqa: BLE001 -- not computable here: count it among the first
        return 0


def _check_iteration_roots(el: Elaborator, program: Program, problems: list) -> None:
    """The loops `_iteration_choice` planned, per parameter: every load of it is one of theirs
    (one per loop), and several loops read the same cells in the same order (one index
    expression, one range) and are all counted (a false iteration does nothing in any of them),
    so one count per run stands for every pattern in each. Otherwise the branches get their
    conditions back (the run cannot evaluate them: `unknown`) and the problem is said."""
    for root, entries in getattr(el, "_iteration_roots", {}).items():
        loads = [x for x in _subscripts(el.func.body, []) if
                 (lambda v: v is not None and el.roots.get(v.name) == root)(el.view_of(x.value))]
        # a register copy of the parameter (`_register_copies`): each read of the register is a
        # load of its cell, the copy itself none
        copied, copy_reads = el.__dict__.get("register_copies", {}).get(root, (set(), []))
        loads = [x for x in loads if id(x) not in copied] + list(copy_reads)
        loop0, canon0, _, _ = entries[0]
        # by pattern, every loop's outcomes are its cells' (keyed by address), whatever the order
        by_pattern = el.__dict__.get("_iteration_modes", {}).get(root, {}).get("mode") == "pattern"
        why = None
        if len(loads) != len(entries):
            why = "is loaded outside the loops whose iterations it decides"
        elif len(entries) > 1 and not by_pattern and not all(
                mode == "count" and canon == canon0 and lp.src == loop0.src for lp, canon, mode, _ in entries):
            why = ("decides the iterations of several loops that do not meet the same cells in "
                   "the same order, or pass a barrier in a false iteration")
        if why is None:
            if by_pattern:
                program.iteration_choices[:] = [c[:3] + ("pattern",) + c[4:] if c[2] == root else c
                                                for c in program.iteration_choices]
                # a loop whose length is a symbolic size: its longer runs have more patterns than
                # any size run checks, so no size proof covers them (analyze.py says so)
                program.open_patterns += [(lp.span.line, root) for lp, _, _, _ in entries
                                          if _pattern_open(lp)]
            continue
        problems.append(f"line {loop0.span.line}: {root} {why}")
        for _, _, _, originals in entries:
            for b, fn in originals:
                b.cond = fn
        program.iteration_choices[:] = [c for c in program.iteration_choices if c[2] != root]


def _only_value(cond, name: str) -> int | None:
    """z3: the one integer value of `name` for which `cond` holds; None when it holds for none,
    for several, or z3 cannot encode it."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    x = z3.Int(name)
    try:
        term, side = encode(cond, {name: x})
    except (Unencodable, z3.Z3Exception):
        return None
    truth = term if z3.is_bool(term) else term != 0
    q = Query(*side, truth)
    if q.check() != z3.sat:
        return None
    k = q.number(x)
    if Query(*side, truth, x != k).check() != z3.unsat or abs(k) >= 2 ** 31:
        return None
    return k


def _may_hold(cond, is_data) -> bool:
    """z3: `cond` is true for some values of its names, every loaded value (`is_data`) a name of
    its own: a branch checked taken is one some input takes, so what is found inside is real.
    True where z3 cannot tell (an unencodable condition: the taken run still covers every race)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    loads: dict = {}

    def name_load(x):
        if isinstance(x, ir.Subscript) and is_data(x):
            return loads.setdefault(x, ir.Var(f"%load{len(loads)}"))
        return None
    plain = ir.rewrite(cond, name_load)
    env = {n: z3.Int(n) for n in free_names(plain)}
    try:
        term, side = encode(plain, env)
    except (Unencodable, z3.Z3Exception):
        return True
    truth = term if z3.is_bool(term) else term != 0
    return Query(*side, truth).check() != z3.unsat


def _possible_everywhere(cond, cell: str, bits: int, ranges: dict, signed: bool) -> bool:
    """z3: for every value of the names in `ranges` (name -> (lo, hi)) some cell value makes
    `cond` true and some makes it false."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    v = z3.Int("cell")
    zenv = {cell: v, **{n: z3.Int(n) for n in ranges}}
    try:
        term, side = encode(cond, zenv)
    except Unencodable:
        return False
    if side:
        return False   # auxiliary variables would need quantifying too
    truth = term if z3.is_bool(term) else term != 0
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    within = [c for n, (a, b) in ranges.items() for c in (zenv[n] >= a, zenv[n] < b)]
    cell_ok = z3.And(v >= lo, v < hi)
    return all(unsat(*within, z3.ForAll([v], z3.Implies(cell_ok, t)))
               for t in (z3.Not(truth), truth))


def _outside_branches(stmts, target) -> bool:
    """`target` sits in `stmts` with loops, and no branch, around it."""
    for st in stmts:
        if st is target:
            return True
        if isinstance(st, PLoop) and _outside_branches(st.body, target):
            return True
    return False


def _outcomes(cond, cell: str, bits: int, env: dict, span, signed: bool = True,
              witnesses: dict | None = None):
    """None when `cond` may be true and may be false for some value of the signed `bits`-bit
    cell (the other names as in `env`); else the one outcome possible (z3). `witnesses`, where
    given, gets a value of the cell for each possible outcome ({True: v, False: v})."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    v = z3.Int("cell")
    cond = _rewrite(cond, {n: ir.Const(int(x)) for n, x in env.items()})   # constant divisors
    try:
        term, side = encode(cond, {cell: v})
    except Unencodable as err:
        raise NotConcrete(f"a branch on a loaded value z3 cannot express ({err})", span) from None
    truth = term if z3.is_bool(term) else term != 0
    bounds = [v >= -(1 << (bits - 1)), v < (1 << (bits - 1)), *side] if signed else \
        [v >= 0, v < (1 << bits), *side]
    query = Query(*bounds)   # one context, each question pushed on it

    def sat(*terms):
        """The cell's value in a model of `terms`, or None when there is none."""
        query.solver.push()
        query.add(*terms)
        try:
            return query.number(v) if query.check() == z3.sat else None
        finally:
            query.solver.pop()
    can = [sat(t) is not None for t in (truth, z3.Not(truth))]
    if witnesses is not None:   # a value of the cell that gives each possible outcome
        for outcome, t, ok in zip((True, False), (truth, z3.Not(truth)), can):
            if ok:   # (a small one where it serves: -1 reads better than -2147483648)
                witnesses[outcome] = next((c for c in (0, 1, -1) if sat(t, v == c) is not None),
                                          None)
                if witnesses[outcome] is None:
                    witnesses[outcome] = sat(t)
    if all(can):
        return None
    if not any(can):
        raise NotConcrete("a branch on a loaded value that z3 finds neither true nor false", span)
    return can[0]


def _taint_registers(el: Elaborator, body, func_body, lets: dict, data_registers: set,
                     data_shared: set, mentions) -> None:
    """Follow a loaded number through lets, registers and shared memory, to a fixed point (a
    register written late in a loop body is read early in the next iteration): a let or a
    register store whose value `mentions` one makes its name data; a shared region is data when
    every write to it is a plain store (no copy or atomic names it) of such a value. What reads
    data is judged where it decides something (`_numeric_pass`)."""
    flat: list = []

    def collect(stmts) -> None:
        for st in stmts:
            if isinstance(st, (PLet, PStore)):
                flat.append(st)
            elif isinstance(st, PIf):
                collect(st.then)
                collect(st.other)
            elif isinstance(st, PLoop):
                collect(st.body)
    collect(body)
    stores: dict = {}      # shared region -> values stored by plain assignments
    pointed: set = set()   # shared regions some operation gets a pointer to (copies, atomics)
    for x in ir.nodes(func_body):
        if isinstance(x, ir.Assign) and isinstance(x.target, ir.Subscript):
            view = el.view_of(x.target.value)
            if view is not None and view.is_shared and view.region is not None:
                stores.setdefault(view.region.name, []).append(x.value)
        if isinstance(x, ir.Call) and x.name == "T.tvm_access_ptr" and len(x.args) == 5:
            view = el.view_of(x.args[1])
            if view is not None and view.is_shared and view.region is not None:
                pointed.add(view.region.name)
    changed = True
    while changed:
        changed = False
        for st in flat:
            if isinstance(st, PLet):
                if st.name not in lets and st.src is not None and mentions(st.src):
                    lets[st.name] = st.src
                    changed = True
            elif st.region not in data_registers and st.src and st.src[-1] is not None and \
                    mentions(st.src[-1]):
                data_registers.add(st.region)
                changed = True
        for region, values in stores.items():
            if region not in data_shared and region not in pointed and all(mentions(v) for v in values):
                data_shared.add(region)
                changed = True


def _fold_trips(el: Elaborator, program: Program, info, is_cell) -> None:
    """Loops whose trip count is computed alike in every thread from one-element registers that
    fold loaded numbers (DeepSeek V3.2's lightning indexer: `e_max[0] = -2**31`, then
    `for i in range(4): e_max[0] = T.max(e_max[0], min(ite(.., CuSeqLenKE[bx * 4 + i], 0),
    seq_len_kv))`, and the producer's and the consumers' `for n in range((e_max[0] + 255 -
    s_min[0]) // 256)`, each after its own identical folds). Each register's value is followed
    through the statement lists as an expression (a fold loop of constant extent unrolled; a
    store of anything else, a store inside a loop, or arms that disagree leave it unknown).
    Where every such loop's count reads as the same expression E of loaded numbers at
    block-uniform addresses and uniform names, E is one block-uniform number: the loops run the
    symbol `trips(line ..)` (every value >= 0; a negative E runs no iteration, as 0) instead, in
    the runs and for the provers. The registers themselves stay data: any other use that decides
    something the machine runs is reported there (unknown), so only the trip count is assumed."""
    uniform = set(el.launch.block_vars) | set(program.symbols) | set(el.symbols) | {"T"}

    def register(x):
        if not isinstance(x, ir.Subscript) or len(x.indices) != 1 or x.indices[0] != ir.Const(0):
            return None
        reg = el.register_of(el.view_of(x.value))
        return reg[0] if reg is not None and reg[2] == 1 and reg[0] not in el.escaped_registers else None

    def substitute(e, vals):
        """`e` with each register read replaced by its value; None where one is unknown."""
        missing = [x for x in ir.nodes(e) if register(x) is not None and vals.get(register(x)) is None]
        if missing:
            return None
        return ir.rewrite(e, lambda x: vals[register(x)] if register(x) is not None else None)

    def uniform_data(e) -> bool:
        subs = _subscripts(e, [])
        bases = {x.value.name for x in subs if isinstance(x.value, ir.Var)}
        return all(is_cell(x) and free_names(x.indices) <= uniform for x in subs) and \
            free_names(e) - bases <= uniform

    def stored(stmts, out: set) -> set:
        for st in stmts:
            if isinstance(st, PStore):
                out.add(st.region)
            elif isinstance(st, PIf):
                stored(st.then, out)
                stored(st.other, out)
            elif isinstance(st, PLoop):
                stored(st.body, out)
        return out

    def fold(lp: PLoop, vals):
        """A loop of constant extent whose body is one store into a register: its value after."""
        if len(lp.body) != 1 or not isinstance(lp.body[0], PStore) or len(lp.src) != 2:
            return None
        st = lp.body[0]
        start, extent = lp.src
        if not (isinstance(start, ir.Const) and isinstance(extent, ir.Const)) or \
                not 0 <= int(extent.value) <= 64 or st.size != 1 or len(st.src) != 2 or \
                st.src[0] != ir.Const(0) or st.src[1] is None:
            return None
        if not any(register(x) == st.region for x in ir.nodes(st.src[1])):
            return None   # not a fold: a store that does not read what it updates
        value = vals.get(st.region)
        for k in range(int(start.value), int(start.value) + int(extent.value)):
            here = dict(vals, **{st.region: value})
            value = substitute(_rewrite(st.src[1], {lp.var: ir.Const(k)}), here)
            if value is None or not uniform_data(value):
                return None
        return st.region, value

    found: list = []   # (loop, its trip count as an expression of loaded numbers)
    folds: set = set()   # registers some fold loop updates (a single store is `_register_lets`')

    def walk(stmts, vals: dict) -> dict:
        for st in stmts:
            if isinstance(st, PStore):
                value = None
                if st.size == 1 and len(st.src) == 2 and st.src[0] == ir.Const(0) and st.src[1] is not None:
                    value = substitute(st.src[1], vals)
                vals[st.region] = value if value is not None and uniform_data(value) else None
                if vals[st.region] is not None and any(register(x) == st.region for x in ir.nodes(st.src[1])):
                    # a fold of one step, written without its loop (`for bq_i in range(1)`, which
                    # TVM drops): it updates the register from its own known value, as a fold
                    # loop's iteration does (a register stored once stays `_register_lets`')
                    folds.add(st.region)
            elif isinstance(st, PIf):
                a, b = walk(st.then, dict(vals)), walk(st.other, dict(vals))
                vals = {k: a.get(k) if a.get(k) == b.get(k) else None for k in set(a) | set(b)}
            elif isinstance(st, PLoop):
                folded = fold(st, vals)
                if folded is not None:
                    vals[folded[0]] = folded[1]
                    folds.add(folded[0])
                    continue
                if st.relevant and len(st.src) == 2 and any(register(x) in folds for x in ir.nodes(st.src[1])):
                    trips = substitute(st.src[1], vals)
                    if trips is not None and _subscripts(trips, []) and uniform_data(trips) and \
                            not any(register(x) is not None for x in ir.nodes(st.src[0])):
                        found.append((st, trips))
                inner = stored(st.body, set())
                walk(st.body, {k: v for k, v in vals.items() if k not in inner})
                for r in inner:
                    vals[r] = None
        return vals
    walk(program.body, {})
    if not found or any(trips != found[0][1] for _, trips in found):
        return
    lines = sorted({lp.span.line for lp, _ in found})
    sym = f"trips(line {lines[0]})"
    written = expr_text(found[0][0].src[1])
    loaded = sorted({expr_text(x.value) for x in _subscripts(found[0][1], [])})
    for lp, _ in found:
        lp.extent = el.compile(ir.Var(sym))
        lp.src = (lp.src[0], ir.Var(sym))
    program.symbols.append(sym)
    program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
    program.size_lowest[sym] = 0
    info.lengths.append((sym, f"the trip count {written} of the loops at lines {lines}, registers "
                              f"every thread folds alike from numbers loaded from {', '.join(loaded)}"))
    info.fold_trips.append(sym)
    # the trip count as an expression of its cells (`fold0`, `fold1`, ..), for a launch that
    # must realise the symbol's value from the numbers it loads (the sanitizer gate: emit/prepare.py
    # fold_numbers): the skeleton folds the registers from them as the kernel does
    subs: dict = {}
    for x in _subscripts(found[0][1], []):
        subs.setdefault(x, f"fold{len(subs)}")
    expr = ir.rewrite(found[0][1], lambda x: ir.Var(subs[x]) if isinstance(x, ir.Subscript) and x in subs else None)
    info.fold_cells.append((sym, expr, {name: _cell_key(el, x)[1] for x, name in subs.items()}))


def _register_lets(el: Elaborator, program: Program, is_cell) -> None:
    """A one-element register stored exactly once, in the kernel body's top statement list, with
    a value of loaded numbers at block-uniform addresses (`block_count[0] = BlockCount[15 - bx]`)
    holds that value in every thread from the store on: it is a let written as a register store.
    Every load of it (all after the store: a top-level statement runs before every later line)
    reads, for the provers, as the stored expression, so the loaded numbers it carries are
    enumerated or become sizes like any other. The machine still runs the store and the loads;
    the run's store loads the value the plan chose for those cells (Inputs.number), so both
    agree. A register also written elsewhere, read before its store, or handed out by pointer
    stays data (`_taint_registers`), judged where it decides something."""
    stores: dict = {}     # region -> [(PStore, at the top level)]

    def collect(stmts, top: bool) -> None:
        for st in stmts:
            if isinstance(st, PStore):
                stores.setdefault(st.region, []).append((st, top))
            elif isinstance(st, PIf):
                collect(st.then, False)
                collect(st.other, False)
            elif isinstance(st, PLoop):
                collect(st.body, False)
    collect(program.body, True)
    uniform = set(el.launch.block_vars) | set(program.symbols) | {"T"}
    lets: dict = {}       # region -> the stored expression
    for region, found in stores.items():
        if len(found) != 1 or not found[0][1] or region in el.escaped_registers:
            continue
        st = found[0][0]
        if len(st.src) != 2 or st.src[0] != ir.Const(0) or st.src[1] is None or st.size != 1:
            continue
        value = st.src[1]
        subs = _subscripts(value, [])
        if not subs or not all(is_cell(x) for x in subs) or not free_names(value) - \
                {x.value.name for x in subs if isinstance(x.value, ir.Var)} <= uniform:
            continue
        if any(free_names(x.indices) - uniform for x in subs):
            continue
        lets[region] = (value, st.span.line)
    if not lets:
        return

    def region_of(x):
        if not isinstance(x, ir.Subscript):
            return None
        reg = el.register_of(el.view_of(x.value))
        return reg[0] if reg is not None and reg[0] in lets else None
    # every load after the store: a load on an earlier line (or the store's own) reads the
    # register before it holds the value
    targets = set()
    for x in ir.nodes(el.func.body):
        if isinstance(x, ir.Assign) and region_of(x.target) is not None:
            targets.add(id(x.target))
            if x.target.span.line != lets[region_of(x.target)][1]:
                lets.pop(region_of(x.target))   # another store the elaborated program dropped
    for x in ir.nodes(el.func.body):
        region = region_of(x)
        if region is not None and id(x) not in targets and x.span.line <= lets[region][1]:
            lets.pop(region)
    if not lets:
        return

    # every load of such a register, through whichever view names it, reads as the stored value
    # in what the provers read (the rewrite the loaded lengths use too)
    sub_map: list = []
    for x in ir.nodes(el.func.body):
        region = region_of(x)
        if region is not None and id(x) not in targets and all(x != sub for sub, _ in sub_map):
            sub_map.append((x, lets[region][0]))
    _rewrite_program(program.body, {}, sub_map)


def _register_copies(el: Elaborator, program: Program, is_cell) -> None:
    """A register array filled by plain vector copies of a read-only global parameter, each
    element written exactly once before any read, from one cell at an address the same for
    every thread (TileLang's block-sparse TMA copy: `for i in T.unroll(2): m[i * 4:i * 4 + 4] =
    BlockMask[by * 8 + i * 4:by * 8 + i * 4 + 4]`, then `a = m[i]` in a later loop): element e
    holds cell D + e in every thread, D = start - lo the same in every copy iteration (z3) and
    free of threads. Every read `m[e]` then reads, for the provers and `_numeric_pass`, as that
    cell (the rewrite `_register_lets` makes for one-element registers), so a branch on it is a
    branch on a loaded cell (`_iteration_choice`); `_check_iteration_roots` counts each read as
    a load of the parameter in place of the copy. What is required:
    - one assignment names the register (through any view), `m[lo:lo + n] = P[s:s + n]` with no
      cast, the register's element type the parameter's, not handed out by pointer;
    - it sits in the kernel's top statement list or in loops there (no branch around it) of
      constant bounds, lo reads only those loops' variables, and the copies cover every element
      once (lo in range, trips * n = the register's size, distinct lo's ranges disjoint);
    - every read is a one-element load on a line after the top statement holding the copy (so
      after every copy iteration), its index reading only the variables of loops around it
      (constant bounds) and sizes, inside the register for every value of those (z3).
    The machine still runs the copy (its elements unknown) and the reads: only where a branch's
    condition is replaced (a per-iteration choice) does the run decide anything by the cell."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    uniform = set(el.launch.block_vars) | set(program.symbols) | {"T"}
    threads = set(el.launch.thread_vars)

    def reg_of(x):
        if not isinstance(x, ir.Subscript):
            return None
        return el.register_of(el.view_of(x.value))

    # every assignment to a register, with its loops and whether a branch is around it
    writes: dict = {}    # region -> [(Assign, [(var, lo, extent)], in a branch, top statement)]
    reads: dict = {}     # region -> [(Subscript, [(var, lo, extent)])]

    def loop_of(st):
        it = st.iter
        if not (isinstance(it, ir.Call) and it.name in ("range", "T.serial", "T.unroll") and
                1 <= len(it.args) <= 2 and len(st.names) == 1):
            return None
        lo = el.literal(it.args[0]) if len(it.args) == 2 else 0
        hi = el.literal(it.args[-1])
        if not isinstance(lo, int) or not isinstance(hi, int):
            return (st.names[0], None, None)
        return (st.names[0], lo, hi - lo)

    def visit_expr(e, loops):
        for x in ir.nodes(e):
            reg = reg_of(x)
            if reg is not None:
                reads.setdefault(reg[0], []).append((x, loops))

    def walk(stmts, loops, branch, top):
        for st in stmts:
            here = st if top is None else top
            if isinstance(st, ir.Assign) and reg_of(st.target) is not None:
                writes.setdefault(reg_of(st.target)[0], []).append((st, loops, branch, here))
                for i in st.target.indices:
                    visit_expr(i, loops)
                visit_expr(st.value, loops)
            elif isinstance(st, ir.For):
                visit_expr(st.iter, loops)
                walk(st.body, loops + [loop_of(st)], branch, here)
            elif isinstance(st, (ir.If, ir.While)):
                visit_expr(st.cond, loops)
                walk(st.then if isinstance(st, ir.If) else st.body, loops, True, here)
                walk(st.other if isinstance(st, ir.If) else (), loops, True, here)
            elif isinstance(st, ir.With):
                visit_expr(st.ctx, loops)
                walk(st.body, loops, branch, here)
            else:
                visit_expr(st, loops)
    walk(el.func.body, [], False, None)

    def z3_env(names):
        return {n: z3.Int(n) for n in names}

    def bounded(loops, env):
        return [c for var, lo, ext in loops if var in env for c in (env[var] >= lo, env[var] < lo + ext)]

    sub_map: list = []
    for region, found in writes.items():
        if len(found) != 1 or region in el.escaped_registers:
            continue
        st, loops, branch, top = found[0]
        reg = reg_of(st.target)
        _, first, size, _ = reg
        tgt, val = st.target, st.value
        if branch or any(lp is None or lp[1] is None for lp in loops) or len(tgt.indices) != 1 or \
                not isinstance(tgt.indices[0], ir.Slice) or not isinstance(val, ir.Subscript) or \
                len(val.indices) != 1 or not isinstance(val.indices[0], ir.Slice):
            continue
        g = el.view_of(val.value)
        root = el.roots.get(g.name) if g is not None else None
        if root is None or root in el.written_roots or not is_cell(val) or \
                g.dtype != el.view_of(tgt.value).dtype:
            continue
        tsl, ssl = tgt.indices[0], val.indices[0]
        n = _fixed_width(tsl)
        if n is None or _fixed_width(ssl) != n or tsl.step is not None or ssl.step is not None:
            continue
        loop_vars = {lp[0] for lp in loops}
        if free_names(tsl.lo) - loop_vars - {"T"} or free_names(ssl.lo) & (threads | loop_vars) - loop_vars \
                or free_names(ssl.lo) - loop_vars - uniform:
            continue
        # every iteration of the loops around the copy: its target start and D = start - lo
        combos = [{}]
        for var, lo, ext in loops:
            combos = [dict(c, **{var: v}) for c in combos for v in range(lo, lo + ext)]
            if len(combos) > size:
                break
        if len(combos) * n != size - first:
            continue
        starts, offsets = [], []
        for c in combos:
            consts = {k: ir.Const(v) for k, v in c.items()}
            try:
                starts.append(int(el.compile(_rewrite(tsl.lo, consts))({})))
            except Exception:  # noqa: BLE001 -- a start this pass cannot compute: not taken
                starts = None
                break
            offsets.append(ir.BinOp("-", _rewrite(ssl.lo, consts), ir.Const(starts[-1])))
        if starts is None or sorted(k for s0 in starts for k in range(s0, s0 + n)) != \
                list(range(0, size - first)):
            continue
        d = offsets[0]
        try:
            env = z3_env(free_names(d) | set().union(*(free_names(o) for o in offsets)))
            d0, side = encode(d, env)
            same = True
            for o in offsets[1:]:
                t, s2 = encode(o, env)
                if not unsat(*side, *s2, t != d0):
                    same = False
                    break
        except Unencodable:
            same = False
        if not same:
            continue
        # every read: after the top statement holding the copy, one element, inside the register
        ok, pairs = True, []
        # (start lines only: the repair's reuse of a run compares where spans start)
        end = max(n.span.line for n in ir.nodes(top) if getattr(n, "span", None) is not None)
        for x, rloops in reads.get(region, []):
            if x is tgt:
                continue
            if x.span.line <= end or len(x.indices) != 1 or isinstance(x.indices[0], ir.Slice) or \
                    any(lp is None or lp[1] is None for lp in rloops):
                ok = False
                break
            e = x.indices[0]
            rvars = {lp[0] for lp in rloops}
            if free_names(e) - rvars - uniform or free_names(e) & threads:
                ok = False
                break
            try:
                zenv = z3_env(free_names(e))
                t, s3 = encode(e, zenv)
                if not unsat(*s3, *bounded(rloops, zenv), z3.Or(t < 0, t + first >= size)):
                    ok = False
                    break
            except Unencodable:
                ok = False
                break
            pairs.append((x, ir.Subscript(val.value, (ir.BinOp("+", d, e),), x.span)))
        if not ok or not pairs:
            continue
        for x, cell in pairs:
            if all(x != sub for sub, _ in sub_map):
                sub_map.append((x, cell))
        el.__dict__.setdefault("copied_registers", set()).add(region)
        program.register_copies.append((region, g.name, st.span.line, sorted({x.span.line for x, _ in pairs})))
        copies = el.__dict__.setdefault("register_copies", {}).setdefault(root, [set(), []])
        copies[0].add(id(val))
        copies[1].extend(x for x, _ in pairs)
    if sub_map:
        _rewrite_program(program.body, {}, sub_map)


def _drop_let_sources(body, names: set) -> None:
    for st in body:
        if isinstance(st, PLet) and st.name in names:
            st.src = None
        elif isinstance(st, PIf):
            _drop_let_sources(st.then, names)
            _drop_let_sources(st.other, names)
        elif isinstance(st, PLoop):
            _drop_let_sources(st.body, names)


def _cell_key(el: Elaborator, sub: ir.Subscript):
    """(root, fn(env) -> the cell's key as `_input_cell` builds it, bits of its dtype)."""
    view = el.view_of(sub.value)
    root = el.roots[view.name]
    shape = view.shape or ()
    strides = [int(np.prod(shape[k + 1:])) for k in range(len(sub.indices))] \
        if len(sub.indices) > 1 else [1]
    fns = [el.compile(i) for i in sub.indices]
    esize, offset = view.elem_size, view.byte_offset

    def key(env):
        try:
            flat = sum(f(env) * st for f, st in zip(fns, strides))
        except NotConcrete as err:
            from .inputs import NotConcreteKey
            raise NotConcreteKey(err.reason) from None
        return (root, offset + int(flat) * esize)
    return root, key, view.elem_bits


def _length_symbols(el, program, info, lets, conds, loops, numeric_roots, problems) -> dict:
    """Pairs of lets `start = R[e]`, `end = R[e + 1]` whose every use that decides a loop trip
    count or a branch depends on them only through end - start (z3): they become one symbolic
    size `end - start` >= 0 and start reads as 0. Returns the replacement of the pairs' names."""
    if el.notes:   # something the models do not know (a symbolic launch extent): stay unknown
        if loops:
            problems.append(f"a loop trip count decided by a loaded number, in a kernel with "
                            f"an unmodelled construct ({el.notes[0][0]})")
        return set(), (lambda e: e)
    bare = {n: v for n, v in lets.items() if isinstance(v, ir.Subscript) and len(v.indices) == 1
            and not isinstance(v.indices[0], ir.Slice)}
    pairs = []
    for start, sv in bare.items():
        for end, ev in bare.items():
            if start == end or sv.value != ev.value:
                continue
            a, b = sv.indices[0], ev.indices[0]
            plus_one = b == ir.BinOp("+", a, ir.Const(1)) or (
                isinstance(a, ir.Const) and isinstance(b, ir.Const) and isinstance(a.value, int)
                and b.value == a.value + 1)
            if plus_one:
                pairs.append((start, end))
    # the difference written as one let, `seqlen = R[e + 1] - start` (varlen attention):
    # that let is the length itself, provided nothing the provers read uses `start` apart
    differences = {}
    for name, v in lets.items():
        if isinstance(v, ir.BinOp) and v.op == "-" and isinstance(v.right, ir.Var) and \
                v.right.name in bare and isinstance(v.left, ir.Subscript) and len(v.left.indices) == 1:
            sv = bare[v.right.name]
            a, b = sv.indices[0], v.left.indices[0]
            if sv.value == v.left.value and b == ir.BinOp("+", a, ir.Const(1)):
                differences[name] = v.right.name
                pairs.append((v.right.name, name))
    derived = {n: v for n, v in lets.items() if n not in bare and n not in differences}
    # block indices of symbolic grid axes are sizes to the size prover (prover/sizes.py)
    grid_sizes = {n for n, a in el.launch.block_vars.items() if a in el.launch.symbolic_blocks}

    def expand(e):
        return _inline(e, derived)
    bounds = [expand(x) for lp in loops for x in lp.src]
    live = bounds + [expand(st.src) for st, _ in conds]
    trips = None
    if any(set().union(*(free_names(e) for e in bounds if {start, end} & free_names(e)))
           - {start, end} - set(el.symbols) - grid_sizes - {"T"} for start, end in pairs):
        # some pair decides a trip count together with other names: one trip expression?
        trips = _trip_symbol(el, program, info, bare, pairs, expand, loops, conds, problems)
    if trips is not None:
        return set(), trips
    if not pairs:
        cell = _cell_trip_symbol(el, program, info, lets, loops, conds, numeric_roots, problems)
        if cell is not None:
            return cell
    replaced: set = set()
    chosen = []
    for start, end in pairs:
        if not any({start, end} & free_names(e) for e in bounds):
            continue   # decides no trip count: its branches are enumerated like any loaded number
        uses = [e for e in live if {start, end} & free_names(e)]
        mixed = sorted(set().union(*(free_names(e) for e in bounds if {start, end} & free_names(e)))
                       - {start, end} - set(el.symbols) - grid_sizes - {"T"})   # T: TVMScript's namespace
        if mixed:   # the size prover evaluates trip counts from the size alone
            problems.append(f"a loop trip count decided by {end} - {start} together with "
                            f"{', '.join(mixed)} (the size prover needs trip counts of the size alone)")
            continue
        if end in differences:
            # `start` read elsewhere: only as part of a thread's bounds test around shared
            # accesses alone (a varlen epilogue's `row + seq_start < total_tokens`), checked taken
            # by every thread as below for any branch on a loaded number
            if any(start in free_names(e) for e in bounds):
                continue
            guards = [st for st, _ in conds if start in free_names(expand(st.src))]
            if any(st.other or not _access_only(st.then) for st in guards):
                continue
            for st in guards:
                st.cond, st.src = (lambda env: True), ir.Const(True)
                info.reduced.append((st.span.line, "taken"))
                info.taken_arms.append(arm_lines(st))
        elif not _only_difference(uses, start, end):
            continue
        chosen.append((start, end))
        replaced |= {start, end}
    mapping: dict = {}
    for start, end in chosen:
        sym = f"{end} - {start}"
        mapping[start] = ir.Const(0)
        mapping[end] = ir.Var(sym)
        program.symbols.append(sym)
        program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
        program.size_lowest[sym] = 0
        info.lengths.append((sym, f"{expr_text(bare[end] if end in bare else lets[end].left)} - "
                                  f"{expr_text(bare[start])}"))
        info.pair_cells.append((sym, _cell_key(el, bare[start])[1],
                                _cell_key(el, bare[end] if end in bare else lets[end].left)[1]))
    # a single cell at a block-uniform address that decides a trip count by itself (a paged
    # kernel's cache_seqlens[bx]): its own symbolic size, read by the run from the size's value
    block_vars = set(el.launch.block_vars)
    others = {n: v for n, v in lets.items() if n not in mapping}

    def expand_all(e):
        return _rewrite(_inline(e, others), mapping)
    singles: list = []
    for lp in loops:
        for x in lp.src:
            for sub in _subscripts(expand_all(x), []):
                view = el.view_of(sub.value)
                if view is None or el.roots.get(view.name) not in numeric_roots or sub in singles:
                    continue
                if free_names(sub.indices) <= block_vars | set(el.symbols) and len(singles) < 2:
                    singles.append(sub)
    sub_map = []
    for sub in singles:
        sym = expr_text(sub)
        sub_map.append((sub, ir.Var(sym)))
        program.symbols.append(sym)
        program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
        program.size_lowest[sym] = 0
        info.length_cells.append((sym, _cell_key(el, sub)[1]))
        info.lengths.append((sym, f"a length loaded from {sym}"))
    if not mapping and not sub_map:
        _loops_left(el, loops, lets, set(), numeric_roots, problems)
        return set(), (lambda e: e)
    # lets computed from the sizes alone read as their expressions, so that the provers see
    # the sizes in the trip counts and conditions (the lets still run as written)
    inline: dict = {}
    syms = {str(v.name) for v in mapping.values() if isinstance(v, ir.Var)} | {v.name for _, v in sub_map}
    for name, value in lets.items():
        if name in mapping:
            continue
        full = _replace_subscripts(expand_all(value), sub_map)
        if not any(el.view_of(x.value) is not None and el.roots.get(el.view_of(x.value).name) in numeric_roots
                   for x in _subscripts(full, [])) and free_names(full) & syms:
            inline[name] = full
    fix = _rewrite_program(program.body, mapping, sub_map, inline)
    _loops_left(el, loops, lets, set(mapping) | set(inline), numeric_roots, problems)
    for sym, bound, line in _length_bounds(el, program, syms, problems):
        program.size_assumptions.append(ir.BinOp("<=", ir.Var(sym), ir.Const(bound)))
        info.bounds.append((sym, bound, line))
    for lp in loops:
        extra = free_names(lp.src) - syms - set(el.symbols) - {"T"} - \
            {n for n, a in el.launch.block_vars.items() if a in el.launch.symbolic_blocks}
        if free_names(lp.src) & syms and extra:
            problems.append(f"line {lp.span.line}: a loop trip count decided by a loaded length "
                            f"together with {', '.join(sorted(extra))} (the size prover needs "
                            "trip counts of the size alone)")
    return set(mapping) | set(inline), fix


def _holding(e, names: set):
    """The smallest subexpression of `e` that holds every occurrence of the names `names` (e
    itself when they are spread over its operands)."""
    while True:
        holding = [c for c in _operands(e) if free_names(c) & names]
        if len(holding) != 1:
            return e
        e = holding[0]


def _operands(e) -> list:
    if isinstance(e, ir.BinOp):
        return [e.left, e.right]
    if isinstance(e, ir.UnaryOp):
        return [e.operand]
    if isinstance(e, ir.Call):
        return list(e.args)
    if isinstance(e, ir.IfExp):
        return [e.cond, e.then, e.other]
    return []


# the most loaded cells one trip count may read (`_cell_trip_symbol`)
MAX_TRIP_CELLS = 4


def _cell_trip_symbol(el, program, info, lets, loops, conds, numeric_roots, problems):
    """A split paged kernel bounds its loops by one expression of a single loaded cell at a
    block-uniform address and the block index (DeepSeek MLA decode, split: `total_blocks // 4 +
    ite(bz < total_blocks % 4, 1, 0) - 2`, total_blocks = (cache_seqlens[bx] + 63) // 64), so
    the cell is no size alone. The cell is named (every prover-facing source reads the name, the
    lets computed from it read their expressions) and `_trip_symbol` makes the one subexpression
    E of that name and the block indices that every loop bound reads the symbolic size, exactly
    as for cu_seqlens pairs (each run loads a cell value z3 picks so that E has the size's value
    in the block). Whatever else the machine decides from the name (a loop, branch, shared
    address or synchronization argument that is not E plus a rest the cell does not decide)
    keeps the kernel unknown. Returns (replaced let names, rewrite) or None where it does not
    fit (the single-cell length rule then applies). Several cells at block-uniform addresses
    (a split kernel's `seqlen[b]` and its split's bounds) are named the same way, each its own
    name in E."""
    block_vars = set(el.launch.block_vars)

    def expand(e):
        return _inline(e, lets)
    cells: list = []
    mixed = False
    for lp in loops:
        for x in lp.src:
            x = expand(x)
            subs = [c for c in _subscripts(x, []) if el.view_of(c.value) is not None and
                    el.roots.get(el.view_of(c.value).name) in numeric_roots]
            for c in subs:
                if c not in cells:
                    cells.append(c)
            mixed |= bool(subs) and bool(free_names(x) & block_vars)
    # one cell and the block indices, or several cells (a split kernel's `seqlen[b]` and the
    # split's bounds `split[s - 1]`, `split[s]`): never a cell alone (a length by its own rule)
    if not cells or len(cells) > MAX_TRIP_CELLS or (len(cells) == 1 and not mixed):
        return None
    if any(not free_names(sub.indices) <= block_vars | set(el.symbols) for sub in cells):
        return None
    named = [(sub, ir.Var(expr_text(sub))) for sub in cells]
    names = {v.name for _, v in named}
    # lets whose value reads the cells (through other lets too) and no other loaded number
    inline: dict = {}
    for n, v in lets.items():
        full = expand(v)
        reads = [c for c in _subscripts(full, []) if el.view_of(c.value) is not None
                 and el.roots.get(el.view_of(c.value).name) in numeric_roots]
        if reads and all(c in cells for c in reads):
            inline[n] = _replace_subscripts(full, named)

    def pre_fix(e):
        if e is None:
            return None
        return _replace_subscripts(_inline(e, inline), named)
    done: list = []

    def pre():
        _rewrite_program(program.body, {}, named, inline)
        done.append(True)
    trips = _trip_symbol(el, program, info, {v.name: sub for sub, v in named}, [], pre_fix, loops,
                         conds, problems, names=names, pre=pre)
    if trips is None:
        if done:   # (never: `pre` runs only once the shape fits)
            problems.append(f"a loop trip count decided by {', '.join(sorted(names))} together "
                            "with block indices")
        return None

    def fix(e):
        return trips(pre_fix(e))
    # what still reads a cell's name decides something apart from the trip count: unknown
    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PIf):
                read = st.src is not None and sorted(names & free_names(st.src))
                if st.relevant and read:
                    problems.append(f"line {st.span.line}: a branch on {', '.join(read)} that is "
                                    "not a threshold of the trip count it decides")
                walk(st.then)
                walk(st.other)
            elif isinstance(st, PLoop):
                read = sorted(names & free_names(st.src))
                if read:
                    problems.append(f"line {st.span.line}: a loop bound reads {', '.join(read)} "
                                    "apart from the trip count")
                walk(st.body)
            elif isinstance(st, POp) and st.src is not None and names & free_names(st.src):
                problems.append(f"line {st.span.line}: a loaded number decides a shared address or "
                                "a synchronization argument apart from the trip count")
    walk(program.body)
    return set(inline), fix


def _trip_symbol(el, program, info, bare: dict, pairs: list, expand, loops, conds, problems,
                 names: set | None = None, pre=None):
    """Causal varlen attention bounds its loops by one expression of two cu_seqlens pairs and
    the block index (`min(bx * 2 + (kv_len - q_len + 191) // 64, (kv_len + 63) // 64)`), so
    no pair is a size alone. Where every loop bound that reads the pairs reads them through one
    subexpression E, E itself becomes the symbolic size: every use of E reads the symbol, so does
    an address or branch that is E plus a rest the pairs do not decide (`_addresses_via_trips`),
    a block-uniform branch on the pairs that z3 shows is `E >= j` reads that, and each checking
    run loads values z3 picks so that E has the size's value in its block (`trip_cells`, solved
    with the branches on the same values). The rest of what the pairs decide is left to the
    usual passes (guards of shared accesses taken, registers, global addresses), which keep the
    kernel unknown where it matters. E below 0 is proved to run as E = 0 (every loop, branch and
    address that reads the symbol, `_below_zero`); a largest value of E bounds the size.
    Returns the rewrite (prover-facing expressions only: the runs evaluate the loaded values),
    or None where the shape does not fit (the pairs' own rules then apply)."""
    names = {n for p in pairs for n in p} if names is None else names
    if not names:
        return None
    found = None
    lines = []
    starts: list = []    # (loop, its start, the start's holding subexpression)
    for lp in loops:
        for pos, x in enumerate(lp.src):
            x = expand(x)
            inside = free_names(x) & names
            if not inside:
                continue
            e = _holding(x, inside)
            if pos == 0 and len(lp.src) == 2:
                starts.append((lp, x, e))
                continue
            if found is not None and e != found:
                return None
            found = e
            lines.append(lp.span.line)
    if found is None:
        return None
    # a start that reads the pairs through E is E's (the rewrite below); one that reads them
    # otherwise (a varlen backward's `for k in range(min(by * 4, len // 32), ceil(len / 32))`)
    # gets a name of its own, the whole start: its value moves the iterations (`_start_residue`)
    shifted = [lp for lp, _, e in starts if e != found]
    start = None
    if shifted:
        start = {x for lp, x, _ in starts if lp in shifted}
        if len(start) != 1:
            return None
        start = start.pop()
    used = free_names(found) & names
    block_vars = set(el.launch.block_vars)
    if not free_names(found) - {"T"} <= names | block_vars | set(el.symbols):
        return None
    in_pairs = [p for p in pairs if set(p) & used]
    if len(in_pairs) < 2 and not free_names(found) & block_vars and (pairs or len(used) < 2):
        return None   # one pair or cell alone: a length (their own rules)
    if any(not set(p) <= used for p in in_pairs):
        return None
    if pre is not None:
        pre()   # the sources now read the names `found` is written in
    if start is not None and (not free_names(start) - {"T"} <= names | block_vars | set(el.symbols)
                              or not free_names(start) & names <= used):
        return None
    sym = f"trips(line {lines[0]})"
    start_sym = f"start(line {lines[0]})"
    swaps = [(found, ir.Var(sym))] + ([(start, ir.Var(start_sym))] if start is not None else [])
    fix = _rewrite_program(program.body, {}, swaps, {})
    # a shared address or branch that is E plus something the pairs do not decide, written
    # another way (a windowed pipeline's slot `(A // 64 + k - max(0, ..)) % 2` with E = A // 64 -
    # max(0, ..)): read as the symbol plus that rest (z3)
    via = _addresses_via_trips(program.body, found, sym, names, in_pairs, block_vars)
    structural = fix

    def fix(e):   # what the later passes read: both rewrites
        return via(structural(e))
    # block-uniform branches on the pairs: a conjunct the others and E imply is dropped (a
    # pipeline epilogue's `E + k < A + 2` where E = min(A, B)), and what is left is read as
    # `E >= j` where z3 shows it is that
    ranges = _constant_ranges(program.body, {id(st) for st, _ in conds})
    for st, _ in conds:
        src = expand(st.src)
        if not free_names(src) & names:
            continue
        src = _drop_implied(src, found, sym, in_pairs, block_vars, ranges.get(id(st), {}), names)
        if not free_names(src) & names:
            st.src, st.names = src, frozenset(free_names(src))
            continue
        if free_names(src) - {"T"} - names - block_vars - set(el.symbols) - {sym}:
            continue
        j = _as_threshold(src, found, sym, in_pairs, block_vars)
        if j is not None:
            st.src = ir.BinOp(">=", ir.Var(sym), ir.Const(j))
            st.names = frozenset({sym})
    why = _below_zero(el, program.body, sym)
    if why is not None:
        problems.append(f"{sym} = {expr_text(found)}: {why}")
        return fix
    program.symbols.append(sym)
    program.size_assumptions.append(ir.BinOp(">=", ir.Var(sym), ir.Const(0)))
    program.size_lowest[sym] = 0
    most = _largest(found, in_pairs, block_vars)
    if most is not None:   # a sliding window bounds the trip count: no larger value is a launch
        program.size_assumptions.append(ir.BinOp("<=", ir.Var(sym), ir.Const(max(most, 0))))
    starting = ""
    if start is not None:
        modulus, why = _start_residue(program, start_sym, {lp.var for lp in shifted}, shifted)
        if modulus is None:
            problems.append(f"the loops at lines {sorted(lp.span.line for lp in shifted)} start at "
                            f"{expr_text(start)}: {why}")
            return fix
        info.start_cells.append((sym, start, modulus))
        program.start_blocks[start_sym] = frozenset(free_names(start) & block_vars)
        starting = (f"; the loops at lines {sorted(lp.span.line for lp in shifted)} start at "
                    f"{expr_text(start)}, which z3 proved decides the kernel only through its value "
                    f"mod {modulus}: each value of {sym} runs every remainder the block's loaded "
                    f"values give, and z3 proved that no larger {sym} gives one they do not")
    keys = {n: _cell_key(el, bare[n])[1] for n in used}
    info.trip_cells.append((sym, found, keys, [p for p in in_pairs]))
    texts = ", ".join(f"{expr_text(bare[e])} - {expr_text(bare[s])}" for s, e in in_pairs) or \
        ", ".join(sorted(expr_text(bare[n]) for n in used))
    info.lengths.append((sym, f"the trip count {expr_text(found)} of the loops at lines "
                              f"{sorted(set(lines))}, decided by {texts}; each run loads values "
                              "z3 picks to give it, and z3 proved that a negative one runs as 0" +
                              (f", and that it is never above {max(most, 0)}" if most is not None else "")
                              + starting))
    return fix


# the largest remainder modulus `_start_residue` tries
MAX_START_MODULUS = 64


def _start_residue(program, start_sym: str, loop_vars: set, shifted: list):
    """(M, None) for the smallest M such that z3 proves every expression the machine evaluates
    unchanged when the loops `shifted` start M later (their variables `loop_vars` and the name
    `start_sym` of their start both + M): a run then depends on the start only through its
    remainder mod M, iteration i of one start doing what iteration i of any start of the same
    remainder does. (None, why) when no M up to MAX_START_MODULUS is proved. The loop variables
    must be bound by these loops alone, so that + M moves only their iterations."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    from .exprs import period_of, shared_index_exprs
    if any(isinstance(st, PLoop) and st.var in loop_vars and st not in shifted
           for st in statements(program.body)):
        return None, "another loop binds its loop variable"
    exprs: list = []   # what the machine evaluates (as accelerate.collect gathers it)
    for st in statements(program.body):
        if isinstance(st, (PIf, PLoop)) and not st.relevant:
            continue   # (its inside is skipped unevaluated too: a false positive costs only a proof)
        if isinstance(st, POp) and st.src is not None:
            shared_index_exprs(st.src, program.views, exprs)
        elif isinstance(st, (PIf, PLet)) and st.src is not None:
            exprs.append(st.src)
        elif isinstance(st, (PLoop, PStore)):
            exprs += [x for x in st.src if x is not None]
    moved_names = loop_vars | {start_sym}
    exprs = [e for e in exprs if free_names(e) & moved_names and e != ir.Var(start_sym)]  # (the starts)
    period = period_of(exprs, moved_names, MAX_START_MODULUS)   # 0: past it
    if not period:
        return None, f"it decides expressions of a period above {MAX_START_MODULUS}"
    def unchanged(e, m) -> bool:
        env = {n: z3.Int(n) for n in free_names(e) - {"T"}}
        a, sa = encode(e, env)
        b, sb = encode(_rewrite(e, {n: ir.BinOp("+", ir.Var(n), ir.Const(m)) for n in moved_names}), env)
        return unsat(*sa, *sb, a != b)
    try:
        for m in [d for d in range(1, period + 1) if period % d == 0]:
            if all(unchanged(e, m) for e in exprs):
                return m, None
    except Unencodable as err:
        return None, f"z3 cannot express an expression it decides ({err})"
    return None, f"no remainder mod a divisor of {period} decides what it does"


def _largest(trips, pairs, block_vars: set):
    """The largest value z3 finds `trips` can take over every value of the pairs and every
    block index, or None when it has none (it grows with a length)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    env = {n: z3.Int(n) for n in free_names(trips) - {"T"}}
    try:
        e, side = encode(trips, env)
    except Unencodable:
        return None
    query = Query(*side, *pair_order(pairs, env), *[env[b] >= 0 for b in block_vars if b in env],
                  optimize=True)
    handle = query.solver.maximize(query._here(e))
    if query.check() != z3.sat:
        return None
    upper = handle.upper()
    return upper.as_long() if z3.is_int_value(upper) else None


def _addresses_via_trips(body, trips, sym: str, names: set, pairs, block_vars: set, memo=None):
    """In every statement's prover-facing source, the smallest subexpressions x reading the pairs
    for which z3 shows x - trips does not depend on them become `sym + (x - trips)` with the pairs
    at 0 (any values would do). Returns that rewrite, for other expressions."""
    memo = {} if memo is None else memo
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    zero = {n: ir.Const(0) for n in names}

    def rest_of(x):
        if not isinstance(x, ir.BinOp) or x.op not in ("+", "-", "*") or not free_names(x) & names:
            return None
        if x not in memo:
            memo[x] = _rest_of(x)
        return memo[x]

    def _rest_of(x):
        diff = ir.BinOp("-", x, trips)
        free = free_names(diff) - {"T"}
        one = {n: z3.Int(n) for n in free}
        two = {n: (z3.Int(n + "%2") if n in names else v) for n, v in one.items()}
        try:
            a, sa = encode(diff, one)
            b, sb = encode(diff, two)
        except Unencodable:
            return None
        facts = [*sa, *sb, *pair_order(pairs, one), *pair_order(pairs, two)] + \
            [one[v] >= 0 for v in block_vars if v in one]
        if not unsat(*facts, a != b):
            return None
        rest = _rewrite(diff, zero)
        # a rest the block index does not decide either reads it at 0 (then folds to constants
        # and loop variables): the block index stays out of what the provers read
        blocks = {v: ir.Const(0) for v in block_vars & free_names(rest)}
        if blocks:
            three = {n: (z3.Int(n + "%3") if n in blocks else z3.Int(n)) for n in free_names(rest) - {"T"}}
            four = {n: z3.Int(n) for n in free_names(rest) - {"T"}}
            try:
                c, sc = encode(rest, three)
                d, sd = encode(rest, four)
            except Unencodable:
                c = None
            if c is not None and unsat(*sc, *sd, *[three[v] >= 0 for v in blocks], *[four[v] >= 0 for v in blocks],
                                       c != d):
                rest = _rewrite(rest, blocks)
        return ir.BinOp("+", ir.Var(sym), _folded(rest))

    def fix(e):
        return ir.rewrite(e, rest_of) if e is not None and free_names(e) & names else e
    for st in body:
        if isinstance(st, POp):
            st.src = fix(st.src)
        elif isinstance(st, PIf):
            if st.src is not None and free_names(st.src) & names:
                st.src = fix(st.src)   # a pipeline epilogue's `2 <= A // 64 + k - max(0, ..)`
                st.names = frozenset(free_names(st.src))
            _addresses_via_trips(st.then, trips, sym, names, pairs, block_vars, memo)
            _addresses_via_trips(st.other, trips, sym, names, pairs, block_vars, memo)
        elif isinstance(st, PLoop):
            _addresses_via_trips(st.body, trips, sym, names, pairs, block_vars, memo)
    return fix


def _folded(e):
    """`e` with every subexpression that reads no name replaced by its value."""
    def const(x):
        if isinstance(x, (ir.BinOp, ir.UnaryOp, ir.Call)) and not free_names(x) - {"T"}:
            try:
                v = compile_expr(x)({})
            except Exception:  # noqa: BLE001 -- not a number here: left as written
                return None
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                return ir.Const(int(v))
        return None
    return ir.rewrite(e, const)


def _constant_ranges(body, wanted: set, ranges: dict | None = None, out: dict | None = None) -> dict:
    """id(branch) -> {loop variable: (lo, hi)} of the constant-bound loops around each wanted
    branch."""
    ranges, out = ranges or {}, {} if out is None else out
    for st in body:
        if isinstance(st, PIf):
            if id(st) in wanted:
                out[id(st)] = dict(ranges)
            _constant_ranges(st.then, wanted, ranges, out)
            _constant_ranges(st.other, wanted, ranges, out)
        elif isinstance(st, PLoop):
            inner = {k: v for k, v in ranges.items() if k != st.var}
            if len(st.src) == 2 and all(isinstance(x, ir.Const) and isinstance(x.value, int)
                                        for x in st.src):
                inner[st.var] = (st.src[0].value, st.src[0].value + st.src[1].value)
            _constant_ranges(st.body, wanted, inner, out)
    return out


def _conjuncts(e) -> list:
    if isinstance(e, ir.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _drop_implied(cond, trips, sym: str, pairs, block_vars: set, ranges: dict, names: set):
    """`cond` without the conjuncts that read the pairs and that z3 shows the other conjuncts
    imply, given sym = trips, the pairs' order and the constant loop ranges."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    parts = _conjuncts(cond)
    if len(parts) < 2:
        return cond
    env = {n: z3.Int(n) for n in set().union(*(free_names(p) for p in parts)) | free_names(trips)
           if n != "T"}
    env[sym] = z3.Int("%trips")
    try:
        e, side = encode(trips, env)
        terms = []
        for p in parts:
            t, sp = encode(p, env)
            side += sp
            terms.append(t)
    except Unencodable:
        return cond
    facts = [env[sym] == e, *side, *pair_order(pairs, env)] + \
        [env[b] >= 0 for b in block_vars if b in env] + \
        [c for n, (lo, hi) in ranges.items() if n in env for c in (env[n] >= lo, env[n] < hi)]
    keep = list(range(len(parts)))
    for i in range(len(parts)):
        if not free_names(parts[i]) & names:
            continue
        others = [terms[k] for k in keep if k != i]
        if unsat(*facts, *others, z3.Not(terms[i])):
            keep.remove(i)
    if len(keep) == len(parts):
        return cond
    out = parts[keep[0]] if keep else ir.Const(True)
    for k in keep[1:]:
        out = ir.BinOp("and", out, parts[k])
    return out


def _as_threshold(cond, trips, sym: str, pairs, block_vars: set):
    """j such that z3 proves `cond` equivalent to `trips >= j` for every value of the pairs
    and every block index; None when there is none."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query, unsat
    env = {n: z3.Int(n) for n in free_names(cond) | free_names(trips) - {"T"}}
    t = z3.Int("%trips")
    env[sym] = t
    try:
        c, sc = encode(cond, env)
        e, se = encode(trips, env)
    except Unencodable:
        return None
    facts = [t == e, *sc, *se, *pair_order(pairs, env)] + [env[b] >= 0 for b in block_vars if b in env]
    # the one candidate: the least value of E for which the branch can be taken
    least = Query(*facts, c, optimize=True)
    least.minimize(t)
    if least.check() != z3.sat:
        return None
    try:
        j = least.number(t)
    except Exception:  # noqa: BLE001 -- unbounded below: no threshold
        return None
    return j if unsat(*facts, c != (t >= j)) else None


def _below_zero(el, body, sym: str) -> str | None:
    """Why a negative value of `sym` may run differently from 0, or None: z3 shows every loop
    and branch reading it decides the same at every value <= 0 as at 0, given the constant
    ranges of the loops around it, and every other statement reading it sits where nothing
    runs at 0 (a loop of no trip, a branch not taken)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    t = z3.Int("%trips")

    def terms(e, ranges):
        env = {n: z3.Int(n) for n in free_names(e) - {"T"}}
        env[sym] = t
        lo, side = encode(e, {**env, sym: t})
        at0, side0 = encode(e, {**env, sym: z3.IntVal(0)})
        bounds = [c for n, (a, b) in ranges.items() if n in env for c in (env[n] >= a, env[n] < b)]
        return lo, at0, side + side0 + bounds

    def walk(stmts, ranges) -> str | None:
        for st in stmts:
            if isinstance(st, PNote):   # what it reads is not known (TileLang 0.1.8's ldmatrix form)
                return f"line {st.span.line}: a statement not modelled"
            srcs = st.src if isinstance(st, (PLoop, PStore)) else (st.src,)
            reads = any(x is not None and sym in free_names(x) for x in srcs)
            try:
                if isinstance(st, PLoop):
                    start, extent = st.src if len(st.src) == 2 else (None, None)
                    inner = dict(ranges)
                    if isinstance(start, ir.Const) and isinstance(extent, ir.Const):
                        inner[st.var] = (start.value, start.value + extent.value)
                    if reads:
                        if extent is None or sym in free_names(start):
                            return f"line {st.span.line}: the loop's start reads it"
                        n, n0, side = terms(extent, ranges)
                        if not unsat(*side, t <= 0, z3.If(n > 0, n, 0) != z3.If(n0 > 0, n0, 0)):
                            return f"line {st.span.line}: the trip count differs below 0"
                        if unsat(*side, t <= 0, n0 > 0):
                            continue   # no trip at 0 or below: the body never runs there
                    why = walk(st.body, inner)
                elif isinstance(st, PIf):
                    why = None
                    if reads:
                        c, c0, side = terms(st.src, ranges)
                        if not unsat(*side, t <= 0, c != c0):
                            return f"line {st.span.line}: the branch differs below 0"
                        if unsat(*side, t <= 0, c0):
                            why = walk(st.other, ranges)   # `then` never runs at 0 or below
                            if why is not None:
                                return why
                            continue
                    why = walk(st.then, ranges) or walk(st.other, ranges)
                elif reads:
                    return f"line {st.span.line} reads it where it runs at 0"
                else:
                    why = None
            except Unencodable as err:
                return f"line {st.span.line}: z3 cannot express it ({err})"
            if why is not None:
                return why
        return None
    return walk(body, {})


def _length_bounds(el, program, syms: set, problems: list) -> list:
    """A loaded length that decides a shared address (a decode kernel's per-block logits column
    `S_shared[:, (len + 127) // 128 - 1]`) is only meaningful up to the buffer's extent, which
    is where the kernel's author put the largest length (max_seqlen): the largest value for
    which every such access stays inside its shared buffer, for every thread and iteration
    (z3), bounds the length; the scope line states it. [(symbol, bound, line)]"""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    out: dict = {}
    launch = el.launch
    ranges = {n: launch.threads["xyz".index(a[-1])] for n, a in launch.thread_vars.items()}
    ranges.update({n: launch.blocks["xyz".index(a[-1])] for n, a in launch.block_vars.items()})

    def pointers(e, out: list) -> list:
        """The T.tvm_access_ptr arguments into shared memory inside `e`."""
        if isinstance(e, ir.Call):
            if e.name == "T.tvm_access_ptr" and len(e.args) == 5:
                view = el.view_of(e.args[1])
                if view is not None and view.is_shared:
                    out.append(e)
                return out
            for a in e.args:
                pointers(a, out)
        return out

    def check(st, loops, guards) -> None:
        if isinstance(st.src, ir.Subscript):
            accesses = [st.src]
        elif isinstance(st.src, ir.Call):
            accesses = pointers(st.src, [])
        else:
            accesses = []
        for acc in accesses:
            index = acc.indices if isinstance(acc, ir.Subscript) else acc.args[2:4]
            mentioned = free_names(index) & syms
            if not mentioned:
                continue
            if len(mentioned) != 1:
                problems.append(f"line {st.span.line}: a shared access decided by several loaded "
                                "lengths")
                return
            bound_one(st, acc, index, next(iter(mentioned)), loops, guards)

    def bound_one(st, acc, index, sym, loops, guards) -> None:
        env = {n: z3.Int(n) for n in (free_names(index) | {lp.var for lp in loops}
               | {v for lp in loops for v in free_names(lp.src)}
               | {v for g, _ in guards for v in free_names(g)}) - {"T"}}   # T: TVMScript's namespace
        side, limits = [], []
        try:
            for n, v in env.items():
                if n in ranges:
                    side += [v >= 0, v < ranges[n]]
                elif n != sym and n not in {lp.var for lp in loops}:
                    raise Unencodable(f"name {n}")
            for lp in loops:
                (a, sa), (n, sn) = encode(lp.src[0], env), encode(lp.src[1], env)
                side += sa + sn + [env[lp.var] >= a, env[lp.var] < a + n]
            for g, taken in guards:   # the branches around the access
                c, sc = encode(g, env)
                side += sc + [c if taken else z3.Not(c)]
            if isinstance(acc, ir.Call):   # access_ptr(dtype, data, offset, extent, rw)
                view = el.view_of(acc.args[1])
                ann = acc.args[0]
                dtype = el.literal(ann.args[0]) if isinstance(ann, ir.Call) and ann.args else None
                bits = dtype_bits(str(dtype)) if dtype else view.elem_bits
                if not bits or bits % 8 or view.region is None:
                    raise Unencodable("pointer element size")
                off, s1 = encode(acc.args[2], env)
                ext, s2 = encode(acc.args[3], env)
                side += s1 + s2
                room = view.region.nbytes - view.byte_offset   # the bytes its allocation has
                limits += [off >= 0, (off + ext) * (bits // 8) <= room]
            else:
                view = el.view_of(acc.value)
                shape = view.shape if view is not None and view.is_shared else None
                if not shape:
                    raise Unencodable("shared buffer without a shape")
                if len(acc.indices) == 1 and isinstance(acc.indices[0], ir.Slice):
                    sl = acc.indices[0]
                    lo, s1 = encode(sl.lo, env)
                    hi, s2 = encode(sl.hi, env)
                    side += s1 + s2
                    limits += [lo >= 0, hi <= int(np.prod(shape))]
                elif len(acc.indices) == len(shape):
                    for idx, extent in zip(acc.indices, shape):
                        e, se = encode(idx, env)
                        side += se
                        limits += [e >= 0, e < extent]
                else:
                    raise Unencodable("subscript rank")
        except Unencodable as err:
            problems.append(f"line {st.span.line}: a loaded length decides a shared access the "
                            f"checker cannot bound ({err})")
            return
        opt = Query(*side, env[sym] >= 0, z3.Not(z3.And(*limits)), optimize=True)
        handle = opt.minimize(env[sym])
        res = opt.check()
        if res == z3.unsat:
            return   # inside its buffer for every length
        if res != z3.sat:
            problems.append(f"line {st.span.line}: a loaded length decides a shared access the "
                            "checker cannot bound (z3 gave up)")
            return
        lowest = opt.solver.lower(handle)
        first_out = lowest.as_long() if z3.is_int_value(lowest) else None
        if first_out is None or first_out <= 0:
            problems.append(f"line {st.span.line}: a shared access outside its buffer for every "
                            "loaded length")
            return
        if sym not in out or out[sym][0] > first_out - 1:
            out[sym] = (first_out - 1, st.span.line)

    def walk(stmts, loops: tuple, guards: tuple) -> None:
        for st in stmts:
            if isinstance(st, POp) and st.src is not None:
                check(st, loops, guards)
            elif isinstance(st, PIf):
                if st.src is None:
                    continue   # skipped by the machine
                walk(st.then, loops, guards + ((st.src, True),))
                walk(st.other, loops, guards + ((st.src, False),))
            elif isinstance(st, PLoop):
                walk(st.body, loops + (st,), guards)
    walk(program.body, (), ())
    return [(sym, bound, line) for sym, (bound, line) in out.items()]


def _loops_left(el, loops, lets, replaced: set, numeric_roots, problems) -> None:
    """Loops whose bounds still read a loaded number the sizes do not stand for: unknown."""
    for lp in loops:
        if free_names(lp.src) & (set(lets) - replaced) or any(
                el.view_of(x.value) is not None and el.roots.get(el.view_of(x.value).name) in numeric_roots
                for x in _subscripts(lp.src, [])):
            problems.append(f"line {lp.span.line}: a loop trip count decided by a loaded number "
                            "(proved for every value only where it is a length: a cell at a "
                            "block-uniform address, or end - start of a cu_seqlens-like pair)")


def _only_difference(exprs, start: str, end: str) -> bool:
    """z3: every expression takes the same value for (start, end) = (s, s + n) as for (0, n),
    for every s and every n >= 0 (every other name free)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    for e in exprs:
        names = free_names(e)
        env = {n: z3.Int(n) for n in names}
        # (z3 cuts a name at a NUL byte: "%" keeps them apart from TIR names and each other)
        s, n = z3.Int("%shift"), z3.Int("%length")
        shifted, base = dict(env), dict(env)
        shifted[start], shifted[end] = s, s + n
        base[start], base[end] = z3.IntVal(0), n
        try:
            a, sa = encode(e, shifted)
            b, sb = encode(e, base)
        except Unencodable:
            return False
        if not unsat(*sa, *sb, n >= 0, a != b):
            return False
    return True


def _replace_subscripts(e, sub_map: list):
    """`e` with every subscript equal to one in `sub_map` replaced by its expression."""
    def target(x):
        return next((t for sub, t in sub_map if x == sub), None)
    return ir.rewrite(e, target)


def _inline(e, lets: dict, rounds: int = 32):
    """`e` with the names of `lets` (name -> expression) replaced by their expressions, again in
    what they bring in, until none is left (at most `rounds` times: a let chain is short)."""
    for _ in range(rounds):
        if not free_names(e) & set(lets):
            break
        e = _rewrite(e, lets)
    return e


def _rewrite_program(body, mapping: dict, sub_map: list = (), inline: dict | None = None):
    """Replace the pair lets' names, the length cells and the lets computed from them in every
    expression the provers read, and make the pair lets evaluate to 0 (start) and the length
    symbol (end)."""
    inline = inline or {}

    def fix(e):
        if e is None:
            return None
        return _replace_subscripts(_rewrite(_inline(e, inline), mapping), sub_map)
    for st in body:
        if isinstance(st, PLet):
            if st.name in mapping:
                target = mapping[st.name]
                if isinstance(target, ir.Const):
                    st.value = lambda env, v=target.value: v
                else:
                    def length(env, k=target.name, span=st.span):
                        if k not in env:
                            raise NotConcrete(f"the symbolic size {k} has no value in this run", span)
                        return env[k]
                    st.value = length
                st.src = None   # every use names the symbol itself now
            elif st.name in inline:
                st.src = None   # every use reads its expression now
            elif st.src is not None:
                st.src = fix(st.src)
        elif isinstance(st, PIf):
            st.src = fix(st.src)
            st.names = frozenset(free_names(st.src)) if st.src is not None else st.names
            _rewrite_program(st.then, mapping, sub_map, inline)
            _rewrite_program(st.other, mapping, sub_map, inline)
        elif isinstance(st, PLoop):
            st.src = tuple(fix(x) for x in st.src)
            _rewrite_program(st.body, mapping, sub_map, inline)
        elif isinstance(st, POp) and st.src is not None:
            st.src = fix(st.src)
        elif isinstance(st, PStore):
            st.src = tuple(fix(x) for x in st.src)
    return fix


def _live_control(el: Elaborator, program: Program) -> None:
    """The names the machine's control decisions use: relevant loop bounds, branch conditions
    not reduced away, register stores, shared addresses and synchronization arguments, and the
    lets they read. Loaded numbers that only address global memory drop out of it (with them
    the block indices that only pick which cell is read)."""
    from .exprs import shared_index_exprs as _shared_exprs
    names: set = set()
    let_srcs: dict = {}
    reduced_lines = {line for line, _ in program.numeric.reduced} | \
        program.__dict__.get("uniform_choice_lines", set())
    copied = el.__dict__.get("copied_registers", set())

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PLet) and st.src is not None:
                let_srcs.setdefault(st.name, []).append(st.src)
            elif isinstance(st, PIf):
                if not st.relevant:
                    continue
                if st.src is not None and st.span.line not in reduced_lines:
                    names.update(free_names(st.src))
                walk(st.then)
                walk(st.other)
            elif isinstance(st, PLoop):
                if not st.relevant:
                    continue
                names.update(free_names(st.src))
                walk(st.body)
            elif isinstance(st, PStore):
                if st.region in copied:
                    continue   # every read names the cell it holds (`_register_copies`)
                names.update(*(free_names(x) for x in st.src if x is not None))
            elif isinstance(st, POp) and st.src is not None:
                out: list = []
                _shared_exprs(st.src, el.views, out)
                names.update(*(free_names(x) for x in out))
            elif isinstance(st, PNote):
                names.update(el.control_names)   # an op no model runs: keep the old, wide view
    walk(program.body)
    todo = list(names)
    while todo:
        n = todo.pop()
        for src in let_srcs.get(n, ()):
            for m in free_names(src) - names:
                names.add(m)
                todo.append(m)
    if program.numeric is not None and program.start_blocks:
        program.numeric.starts_only_by_block = not names & set(el.launch.block_vars)
    for start, blocks in program.start_blocks.items():
        if start in names:
            names |= blocks
    program.control_names = names | (el.control_names & set(program.symbols))
    program.block_dependent = bool(names & set(el.launch.block_vars))


# ---------------------------------------------------------------- loops that skip whole iterations
def _count_loops(el: Elaborator, program: Program, func: ir.Function) -> None:
    """Truth-valued inputs that only ever decide whole loop iterations (`for k: if M[f(k)]: ...`
    with every statement of the body under that one condition, no `else`): a false iteration
    does nothing, and where the loop variable decides nothing the machine evaluates (it only
    addresses global memory: TMA coordinates, the mask cell) a true iteration does the same
    whichever k it is. So each thread's run depends on the outcome pattern only through the
    number of true cells, and the patterns whose true cells come first (one per count, n + 1 of
    2^n) cover every pattern. engine/inputs.py searches such a root by count. Conditions:
    every load of the root in the kernel is such a condition, all of them over one range with
    one index expression (so every loop meets the same cells in the same order), the index
    depends on nothing but k, block indices and sizes, and distinct k read distinct cells (z3)."""
    candidates: dict = {}   # root -> [(loop, [the subscript of each of its conditions])]

    def walk(stmts) -> None:
        for st in stmts:
            if isinstance(st, PLoop):
                found = _skipping_loop(el, program, st)
                if found is not None:
                    candidates.setdefault(found[0], []).append((st, found[1], found[2]))
                walk(st.body)
            elif isinstance(st, PIf):
                walk(st.then)
                walk(st.other)
    walk(program.body)
    if not candidates:
        return
    loads: dict = {}   # root -> ids of every subscript of it in the kernel
    pointed: dict = {}   # root -> ids of its pointers: the range truth a pointer serves, or itself
    for x in ir.nodes(func.body):
        if isinstance(x, ir.Subscript):
            view = el.view_of(x.value)
            root = el.roots.get(view.name) if view is not None else None
            if root is not None:
                loads.setdefault(root, set()).add(id(x))
        elif isinstance(x, ir.Call) and x.name == "T.tvm_access_ptr" and len(x.args) == 5:
            view = el.view_of(x.args[1])
            root = el.roots.get(view.name) if view is not None else None
            if root is not None:
                owner = [c for c in ir.nodes(func.body) if isinstance(c, ir.Call) and c.name in RANGE_TRUTHS
                         and c.args and c.args[0] is x]
                pointed.setdefault(root, set()).add(id(owner[0]) if owner else id(x))
    uniform = set(el.launch.block_vars) | set(program.symbols) | {"T"}
    for root, sites in candidates.items():
        mentions = loads.get(root, set())
        if isinstance(sites[0][1][0], ir.Call):
            # ranges: every subscript of the root and every pointer into it (another range
            # truth, a copy) is one of the loops' conditions
            mentions = mentions | pointed.get(root, set())
        if mentions != {id(sub) for _, subs, _ in sites for sub in subs}:
            continue
        loop0, (sub0, *_), guard0 = sites[0]
        canon = ir.Var("%k")
        ranged = isinstance(sub0, ir.Call)   # all_of / any_of ranges (_skipping_loop)

        def where(sub):   # the cell's index, or the range's start, kind and length
            if isinstance(sub, ir.Call):
                ptr = sub.args[0]
                return (ptr.args[2],), (sub.name, ptr.args[0], ptr.args[1], ptr.args[3], sub.args[1])
            return sub.indices, sub.value
        index0, what0 = where(sub0)
        index0 = _rewrite(index0, {loop0.var: canon})
        guard0 = _rewrite(guard0, {loop0.var: canon})
        same = all(lp.src == loop0.src and _rewrite(where(sub)[0], {lp.var: canon}) == index0
                   and where(sub)[1] == what0 and _rewrite(guard, {lp.var: canon}) == guard0
                   for lp, subs, guard in sites for sub in subs)
        if not same or free_names(index0) - {canon.name} - uniform or free_names(loop0.src) - uniform:
            continue
        if ranged:
            n = el.literal(sub0.args[1])
            if n != el.literal(sub0.args[0].args[3]) or not _disjoint_ranges(index0[0], n, canon.name, loop0.src):
                continue
        elif not _injective(index0, canon.name, loop0.src):
            continue
        el.count_roots[root] = program.count_roots[root] = (
            sorted({lp.span.line for lp, _, _ in sites}), expr_text(loop0.src[1]))
        if ranged:
            el.count_ranges |= {id(sub) for _, subs, _ in sites for sub in subs}


def _new_size(program: Program, sym: str, most: int) -> None:
    """`sym` a symbolic size of `program` that decides control, 0 <= sym <= most, checked from 0
    (a count the engine introduces: `_count_sizes`, `_clc_sizes`)."""
    program.symbols.append(sym)
    program.control_names.add(sym)
    program.size_assumptions += [ir.BinOp(">=", ir.Var(sym), ir.Const(0)),
                                 ir.BinOp("<=", ir.Var(sym), ir.Const(most))]
    program.size_lowest[sym] = 0


def cell_alone(st) -> bool:
    """`st` is `if M[...]:` with no else, its condition the input cell alone (`_guarding_load`
    with no bound beside it): where the cell reads 1, its statements always run."""
    sub = _guarding_load(st.src) if isinstance(st, PIf) and st.src is not None else None
    return sub is not None and not st.other and _without_load(st.src, sub) == ir.Const(True)


def _count_sizes(el: Elaborator, program: Program) -> None:
    """A count root (`_count_loops`) whose loops run a constant n iterations with n + 1 > the
    input search's pattern limit: its count becomes a symbolic size `count(...)`, 0 <= count <=
    n, the loops' trip count, with every cell read true (a tied root). A run with c true cells
    runs as its true cells first (the count search's argument: a false iteration does nothing and
    the loop variable decides nothing the machine evaluates), so as the loops with c iterations
    of true cells, and every loop of the root meets the same cells in the same order: one size
    stands for all of them. The size plan (prover/sizes.py) then proves every count from a few
    runs, as it does a dynamic K's trip counts, instead of the search running n + 1 counts."""
    from .inputs import MAX_INPUT_PATTERNS
    for root, (lines, _) in list(program.count_roots.items()):
        loops = [st for st in statements(program.body) if isinstance(st, PLoop) and st.span.line in lines]
        n = el.literal(loops[0].src[1]) if loops and len(loops[0].src) == 2 else None
        if not isinstance(n, int) or isinstance(n, bool) or n + 1 <= MAX_INPUT_PATTERNS or \
                any(lp.src != loops[0].src for lp in loops):
            continue
        sym = f"count({root} at line {lines[0]})"
        for lp in loops:
            lp.extent = el.compile(ir.Var(sym))
            lp.src = (lp.src[0], ir.Var(sym))
            # a guard that is the cell alone (a load, or an all_of / any_of range: _skipping_loop)
            # reads 1 in every run: its statements are the iteration's own (a counter stepped
            # there steps once per iteration for engine/accelerate.py); a guard with a bound stays,
            # and _read_taken_guards gives the provers its bound
            lp.body = tuple(x for st in lp.body for x in
                            (st.then if cell_alone(st) or _range_truth_guard(st.src) is not None
                             and _bare_truth(st.src) is _range_truth_guard(st.src) else (st,)))
        _new_size(program, sym, n)
        program.tied_roots.add(root)
        program.count_sizes[sym] = (root, lines, n)


# iterations a tile loop that leaves on a cluster launch control response may run past the
# number of cancelled clusters (`_clc_sizes`): the scheduler leaves at iteration c, a consumer
# that reads the response one iteration later at c + 1; a run that reaches the cut is stopped.
# With no induction over c (its exits read shared memory, which z3 does not), the size plan runs
# the trip counts up to its 12 (prover/sizes.py plan_one's max_trips): c = 0..4, five tiles,
# which cover the double-buffered accumulator's period (2 tiles) and its parities' (4)
CLC_CUT_MARGIN = 8


def _clc_sizes(el: Elaborator, program: Program) -> None:
    """A persistent kernel that leaves its tile loops on a cluster launch control response
    (`if schedule_valid[0] == 0: T.loop_break()`): how many clusters the cluster's requests
    cancel before the first that does not is the symbolic size CANCELLED, c >= 0, and the k-th
    response says "cancelled" exactly when k < c (`_clc_cancelled`). Each such loop of constant
    trip count n runs at most min(n, c + CLC_CUT_MARGIN) iterations, so a run is as long as its
    tiles and the size plan (prover/sizes.py) runs c = 0, 1, 2, ...; a loop that runs out of its
    cut without leaving stops its run (engine/machine.py), so the cut never changes a run."""
    def decides(e) -> bool:
        return any(isinstance(x, ir.Call) and x.name in CLC_QUERIES or
                   isinstance(x, ir.Subscript) and el._clc_held(el.view_of(x.value)) is not None
                   for x in ir.nodes(e)) if e is not None else False

    def leaves(body) -> bool:   # a break on a response, outside the loops nested in `body`
        return any(isinstance(st, PIf) and (decides(st.src) and breaks_out((st,)) or
                                            leaves(st.then) or leaves(st.other))
                   for st in body if not isinstance(st, PLoop))
    loops = [st for st in statements(program.body) if isinstance(st, PLoop) and st.relevant and leaves(st.body)]
    sizes = [el.literal(lp.src[1]) if len(lp.src) == 2 else None for lp in loops]
    if not loops or any(not isinstance(n, int) or isinstance(n, bool) for n in sizes):
        return
    for lp, n in zip(loops, sizes):
        cut = ir.Call(ir.Attr(ir.Var("T"), "min"),
                      (ir.Const(n), ir.BinOp("+", ir.Var(CANCELLED), ir.Const(CLC_CUT_MARGIN))), ())
        lp.extent = el.compile(cut)
        lp.src = (lp.src[0], cut)
        lp.cut = n
    _new_size(program, CANCELLED, max(sizes))
    program.clc_loops = sorted(lp.span.line for lp in loops)
    program.no_induction[CANCELLED] = ("the tile loops leave on cluster launch control responses, "
                                       "read from shared memory, which the induction does not follow")


def _skipping_loop(el: Elaborator, program: Program, loop: PLoop):
    """(root, [subscripts], guard) when every statement of `loop`'s body is `if M[...]:` (no else)
    on one truth-valued, read-only input cell, or `if g and M[...]:` with one bound `g` of the
    loop variable, block indices and sizes (`_guarding_load`; `guard` is g, or True), and nothing
    the machine evaluates inside reads the loop variable; else None. A false g skips the whole
    iteration as a false cell does, so the run still depends only on how many iterations ran."""
    if not loop.relevant or not loop.body:
        return None
    sub, subs, guard = None, [], None
    uniform = set(el.launch.block_vars) | set(program.symbols) | {"T", loop.var}
    for st in loop.body:
        if not isinstance(st, PIf) or st.other or st.src is None:
            return None
        bare = _guarding_load(st.src)
        if bare is None:
            # `T.all_of(T.tvm_access_ptr(.., M, f(k), n, 1), n)` as the whole condition (TileLang's
            # warp-specialized block-sparse test): one truth value per iteration, over a range of
            # a read-only global buffer (Elaborator._range_truth); _count_loops requires the
            # ranges of distinct iterations disjoint
            call = _range_truth_guard(st.src)
            view = _range_view(el, call) if call is not None and _bare_truth(st.src) is call else None
            root = el.roots.get(view.name) if view is not None else None
            if root is None or root in el.written_roots or (sub is not None and call != sub):
                return None
            if free_names(call.args[0].args[2]) - uniform:
                return None
            sub, guard = call, ir.Const(True)
            subs.append(call)
            names = _evaluated_names(el, st.then)
            if names is None or loop.var in names:
                return None
            continue
        view = el.view_of(bare.value) if bare is not None else None
        root = el.roots.get(view.name) if view is not None else None
        if root is None or not el.truth_only.get(root) or root in el.written_roots:
            return None
        if sub is not None and not isinstance(sub, ir.Subscript):
            return None
        rest = _without_load(st.src, bare)
        if sub is not None and (bare != sub or bare.value != sub.value or rest != guard):
            return None
        if free_names(rest) - uniform:
            return None
        sub, guard = bare, rest
        subs.append(bare)
        names = _evaluated_names(el, st.then)
        if names is None or loop.var in names:
            return None
    if isinstance(sub, ir.Call):
        return (el.roots[_range_view(el, sub).name], subs, guard)
    return (el.roots[el.view_of(sub.value).name], subs, guard) if sub is not None else None


def _bare_truth(cond):
    """`cond` without the bool casts around it."""
    while isinstance(cond, ir.Call) and (cond.name == "T.bool" and len(cond.args) == 1 or
                                         cond.name == "T.Cast" and len(cond.args) == 2):
        cond = cond.args[-1]
    return cond


def _range_view(el, call):
    """The global view a `T.all_of` / `T.any_of` call reads through its `T.tvm_access_ptr` (a
    constant length, read-only access), or None."""
    ptr = _range_truth_ptr(call)
    if ptr is None:
        return None
    n = el.literal(call.args[1])
    view = el.view_of(ptr.args[1])
    if not isinstance(n, int) or n <= 0 or view is None or view.name not in el.roots or \
            el.literal(ptr.args[4]) != 1:
        return None
    return view


def _disjoint_ranges(start, n: int, var: str, bounds: tuple) -> bool:
    """z3: the ranges [start, start + n) of two different values of `var` in the loop's range
    do not meet (n = 1: `_injective`)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    terms = [(sign, t) for sign, t in _signed_terms(start) if var in free_names(t)]
    if terms:   # as _injective: only the terms of `var` tell two starts apart
        part = terms[0][1] if terms[0][0] > 0 else ir.UnaryOp("-", terms[0][1])
        for sign, t in terms[1:]:
            part = ir.BinOp("+" if sign > 0 else "-", part, t)
        start = part
    names = free_names(start) | free_names(bounds)
    a = {n_: z3.Int(n_) for n_ in names}
    b = dict(a)
    b[var] = z3.Int("%other")
    try:
        ea, sa = encode(start, a)
        eb, sb = encode(start, b)
    except Unencodable:
        return False
    try:
        lo, s1 = encode(bounds[0], a)
        extent, s2 = encode(bounds[1], a)
        inside = [*s1, *s2, a[var] >= lo, a[var] < lo + extent, b[var] >= lo, b[var] < lo + extent]
    except Unencodable:
        inside = []
    return unsat(*sa, *sb, *inside, ea < eb + n, eb < ea + n, a[var] != b[var])


def _evaluated_names(el: Elaborator, stmts):
    """The names the machine evaluates in `stmts` (bounds, conditions, lets, register stores,
    shared addresses and synchronization arguments; not global addresses), or None when a
    statement hides what it reads (an unmodelled op, an expression not kept)."""
    from .exprs import shared_index_exprs as _shared_exprs
    names: set = set()
    for st in stmts:
        if isinstance(st, PNote):
            return None
        if isinstance(st, PLet):
            if st.src is None:
                return None
            names |= free_names(st.src)
        elif isinstance(st, PStore):
            if not st.src or st.src[-1] is None:
                return None
            names |= free_names([x for x in st.src if x is not None])
        elif isinstance(st, (PIf, PLoop)):
            if not st.relevant:
                continue   # skipped unevaluated: its condition or bounds decide nothing
            if st.src is None or isinstance(st, PLoop) and not st.src:
                return None
            names |= free_names(st.src)
            for part in ((st.then, st.other) if isinstance(st, PIf) else (st.body,)):
                inner = _evaluated_names(el, part)
                if inner is None:
                    return None
                names |= inner
        elif isinstance(st, POp):
            if st.src is None:
                return None
            out: list = []
            _shared_exprs(st.src, el.views, out)
            names |= free_names(out)
    return names


def _injective(index: tuple, var: str, bounds: tuple) -> bool:
    """z3: two different values of `var` in the loop's range give different flat indices (one
    index expression; anything else is refused)."""
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    if len(index) != 1:
        return False
    # the terms of a sum that do not mention `var` are the same for both values: only the rest
    # can tell two indices apart (and z3 need not read a nonlinear block offset)
    terms = [(sign, t) for sign, t in _signed_terms(index[0]) if var in free_names(t)]
    if terms:
        part = terms[0][1] if terms[0][0] > 0 else ir.UnaryOp("-", terms[0][1])
        for sign, t in terms[1:]:
            part = ir.BinOp("+" if sign > 0 else "-", part, t)
        index = (part,)
    names = free_names(index[0]) | free_names(bounds)
    a = {n: z3.Int(n) for n in names}
    b = dict(a)
    b[var] = z3.Int("%other")
    try:
        ea, sa = encode(index[0], a)
        eb, sb = encode(index[0], b)
    except Unencodable:
        return False
    try:
        start, s1 = encode(bounds[0], a)
        extent, s2 = encode(bounds[1], a)
        inside = [*s1, *s2, a[var] >= start, a[var] < start + extent, b[var] >= start,
                  b[var] < start + extent]
    except Unencodable:   # bounds z3 cannot read (a symbolic divisor): injective everywhere then
        inside = []
    return unsat(*sa, *sb, *inside, ea == eb, a[var] != b[var])


def _ranges_meet(lo, hi, entry=None) -> bool:
    """Whether two threads' byte ranges [lo, hi) of one store instance meet, as
    state/memory.py `_check_self` finds a clash over all of them (sorted by start, one starting
    before the furthest end so far). `entry`: the store's `recent` cache entry for these very
    arrays, which remembers the answer (the arrays are read-only)."""
    if entry is not None and len(entry) > 4 and entry[2] is lo and entry[3] is hi:
        return entry[4]
    a = np.asarray(lo, dtype=np.int64).reshape(-1)
    b = np.asarray(hi, dtype=np.int64).reshape(-1)
    if a.size < 2:
        meet = False
    else:
        order = np.argsort(a, kind="stable")
        meet = bool((a[order][1:] < np.maximum.accumulate(b[order])[:-1]).any())
    if entry is not None and len(entry) == 4 and entry[2] is lo and entry[3] is hi:
        entry.append(meet)
    return meet


def _fixed_width(s: ir.Slice) -> int | None:
    """`c` when the slice reads `[e : e + c]` (how TVMScript prints a vector access), else None."""
    hi = s.hi
    if isinstance(hi, ir.BinOp) and hi.op == "+" and s.lo is not None and _same_tree(hi.left, s.lo) \
            and isinstance(hi.right, ir.Const) and type(hi.right.value) is int:
        return hi.right.value
    return None


def _same_tree(a, b) -> bool:
    """`a == b` (spans aside) with every constant of the same type too (4 == 4.0 == True in
    Python, not in what the expressions compute)."""
    if a != b:
        return False
    xs, ys = list(ir.nodes(a)), list(ir.nodes(b))
    return len(xs) == len(ys) and all(
        type(x) is type(y) and (not isinstance(x, ir.Const) or type(x.value) is type(y.value))
        for x, y in zip(xs, ys))


# ---------------------------------------------------------------- one value per shared address
def same_value_per_address(el: Elaborator, target: ir.Subscript, value) -> bool:
    """Whether two threads that store `value` to the same shared element in one statement
    instance store the same value, where the value differs between threads only through loaded
    data: `is_kv_valid[tx // 8] = Cast(int8, idx[0] <= q)` with `idx[0] = Indices[.. + tx // 8]`,
    or `A[tx % 128] = q[0] * k[0]` with `k[0] = K_shared[tx % 128] * ...` (two threads per element).
    The value is a pure function of read-only global cells, shared elements, uniform names and
    thread-free lets and registers; expanded through the lets and registers it reads (every definition), each
    leaf's address, each definition's register index, and every branch condition and loop bound
    around the store and the definitions takes one value for two threads whose store addresses
    are equal (z3, thread indices the only names that differ). Then the two threads ran the same
    statement instances (same control), their registers hold what the same definitions wrote,
    from the same cells: one value. Anything else: False."""
    cache = getattr(el, "_same_value_cache", None)
    if cache is None:
        cache = el._same_value_cache = {}
    key = id(target)
    if key not in cache:
        try:
            cache[key] = _same_value_per_address(el, target, value)
        except _NotShown:
            cache[key] = False
    return cache[key]


class _NotShown(Exception):
    pass


def _definition_sites(el: Elaborator) -> dict:
    """('let', name) / ('reg', region) / ('store', id(subscript)) -> [(index, value, guards)],
    guards: the enclosing branch conditions and loop bounds as ir expressions."""
    sites = getattr(el, "_definition_sites", None)
    if sites is not None:
        return sites
    sites = el._definition_sites = {}

    def walk(stmts, guards: tuple) -> None:
        for st in stmts:
            if isinstance(st, PLet):
                sites.setdefault(("let", st.name), []).append((None, st.src, guards))
            elif isinstance(st, PStore):
                sites.setdefault(("reg", st.region), []).append(
                    (st.src[0] if st.src else None, st.src[-1] if st.src else None, guards))
            elif isinstance(st, POp) and st.name == "store" and st.src is not None:
                sites.setdefault(("store", id(st.src)), []).append((None, None, guards))
            elif isinstance(st, PIf):
                g = guards + ((st.src,) if st.src is not None else (None,))
                walk(st.then, g)
                walk(st.other, g)
            elif isinstance(st, PLoop):
                g = guards + tuple(st.src or (None,)) + (ir.Var(st.var),)
                walk(st.body, g)
    walk(getattr(el, "body", ()), ())
    return sites


def _same_value_per_address(el: Elaborator, target: ir.Subscript, value) -> bool:
    import z3

    from ..prover.encode import Unencodable, encode
    from ..prover.solve import unsat
    sites = _definition_sites(el)
    thread_vars = set(el.launch.thread_vars)
    must_agree: list = []   # expressions that must take one value for the two threads
    seen: set = set()

    def leaves(e, depth: int) -> None:
        """Walk a value: collect the addresses of its global loads, expand lets and registers."""
        if depth > 8:
            raise _NotShown()
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Subscript):
                view = el.view_of(x.value)
                if view is not None and view.name in el.roots:
                    if el.roots[view.name] in el.written_roots:
                        raise _NotShown()
                    must_agree.extend(x.indices)
                    continue
                reg = el.register_of(view)
                if reg is None and view is not None and view.is_shared and \
                        not any(isinstance(i, ir.Slice) for i in x.indices):
                    # a shared element read at one address by both threads: the same statement
                    # instances of two threads lie in one barrier interval, so a write to the
                    # element between their reads would race with one of them (and is reported as
                    # such); with none, both read one value
                    must_agree.extend(x.indices)
                    continue
                if reg is None:
                    raise _NotShown()   # an opaque buffer: not followed
                definition(("reg", reg[0]), depth)
                must_agree.extend(x.indices)
            elif isinstance(x, ir.Var):
                if x.name in thread_vars:
                    raise _NotShown()   # a thread index in the value itself
                if ("let", x.name) in sites:
                    definition(("let", x.name), depth)
                elif x.name not in el.uniform_names and x.name != "T":
                    raise _NotShown()
            elif isinstance(x, ir.Call):
                if not (x.name in _UNIFORM_SAFE_CALLS or x.name.startswith(_UNIFORM_SAFE_PREFIXES)):
                    raise _NotShown()
                stack.extend(a for a in x.args if not isinstance(a, ir.Const))
            elif isinstance(x, ir.BinOp):
                stack.extend((x.left, x.right))
            elif isinstance(x, ir.UnaryOp):
                stack.append(x.operand)
            elif isinstance(x, ir.Slice):
                raise _NotShown()
            elif not isinstance(x, ir.Const):
                raise _NotShown()

    def definition(k, depth: int) -> None:
        if k in seen:
            return
        seen.add(k)
        defs = sites.get(k)
        if not defs:
            raise _NotShown()
        for index, val, guards in defs:
            if val is None or any(g is None for g in guards):
                raise _NotShown()
            if index is not None:
                must_agree.append(index)
            must_agree.extend(guards)
            leaves(val, depth + 1)

    stores = sites.get(("store", id(target)))
    if not stores:
        raise _NotShown()
    for _, _, guards in stores:
        if any(g is None for g in guards):
            raise _NotShown()
        must_agree.extend(guards)
    leaves(value, 0)
    # z3: the names other than thread indices are shared by the two threads (same control: the
    # same statement instances, so the same loop counters and lets); lets that appear in an
    # address or condition are expanded into their definitions when they have exactly one
    lets = {k[1]: d[0][1] for k, d in sites.items() if k[0] == "let" and len(d) == 1}

    def expand(e):
        for _ in range(16):
            if not free_names(e) & set(lets):
                return e
            e = _rewrite(e, lets)
        raise _NotShown()
    ranges = {n: el.launch.threads["xyz".index(a[-1])] for n, a in el.launch.thread_vars.items()}
    exprs = [expand(e) for e in must_agree]
    address = [expand(i) for i in target.indices]
    names = set().union(*(free_names(e) for e in exprs + address)) - {"T"}
    if names - thread_vars - el.uniform_names:
        raise _NotShown()   # a name that may differ between threads other than a thread index
    if not any(free_names(e) & thread_vars for e in exprs):
        return True
    one = {n: z3.Int(n) for n in names}
    two = {n: (z3.Int(n + "%2") if n in thread_vars else v) for n, v in one.items()}
    side = []
    for n, extent in ranges.items():
        if n in one:
            side += [one[n] >= 0, one[n] < extent, two[n] >= 0, two[n] < extent]
    try:
        for a in address:
            x1, s1 = encode(a, one)
            x2, s2 = encode(a, two)
            side += s1 + s2 + [x1 == x2]
        differs = []
        for e in exprs:
            if not free_names(e) & thread_vars:
                continue
            x1, s1 = encode(e, one)
            x2, s2 = encode(e, two)
            side += s1 + s2
            differs.append(x1 != x2)
    except Unencodable:
        return False
    return unsat(*side, z3.Or(*differs))
