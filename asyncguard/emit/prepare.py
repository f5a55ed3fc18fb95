"""The gate's CPU side: static verdict, skeleton and numpy reference of every kernel, and the
comparison of a GPU trace with the reference. Nothing here needs a GPU, and nothing here raises
on a kernel: a kernel the gate cannot handle becomes a Case with `skip` set to the reason.

Each file is prepared in a worker process under a wall-clock budget (the checker's own per-kernel
`--timeout` for the static verdict, an alarm for elaboration, emission and the reference), so one
pathological kernel costs its budget and is SKIP, never a stalled run.
"""
from __future__ import annotations

import dataclasses

import os
import re
import signal
import sys
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..prover import one_thread_at_a_time

MAX_BLOCK_THREADS = 1024          # CUDA's limit on threads per block
MAX_Z_THREADS = 64                # CUDA's limit on blockDim.z
GATE_SIZES = 4                    # symbolic kernels run at this many of the sizes the checker lists
GATE_BLOCKS = 4                   # blocks traced and launched, at most (of the checker's sample)
PREPARE_SECONDS = 60.0            # default budget per file (static check, then each instance)
# Launch time per mbarrier wait of the busiest thread: the warp-specialized field GEMMs
# (`gemm_barrierpipe_stage2`: 256 waits per thread, 256 TMA stages) took 86 s on the H200, past the
# 60 s default limit: 0.34 s per wait, and this leaves room for other contexts sharing the GPU.
# A plan's limit is the larger of --launch-timeout and this times its waits (launch_limit).
SECONDS_PER_WAIT = 0.6
MAX_LAUNCH_SECONDS = 400.0        # no plan waits longer than this (a device command runs 600 s)


@dataclass
class Case:
    path: str
    func: str
    static: str = ""
    static_rules: list = field(default_factory=list)
    findings: list = field(default_factory=list)    # the static findings (dicts) of this function
    checked_blocks: list = field(default_factory=list)   # the blocks the static check ran (KernelReport.run_blocks)
    emitted: object = None
    skip: str | None = None          # why the gate cannot run this kernel (reported SKIP)
    refs: list = field(default_factory=list)
    plan: dict = field(default_factory=dict)
    hang: str | None = None
    result: dict = field(default_factory=dict)
    same_as: "Case | None" = None    # an earlier case with the identical skeleton (its run is shared)
    seconds: float = 0.0             # preparation time of this case
    replays: list = field(default_factory=list)     # witness replay skeletons (emit/replay.py)

    @property
    def id(self) -> str:
        return f"{self.path}::{self.func}"

    # the old name, kept for the JSON rows and the table script
    @property
    def not_emitted(self) -> str | None:
        return self.skip


class PrepareTimeout(Exception):
    pass


@contextmanager
def deadline(seconds: float, what: str):
    """Raise PrepareTimeout inside the block after `seconds` (main thread of a process only;
    elsewhere, or with seconds <= 0, no limit)."""
    import threading
    usable = seconds and seconds > 0 and hasattr(signal, "setitimer") and \
        threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    fired = []

    def _alarm(signum, frame):
        fired.append(True)
        raise PrepareTimeout(f"{what}: more than {seconds:g} s")

    def _unraisable(unraisable):
        # the alarm swallowed in a gc callback or __del__: raised again below, not reported
        if not isinstance(unraisable.exc_value, PrepareTimeout):
            old_hook(unraisable)

    old = signal.signal(signal.SIGALRM, _alarm)
    old_hook, sys.unraisablehook = sys.unraisablehook, _unraisable
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.unraisablehook = old_hook
    if fired:   # the alarm's exception was swallowed where it fired (e.g. inside a gc callback)
        raise PrepareTimeout(f"{what}: more than {seconds:g} s")


# the longest trip count a gate launch runs: the induction's far value (thousands) is left out
GATE_MAX_TRIPS = 256


