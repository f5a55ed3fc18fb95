"""Hopper pipelines: mbarrier phases and pairing, TMA, wgmma and the async proxy."""
from __future__ import annotations

from ..diagnostics import Finding, rule
from ..engine.machine import RunResult
from .barriers import _groups
from ..events import AccessKind
from .classify import (DEALLOCS, READS, async_copy_name, async_reader, exited, family, is_tcgen05, is_tma,
                       tcgen05_name)
from .witness import access, byte_text, where


def _doc(what: str, why: str, bad: str, good: str, witness: str) -> str:
    return (f"## What it does\n{what}\n\n## Why is this bad?\n{why}\n\n## Example\n```python\n{bad}\n```\n\n"
            f"## Use instead\n```python\n{good}\n```\n\n## Witness\n{witness}")


TMA_NOT_ACQUIRED = rule("AG401", "tma-read-before-phase", "race", "error",
                        "bytes a TMA load delivers are accessed without acquiring the mbarrier phase that completes it", _doc(
    "Flags an access to shared bytes written by a TMA load (`T.tma_load`) when the accessing thread has not "
    "waited on the mbarrier phase the load completes on: the consumer's full-barrier wait is missing, or "
    "uses a parity that returns on another phase. Also a read (`T.tcgen05_ld`) of the tensor-memory "
    "accumulator a `tcgen05.mma` writes before acquiring the phase its `tcgen05_mma_arrive` (tcgen05.commit) "
    "completes.",
    "A TMA load lands at an unknown time; only a wait that observes the completion of its phase "
    "(`T.mbarrier_wait_parity(bar, p)` with the right p) guarantees the bytes are there.",
    "T.tma_load(desc, mbarrier_1[k % 2], ptr_to_stage(k % 2), ...)\n# consumer, no wait on mbarrier_1[k % 2]\n"
    "T.ptx_wgmma_ss(...)",
    "T.mbarrier_wait_parity(mbarrier_1[k % 2], k // 2 % 2)\nT.ptx_wgmma_ss(...)",
    "The TMA load (line, issuing thread, loop values, mbarrier and phase) and the access; the wait that "
    "would acquire that phase is missing or observes another phase."))

ASYNC_READ_OVERWRITTEN = rule("AG402", "async-read-overwritten", "race", "error",
                              "memory a wgmma, TMA store or tcgen05.mma is still reading is overwritten", _doc(
    "Flags a write (plain store, cp.async, TMA load) to bytes that an asynchronous reader may still be "
    "reading: a wgmma whose batch no `warpgroup_wait` has completed, a TMA store whose bulk group no "
    "`tma_store_wait` has completed, or a `tcgen05.mma` (shared operands, or A in tensor memory) whose "
    "commit's mbarrier phase the writer has not acquired. Typical causes: the consumer releases its stage "
    "(arrive on the empty barrier) before `warpgroup_wait` or before waiting on the MMA's commit, or a TMA "
    "store's source is rewritten before `tma_store_wait`.",
    "wgmma and TMA stores read shared memory asynchronously until their wait; overwriting the bytes "
    "earlier corrupts the operand or the stored data.",
    "T.warpgroup_commit_batch()\nT.ptx_arrive_barrier(empty[k % 3])   # released too early\nT.warpgroup_wait(0)",
    "T.warpgroup_commit_batch()\nT.warpgroup_wait(0)\nT.ptx_arrive_barrier(empty[k % 3])",
    "The asynchronous read (line, threads, loop values, bytes) and the overwrite; the wait that should "
    "have completed the read before the release or the write."))

INIT_UNPUBLISHED = rule("AG403", "mbarrier-init-not-published", "invalid", "error",
                        "an mbarrier is used before its initialization is ordered before the use", _doc(
    "Flags an arrive, expect_tx, wait or TMA completion on an mbarrier that was never initialized, was "
    "initialized twice, or whose `T.ptx_init_barrier_thread_count` does not happen-before the use "
    "(no block barrier between the init and another thread's use).",
    "The barrier's state is undefined until the init is visible: arrivals may be lost and waits may "
    "return at once or never.",
    "if T.tl_shuffle_elect(0):\n    T.ptx_init_barrier_thread_count(mbarrier_1[0], 128)\nT.ptx_arrive_barrier(mbarrier_1[0])",
    "if T.tl_shuffle_elect(0):\n    T.ptx_init_barrier_thread_count(mbarrier_1[0], 128)\n"
    "T.ptx_fence_barrier_init()\nT.tvm_storage_sync(\"shared\")\nT.ptx_arrive_barrier(mbarrier_1[0])",
    "The init (line, thread) and the first use that is not ordered after it."))

INIT_UNFENCED = rule("AG404", "mbarrier-init-not-fenced", "invalid", "error",
                     "an mbarrier init is published by a barrier but without fence.mbarrier_init", _doc(
    "Flags an mbarrier used by other threads when the initializing thread did not execute "
    "`T.ptx_fence_barrier_init()` (fence.mbarrier_init.release.cluster) between the init and the barrier "
    "that publishes it, and the barrier is used through the async proxy (a TMA completion, a cp.async or "
    "tcgen05 commit's arrival) or by another CTA of the cluster. Within the barrier's own CTA, a "
    "`T.fence_proxy_async()` by the initializing thread in that place also orders the init for the "
    "async proxy (the CUDA guide's TMA example: init, `fence.proxy.async.shared::cta`, `__syncthreads()`); "
    "for another CTA's use only fence.mbarrier_init does.",
    "TileLang and CUTLASS publish inits with the fence and a block barrier; the fence is what makes the "
    "init visible to the async proxy (TMA completions) and to other CTAs of a cluster. Without it the "
    "barrier may be observed uninitialized.",
    "T.ptx_init_barrier_thread_count(mbarrier_1[0], 1)\nT.tvm_storage_sync(\"shared\")",
    "T.ptx_init_barrier_thread_count(mbarrier_1[0], 1)\nT.ptx_fence_barrier_init()\nT.tvm_storage_sync(\"shared\")",
    "The init (line, thread) and the use that relies on it."))

