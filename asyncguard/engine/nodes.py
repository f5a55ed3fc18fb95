"""The elaborated program's nodes (POp, PLet, PLoop, PIf, PWhile, PStore, PNote, Program) and the
expression helpers every elaboration pass shares (engine/program.py builds them; the machine runs
them; engine/loaded_numbers.py, engine/loop_sizes.py and engine/same_value.py rewrite them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import ir
from ..models.atomics import SHARED_ATOMICS
from ..models.launch import Launch
from ..models.memory import SharedLayout, View
from .exprs import NotConcrete


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


# the op a kernel `return` elaborates to (models/control.py): it ends every loop around it
THREAD_RETURN = "thread_return"


def breaks_out(body) -> bool:
    """Whether a `T.loop_break` in `body` (outside the loops nested in it), or a
    `T.thread_return` anywhere in it, may end the loop whose body it is before its last
    iteration."""
    if any(isinstance(s, POp) and s.name == THREAD_RETURN for s in statements(body)):
        return True
    for s in body:
        if isinstance(s, POp) and s.name in LOOP_BREAKS:
            return True
        if isinstance(s, PIf) and not isinstance(s, PWhile) and (breaks_out(s.then) or breaks_out(s.other)):
            return True
    return False


def arm_lines(st: PIf) -> tuple:
    """(the branch's line, the lines where its taken arm's statements start): a branch the numeric
    pass checks taken every time, whose reads of shared memory may then run where the real
    outcome skips them (analyze.py: a read of unwritten bytes there is not a definite bug). Start
    lines only: the repair's reuse of a run compares where spans start (repair/prefix.py)."""
    return (st.span.line, frozenset(s.span.line for s in statements(st.then)
                                    if getattr(s, "span", None) is not None))


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
    # parameters of counted iteration choices whose branches one cell value takes in every
    # launch and iteration (`0 <= idx` with idx = 0): a run with every iteration true exists
    # for every launch, so prover/behaviours.py may tie them as it ties count roots
    true_possible_roots: set = field(default_factory=set)
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


# calls that compute a value from their arguments alone (no memory, no thread identity)
_UNIFORM_SAFE_CALLS = {"T.Cast", "T.Broadcast", "T.reinterpret", "T.bitwise_and", "T.bitwise_or",
                       "T.bitwise_xor", "T.bitwise_not", "T.shift_left", "T.shift_right", "T.max",
                       "T.min", "T.abs", "T.truncdiv", "T.truncmod", "T.floordiv", "T.floormod",
                       "T.type_annotation",
                       # pure math: one result for one argument in every thread
                       "T.exp", "T.exp2", "T.log", "T.log2", "T.sqrt", "T.rsqrt", "T.tanh", "T.fabs"}


_UNIFORM_SAFE_PREFIXES = ("T.float", "T.int", "T.uint", "T.bfloat", "T.bool")


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


def same_arms(s) -> bool:
    """Branch `s`'s arms are accesses alone, the same shared bytes in the same order: its
    condition decides only the values stored, nothing the provers compare (engine/accelerate.py
    `collect`)."""
    return _access_only(s.then) and _access_only(s.other) and _same_accesses(s.then, s.other)


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


def _signed_terms(e, sign: int = 1) -> list:
    """e as a sum of signed terms (over + and -)."""
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        return _signed_terms(e.left, sign) + _signed_terms(e.right, sign if e.op == "+" else -sign)
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return _signed_terms(e.operand, -sign)
    return [(sign, e)]


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


def _without_load(cond, sub):
    """`cond` (a `_guarding_load` form around `sub`) read with the load true."""
    if _bare_load(cond) is sub:
        return ir.Const(True, getattr(cond, "span", ir.NO_SPAN))
    if isinstance(cond, ir.Call):      # T.if_then_else(c, load, False)
        return cond.args[0]
    return cond.left if _bare_load(cond.right) is sub else cond.right   # c and load


def _rewrite(e, mapping: dict):
    """`e` with every Var named in `mapping` replaced by mapping[name] (an ir expression)."""
    return ir.rewrite(e, lambda x: mapping.get(x.name) if isinstance(x, ir.Var) else None)


def _subscripts(e, out: list) -> list:
    out.extend(x for x in ir.nodes(e) if isinstance(x, ir.Subscript))
    return out
