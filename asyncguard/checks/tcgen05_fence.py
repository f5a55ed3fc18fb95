"""tcgen05 operations of two threads on the same tensor-memory cells, ordered by a barrier or an
mbarrier but not by the tcgen05 fences around it (engine/state/tcgen05.py)."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult
from .classify import is_tcgen05, tcgen05_name
from .mbarrier import _doc
from .witness import access, where

MISSING_TCGEN05_FENCE = rule("AG432", "missing-tcgen05-fence", "race", "error",
                             "tcgen05 operations of two threads ordered by a synchronization without "
                             "tcgen05.fence::before_thread_sync / after_thread_sync around it", _doc(
    "Opt-in (`--strict tcgen05`). Flags two tcgen05 operations (tcgen05.ld, tcgen05.st, tcgen05.mma, "
    "tcgen05.cp) of different threads "
    "on the same tensor-memory cells, one of them a write, that a barrier or an mbarrier orders but "
    "whose threads do not fence around it: the first thread runs no "
    "`tcgen05_before_thread_sync()` between its operation and the synchronization (a tcgen05.commit "
    "carries that fence), or the second runs no `tcgen05_after_thread_sync()` between the "
    "synchronization and its operation.",
    "tcgen05 operations are asynchronous to the thread's barriers and mbarrier operations: PTX ISA "
    "9.7.16.6.3, the fences \"compose with execution ordering instructions\" to order tcgen05 "
    "operations across threads, and 9.7.16.6.4.4 gives the pattern (operation, completion, "
    "before_thread_sync, synchronize; synchronize, after_thread_sync, operation). Without them the "
    "epilogue's tcgen05.ld may read the accumulator while the next MMA overwrites it, or the MMA may "
    "read operands a tcgen05.st has not written (tile-ai/tilelang#1980 added the four fences of its "
    "Blackwell GEMM for this). Opt-in because the ISA's patterns wait with `mbarrier.try_wait.relaxed`, "
    "while TileLang's waits and arrives carry the default acquire / release semantics, and NVIDIA's own "
    "CUTLASS examples hand tensor memory over without these fences (NVIDIA/cutlass#2974).",
    "T.mbarrier_wait_parity(tmem_full[0], p)\nT.tcgen05_ld(32, 64, T.bool(False), C_tmem[0], 0, 32, regs)\n"
    "T.ptx_arrive_barrier(tmem_empty[0])",
    "T.mbarrier_wait_parity(tmem_full[0], p)\nT.tcgen05_after_thread_sync()\n"
    "T.tcgen05_ld(32, 64, T.bool(False), C_tmem[0], 0, 32, regs)\nT.tcgen05_before_thread_sync()\n"
    "T.ptx_arrive_barrier(tmem_empty[0])",
    "The two operations (line, thread, cells) and which fence is missing, by which thread."))

_OP = {"tcgen05_ld": "tcgen05.ld", "tcgen05_st": "tcgen05.st"}


def _name(rec) -> str:
    """The operation for the message: the MMA / copy names classify.py gives, or ld / st."""
    return tcgen05_name(rec) if is_tcgen05(rec) else _OP.get(rec.via, rec.via or "a tcgen05 operation")


def check(result: RunResult, path: str) -> list[Finding]:
    out = []
    for p in result.tcgen05_fence_problems:
        a, b = p.first, p.second
        needs = []
        if p.missing in ("before", "both"):
            needs.append(f"T.tcgen05_before_thread_sync() by thread {p.t_first} after line {a.span.line}, "
                         "before the synchronization")
        if p.missing in ("after", "both"):
            needs.append(f"T.tcgen05_after_thread_sync() by thread {p.t_second} after the synchronization, "
                         f"before line {b.span.line}")
        wit = {"first": access(a, p.t_first, p.lo, p.hi), "second": access(b, p.t_second, p.lo, p.hi),
               "missing": " and ".join(needs)}
        msg = (f"{_name(b)} by thread {p.t_second} at {where(b)} and {_name(a)} by thread {p.t_first} at "
               f"{where(a)} use the same tensor-memory cells; a synchronization orders the threads, but "
               f"not the tcgen05 operations: missing {' and '.join(needs)}")
        out.append(Finding(MISSING_TCGEN05_FENCE, b.span.line, b.span.col, msg, wit, path))
    return out