MISSING_PROXY_FENCE = rule("AG405", "missing-proxy-fence", "race", "error",
                           "generic-proxy shared writes read by a TMA store or wgmma without fence.proxy.async", _doc(
    "Flags shared bytes written through the generic proxy (stores, stmatrix, cp.async) and then read "
    "through the async proxy (TMA store, wgmma) with no `T.fence_proxy_async()` between: neither the "
    "writer fenced before the release the reader acquired, nor the reader fenced after acquiring.",
    "The async proxy does not see generic-proxy writes in program or barrier order; without the proxy "
    "fence the TMA store or wgmma may read stale bytes.",
    "C_shared[i] = x\nT.tvm_storage_sync(\"shared\")\nT.tma_store(desc, ptr_to(C_shared), ...)",
    "C_shared[i] = x\nT.fence_proxy_async()\nT.tvm_storage_sync(\"shared\")\nT.tma_store(desc, ptr_to(C_shared), ...)",
    "The generic write (line, thread) and the async-proxy read (line, thread, bytes)."))

ARRIVAL_COUNT = rule("AG406", "mbarrier-arrival-count", "hang", "error",
                     "the arrivals in a phase do not match the mbarrier's init count", _doc(
    "Flags an mbarrier phase that receives more arrivals than its init count from one statement "
    "(the surplus completes the next phase early), or arrivals beyond a phase that is only waiting "
    "for transaction bytes.",
    "A phase completes when `count` arrivals and all expected bytes are in. Extra arrivals complete the "
    "next phase before its real partners arrive (a race); too few leave it incomplete (a hang, reported "
    "with its cycle by AG408).",
    "T.ptx_init_barrier_thread_count(mbarrier_1[1], 64)\n# 128 consumer threads arrive on mbarrier_1[1]",
    "T.ptx_init_barrier_thread_count(mbarrier_1[1], 128)",
    "The barrier, its count, the arrivals of the phase (lines and thread counts) and the spill."))

TX_MISMATCH = rule("AG407", "expect-tx-mismatch", "hang", "error",
                   "expect_tx bytes differ from the bytes TMA delivers in the phase", _doc(
    "Flags an mbarrier phase whose transaction count does not balance: the bytes announced with "
    "`mbarrier_expect_tx` / `ptx_arrive_barrier_expect_tx` differ from the bytes the TMA loads naming "
    "the barrier deliver. compute-sanitizer reports nothing for this bug.",
    "Too many expected bytes: the phase never completes (hang). Too few: it completes before every load "
    "landed (consumers read missing bytes), and the late bytes corrupt the next phase's count.",
    "T.mbarrier_expect_tx(mbarrier_1[0], 8192)      # two 8192-byte loads follow\n"
    "T.tma_load(desc, mbarrier_1[0], ptr0, ...)\nT.tma_load(desc, mbarrier_1[0], ptr1, ...)",
    "T.mbarrier_expect_tx(mbarrier_1[0], 16384)",
    "The barrier, the phase, bytes expected and bytes delivered."))

DEADLOCK = rule("AG408", "mbarrier-deadlock", "hang", "error",
                "an mbarrier wait that no schedule lets return", _doc(
    "Flags a `T.mbarrier_wait_parity` that never returns: its phase is missing arrivals or bytes that "
    "nobody left will provide. The witness lists every other blocked wait: the cycle.",
    "The kernel hangs on the GPU.",
    "# producer waits on empty[s], consumer never arrives on empty[s]",
    "# consumer: T.ptx_arrive_barrier(empty[s]) after it is done with stage s",
    "The blocked wait (line, threads, barrier, phase, parity, pending arrivals and bytes) and the other "
    "blocked waits."))

STALE_PARITY = rule("AG409", "mbarrier-stale-parity", "race", "error",
                    "a wait whose parity lets it return on a stale (already completed) phase", _doc(
    "Flags a `T.mbarrier_wait_parity(bar, p)` that, in some schedule the synchronization allows, "
    "returns at once because the phase with parity p that completed is an older one than the phase the "
    "waiter needs: a flipped parity, or a wait on a fresh barrier with parity 1.",
    "The wait passes before the data it guards has landed: the consumer reads stale shared memory.",
    "T.mbarrier_wait_parity(full[k % 2], T.bitwise_xor(k // 2 % 2, 1))",
    "T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)",
    "The wait (line, threads, loop values), the phase it observed in the analysed schedule and the "
    "earlier phase it can observe in another."))

ALIASING = rule("AG410", "mbarrier-parity-aliasing", "race", "error",
                "a waiter can be lapped: it then reads or arrives on a later phase than the one it waited for", _doc(
    "Flags a wait for phase p after which phase p + 1 can complete before the waiter has passed the wait "
    "(no arrival of p + 1 happens-after it), when phase p + 2 completes too and the lapped threads act "
    "before their next wait: they read shared memory or arrive on an mbarrier. Every waiter is checked; "
    "waiters that do nothing after the wait are AG413.",
    "A delayed waiter finds the barrier in phase p + 2, whose parity is p's: it blocks until p + 2 "
    "completes, then reads that phase's bytes (wrong data) or arrives into the wrong phase. Typical cause: "
    "every warp of a partition waits on full[s] but only a leader arrives on empty[s], so the producer's "
    "refill of stage s depends on the leader alone.",
    "T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)   # 4 consumer warps\nT.ptx_ldmatrix(...)\n"
    "if T.tl_shuffle_elect(128):\n    T.ptx_arrive_barrier(empty[k % 2])   # only the leader (count 1)",
    "T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)\nT.ptx_ldmatrix(...)\n"
    "T.ptx_arrive_barrier(empty[k % 2])   # every consumer thread (count 128)",
    "The wait (line, barrier), the lapped threads and warps (`delay`: the threads a replay must delay "
    "before the wait line to show it), the phase observed, the phase that can complete without them "
    "and the phase they return on."))