def gate_sizes(program) -> list[dict]:
    """Concrete values for a kernel's symbolic sizes: a few of those the checker itself runs
    (prover.sizes), smallest first, the induction's far value left out (too long to trace)."""
    if not program.symbols:
        return [{}]
    from ..prover.sizes import plan_sizes
    plan = plan_sizes(program, [])
    listed = plan.values
    # (not by position: a threshold's plan, `prev_k` in {1, 9}, has no far value, and its last
    # value is the one that takes the other side of the branch)
    values = [v for v, t in zip(listed, plan.trips) if max(t, default=0) <= GATE_MAX_TRIPS] or listed[:1]
    if not values:     # no size the checker runs (e.g. a launch extent it cannot read): emit says why
        return [{}]
    picks = sorted({0, 1, min(3, len(values) - 1), len(values) // 2})
    # a size the checker needs no value for (it decides nothing the machine runs: e.g. a grid
    # extent whose block index only addresses global memory) still needs one for a launch: 1
    fill = {s: 1 for s in program.symbols}
    # a symbolic grid's block index is a size to the prover (prover/sizes.py); the gate launches
    # blocks through its block map, so it is not a kernel parameter here
    blocks = set(program.launch.block_vars)
    return [{k: v for k, v in dict(fill, **values[i]).items() if k not in blocks}
            for i in picks if i < len(values)][:GATE_SIZES]


def kernel_name(index: int, ordinal: str, path: str, label: str) -> str:
    """A C name unique in the run: the file's index in the run and the case's ordinal in the file
    (function, size) come first, and only the readable rest (stem and label) is cut to length.
    Cutting the whole name gave the two kernels of a file with a long stem one name (one .cu, one
    cubin: one was launched with the other's code and buffers, CUDA_ERROR_ILLEGAL_ADDRESS)."""
    tail = re.sub(r"[^A-Za-z0-9_]", "_", f"{Path(path).stem}_{label}")[:72]
    return f"ag{index}_{ordinal}_{tail}"


def launch_problem(launch) -> str | None:
    """Why CUDA would refuse this block shape (the gate then does not launch it)."""
    x, y, z = launch.threads
    if min(x, y, z) < 1:
        return f"threadIdx extents {launch.threads}: not a launch"
    if x * y * z > MAX_BLOCK_THREADS:
        return f"{x * y * z} threads per block: CUDA allows at most {MAX_BLOCK_THREADS}"
    if z > MAX_Z_THREADS:
        return f"threadIdx.z extent {z}: CUDA allows at most {MAX_Z_THREADS}"
    if min(launch.blocks) < 1:
        return f"grid {launch.blocks}: empty"
    if launch.cluster_size > 1:
        return f"cluster_dims {list(launch.cluster)}: the gate's launcher starts plain grids, not clusters"
    return None


def prepare(paths, jobs: int = 1, seconds: float = PREPARE_SECONDS, progress=None,
            replay: bool = False, strict: tuple = (), delays: tuple = ()) -> list[Case]:
    """Cases of every kernel (and size instance) in `paths`, files in parallel over `jobs`
    processes. Never raises on a kernel; `progress(done, total)` after each file. `replay`:
    also emit each finding's witness-replay skeleton. `strict`: the checker's opt-in readings
    (e.g. "lapping"), so their findings are judged and replayed too. `delays`
    ([{line, warp, loops, us}]): hold warps back in every kernel's plain run (the schedule a
    replay used, applied to another kernel such as its repair).

    Each file is prepared in its own forked process, so a file whose preparation crashes the
    interpreter, runs out of memory or sits in native code past the alarm (a z3 query does not
    return to Python to take the signal) is killed at three times its budget and is that file's SKIP,
    and no other file's result depends on it."""
    from ..runner import collect
    files = [str(p) for p in collect(paths)]
    tasks = [(i, f, seconds, replay, tuple(strict), tuple(delays)) for i, f in enumerate(files)]
    if jobs <= 1 or len(files) <= 1 or not hasattr(os, "fork"):
        out = []
        for n, t in enumerate(tasks, 1):
            out += prepare_file(*t)
            if progress:
                progress(n, len(tasks))
        return unique_kernels(out)
    hard = 3 * seconds + 30 if seconds else None     # the static check's budget, then the instances
    # largest files first: the slow ones (big kernels) then overlap the many small ones instead
    # of running alone at the end (the H200 field run spent its last 90 s of 195 on two files)
    order = sorted(range(len(tasks)), key=lambda i: -_file_size(tasks[i][1]))
    done = run_forked(prepare_file, [tasks[i] for i in order], jobs, hard, progress)
    results: list = [None] * len(tasks)
    for k, i in enumerate(order):
        results[i] = done[k]
    out = []
    for t, r in zip(tasks, results):
        if isinstance(r, str):
            r = [Case(t[1], "<file>", static="?", skip=f"not prepared: {r}")]
        out += r
    return unique_kernels(out)


def _file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def unique_kernels(cases: list) -> list:
    """Every launched case has its own C kernel name (its .cu, cubin and trace files are named
    after it): a repeated name is that later case's SKIP, never a launch of another kernel's code."""
    seen: dict = {}
    for c in cases:
        if c.emitted is None:
            continue
        first = seen.setdefault(c.emitted.kernel, c)
        if first is not c:
            c.skip = f"not launched: C kernel name {c.emitted.kernel} already used by {first.id}"
            c.emitted, c.plan, c.refs = None, {}, []
    return cases


def run_forked(fn, tasks: list, jobs: int, hard_limit: float | None, progress=None) -> list:
    """fn(*task) for every task, each in its own forked child, at most `jobs` at once: the
    results in order; a task whose child died or ran past `hard_limit` seconds is a string
    saying so."""
    import multiprocessing as mp
    from multiprocessing.connection import wait
    ctx = mp.get_context("fork")
    results: list = [None] * len(tasks)
    running: dict = {}               # connection -> (index, process, start)
    todo = list(range(len(tasks)))[::-1]
    done = 0

    def child(conn, task):
        try:
            conn.send(fn(*task))
        except BaseException as err:  # noqa: BLE001 -- reported to the parent, never raised there
            conn.send(f"{type(err).__name__}: {err}")
        finally:
            conn.close()

    while todo or running:
        while todo and len(running) < jobs:
            i = todo.pop()
            recv, send = ctx.Pipe(duplex=False)
            p = ctx.Process(target=child, args=(send, tasks[i]), daemon=True)
            p.start()
            send.close()
            running[recv] = (i, p, time.time())
        ready = wait(list(running), timeout=1.0)
        for conn in ready:
            i, p, _ = running.pop(conn)
            try:
                results[i] = conn.recv()
            except (EOFError, OSError):
                p.join(5)
                results[i] = f"the preparing process died (exit code {p.exitcode})"
            conn.close()
            p.join(5)
            done += 1
            if progress:
                progress(done, len(tasks))
        now = time.time()
        for conn, (i, p, start) in list(running.items()):
            if hard_limit and now - start > hard_limit:
                p.kill()
                p.join(5)
                conn.close()
                del running[conn]
                results[i] = f"preparation killed after {hard_limit:g} s (a native call did not return)"
                done += 1
                if progress:
                    progress(done, len(tasks))
    return results


@one_thread_at_a_time
def prepare_file(index: int, path: str, seconds: float = PREPARE_SECONDS, replay: bool = False,
                 strict: tuple = (), delays: tuple = ()) -> list[Case]:
    """Every case of one file. Never raises: a file the parser rejects is one SKIP case."""
    try:
        return _prepare_file(index, path, seconds, replay, strict, delays)
    except Exception as err:  # noqa: BLE001 -- the gate reports, it never crashes
        why = f"{type(err).__name__}: {err}"
        if type(err).__name__ != "InputError":
            why += " [" + traceback.format_exc(limit=-1).strip().splitlines()[-2].strip() + "]"
        return [Case(path, "<file>", static="?", skip=f"not prepared: {why}")]


def _prepare_file(index: int, path: str, seconds: float, replay: bool, strict: tuple = (),
                  delays: tuple = ()) -> list[Case]:
    from ..analyze import Limits, check_text
    from ..diagnostics import verdict
    from ..parse import parse
    from ..runner import read

    text = read(Path(path))
    statics, static_err = {}, "?"
    module = parse(text, path)       # InputError: the file's one SKIP row (prepare_file)
    try:
        report = check_text(text, path, Limits(max_seconds=seconds, strict=tuple(strict)), module=module)
        for k in report.kernels:
            statics[k.name] = (verdict(k.findings), sorted({f.rule.code for f in k.findings}),
                               [f.as_dict() for f in k.findings], list(k.run_blocks))
    except Exception as err:  # noqa: BLE001 -- an engine failure is this file's static "?", never a crash
        static_err = f"check failed: {type(err).__name__}: {err}"
    cases: list[Case] = []
    functions = module.functions
    for k, func in enumerate(functions):
        static, rules, findings, checked = statics.get(func.name, (static_err, [], [], []))
        cases += _prepare_function(index, path, func, static, rules, findings, seconds, replay, delays,
                                   ordinal=k, checked_blocks=checked)
    return cases


def _prepare_function(index, path, func, static, rules, findings, seconds, replay, delays=(),
                      ordinal: int = 0, checked_blocks: list = ()) -> list[Case]:
    from ..engine.program import elaborate
    out: list[Case] = []

    def new(label: str) -> Case:
        c = Case(path, label, static=static, static_rules=rules, findings=findings,
                 checked_blocks=list(checked_blocks))
        out.append(c)
        return c

    t0 = time.time()
    try:
        with deadline(seconds, "elaboration"):
            program = elaborate(func)
            if program.notes:   # no skeleton at any size: say so before listing sizes (z3, seconds)
                reason, span = program.notes[0]
                new(func.name).skip = f"not emitted: line {span.line}: {reason}"
                out[-1].seconds = round(time.time() - t0, 3)
                return out
            sizes = gate_sizes(program)
    except Exception as err:  # noqa: BLE001 -- PrepareTimeout, NotModelled, a model bug
        new(func.name).skip = f"elaboration failed: {type(err).__name__}: {err}"
        return out
    # one case per size, and one per finding whose witness needs inputs the plain runs do not
    # take (a block mask's zeros, an empty sequence's cu_seqlens): a launch under exactly those
    cases = [(func.name + ("[" + ",".join(f"{k}={v}" for k, v in size.items()) + "]" if size else ""),
              size, f"{ordinal}_{j}", replay, None) for j, size in enumerate(sizes)]
    cases += [(f"{func.name}[inputs of {rule} line {line}]", size, f"{ordinal}_w{j}", False, (block, pattern))
              for j, (size, block, pattern, rule, line) in enumerate(witness_inputs(findings, program))]
    for label, size, ordinal_j, replay_it, witness in cases:
        c = new(label)
        left = seconds - (time.time() - t0) if seconds else 0
        if seconds and left <= 0:
            c.skip = f"preparation budget ({seconds:g} s per file) spent before this case"
            continue
        try:
            with deadline(left, "skeleton and reference"):
                _prepare_instance(c, func, program, size, kernel_name(index, ordinal_j, path, label), replay_it,
                                  delays, witness=witness)
        except Exception as err:  # noqa: BLE001
            c.skip = f"{type(err).__name__}: {err}"
            c.refs, c.emitted, c.plan = [], None, {}
        c.seconds = round(time.time() - t0, 3)
    return out


MAX_WITNESS_RUNS = 3   # per kernel: distinct witness inputs launched


def witness_inputs(findings: list, program) -> list:
    """[(size, block, inputs by cell name, rule, line)] of the static findings whose witness
    names data-dependent inputs other than every truth value taken (what the plain runs use),
    at most MAX_WITNESS_RUNS distinct ones, one per rule first (a kernel whose findings come
    from several patterns shows each kind of failure)."""
    out, seen = [], set()
    block_vars = set(program.launch.block_vars)
    first, rest, rules = [], [], set()
    for f in findings:
        (rest if f.get("rule") in rules else first).append(f)
        rules.add(f.get("rule"))
    for f in first + rest:
        w = f.get("witness") or {}
        pattern = w.get("inputs")
        if f.get("severity") != "error" or not isinstance(pattern, dict) or not pattern or \
                all(v == 1 for v in pattern.values()):
            continue
        size = {s: 1 for s in program.symbols}
        size.update({k: v for k, v in (w.get("sizes") or {}).items() if k in program.symbols})
        size = {k: v for k, v in size.items() if k not in block_vars}
        block = {k: int(v) for k, v in (w.get("block") or {}).items()}
        key = repr((sorted(size.items()), sorted(block.items()), sorted(pattern.items())))
        if key not in seen:
            seen.add(key)
            out.append((size, block, pattern, f.get("rule"), f.get("line")))
        if len(out) >= MAX_WITNESS_RUNS:
            break
    return out


def _prepare_instance(c: Case, func, program, size: dict, kname: str, replay: bool = False,
                      delays: tuple = (), witness: tuple | None = None) -> None:
    """One launch of the skeleton at `size`: its traced blocks under every truth value taken, or
    with `witness` (block, inputs by cell name) that one block under a finding's inputs."""
    from . import reference
    from .cuda import EmitError, emit

    why = launch_problem(program.launch)
    if why:
        c.skip = f"not launched: {why}"
        return
    launch = program.launch
    blocks = traced_blocks(program, c.findings or (), c.checked_blocks) if witness is None else [witness[0]]
    numbers, blocks, why = launch_numbers(program, blocks, size)
    if why:
        c.skip = f"not launched: {why}"
        return
    folded, symbolic = fold_numbers(program, blocks, size, numbers or {})
    if folded:
        numbers = {**(numbers or {}), **folded}
    try:
        e = emit(func, program, kname, sizes=size, delays=list(delays), numbers=numbers,
                 symbol_trips=symbolic)
        inputs = None
        if witness is not None:
            # the reference run under the witness's inputs says what every cell it meets
            # returns: the skeleton's table (truth values included)
            try:
                probe = reference.witness_run(program, e, blocks[0], size, numbers, witness[1])
            except ValueError as err:
                c.skip = f"not launched: {err}"
                return
            numbers = {**(numbers or {}), **probe.table()}
            e = emit(func, program, kname, sizes=size, delays=list(delays), numbers=numbers,
                     truth_table=True, symbol_trips=symbolic)
            inputs = (lambda: reference.WitnessInputs(witness[1], numbers, probe.outcomes))
    except EmitError as err:
        c.skip = f"not emitted: {err}"
        return
    # only the traced blocks are launched, each with its real block index (the block-index map):
    # blocks share nothing the skeleton checks (shared memory, barriers, mbarriers are per block),
    # and a full grid of a large example (16384^3 GEMM: 16384 blocks of 256 TMA stages) outlasts
    # any launch limit
    bmap = [[int(b.get(f"blockIdx.{a}", 0)) for a in "xyz"] for b in blocks]
    T = launch.num_threads
    same_runs = None
    for b in blocks:
        twin = None
        if c.refs and witness is None and program.numeric is None:
            # z3 proves this block runs as one already computed (the checker's block_alike: the same
            # branches, trip counts and shared addresses): the same event stream, so the same
            # reference; a persistent GEMM's four traced blocks were four full runs (113 s)
            if same_runs is None:
                from ..prover.block_alike import BlockAlike
                same_runs = BlockAlike(program)
            twin = next((r for r in c.refs if not r.inputs_met and same_runs.runs_as(b, r.block)), None)
        if twin is not None:
            r = dataclasses.replace(twin, block=b)
        else:
            r = reference.compute(program, e, b, sizes=size, numbers=numbers,
                                  inputs=inputs() if inputs is not None else None)
        if len(r.reads) != T:
            raise AssertionError(f"reference has {len(r.reads)} threads, the launch {T}")
        c.refs.append(r)
        c.hang = c.hang or r.hang
        if r.problem:
            c.skip = f"reference incomplete (block {b or 0}): {r.problem}"
            return
    chosen: dict = {}
    for r in c.refs:
        for cell, value in r.chosen.items():
            if chosen.setdefault(cell, value) != value:
                c.skip = (f"not launched: cell {cell} decides iterations of two traced blocks with "
                          f"values {chosen[cell]} and {value}")
                c.refs = []
                return
    if any((numbers or {}).get(cell) != value for cell, value in chosen.items()):
        # an iteration's branches decided by a loaded cell: the reference took an outcome
        # (engine/loaded_numbers.py `_iteration_choice`), the skeleton evaluates the kernel's
        # condition on the value it loads, so the table holds a value giving that outcome
        numbers = {**(numbers or {}), **chosen}
        try:
            e = emit(func, program, kname, sizes=size, delays=list(delays), numbers=numbers,
                     truth_table=witness is not None, symbol_trips=symbolic)
        except EmitError as err:
            c.skip, c.refs = f"not emitted: {err}", []
            return
    maxr = max((len(x) for r in c.refs for x in r.reads), default=0)
    # each thread's pool slice: the most its copies consume in any traced block, in 16-byte steps
    slices = np.max([r.src_bytes for r in c.refs], axis=0) if c.refs else np.zeros(T, np.int64)
    if any(r.stuck_waits for r in c.refs):
        # the engine's run deadlocked on an mbarrier: the GPU's waits will spin out; a shorter
        # limit shows the same hang sooner (and each later wait polls briefly: emit/cuda.py)
        e.source = predicted_hang_source(e.source)
    c.plan = {"id": c.id, "kernel": e.kernel, "grid": list(e.grid), "block": list(e.threads),
              "launch_grid": [len(blocks), 1, 1], "blocks": bmap,
              "threads_total": T, "smem": e.smem_bytes, "nslots": len(blocks), "maxr": maxr,
              "slices": [int(-(-n // 16) * 16) for n in slices],
              "hopper": "hopper" in e.features, "waits": max((r.max_waits for r in c.refs), default=0)}
    fold_syms = [sym for sym, _, _ in getattr(program.numeric, "fold_cells", ()) if sym in size]
    if fold_syms:
        # how the skeleton's folded-trip loops get the count the reference runs: from the loaded
        # numbers (the kernel's own fold), or, where no numbers give it, the symbol's value
        c.plan["fold_trips"] = {sym: "symbol" if sym in symbolic else "loaded" for sym in fold_syms}
    e.info = {}           # op id -> model closures: used by the reference only, not picklable
    c.emitted = e
    if replay and c.findings and not c.hang:
        from .replay import prepare_replays
        prepare_replays(c, func, program, size, kname, numbers, symbol_trips=symbolic)


def launch_numbers(program, blocks: list, size: dict) -> tuple[dict | None, list, str | None]:
    """The numbers the launch's loads of read-only numbers return (a varlen kernel's cu_seqlens):
    what the checker's run of each traced block at this size read (engine/inputs.py
    launch_numbers), merged into one table, and the traced blocks that table serves: a block
    that would need a cell to hold another value than an earlier block's (batch 1's start is
    batch 0's end) is not launched. (None, blocks, None) when the kernel loads no numbers,
    (None, [], why) when the first block has no such run."""
    numeric = getattr(program, "numeric", None)
    if numeric is None:
        return None, blocks, None
    from ..engine.inputs import launch_numbers as run_numbers
    out: dict = {}
    kept: list = []
    for b in blocks:
        env = {k: v for k, v in dict(program.launch.base_env(b), **size).items()
               if not isinstance(v, np.ndarray)}
        got, why = run_numbers(numeric, env)
        if got is None:
            if not kept:
                return None, [], f"loaded numbers of block {b or 0}: {why}"
            continue
        if all(out.get(key, value) == value for key, value in got.items()):
            out.update(got)
            kept.append(b)
    return out, kept, None


def fold_numbers(program, blocks: list, size: dict, table: dict) -> tuple[dict, set]:
    """The cells whose numbers registers fold into a trip count (engine/loaded_numbers.py `_fold_trips`:
    the lightning indexer's `(e_max + 255 - s_min) // 256`, e_max and s_min the max / min of
    CuSeqLenKE / CuSeqLenKS cells), chosen by z3 so that in every traced block the fold gives
    the value the reference runs for the symbol `trips(line ..)` at this size (cells >= 0, as
    cu_seqlens are; those `table` already holds keep their value). -> ({cell key: value} to add
    to the launch's table, the symbols no such values give at this size, e.g. 3 trips of 256
    keys with seq_len_kv = 1 clamping every cell to 1: the skeleton's loops then run the
    symbol's value itself, emit/cuda.py `symbol_trips`). Without this the table held no such
    cell (no checking run loads them), every load read 0, and the skeleton looped
    (0 + 255 - 0) // 256 = 0 times where the reference ran the symbol's count."""
    numeric = getattr(program, "numeric", None)
    if numeric is None or not getattr(numeric, "fold_cells", None):
        return {}, set()
    import z3

    from ..engine.exprs import free_names
    from ..engine.inputs import NotConcreteKey
    from ..prover.encode import Unencodable, encode
    from ..prover.solve import Query
    added: dict = {}
    symbolic: set = set()
    for sym, expr, keys in numeric.fold_cells:
        if sym not in size:
            continue
        want = int(size[sym])
        cells: dict = {}
        side: list = []
        try:
            for b in blocks:
                env = {k: v for k, v in dict(program.launch.base_env(b), **size).items()
                       if not isinstance(v, np.ndarray)}
                zenv = {}
                for name, key_fn in keys.items():
                    key = key_fn(env)
                    cells.setdefault(key, z3.Int(f"cell{len(cells)}"))
                    zenv[name] = cells[key]
                for name in free_names(expr) - set(keys):
                    zenv[name] = z3.IntVal(int(env[name]))
                term, s = encode(expr, zenv)
                # a count below 0 runs no iteration, as 0 does
                side += s + [term == want if want > 0 else term <= 0]
        except (Unencodable, NotConcreteKey, KeyError, TypeError, ValueError):
            symbolic.add(sym)
            continue
        fixed = {**table, **added}
        bounds = [c for key, v in cells.items()
                  for c in ([v == int(fixed[key])] if key in fixed else [v >= 0, v < 2 ** 31])]
        query = Query(*bounds, *side, rlimit=None)
        if query.check() != z3.sat:
            symbolic.add(sym)
            continue
        added.update({key: int(query.number(v)) for key, v in cells.items() if key not in fixed})
    return added, symbolic


def predicted_hang_source(source: str) -> str:
    """The skeleton with the shorter first-wait limit of a kernel whose hang the engine predicts."""
    from .cuda import SPIN_LIMIT, SPIN_LIMIT_PREDICTED_HANG
    return source.replace(f"#define AG_SPIN_LIMIT {SPIN_LIMIT}u", f"#define AG_SPIN_LIMIT {SPIN_LIMIT_PREDICTED_HANG}u", 1)


def launch_limit(plan: dict, default: float) -> float:
    """Seconds a launch of `plan` may take before it counts as a hang: the default, or more for a
    long pipeline (SECONDS_PER_WAIT per mbarrier wait of its busiest thread), at most
    MAX_LAUNCH_SECONDS."""
    return max(float(default), min(MAX_LAUNCH_SECONDS, SECONDS_PER_WAIT * int(plan.get("waits") or 0)))


def traced_blocks(program, findings: list = (), checked: list = ()) -> list[dict]:
    """The blocks the checker runs (analyze._check_function): block 0 unless control flow depends
    on blockIdx, then the sampled blocks, or block 0 alone when blocks differ only in which
    data-dependent inputs they read (under the reference's all-taken inputs they run alike).
    Of more than GATE_BLOCKS sampled blocks (a 2-D grid samples 16, a 3-D one 64, each a full
    reference without loop acceleration) the gate runs the first, second, middle and last.
    The block of each static finding's witness is run too: the checker runs more blocks than it
    samples when their runs are cheap (analyze.py, EXTRA_BLOCK_STEPS), and a race it found in
    one of those shows only there. So are those blocks (`checked`: the static check's
    KernelReport.run_blocks) beyond the sample: cheap to trace by the same measure, and a clean verdict
    rests on them too (a repaired stream-K GEMM is clean because its tile-crossing blocks are)."""
    sampled = program.launch.sample_blocks() if program.block_dependent else [{}]
    out = _sampled_traced_blocks(program, sampled)
    if program.block_dependent and not program.blocks_alike:
        out += [dict(b) for b in checked if b and b not in sampled and b not in out]
    for f in findings:
        block = (f.get("witness") or {}).get("block") if isinstance(f, dict) else None
        if block and f.get("severity") == "error":
            block = {k: int(v) for k, v in block.items()}
            if block not in out:
                out.append(block)
    return out


def _sampled_traced_blocks(program, blocks: list) -> list[dict]:
    """traced_blocks without the findings' blocks (`blocks`: the launch's sampled blocks)."""
    if not program.block_dependent:
        return [{}]
    if program.blocks_alike:
        return blocks[:1]
    if len(blocks) > GATE_BLOCKS:   # 2-D / 3-D grids sample up to 64: a few of them, spread out
        picks = sorted({0, 1, len(blocks) // 2, len(blocks) - 1})
        blocks = [blocks[i] for i in picks]
    return blocks


def skeleton_key(c: Case) -> tuple:
    """Two cases with this key equal run the same code on the same launch and expect the same
    trace: the source without its kernel name and line comments, the launch, the reference."""
    src = re.sub(r"//[^\n]*", "", c.emitted.source.replace(c.emitted.kernel, "K"))
    plan = tuple((k, str(v)) for k, v in sorted(c.plan.items()) if k not in ("id", "kernel", "cubin"))
    reads = tuple(tuple(h for h, _ in x) for r in c.refs for x in r.reads)
    return src, plan, reads


def run_shape(plan: dict) -> tuple:
    """(slots, threads, reads per thread) of a launch's trace buffer."""
    return max(plan["nslots"], 1), plan["threads_total"], max(plan["maxr"], 1)


def expected_arrays(case: Case) -> tuple:
    """The reference as arrays in the launch's shape: (trace, counts, known, lines) with
    trace / known / lines (slots, threads, reads) -- `known` False where the reference has no
    checksum -- and counts (slots, threads). Built once per case (compare runs per launch)."""
    cached = getattr(case, "_expected", None)
    if cached is not None:
        return cached
    S, T, R = run_shape(case.plan)
    trace = np.zeros((S, T, R), dtype=np.uint32)
    known = np.zeros((S, T, R), dtype=bool)
    lines = np.zeros((S, T, R), dtype=np.int32)
    counts = np.zeros((S, T), dtype=np.int64)
    for s, ref in enumerate(case.refs[:S]):
        for t, reads in enumerate(ref.reads[:T]):
            counts[s, t] = len(reads)
            if not reads:
                continue
            k = min(len(reads), R)
            hs = [h for h, _ in reads[:k]]
            trace[s, t, :k] = [0 if h is None else h for h in hs]
            known[s, t, :k] = [h is not None for h in hs]
            lines[s, t, :k] = [ln or 0 for _, ln in reads[:k]]
    out = (trace, counts, known, lines)
    try:
        case._expected = out
    except AttributeError:
        pass
    return out


def expected_run(case: Case) -> dict:
    """The run a correct GPU would return for this case: the reference's trace in the launch's
    buffers (tests, and the shape every real run is checked against)."""
    S, T, R = run_shape(case.plan)
    trace, counts, _, _ = expected_arrays(case)
    smem = max(case.plan["smem"], 16)
    sink = np.zeros((S, smem), dtype=np.uint8)
    for s, ref in enumerate(case.refs):
        if ref.sink is not None:
            sink[s, : len(ref.sink)] = ref.sink
    return {"trace": trace.copy(), "counts": counts.astype(np.uint32), "sink": sink, "timeouts": 0, "overruns": 0}


def compare(case: Case, run: dict) -> dict:
    """Every traced read against the reference (numpy, over the whole trace at once). A run whose
    buffers do not have the launch's shape (a different kernel's run) is reported as such, never
    indexed past its end."""
    S, T, R = run_shape(case.plan)
    trace, counts = np.asarray(run["trace"]), np.asarray(run["counts"])
    if trace.shape != (S, T, R) or counts.shape != (S, T) or len(case.refs) > S:
        return {"mismatches": 0, "count_mismatches": 0, "sink_mismatches": 0, "reads": 0,
                "shape_error": f"trace {trace.shape} / counts {counts.shape}, expected {(S, T, R)} / {(S, T)}",
                "first": ["the run's buffers do not have this kernel's launch shape"]}
    want, want_counts, known, lines = expected_arrays(case)
    n = len(case.refs)
    first, where = [], []
    bad_counts = np.argwhere(counts[:n].astype(np.int64) != want_counts[:n])
    for s, t in bad_counts[:5].tolist():
        first.append(f"block {case.refs[s].block or 0} thread {t}: {int(counts[s, t])} reads, "
                     f"reference {int(want_counts[s, t])}")
    differ = known[:n] & (trace[:n] != want[:n])
    bad = np.argwhere(differ)            # (slot, thread, read) in row-major order, as the old loop
    for s, t, i in bad[:64].tolist():
        where.append((t, int(lines[s, t, i])))
    for s, t, i in bad[:max(0, 5 - len(first))].tolist():
        first.append(f"block {case.refs[s].block or 0} thread {t} read #{i} (line {int(lines[s, t, i])}): "
                     f"got {int(trace[s, t, i]):08x}, reference {int(want[s, t, i]):08x}")
    sink_bad = 0
    for slot, ref in enumerate(case.refs):
        if ref.sink is not None and "sink" in run:
            got = np.asarray(run["sink"])[slot][: len(ref.sink)]
            badb = np.flatnonzero(got != ref.sink[: len(got)])
            sink_bad += len(badb)
            if len(badb) and len(first) < 5:
                first.append(f"block {ref.block or 0} TMA-store sink: {len(badb)} byte(s) differ from the "
                             f"reference, the first at shared offset {int(badb[0])}")
    return {"mismatches": int(len(bad)), "count_mismatches": int(len(bad_counts)), "sink_mismatches": sink_bad,
            "first": first, "reads": sum(len(x) for r in case.refs for x in r.reads), "where": where}


def stderr_progress(what: str, every: float = 5.0):
    """A progress callback printing `what: done/total, elapsed` on stderr at most every `every`
    seconds (and at the end)."""
    t0, last = time.time(), [0.0]

    def tick(done: int, total: int, extra: str = "") -> None:
        now = time.time()
        if done == total or now - last[0] >= every:
            last[0] = now
            print(f"asyncguard sanitize: {what} {done}/{total} ({now - t0:.0f} s){extra}",
                  file=sys.stderr, flush=True)
    return tick
