"""Lower the TileLang kernels of corpus/trackers_new with tilelang 0.1.15 on the CPU and write NAME.tir for
each buggy kernel and its fixed counterpart (same conventions as corpus/trackers/lower_trackers.py).

Usage:
    nice -n 15 python corpus/trackers_new/lower_trackers_new.py

The device TIR is `str(device_mod)` of `tilelang.lower` (asyncguard.frontends.tilelang_lower.lower_device).
A one-line header comment saying how the file was made is prepended to each .tir.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from lowering import lower_device, write_text  # noqa: E402

import tilelang.language as T  # noqa: E402


def tl2612_if_hoist(split: bool):
    """tile-ai/tilelang#2612 (ThreadSync hoists a required in-`if` barrier to before a strided
    `if tx % 4 == 0`), with the `with_if_else` reproducer that tile-ai/tilelang#3138 (the open fix PR, a
    follow-up of #3085) gives verbatim. `split`: the fix #3138 describes, the divergent branch split around
    the required sync point, written here at the source level (the write in one `if`, the read in a second
    `if`/`else`), so that ThreadSync puts its CTA barrier between them."""
    @T.prim_func
    def main(out: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64) as _:
            S = T.alloc_shared((64,), "float32")
            acc = T.alloc_local((1,), "float32")
            tx = T.get_thread_binding()
            if not split:
                if tx % 4 == 0:
                    S[tx] = T.Cast("float32", tx)
                    acc[0] = S[(tx + 4) % 64]
                else:
                    acc[0] = T.float32(-1.0)
            else:
                if tx % 4 == 0:
                    S[tx] = T.Cast("float32", tx)
                if tx % 4 == 0:
                    acc[0] = S[(tx + 4) % 64]
                else:
                    acc[0] = T.float32(-1.0)
            out[tx] = acc[0]
    return main


def tl2556_partial_48():
    """tile-ai/tilelang#2556: threads=64 with the guard `if tx < 48` around a shared write and a read of
    another thread's element (the body PR #2679 quotes: S[tx] = 1; acc[0] += S[47 - tx])."""
    @T.prim_func
    def main(out: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64) as _:
            S = T.alloc_shared((64,), "float32")
            acc = T.alloc_local((1,), "float32")
            tx = T.get_thread_binding()
            acc[0] = 0.0
            if tx < 48:
                S[tx] = T.float32(1)
                acc[0] += S[47 - tx]
            out[tx] = acc[0]
    return main


def tileops1550_tma_store_epilogue():
    """tile-ai/TileOPs#1550: the per-warpgroup C_shared TMA-store epilogue of a persistent kernel, reduced to its
    synchronization: two consumer warpgroups (T.ws(0), T.ws(1)), each running its own persistent loop over W
    waves; in a wave whose tile is full (`arows == block_m`, the fast path; here arows = min(BM, M - w * BM) for one group of M = 208 rows, so waves 0..2 take it) the warpgroup casts
    its tile into its C_shared and T.copy's C_shared to global (a TMA store: elected thread, store, arrive,
    wait), otherwise it stores the partial tile directly. C_shared is allocated once and refilled every wave.
    No GEMM: the tile comes from A (the race is between the refill and the previous wave's store)."""
    W, BM, BN = 4, 64, 64
    M = 3 * BM + 16  # rows of the (one) group: waves 0..2 are full tiles (fast path), wave 3 has 16 rows

    @T.prim_func
    def main(A: T.Tensor((W, 2, BM, BN), "float32"), C: T.Tensor((W, 2, BM, BN), "float16")):
        with T.Kernel(1, threads=256) as _:
            C_shared0 = T.alloc_shared((BM, BN), "float16")
            C_shared1 = T.alloc_shared((BM, BN), "float16")
            with T.ws(0):
                for w in T.serial(W):
                    if T.min(BM, M - w * BM) == BM:
                        for i, j in T.Parallel(BM, BN):
                            C_shared0[i, j] = T.Cast("float16", A[w, 0, i, j])
                        T.copy(C_shared0, C[w, 0, :, :])
                    else:
                        for i, j in T.Parallel(BM, BN):
                            if i < M - w * BM:
                                C[w, 0, i, j] = T.Cast("float16", A[w, 0, i, j])
            with T.ws(1):
                for w in T.serial(W):
                    if T.min(BM, M - w * BM) == BM:
                        for i, j in T.Parallel(BM, BN):
                            C_shared1[i, j] = T.Cast("float16", A[w, 1, i, j])
                        T.copy(C_shared1, C[w, 1, :, :])
                    else:
                        for i, j in T.Parallel(BM, BN):
                            if i < M - w * BM:
                                C[w, 1, i, j] = T.Cast("float16", A[w, 1, i, j])
    return main