LAPPED_WAITER = rule("AG413", "mbarrier-lapped-waiter-hang", "hang", "error",
                     "a waiter can be lapped and then block until a phase that may never complete (opt-in: --strict lapping)", _doc(
    "Flags a wait for phase p after which phase p + 1 can complete before the waiter has passed the wait, "
    "when the lapped threads do nothing before their next wait, or phase p + 2 never completes. Off by "
    "default: TileLang's warp-specialized producers have this shape (every producer thread waits on the "
    "empty barrier, one elected thread issues the TMA), and a hang needs a warp that spins on the wait to "
    "be delayed for a whole ring of phases (docs/model.md, \"Schedules\"). Enable with `--strict lapping`.",
    "PTX gives no bound on how long a thread may be delayed. A lapped waiter sees the barrier in phase "
    "p + 2, whose parity is p's, and blocks until p + 2 completes: in the last phases of the ring that is "
    "never, and the block hangs.",
    "for k in range(n):\n    T.mbarrier_wait_parity(empty[k % 2], T.bitwise_xor(k // 2 % 2, 1))   # 128 threads\n"
    "    if T.tl_shuffle_elect(128):\n        T.mbarrier_expect_tx(full[k % 2], 8192)\n        T.tma_load(...)",
    "for k in range(n):\n    if T.tl_shuffle_elect(128):\n"
    "        T.mbarrier_wait_parity(empty[k % 2], T.bitwise_xor(k // 2 % 2, 1))   # CUTLASS producer_acquire\n"
    "        T.mbarrier_expect_tx(full[k % 2], 8192)\n        T.tma_load(...)",
    "The wait (line, barrier), the lapped threads and warps (`delay`: delay them before the wait line "
    "and the replay hangs), the phase observed, the phase that can complete without them and the phase "
    "they would block on."))

REVERSE_PROXY_FENCE = rule("AG414", "missing-proxy-fence-before-async-write", "race", "error",
                           "shared bytes read through the generic proxy are overwritten by a TMA load without fence.proxy.async (opt-in: --strict proxy)", _doc(
    "Flags shared bytes read through the generic proxy (loads, ldmatrix) and later overwritten through "
    "the async proxy (a TMA load refilling the stage) with no `T.fence_proxy_async()` between: neither "
    "the reader fenced after its reads and before the release the TMA issuer acquired, nor the issuer "
    "fenced after acquiring. Off by default: TileLang's pipelines and CUTLASS's register-sourced "
    "mainloops release such stages without the fence (docs/model.md, \"The async proxy\"). Enable with "
    "`--strict proxy`.",
    "The PTX memory model orders accesses of different proxies only through a proxy fence, in both "
    "directions: without it the TMA write may overtake the generic reads the release was meant to "
    "complete, and the reader sees the next tile's bytes. DeepEP (PR 642) and FlashAttention (PR 2462) "
    "fixed this bug with the fence.",
    "T.ptx_ldmatrix(..., A_shared, stage, ...)\nT.ptx_arrive_barrier(empty[stage])   # producer refills the stage",
    "T.ptx_ldmatrix(..., A_shared, stage, ...)\nT.fence_proxy_async()\nT.ptx_arrive_barrier(empty[stage])",
    "The generic read (line, thread, bytes) and the TMA load that overwrites the bytes."))

PROXY_FENCE_IN_FLIGHT = rule("AG415", "proxy-fence-before-cp-async-lands", "race", "error",
                             "the only fence.proxy.async covering a cp.async ran before the copy landed (opt-in: --strict proxy)", _doc(
    "Flags cp.async bytes read through the async proxy (wgmma, TMA store) when the fence.proxy.async "
    "that orders them was executed while the copy was still in flight (before its `cp.async.wait_group`). "
    "Off by default: TileLang places the fence after issuing the copies (its InjectFenceProxy pass "
    "treats cp.async as a generic write at issue), and its pipelines rely on that. Enable with "
    "`--strict proxy`.",
    "The PTX memory model gives the proxy fence effect on writes the thread has performed; a cp.async "
    "write is performed when the copy lands. A fence issued before that does not order the landing "
    "bytes with the async proxy.",
    "T.ptx_cp_async(A_shared[...], A[...], 16)\nT.ptx_commit_group()\nT.fence_proxy_async()\n"
    "T.ptx_wait_group(0)\nT.tvm_storage_sync(\"shared\")\nT.ptx_wgmma_ss(...)",
    "T.ptx_cp_async(A_shared[...], A[...], 16)\nT.ptx_commit_group()\nT.ptx_wait_group(0)\n"
    "T.fence_proxy_async()\nT.tvm_storage_sync(\"shared\")\nT.ptx_wgmma_ss(...)",
    "The cp.async (line, thread, bytes) and the async-proxy read."))

PROXY_FENCE_BY_ANOTHER_THREAD = rule("AG418", "proxy-fence-by-another-thread", "race", "error",
                                     "the only fence.proxy.async ordering a generic write before its async-proxy read is a third thread's (opt-in: --strict proxy)", _doc(
    "Flags shared bytes written through the generic proxy and read through the async proxy (wgmma, "
    "TMA store) when neither the writer nor the reader fenced, and the only `T.fence_proxy_async()` "
    "between them is a third thread's, on the happens-before path (it had seen the write when it "
    "fenced, and the reader synchronized with it after). Off by default: base causality order is "
    "cumulative and PTX counts an alias proxy fence anywhere \"along the base causality path\"; for "
    "`fence.proxy.async` the ISA says only that the fence takes effect within the executing thread "
    "(docs/model.md, \"The async proxy\"). Enable with `--strict proxy`.",
    "If a proxy fence orders only its own thread's view, the reader's wgmma or TMA store may read the "
    "bytes as the async proxy saw them before the write.",
    "# warpgroup 0: waits for the copy, fences, then signals warpgroup 1\n"
    "T.mbarrier_wait_parity(k_ready[s], p)\nT.fence_proxy_async()\nT.ptx_arrive_barrier(s_ready[0])\n"
    "# warpgroup 1\nT.mbarrier_wait_parity(s_ready[0], p)\nT.ptx_wgmma_ss(... KV_shared ...)",
    "# warpgroup 1 fences after acquiring, as warpgroup 0 does\n"
    "T.mbarrier_wait_parity(s_ready[0], p)\nT.fence_proxy_async()\nT.ptx_wgmma_ss(... KV_shared ...)",
    "The generic write (line, thread), the async-proxy read, and the third thread's fence (`fencer`, "
    "`fence_line`)."))

