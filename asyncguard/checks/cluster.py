"""Thread-block clusters: a CTA that exits while its peers still use its shared memory, and a
peer's mbarrier used before its init (engine/state/cluster.py, models/cluster.py)."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult
from .barriers import _groups
from .mbarrier import INIT_UNPUBLISHED, _doc


PEER_EXITED = rule("AG430", "cluster-peer-exited", "race", "error",
                   "a CTA may exit while a peer CTA of its cluster still accesses its shared memory or mbarriers",
                   _doc(
    "Flags a remote access (a store through a mapa'd / map_shared_rank address, a TMA multicast or "
    "cluster bulk copy into a peer, an arrival on a peer's mbarrier) that no thread of the target CTA "
    "is ordered after before it exits, and an asynchronous copy that reads a CTA's own shared memory "
    "for a peer (`T.tma_store_cluster`) that the issuing CTA is not ordered after before it exits.",
    "A CTA's shared memory and mbarriers are released when it exits; the CUDA programming guide "
    "(Distributed Shared Memory) requires every distributed shared memory operation to finish before "
    "the block it touches exits. CUTLASS ends its cluster kernels with a cluster barrier for this.",
    "if rank == 0:\n    T.ptx_arrive_cluster_barrier(empty[s], 1)   # CTA 1 may be gone already\n# kernel ends",
    "if rank == 0:\n    T.ptx_arrive_cluster_barrier(empty[s], 1)\nT.cluster_sync()   # no CTA exits before its peers are done",
    "The remote operation (line, thread as `t of CTA r`, buffer or barrier) and the CTA that may already "
    "have exited."))

PEER_NOT_STARTED = rule("AG431", "cluster-peer-not-started", "race", "error",
                        "a load or store into a peer CTA's shared memory before anything shows that CTA has started",
                        _doc(
    "Flags a plain load or store through a mapa'd / map_shared_rank address into a peer CTA's shared "
    "memory by a thread that knows of no action of any thread of that CTA: no cluster barrier, no "
    "mbarrier phase the peer completed, nothing ordered the access after the peer began.",
    "The threads of a cluster's CTAs start when the hardware schedules them; the CUDA programming "
    "guide's distributed shared memory example opens with cluster.sync(), which \"ensures that all "
    "thread blocks have started executing and they exist concurrently\". A store into a CTA that has "
    "not started may be overwritten by that CTA's own initialization, or reach memory the CTA does not "
    "own yet; compute-sanitizer's racecheck reports it as an access to a block that might not have "
    "entered yet (facebookexperimental/triton#2292).",
    "T.ptx_cluster_store(ptr(buf.data, 0), v, peer, peer)   # first thing the kernel does\nT.cluster_sync()",
    "T.cluster_sync()                                        # every CTA has started\nT.ptx_cluster_store(ptr(buf.data, 0), v, peer, peer)\nT.cluster_sync()",
    "The access (line, thread as `t of CTA r`, buffer) and the peer CTA nothing shows has started."))


def _thread(result: RunResult, t: int) -> str:
    n = result.cta_threads or result.num_threads
    return f"{t % n} of CTA {t // n}" if result.num_threads > n else str(t)


def check(result: RunResult, path: str) -> list[Finding]:
    out = []
    for p in result.cluster_exits:
        u = p.use
        msg = (f"{u.what} at line {u.span.line} (thread {_thread(result, p.thread)}) is not ordered before "
               f"CTA {u.target} exits: no thread of CTA {u.target} waits for it (a cluster barrier before "
               f"the end of the kernel would)")
        wit = {"line": u.span.line, "thread": p.thread, "target_cta": u.target, "operation": u.what,
               "buffer": u.buffer, "source_of_a_copy": u.source}
        out.append(Finding(PEER_EXITED, u.span.line or 1, u.span.col or 1, msg, wit, path))
    for p in result.cluster_starts:
        msg = (f"{p.what} at line {p.span.line} (thread {_thread(result, p.thread)}) reaches CTA {p.target}'s "
               f"shared memory before anything shows CTA {p.target} has started: no cluster barrier or "
               f"mbarrier phase of that CTA is ordered before it (a cluster barrier at the start would)")
        wit = {"line": p.span.line, "thread": p.thread, "target_cta": p.target, "operation": p.what,
               "buffer": p.buffer}
        out.append(Finding(PEER_NOT_STARTED, p.span.line or 1, p.span.col or 1, msg, wit, path))
    seen = set()
    for p in result.mbar_problems:
        if p.kind != "peer-uninitialized" or (p.span.line, p.barrier) in seen:
            continue
        seen.add((p.span.line, p.barrier))
        d = p.detail
        msg = (f"threads {_groups(p.tids)} (CTA {d['user_cta']}) use {p.barrier} at line {p.span.line} before "
               f"CTA {d['barrier_cta']} initializes it: nothing orders a peer's mbarrier init before a remote "
               f"use (a cluster barrier after the init and fence.mbarrier_init would)")
        out.append(Finding(INIT_UNPUBLISHED, p.span.line or 1, p.span.col or 1, msg,
                           {"barrier": p.barrier, "threads": _groups(p.tids), **d}, path))
    return out