NO_SYNC = {"tl.disable_thread_storage_sync": True}
# Without it 0.1.15 places C_shared0 and C_shared1 at the same offset (the two warpgroups' loops are sequential
# in the IR, so their lifetimes look disjoint, though the warpgroups run concurrently): a separate aliasing race
# asyncguard reports (MANIFEST.md), kept out of this pair.
NO_REUSE = {"tl.disable_shared_memory_reuse": True}

# 0.1.15 puts a warpgroup-scoped named barrier (ids 3 and 4, 128 threads) at the top of each warpgroup's wave
# loop, before the C_shared refill: the barrier TileOPs#1550 adds by hand (its ids 4 and 5). The buggy kernel
# removes exactly these two lines (the lowering TileOPs hit had nothing there); every other line is 0.1.15's.
E1550 = [('                T.tvm_storage_sync("shared.dyn", 3, 128)\n                if T.min(64, 208 - w * 64) == 64:',
          '                if T.min(64, 208 - w * 64) == 64:'),
         ('                T.tvm_storage_sync("shared.dyn", 4, 128)\n                if T.min(64, 208 - w * 64) == 64:',
          '                if T.min(64, 208 - w * 64) == 64:')]

# name -> (factory, arch, pass configs, header[, edits])
KERNELS = {
    "tileops1550_tma_store_epilogue_refill_sm90a": (tileops1550_tma_store_epilogue, "sm_90a", NO_REUSE,
        "TileLang 0.1.15 output (tl.disable_shared_memory_reuse) of a reduced TileOPs#1550 epilogue with the two loop-top named barriers "
        "(tvm_storage_sync(shared.dyn, 3/4, 128)) removed: a warpgroup refills C_shared while its previous TMA store may still read it.",
        E1550),
    "tileops1550_tma_store_epilogue_refill_sm90a_fixed": (tileops1550_tma_store_epilogue, "sm_90a", NO_REUSE,
        "TileLang 0.1.15 output (tl.disable_shared_memory_reuse), unedited: a warpgroup-scoped named barrier before each C_shared refill (the fix of TileOPs#1550)."),
    # the fixed program under 0.1.15's default pass configs: C_shared0 and C_shared1 merged at one offset
    # (MANIFEST.md, the note of pair 3; docs/found-bugs.md)
    "tileops1550_epilogue_default_reuse_sm90a": (tileops1550_tma_store_epilogue, "sm_90a", {},
        "TileLang 0.1.15 output, unedited, default pass configs, of the reduced TileOPs#1550 epilogue (with its fix): "
        "shared-memory reuse puts both warpgroups' C_shared at one offset, though the two T.ws bodies run at the same time."),
    "tilelang2612_if_hoisted_barrier_sm90a": (lambda: tl2612_if_hoist(False), "sm_90a", {},
        "TileLang 0.1.15 output, unedited, of the with_if_else reproducer of tile-ai/tilelang#3138 (issue #2612): "
        "the CTA barrier is hoisted before `if tx % 4 == 0` and no longer separates S[tx] = ... from the read of S[(tx + 4) % 64]."),
    "tilelang2612_if_hoisted_barrier_sm90a_fixed": (lambda: tl2612_if_hoist(True), "sm_90a", {},
        "TileLang 0.1.15 output, unedited, of the same program with the branch split around the sync point "
        "(the fix tile-ai/tilelang#3138 describes), written at the source level: the barrier sits between the write and the read."),
    # Before tile-ai/tilelang#2679 (commit 4aea435b) ThreadSync's ProcessSharedSync returned an empty Stmt for the
    # required in-branch sync of a 48-thread region: the if body kept the write and the read with nothing between.
    # That output is reproduced here by lowering with ThreadSync disabled (0.1.15 no longer drops the barrier).
    "tilelang2556_partial_sync_dropped_sm90a": (tl2556_partial_48, "sm_90a", NO_SYNC,
        "TileLang 0.1.15 output with tl.disable_thread_storage_sync, reproducing the pre-#2679 lowering of tile-ai/tilelang#2556: "
        "the barrier required inside `if tx < 48` is dropped."),
    "tilelang2556_partial_sync_dropped_sm90a_fixed": (tl2556_partial_48, "sm_90a", {},
        "TileLang 0.1.15 output, unedited: ThreadSync now splits `if tx < 48` and puts a CTA barrier between the write and the read."),
}


def main() -> None:
    only = sys.argv[1:]
    for name, (factory, arch, configs, header, *edits) in KERNELS.items():
        if only and not any(o in name for o in only):
            continue
        lowered = lower_device(factory(), arch, configs)
        if lowered.codegen_error is not None:
            raise SystemExit(f"{name}: CUDA codegen failed: {lowered.codegen_error}")
        tir = lowered.tir
        for old, new in (edits[0] if edits else []):
            if tir.count(old) != 1:
                raise SystemExit(f"{name}: expected exactly one {old!r}, found {tir.count(old)}")
            tir = tir.replace(old, new)
        write_text(os.path.join(HERE, name + ".tir"), f"# {header}\n" + tir)
        print(name, "written")


if __name__ == "__main__":
    main()