PROXY_FENCE_BY_READER_ONLY = rule("AG419", "proxy-fence-by-reader-only", "race", "error",
                                  "generic writes of other threads are proxy-fenced only by the async-proxy reader, after the barrier (opt-in: --strict proxy)", _doc(
    "Flags shared bytes written through the generic proxy by one thread and read through the async "
    "proxy (TMA store, wgmma, tcgen05.mma) by another, when the writer did not run "
    "`T.fence_proxy_async()` between its write and the barrier (or mbarrier arrive) that hands the "
    "bytes over, and the only fence is the reader's, after it acquired them. Off by default: the "
    "PTX memory model counts a proxy fence anywhere along the causality path for the alias proxy, "
    "and TileLang's and nvFuser's TMA-store epilogues are this shape (all threads store, barrier, "
    "the elected thread fences and issues); docs/model.md, \"The async proxy\". Enable with "
    "`--strict proxy`.",
    "The CUDA programming guide's TMA pattern has every writing thread fence before the barrier, "
    "and pytorch/ao#4278 fixed a race it attributes to the fence being after the barrier: if a proxy "
    "fence orders only the fencing thread's own writes with the async proxy, the TMA reads other "
    "threads' bytes as the async proxy saw them before the writes.",
    "O_shared[tx] = acc\nT.tvm_storage_sync(\"shared\")\nif tx == 0:\n    T.fence_proxy_async()\n"
    "    T.tma_store(desc, O_shared, ...)",
    "O_shared[tx] = acc\nT.fence_proxy_async()          # every writer\nT.tvm_storage_sync(\"shared\")\n"
    "if tx == 0:\n    T.tma_store(desc, O_shared, ...)",
    "The generic write (line, thread) and the async-proxy read whose issuer's fence is the only one."))

TMEM_DEALLOC_PAIR = rule("AG420", "tmem-dealloc-while-in-use", "race", "error",
                         "a cta_group::2 tcgen05.dealloc not ordered after every access to the pair's tensor memory", _doc(
    "Flags a `T.ptx_deallocate_tensor_memory(..., use_2cta=1)` (`tcgen05.dealloc.cta_group::2`) and an "
    "access to the allocation's columns (a `tcgen05_ld/st`, an MMA writing the accumulator or reading A, "
    "in either CTA of the pair) that is not ordered before it.",
    "The PTX ISA (tcgen05.alloc/dealloc): with `.cta_group::2`, the \"issuing warp and peer CTA warp must "
    "synchronize Tensor Memory accesses before attempting to collectively deallocate the Tensor Memory\". "
    "Deallocated columns can be allocated by another CTA on the SM at once, whose MMAs then overwrite what "
    "this CTA still reads.",
    "T.tcgen05_ld(32, 256, T.bool(False), C_tmem_1[0], 0, 32, ...)   # epilogue warps\n"
    "if tx // 32 == 0:\n    T.ptx_deallocate_tensor_memory(..., 256, use_2cta=1)",
    "T.tcgen05_ld(32, 256, T.bool(False), C_tmem_1[0], 0, 32, ...)\nT.cluster_sync()\n"
    "if tx // 32 == 0:\n    T.ptx_deallocate_tensor_memory(..., 256, use_2cta=1)",
    "The tensor-memory access (line, thread, columns) and the deallocation (line, warp)."))

TMEM_DEALLOC = rule("AG421", "tmem-dealloc-before-last-use", "race", "error",
                    "a tcgen05.dealloc not ordered after another warp's access to the columns (opt-in: --strict tmem)", _doc(
    "Flags a `T.ptx_deallocate_tensor_memory` (`tcgen05.dealloc.cta_group::1`) and an access to the "
    "allocation's columns by another warp (a `tcgen05_ld/st`, an MMA's accumulator) that is not ordered "
    "before it: the deallocating warp can free the columns while that warp still reads them. Off by "
    "default: for the single-CTA form the PTX ISA states no rule, and TileLang 0.1.15's warp-specialized "
    "sm_100 kernels deallocate from one warp with no barrier after the other warps' last `tcgen05.ld` "
    "(docs/model.md, \"Deallocation\"). Enable with `--strict tmem`.",
    "Freed columns can be allocated by another CTA on the SM, whose MMAs overwrite them while this "
    "CTA's warps still read: triton-lang/triton PR 7994 (\"Without a barrier some warp may deallocate "
    "tmem while it is still in use causing some other block to override it\"), mlc-ai/TIRx-kernels#19 "
    "and PaddlePaddle/flash-attention#138 fixed this bug with a barrier before the dealloc.",
    "T.tcgen05_ld(32, 128, T.bool(False), D_tmem_1[0], 0, 32, ...)   # consumer warps\n"
    "if tx // 32 == 0:   # producer warp, after its loop\n    T.ptx_deallocate_tensor_memory(..., 128)",
    "T.tcgen05_ld(32, 128, T.bool(False), D_tmem_1[0], 0, 32, ...)\nT.tvm_storage_sync(\"shared\")\n"
    "if tx // 32 == 0:\n    T.ptx_deallocate_tensor_memory(..., 128)",
    "The tensor-memory access (line, thread, columns) and the deallocation (line, warp)."))

INCREMENT_UNORDERED = rule("AG422", "cp-async-arrive-increment-unordered", "race", "error",
                           "a counting cp.async.mbarrier.arrive whose increment the phase's completion may precede", _doc(
    "Flags a `T.ptx_cp_async_barrier` (`cp.async.mbarrier.arrive` without `.noinc`) when no arrival "
    "that completes the phase is ordered after it: not one by the issuing thread itself, nor by a thread "
    "that synchronized with it after the instruction. The instruction raises the pending count of the "
    "phase in progress by one when it executes and arrives when the thread's copies land; if the "
    "arrivals the init counts come first, the phase completes without the copies.",
    "The increment then joins the next phase and the copies complete on it: the waiters of this phase "
    "read the bytes while they may still be in flight (kekzl/imp#1958: \"when the producer's 32 .noinc "
    "arrivals land first ... the stage's first phase completes without the prefetched weights\").",
    "# warp 0 (not counted in the init)\nT.ptx_cp_async(W_s ...)\nT.ptx_cp_async_barrier(full[1])\n"
    "# warp 1: 32 arrivals complete full[1]\nT.ptx_cp_async_barrier_noinc(full[1])",
    "# warp 0 is counted: init 64, and its arrival is .noinc\nT.ptx_cp_async(W_s ...)\n"
    "T.ptx_cp_async_barrier_noinc(full[1])",
    "The barrier, the phase, the instruction (line) and the issuing threads no arrival is ordered after."))

TMA_BARRIER_INVALID = rule("AG416", "tma-completion-not-mbarrier", "invalid", "error",
                           "a TMA load completes on something that is not an mbarrier", _doc(
    "Flags a TMA load whose completion operand is an element of an undeclared buffer or of a buffer "
    "outside `shared.barrier`.",
    "The TMA unit performs complete-tx on whatever 8 bytes the operand addresses: no phase ever "
    "completes for the consumers, and the bytes at that address are corrupted.",
    "T.tma_load(desc, A_shared_1[0], T.tvm_access_ptr(...), 0, 0)",
    "T.tma_load(desc, mbarrier[0], T.tvm_access_ptr(...), 0, 0)",
    "The TMA load (line, threads) and the operand."))

BARRIER_BYTES_USED = rule("AG423", "mbarrier-bytes-used", "invalid", "error",
                          "memory of a valid mbarrier is accessed as data", _doc(
    "Flags an access that is not an mbarrier operation (a TMA load, a store, a read) of any of the 8 "
    "bytes of an mbarrier carved out of ordinary shared memory while it is initialized.",
    "PTX ISA, mbarrier.inval: \"An mbarrier object must be invalidated before using its memory "
    "location for any other purpose.\" A TMA load landing on the barrier overwrites its phase and "
    "counts: its waiters hang or return early (DeepEP #399: the barrier sat inside a TMA "
    "destination).",
    "smem_mbar_1[tx // 32 * 2048 + 64]   # byte 512 of the warp's 528-byte TMA destination",
    "smem_mbar_1[tx // 32 * 2048 + 66]   # byte 528: past the destination",
    "The access (line, threads, buffer), the barrier, its byte address and its init line."))

UNWRITTEN_READ = rule("AG417", "read-of-unwritten-shared", "race", "error",
                      "shared bytes are read before any write reached them", _doc(
    "Flags a read of shared bytes (load, ldmatrix, wgmma operand, TMA-store source) when no write "
    "(store, cp.async, TMA load, from any thread) to any of the bytes a thread reads happened before it "
    "in the executed schedule: none happens-before the read and none is concurrent with it (that would "
    "be a race, reported on its own).",
    "Shared memory is not initialized at launch: the read sees whatever the previous block left. Typical "
    "cause: a consumer parity computed from a loop variable that starts at 1 passes its first wait on a "
    "fresh barrier at once and reads a stage no TMA has filled yet. Every schedule reads garbage, so no "
    "happens-before check sees it.",
    "for k in T.serial(1, 7):\n    T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)   # k = 1: parity 0 of a fresh barrier",
    "for k in T.serial(1, 7):\n    T.mbarrier_wait_parity(full[(k - 1) % 2], (k - 1) // 2 % 2)",
    "The read (line, thread, loop values, bytes)."))

# Rules off by default, and the `--strict` word that turns each on (checks.run_all filters them).
STRICT = {LAPPED_WAITER.code: "lapping", REVERSE_PROXY_FENCE.code: "proxy", PROXY_FENCE_IN_FLIGHT.code: "proxy",
          PROXY_FENCE_BY_ANOTHER_THREAD.code: "proxy", PROXY_FENCE_BY_READER_ONLY.code: "proxy",
          TMEM_DEALLOC.code: "tmem",
          "AG432": "tcgen05"}   # checks/tcgen05_fence.py MISSING_TCGEN05_FENCE (it imports this module)
STRICT_READINGS = tuple(sorted(set(STRICT.values())))   # the names `--strict` takes

ASYNC_PENDING_AT_EXIT = rule("AG411", "async-pending-at-exit", "race", "error",
                             "a wgmma or TMA store still reading shared memory when the kernel ends", _doc(
    "Flags wgmma batches or TMA stores that no `warpgroup_wait` / `tma_store_wait` completes before the "
    "issuing threads exit.",
    "The block's shared memory is released at exit; an asynchronous reader may read memory that already "
    "belongs to the next block.",
    "T.tma_store(desc, ptr, ...)\nT.tma_store_arrive()\n# exit",
    "T.tma_store(desc, ptr, ...)\nT.tma_store_arrive()\nT.tma_store_wait(0)",
    "The operation (line, threads, loop values)."))

ARRIVAL_RUNS_AHEAD = rule("AG412", "mbarrier-arrival-runs-ahead", "race", "error",
                          "a thread arrives on (or adds bytes to) an mbarrier again before it can know its previous phase completed", _doc(
    "Flags an arrive or expect_tx (`T.ptx_arrive_barrier`, `arrive_expect_tx`, `mbarrier_expect_tx`) by a "
    "thread whose previous arrive or expect_tx on the same mbarrier joined a phase that the thread cannot "
    "know has completed: between the two it waits on nothing that depends on that phase. Typical causes: "
    "the wait that paces a loop was moved into an elected branch, so the other threads run ahead, or "
    "below the next iteration's `mbarrier_expect_tx`.",
    "A phase counts arrivals and bytes, not threads or iterations. In a schedule where the thread runs "
    "ahead, both contributions land in the earlier phase: it completes without one of its real partners "
    "(the waiters proceed while the partner still uses the stage), or it waits for bytes that are issued "
    "only after its own waiters move on (a hang). On an H200 such skeletons fault in the mbarrier "
    "instruction (compute-sanitizer memcheck: an error at the arrive).",
    "for k in range(n):\n    if T.tl_shuffle_elect(128):\n        T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)\n"
    "        T.tma_store(...)\n    T.ptx_arrive_barrier(empty[k % 2])   # 127 threads never wait",
    "for k in range(n):\n    T.mbarrier_wait_parity(full[k % 2], k // 2 % 2)\n    if T.tl_shuffle_elect(128):\n"
    "        T.tma_store(...)\n    T.ptx_arrive_barrier(empty[k % 2])",
    "The barrier, the arriving threads (line, loop values), the phase their previous arrival joined and "
    "the phase of this one."))


def _observed(phase: int) -> str:
    """What a wait observes: phase -1 is the one before a fresh barrier's first (a parity-1 wait
    on a freshly initialized mbarrier returns at once: PTX counts it complete)."""
    if phase == -1:
        return "the wait that returns at once (parity 1 on the fresh barrier: the phase before phase 0)"
    return f"the wait for phase {phase}"


def _lapped(p, line: int) -> str:
    """The common start of a lapped-waiter message (AG410, AG413)."""
    return (f"threads {_groups(p.tids)} (warps {_groups(p.detail['delay']['warps'])}) can be lapped at the "
            f"wait on {p.barrier} at line {line}: phase {p.detail['next_phase']} can complete before they "
            f"pass {_observed(p.detail['phase_observed'])}")


def _race_findings(result: RunResult, path: str) -> list[Finding]:
    out = []
    for race in result.races:
        code = family(race)
        if code not in ("AG401", "AG402", "AG420", "AG421"):
            continue
        a, b = race.first, race.second
        wit = {"first": access(a, race.t_first, race.lo, race.hi),
               "second": access(b, race.t_second, race.lo, race.hi)}
        if code in ("AG420", "AG421"):
            out.append(_dealloc_finding(code, race, a, b, wit, path))
            continue
        what = byte_text(b.buffer, race.lo, race.hi, b.region_base, max(b.elem_size, 1))
        verb = "reads" if b.kind in READS else "writes"
        if code == "AG401":
            phase = f"phase {a.phase}" if a.phase >= 0 else "its phase (not yet complete)"
            op = tcgen05_name(a) if is_tcgen05(a) else async_copy_name(a)
            wit["missing"] = (f"a wait by thread {race.t_second} that acquires {phase} of the mbarrier "
                              f"the {op} at line {a.span.line} completes on"
                              + (" (through its tcgen05.commit)" if is_tcgen05(a) else ""))
            if a.phase >= 0:
                wit["phase"] = int(a.phase)   # the phase to acquire (repair: its parity)
            if not is_tcgen05(a):
                msg = (f"thread {race.t_second} {verb} {what} at {where(b)}, delivered by the {op} at "
                       f"{where(a)}, without acquiring the mbarrier phase that completes "
                       + ("the load" if op == "TMA load" else "it"))
            else:
                written = "the accumulator" if op == "tcgen05.mma" else "the tensor memory"
                msg = (f"thread {race.t_second} {verb} {what} at {where(b)}, {written} the {op} "
                       f"at {where(a)} writes, without acquiring the mbarrier phase its tcgen05.commit "
                       f"completes")
            out.append(Finding(TMA_NOT_ACQUIRED, b.span.line, b.span.col, msg, wit, path))
        else:
            kind, waitname = async_reader(a)
            who = 'TMA load' if is_tma(b) else 'thread ' + str(race.t_second)
            if not race.first_pending and a.wait_span is not None:
                # The issuers did wait for their operation; what is missing is the ordering between
                # that wait and the other thread's access (a barrier across the two thread groups).
                wait_line = a.wait_span.line
                wit["missing"] = (f"a barrier (or mbarrier handshake) that thread {race.t_first} reaches "
                                  f"after its {waitname} at line {wait_line} and {who} reaches before "
                                  f"line {b.span.line}")
                msg = (f"{who} {verb} {what} at {where(b)} while the {kind} at {where(a)} (issued by "
                       f"thread {race.t_first}'s warpgroup) may still be reading it: its {waitname} at "
                       f"line {wait_line} completes it, but nothing orders that wait before this access")
            else:
                wit["missing"] = (f"a {waitname} completing the {kind} at {where(a)} before its bytes are "
                                  f"released or overwritten")
                msg = (f"{who} {verb} {what} at {where(b)} while the {kind} at {where(a)} may still be "
                       f"reading it (no {waitname} completed it before the release)")
            out.append(Finding(ASYNC_READ_OVERWRITTEN, b.span.line, b.span.col, msg, wit, path))
    return out


def _dealloc_finding(code: str, race, a, b, wit: dict, path: str) -> Finding:
    """A tensor-memory access and the deallocation of its columns, unordered (AG420 / AG421)."""
    dealloc, other = (a, b) if a.via in DEALLOCS else (b, a)
    t_dealloc, t_other = (race.t_first, race.t_second) if dealloc is a else (race.t_second, race.t_first)
    ncols = max(int(dealloc.hi[0] - dealloc.lo[0]) // (128 * 4), 1)   # it covers 128 lanes x ncols words
    lane, col = divmod((race.lo - int(dealloc.lo[0])) // 4, ncols)
    verb = "reads" if other.kind in READS else "writes"
    what = f"{'the accumulator' if is_tcgen05(other) else 'tensor memory'}, lane {lane} column {col}"
    wit["missing"] = (f"a barrier (or mbarrier handshake) that thread {t_other} reaches after line "
                      f"{other.span.line} and thread {t_dealloc}'s warp reaches before line {dealloc.span.line}")
    msg = (f"tcgen05.dealloc by thread {t_dealloc}'s warp at {where(dealloc)} frees columns that "
           f"{'the ' + tcgen05_name(other) if is_tcgen05(other) else 'thread ' + str(t_other)} at "
           f"{where(other)} {verb} ({what}) with nothing ordering the two: the columns can be "
           "allocated again and overwritten while still in use")
    line_of = dealloc
    return Finding(TMEM_DEALLOC_PAIR if code == "AG420" else TMEM_DEALLOC, line_of.span.line,
                   line_of.span.col, msg, wit, path)


def check(result: RunResult, path: str) -> list[Finding]:
    out = _race_findings(result, path)
    for p in result.proxy_problems:
        w, r = p.write, p.read
        before = "its release" if p.direction == "read-write" else "the barrier"
        wit = {"first": access(w, p.t_write, p.lo, p.hi), "second": access(r, p.t_read, p.lo, p.hi),
               "missing": (f"T.fence_proxy_async() by thread {p.t_write} after line {w.span.line} (before "
                           f"{before}), or by thread {p.t_read} before line {r.span.line}")}
        if p.direction == "read-write":
            what = byte_text(w.buffer, p.lo, p.hi, w.region_base, max(w.elem_size, 1))
            msg = (f"{r.via} at {where(r)} overwrites {what} through the async proxy; thread {p.t_write} "
                   f"read them at {where(w)} through the generic proxy and no fence.proxy.async orders the two")
            out.append(Finding(REVERSE_PROXY_FENCE, r.span.line, r.span.col, msg, wit, path))
            continue
        what = byte_text(r.buffer, p.lo, p.hi, r.region_base, max(r.elem_size, 1))
        # a TMA load over generic writes is the same missing fence, written over instead of read
        verb = "overwrites" if r.kind in (AccessKind.WRITE, AccessKind.ASYNC_WRITE) else "reads"
        msg = (f"{r.via} at {where(r)} {verb} {what} through the async proxy; thread {p.t_write} wrote "
               f"them at {where(w)} through the generic proxy and no fence.proxy.async orders the two")
        if p.direction == "in-flight":
            msg = (f"{r.via} at {where(r)} reads {what} through the async proxy; the fence.proxy.async that "
                   f"orders the cp.async at {where(w)} (thread {p.t_write}) ran before the copy landed")
            wit["missing"] = f"T.fence_proxy_async() by thread {p.t_write} after the cp.async wait covering line {w.span.line}"
            out.append(Finding(PROXY_FENCE_IN_FLIGHT, r.span.line, r.span.col, msg, wit, path))
            continue
        if p.direction == "path-fence":
            msg = (f"{r.via} at {where(r)} {verb} {what} through the async proxy; thread {p.t_write} wrote "
                   f"them at {where(w)} through the generic proxy, and the only fence.proxy.async between "
                   f"is thread {p.fencer}'s at line {p.fence_line} (neither the writer's nor the reader's)")
            wit.update(fencer=p.fencer, fence_line=p.fence_line)
            out.append(Finding(PROXY_FENCE_BY_ANOTHER_THREAD, r.span.line, r.span.col, msg, wit, path))
            continue
        if p.direction == "reader-fence":
            msg = (f"{r.via} at {where(r)} {verb} {what} through the async proxy; thread {p.t_write} wrote "
                   f"them at {where(w)} through the generic proxy and did not fence.proxy.async before "
                   f"handing them over: the only fence is thread {p.t_read}'s, after it acquired them")
            wit["missing"] = (f"T.fence_proxy_async() by thread {p.t_write} after line {w.span.line}, "
                              "before the barrier")
            out.append(Finding(PROXY_FENCE_BY_READER_ONLY, r.span.line, r.span.col, msg, wit, path))
            continue
        out.append(Finding(MISSING_PROXY_FENCE, r.span.line, r.span.col, msg, wit, path))
    seen = set()
    for p in result.mbar_problems:
        key = (p.kind, p.span.line, p.barrier.split("[")[0])
        if key in seen:
            continue
        seen.add(key)
        wit = {"barrier": p.barrier, "threads": _groups(p.tids), **p.detail}
        line, col = p.span.line or 1, p.span.col or 1
        if p.kind in ("uninitialized", "init-unpublished", "reinit"):
            text = {"uninitialized": f"{p.barrier} is used at line {line} but never initialized",
                    "reinit": f"{p.barrier} is initialized again at line {line} (first at line "
                              f"{p.detail.get('first_line')})",
                    "init-unpublished": f"threads {_groups(p.tids)} use {p.barrier} at line {line} before its "
                                        f"init at line {p.detail.get('init_line')} (thread "
                                        f"{p.detail.get('init_thread')}) is ordered before the use"}[p.kind]
            out.append(Finding(INIT_UNPUBLISHED, line, col, text, wit, path))
        elif p.kind == "init-unfenced":
            msg = (f"{p.barrier} initialized at line {p.detail['init_line']} is used at line {line} by "
                   f"other threads, but no T.ptx_fence_barrier_init() follows the init"
                   + (" (a T.fence_proxy_async() does, which orders it for this CTA's async proxy, not "
                      "for another CTA's use)" if p.detail.get("proxy_fenced") else ""))
            out.append(Finding(INIT_UNFENCED, line, col, msg, wit, path))
        elif p.kind == "overflow":
            msg = (f"arrivals at line {line} on {p.barrier} exceed its init count {p.detail['count']}: "
                   f"the phase completes and the surplus counts toward the next one")
            out.append(Finding(ARRIVAL_COUNT, line, col, msg, wit, path))
        elif p.kind == "run-ahead":
            who = f"thread{'s' if len(p.tids) > 1 else ''} {_groups(p.tids)}"
            msg = (f"{who}: arrive or expect_tx on {p.barrier} at line {line} without knowing that phase "
                   f"{p.detail['phase_of_previous_arrival']}, which the previous arrive or expect_tx joined, "
                   f"has completed: in another schedule both land in that phase")
            out.append(Finding(ARRIVAL_RUNS_AHEAD, line, col, msg, wit, path))
        elif p.kind == "tx-mismatch":
            msg = (f"phase {p.detail['phase']} of {p.barrier} completed with {p.detail['delivered']} bytes "
                   f"delivered by TMA but {p.detail['expected']} announced by expect_tx")
            out.append(Finding(TX_MISMATCH, line, col, msg, wit, path))
        elif p.kind == "stale-parity":
            msg = (f"the wait on {p.barrier} with parity {p.detail['parity']} at line {line} can return on "
                   f"phase {p.detail['phase_possible']} (stale) instead of phase {p.detail['phase_observed']}: "
                   f"only {p.detail['phases_known_complete']} phase(s) are known complete when it starts")
            out.append(Finding(STALE_PARITY, line, col, msg, wit, path))
        elif p.kind == "aliasing":
            msg = (f"{_lapped(p, line)}, so they return on phase {p.detail['returns_on_phase']} and then "
                   f"read or arrive on the wrong phase")
            out.append(Finding(ALIASING, line, col, msg, wit, path))
        elif p.kind == "lapped" and ("aliasing", p.span.line, p.barrier.split("[")[0]) not in seen:
            then = ("which never completes in this run: they hang" if not p.detail["that_phase_completes"]
                    else "and as they do nothing before their next wait, each later wait returns two phases "
                         "late and the last one waits for a phase that never completes")
            msg = f"{_lapped(p, line)}; they then block until phase {p.detail['blocks_until_phase']}, {then}"
            out.append(Finding(LAPPED_WAITER, line, col, msg, wit, path))
        elif p.kind == "increment-unordered":
            msg = (f"threads {_groups(p.tids)}: the cp.async.mbarrier.arrive at line {line} raises the pending "
                   f"count of phase {p.detail['phase']} of {p.barrier} without .noinc, but no arrival that "
                   f"completes the phase is ordered after it: the phase can complete first, and the copies "
                   f"then land in the next phase, unseen by this phase's waiters")
            out.append(Finding(INCREMENT_UNORDERED, line, col, msg, wit, path))
        elif p.kind == "barrier-bytes-used":
            msg = (f"the {p.detail['access']} at line {line} (threads {_groups(p.tids)}) touches {p.detail['buffer']} "
                   f"bytes holding {p.barrier} (shared byte {p.detail['address']}), an mbarrier initialized at "
                   f"line {p.detail['init_line']} and still valid: its phase and counts are overwritten")
            out.append(Finding(BARRIER_BYTES_USED, line, col, msg, wit, path))
        elif p.kind == "not-a-barrier":
            msg = (f"the TMA load at line {line} completes on {p.detail['operand']}, which is not an "
                   f"initialized mbarrier: no phase completes for its bytes")
            out.append(Finding(TMA_BARRIER_INVALID, line, col, msg, wit, path))
    for st in result.stuck:
        wit = {"barrier": st.barrier, "threads": _groups(st.tids), "parity": st.parity, "phase": st.phase,
               "pending_arrivals": st.pending_arrivals, "tx_bytes_outstanding": st.tx,
               "cycle": [{"wait": w, "line": sp.line if sp else None, "threads": _groups(t)}
                         for w, sp, t in st.others]}
        if st.pending_arrivals == 0 and st.tx > 0:
            msg = (f"the wait on {st.barrier} at line {st.span.line} never returns: phase {st.phase} has all "
                   f"its arrivals but waits for {st.tx} more transaction bytes that no TMA delivers")
            out.append(Finding(TX_MISMATCH, st.span.line, st.span.col, msg, wit, path))
        elif st.pending_arrivals == 0 and st.tx < 0:
            # the TMA loads deliver more than expect_tx promised: the count reaches zero, and the
            # phase completes, before the last bytes land; the surplus counts against a later phase
            msg = (f"the TMA loads completing on phase {st.phase} of {st.barrier} deliver {-st.tx} transaction "
                   f"bytes more than its expect_tx promised: the phase completes once the promised bytes "
                   f"land, before the rest (the wait at line {st.span.line} then returns while bytes are "
                   f"still landing), and the surplus counts against the next phase, so the later phases' "
                   f"counts do not match either")
            out.append(Finding(TX_MISMATCH, st.span.line, st.span.col, msg, wit, path))
        else:
            cyc = "; ".join(f"{c['wait']} wait at line {c['line']} (threads {c['threads']})" for c in wit["cycle"])
            msg = (f"threads {_groups(st.tids)} wait forever on {st.barrier} at line {st.span.line} (phase "
                   f"{st.phase}, parity {st.parity}, {st.pending_arrivals} arrival(s) and {st.tx} byte(s) "
                   f"missing)" + (f"; also blocked: {cyc}" if cyc else ""))
            out.append(Finding(DEADLOCK, st.span.line, st.span.col, msg, wit, path))
    # a race reported only under an opt-in reading (STRICT: a tensor-memory dealloc race) explains
    # nothing by default, so the read of unwritten bytes on its statement is still reported
    raced = {(r.span.start, r.via) for rc in result.races if family(rc) not in STRICT
             for r in (rc.first, rc.second)}
    for u in result.unwritten_reads:
        r = u.record
        if (r.span.start, r.via) in raced or result.notes:
            continue   # a race explains it, or something unmodelled may have written the bytes
        what = byte_text(r.buffer, u.lo, u.hi, r.region_base, max(r.elem_size, 1))
        wit = {"read": access(r, u.thread, u.lo, u.hi),
               "missing": "a write of these bytes (store, cp.async or TMA load) ordered before the read"}
        msg = (f"thread {u.thread} reads {what} at {where(r)} ({r.via}) before any write reached those "
               f"bytes: it reads uninitialized shared memory in every schedule")
        out.append(Finding(UNWRITTEN_READ, r.span.line, r.span.col, msg, wit, path))
    for p in result.pending:
        r = p.record
        tids = exited(result, p.tids)
        if r.group_kind == "cp.async" or not len(tids):
            continue
        wit = {"operation": access(r, int(tids[0]), int(r.lo[0]), int(r.hi[0])),
               "threads": _groups(tids)}
        doing = "writing tensor memory" if r.kind == AccessKind.ASYNC_WRITE else "reading shared memory"
        msg = f"{len(tids)} thread(s) exit with the {r.via} at {where(r)} still {doing}"
        out.append(Finding(ASYNC_PENDING_AT_EXIT, r.span.line, r.span.col, msg, wit, path))
    return out
