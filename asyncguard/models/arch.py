"""Per-architecture launch and shared-memory facts, one frozen record per compute capability.

Sources (cited per field below):
  [PG-T30]  CUDA C++ Programming Guide, sec. 5.1.3 "Compute Capabilities", Table 30 "Device and
            SM Information per Compute Capability".
  [PG-T31]  same section, Table 31 "Memory Information per Compute Capability" ("KB and K ...
            correspond to 1024 bytes and 1024"); footnote [3]: "Kernels relying on shared memory
            allocations over 48 KB per block must use dynamic shared memory and require an
            explicit opt-in".
  [PG-T32]  same section, Table 32: the shared-memory carveout sizes an SM supports.
  [PG-1KB]  the per-capability sections of the older Programming Guide (sec. 20.7.3 for CC 8.x,
            20.8 for 9.0, and the 12.0 section): "The 1 KB of shared memory not made available to
            a thread block is reserved for system use."  The runtime reports it as
            cudaDevAttrReservedSharedMemoryPerBlock (introduced in CUDA 11 for CC 8.0).
  [OCC]     CUDA Occupancy Calculator (Nsight Compute's occupancy calculator, formerly the
            spreadsheet): "Shared Memory Allocation Unit Size" 256 B for CC 7.x, 128 B for CC 8.x
            and 9.0.
  [H200]    measured on an H200 (CC 9.0), CUDA 13.0, driver 580, bench/resources/*.cu:
            sharedMemPerMultiprocessor 233472, sharedMemPerBlockOptin 232448,
            reservedSharedMemPerBlock 1024, maxThreadsPerMultiProcessor 2048,
            maxBlocksPerMultiProcessor 32, regsPerBlock = regsPerMultiprocessor = 65536; a kernel
            that never raised cudaFuncAttributeMaxDynamicSharedMemorySize launches with 49152 B
            of dynamic shared memory and fails ("invalid argument") with 49153; static > 48 KiB is
            rejected by ptxas for sm_75/86/89/90/100 ("uses too much shared data (0xc010 bytes,
            0xc000 max)") and accepted for the architecture-specific targets sm_90a and sm_100a.
  [DQ-120]  deviceQuery on a CC 12.0 GPU (RTX 5060 Laptop, CUDA 13.1 driver, published at
            wingedge777.com "A Deep Dive into DeviceQuery"): "Total shared memory per
            multiprocessor: 102400 bytes", "Maximum number of threads per multiprocessor: 1536",
            registers per block 65536: the same figures as CC 8.6/8.9.
  [CCCL]    NVIDIA/cccl, libcudacxx `cuda/__device/arch_traits.h`, `arch_traits<arch_id::sm_110>()`
            (at 004ad198 and at 571f2fc3): CC 11.0 (Jetson Thor) takes CC 10.0's shared memory (228 KB
            per SM, 1 KB reserve) with 1536 threads and 24 blocks per SM; `arch_traits<sm_121>()` is
            `arch_traits<sm_120>()` with CC 12.1 (GB10, DGX Spark). The same header gives CC 12.0 24
            blocks per SM where [PG-T30] says 32: the table keeps 32 (a larger cap can miss an
            occupancy finding, never make a false one). Until the thirty-fifth session this entry
            read the header as giving CC 11.0 every figure of CC 10.0 (2048 threads, 32 blocks).
  [NVCC13]  bench/resources/arch_features/probe.sh (output: probe.txt), nvcc/ptxas 13.0 here: which
            of sm_75 .. sm_121f assemble wgmma, setmaxnreg and tcgen05. setmaxnreg's list is the
            one NVIDIA's CCCL documents for `cuda::ptx::setmaxnreg_inc` ("SM_90a, SM_100a, SM_100f,
            SM_103a, ... SM_121f"); TileLang's own templates refuse the last two off those targets
            (tl_templates/cuda/intrin.h `TL_CUDA_ARCH_CTA_RECONFIG_ENABLED`, tcgen05mma.h
            `TL_CUDA_ARCH_TCGEN05_ENABLED`: a static_assert).
  [CCCL-T]  the same header's `arch_traits<arch_id::sm_70>`, `<sm_87>` and `<sm_88>` (NVIDIA/cccl at
            004ad198): CC 7.0 96 KB per SM, all of it to one block, no reserve, 2048 threads, 32
            blocks; CC 8.7 (Jetson Orin) 164 KB per SM, 163 KB per block with the 1 KB reserve,
            1536 threads, 16 blocks; CC 8.8 every figure of CC 8.6. Their carveout lists are not
            in it: left empty (a carveout attribute then reads as the SM's whole shared memory, so
            a carveout too small for a block is not reported: a finding missed, never a false one).
  Cross-checked against /work/notes/semantics-check.md item 10.
  A target not in the table (sm_72, sm_53 and the other Jetson parts before Orin) gets no limits:
  the scope line says the resource checks were not made (analyze.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

KIB = 1024
STATIC_CAP = 48 * KIB        # [PG-T31] footnote [3]; default max dynamic size without opt-in [H200]


@dataclass(frozen=True)
class Arch:
    name: str                      # "sm_80"
    cc: tuple                      # (8, 0)
    smem_per_sm: int               # bytes: maximum shared memory per SM (largest carveout)
    smem_per_block_optin: int      # bytes: maximum shared memory per block with opt-in
    reserved_per_block: int        # bytes the system reserves per resident block
    carveouts_kib: tuple           # supported shared-memory capacities per SM, KiB
    max_threads_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    regs_per_block: int
    regs_per_thread: int
    smem_alloc_unit: int           # allocation granularity of shared memory per block
    static_cap: int = STATIC_CAP   # ptxas limit on static __shared__ per block
    arch_specific: bool = False    # sm_90a / sm_100a: ptxas accepts static shared above 48 KiB

    @property
    def static_cap_applies(self) -> bool:
        return not self.arch_specific

    def carveout_bytes(self, percent: int) -> int:
        """cudaFuncAttributePreferredSharedMemoryCarveout (percent of the maximum) -> the capacity
        the driver picks: the smallest supported size at least that large (measured on H200:
        50% of 228 KiB -> 132 KiB, 25% -> 64 KiB)."""
        want = self.smem_per_sm * max(0, min(100, percent)) / 100
        for kib in sorted(self.carveouts_kib):
            if kib * KIB >= want:
                return kib * KIB
        return self.smem_per_sm


# ---------------------------------------------------------------- the table
# Every figure: [PG-T30] (threads, blocks, registers), [PG-T31] (shared per SM / per block),
# [PG-T32] (carveouts), [PG-1KB] (reserve), [OCC] (allocation unit), unless noted.
SM75 = Arch(
    "sm_75", (7, 5),
    smem_per_sm=64 * KIB,            # [PG-T31] 7.5: 64 KB per SM
    smem_per_block_optin=64 * KIB,   # [PG-T31] 7.5: 64 KB per block (opt-in)
    reserved_per_block=0,            # [PG-1KB] documents the 1 KB reserve for CC 8.x+ only; Turing
                                     # devices report reservedSharedMemPerBlock = 0 (not measured here)
    carveouts_kib=(32, 64),          # [PG-T32] 7.5: 32 or 64 KB
    max_threads_per_block=1024,      # [PG-T30]
    max_threads_per_sm=1024,         # [PG-T30] 7.5: 1024 resident threads per SM
    max_blocks_per_sm=16,            # [PG-T30] 7.5: 16 resident blocks per SM
    regs_per_sm=64 * KIB,            # [PG-T30] 64 K 32-bit registers per SM
    regs_per_block=64 * KIB,         # [PG-T30] 64 K per block
    regs_per_thread=255,             # [PG-T30]
    smem_alloc_unit=256,             # [OCC] CC 7.x
)
SM70 = Arch(
    "sm_70", (7, 0),
    smem_per_sm=96 * KIB,            # [CCCL-T] 7.0
    smem_per_block_optin=96 * KIB,   # [CCCL-T] 7.0: the SM's whole shared memory, no reserve
    reserved_per_block=0,            # [CCCL-T] 7.0
    carveouts_kib=(),                # not in [CCCL-T]: see the note above
    max_threads_per_block=1024,      # [CCCL-T]
    max_threads_per_sm=2048,         # [CCCL-T] 7.0
    max_blocks_per_sm=32,            # [CCCL-T] 7.0
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [CCCL-T]
    smem_alloc_unit=256,             # [OCC] CC 7.x
)
SM80 = Arch(
    "sm_80", (8, 0),
    smem_per_sm=164 * KIB,           # [PG-T31] 8.0: 164 KB per SM
    smem_per_block_optin=163 * KIB,  # [PG-T31] 8.0: 163 KB = 166912 B per block (opt-in)
    reserved_per_block=KIB,          # [PG-1KB]
    carveouts_kib=(0, 8, 16, 32, 64, 100, 132, 164),   # [PG-T32] 8.0
    max_threads_per_block=1024,      # [PG-T30]
    max_threads_per_sm=2048,         # [PG-T30] 8.0
    max_blocks_per_sm=32,            # [PG-T30] 8.0
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]
    smem_alloc_unit=128,             # [OCC] CC 8.x
)
SM86 = Arch(
    "sm_86", (8, 6),
    smem_per_sm=100 * KIB,           # [PG-T31] 8.6: 100 KB per SM
    smem_per_block_optin=99 * KIB,   # [PG-T31] 8.6: 99 KB = 101376 B per block (opt-in)
    reserved_per_block=KIB,          # [PG-1KB]
    carveouts_kib=(0, 8, 16, 32, 64, 100),             # [PG-T32] 8.6
    max_threads_per_block=1024,      # [PG-T30]
    max_threads_per_sm=1536,         # [PG-T30] 8.6
    max_blocks_per_sm=16,            # [PG-T30] 8.6
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]
    smem_alloc_unit=128,             # [OCC] CC 8.x
)
SM87 = Arch(
    "sm_87", (8, 7),
    smem_per_sm=164 * KIB,           # [CCCL-T] 8.7 (Jetson Orin)
    smem_per_block_optin=163 * KIB,  # [CCCL-T] 8.7: the SM's 164 KB less the 1 KB reserve
    reserved_per_block=KIB,          # [CCCL-T] (CC 8.0 and up)
    carveouts_kib=(),                # not in [CCCL-T]: see the note above
    max_threads_per_block=1024,      # [CCCL-T]
    max_threads_per_sm=1536,         # [CCCL-T] 8.7
    max_blocks_per_sm=16,            # [CCCL-T] 8.7
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [CCCL-T]
    smem_alloc_unit=128,             # [OCC] CC 8.x
)
SM89 = Arch(
    "sm_89", (8, 9),
    smem_per_sm=100 * KIB,           # [PG-T31] 8.9: 100 KB per SM
    smem_per_block_optin=99 * KIB,   # [PG-T31] 8.9: 99 KB = 101376 B per block (opt-in)
    reserved_per_block=KIB,          # [PG-1KB]
    carveouts_kib=(0, 8, 16, 32, 64, 100),             # [PG-T32] 8.9
    max_threads_per_block=1024,      # [PG-T30]
    max_threads_per_sm=1536,         # [PG-T30] 8.9
    max_blocks_per_sm=24,            # [PG-T30] 8.9
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]
    smem_alloc_unit=128,             # [OCC] CC 8.x
)
SM90 = Arch(
    "sm_90", (9, 0),
    smem_per_sm=228 * KIB,           # [PG-T31] 9.0: 228 KB = 233472 B per SM; [H200] 233472
    smem_per_block_optin=227 * KIB,  # [PG-T31] 9.0: 227 KB = 232448 B per block; [H200] 232448
    reserved_per_block=KIB,          # [PG-1KB]; [H200] reservedSharedMemPerBlock 1024
    carveouts_kib=(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),   # [PG-T32] 9.0
    max_threads_per_block=1024,      # [PG-T30]; [H200]
    max_threads_per_sm=2048,         # [PG-T30] 9.0; [H200]
    max_blocks_per_sm=32,            # [PG-T30] 9.0; [H200]
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]; [H200]
    smem_alloc_unit=128,             # [OCC] 9.0; [H200] occupancy matches with 128-B rounding
)
SM100 = Arch(
    "sm_100", (10, 0),
    smem_per_sm=228 * KIB,           # [PG-T31] 10.x: 228 KB per SM (a third-party paraphrase of the
                                     # old guide says 99 KB per block for 10.0: the table wins)
    smem_per_block_optin=227 * KIB,  # [PG-T31] 10.x: 227 KB = 232448 B per block
    reserved_per_block=KIB,          # [PG-1KB]
    carveouts_kib=(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),   # [PG-T32] 10.x
    max_threads_per_block=1024,      # [PG-T30]
    max_threads_per_sm=2048,         # [PG-T30] 10.x
    max_blocks_per_sm=32,            # [PG-T30] 10.x
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]
    smem_alloc_unit=128,             # [OCC] assumed as for 9.0
)

# CC 8.8 takes every figure of CC 8.6 [CCCL-T], its carveouts aside (not in it: see the note above).
SM88 = Arch(**{**SM86.__dict__, "name": "sm_88", "cc": (8, 8), "carveouts_kib": ()})
# CC 10.3 (B300) shares every figure of the 10.x column with 10.0 [PG-T30/T31/T32].
SM103 = Arch(**{**SM100.__dict__, "name": "sm_103", "cc": (10, 3)})
# CC 11.0 (Jetson Thor) [CCCL]: the 10.0 shared memory, 1536 threads and 24 blocks per SM.
SM110 = Arch(**{**SM100.__dict__, "name": "sm_110", "cc": (11, 0), "max_threads_per_sm": 1536,
                "max_blocks_per_sm": 24})
SM120 = Arch(
    "sm_120", (12, 0),
    smem_per_sm=100 * KIB,           # [PG-T31] 12.0: 100 KB per SM; [DQ-120] 102400
    smem_per_block_optin=99 * KIB,   # [PG-T31] 12.0: 99 KB = 101376 B per block (opt-in): the SM's
                                     # 100 KB less the 1 KB reserve, as for 8.6/8.9
    reserved_per_block=KIB,          # [PG-1KB] (the 12.0 section)
    carveouts_kib=(0, 8, 16, 32, 64, 100),             # [PG-T32] 12.0, as 8.6/8.9
    max_threads_per_block=1024,      # [PG-T30]; [DQ-120]
    max_threads_per_sm=1536,         # [PG-T30] 12.0; [DQ-120] 1536
    max_blocks_per_sm=32,            # [PG-T30] 12.0
    regs_per_sm=64 * KIB, regs_per_block=64 * KIB, regs_per_thread=255,   # [PG-T30]; [DQ-120]
    smem_alloc_unit=128,             # [OCC] assumed as for 8.x/9.0
)

# CC 12.1 (GB10) [CCCL]: every figure of 12.0; no carveout list in that source (left empty, as for
# the other [CCCL-T] entries)
SM121 = Arch(**{**SM120.__dict__, "name": "sm_121", "cc": (12, 1), "carveouts_kib": ()})

ARCHS = {a.name: a for a in (SM70, SM75, SM80, SM86, SM87, SM88, SM89, SM90, SM100, SM103, SM110, SM120,
                             SM121)}


def lookup(name) -> Arch | None:
    """`"sm_90a"`, `"sm90"`, `"90"`, `"9.0"`, a TIR target dict (`{"arch": "sm_90a", ...}`) ->
    its Arch, or None. The `a` suffix keeps the numbers and marks the target architecture-specific
    (ptxas then accepts static shared memory above 48 KiB [H200])."""
    if isinstance(name, dict):
        name = name.get("arch")
    if not isinstance(name, str):
        return None
    s = name.strip().lower()
    m = re.fullmatch(r"(?:sm_?|compute_?)?(\d+)(?:\.(\d))?([af]?)", s)
    if not m:
        return None
    digits = m.group(1) + (m.group(2) or "")
    base = ARCHS.get(f"sm_{digits}")
    if base is None:
        return None
    if m.group(3) == "a":
        return Arch(**{**base.__dict__, "name": base.name + "a", "arch_specific": True})
    return base


# ---------------------------------------------------------------- instructions only some targets have
# [NVCC13]: the targets ptxas assembles each family for. Every other probed target rejects it
# ("Instruction 'wgmma.fence' not supported on .target 'sm_90'"); a target outside PROBED is not judged.
_A_OR_F = ("a", "f")
TARGET_FEATURES = {
    "wgmma": frozenset({"sm_90a"}),
    "setmaxnreg": frozenset({"sm_90a"} | {f"sm_{n}{s}" for n in (100, 103, 110, 120, 121) for s in _A_OR_F}),
    "tcgen05": frozenset(f"sm_{n}{s}" for n in (100, 103, 110) for s in _A_OR_F),
    # `clusterlaunchcontrol.try_cancel` and `.query_cancel` assemble for every sm_100+ target,
    # suffix or not, and below it fail ("Feature 'clusterlaunchcontrol.try_cancel.async' requires
    # .target sm_100 or higher"). TileLang's tl::clc_* templates ask more (an arch- or
    # family-specific target): models/clc.py
    "clusterlaunchcontrol": frozenset(f"sm_{n}{s}" for n in (100, 103, 110, 120, 121) for s in ("", "a", "f")),
}
PROBED = frozenset({"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a"} |
                   {f"sm_{n}{s}" for n in (100, 103, 110, 120, 121) for s in ("", "a", "f")})

# the TileLang / TVM calls that print each family's instructions (T.warpgroup_fence_operand and
# the descriptor builders print none)
_WGMMA_CALLS = frozenset({"T.ptx_wgmma_ss", "T.ptx_wgmma_rs", "T.ptx_wgmma_sp_ss", "T.ptx_wgmma_sp_rs",
                          "T.warpgroup_arrive", "T.warpgroup_commit_batch", "T.warpgroup_wait",
                          "T.wait_wgmma"})
_TCGEN05_CALLS = frozenset({"T.ptx_init_tensor_memory", "T.ptx_deallocate_tensor_memory"})
_CLC_CALLS = frozenset({"T.clc_try_cancel", "T.clc_try_cancel_multicast", "T.clc_is_canceled",
                        "T.clc_get_first_ctaid_x", "T.clc_get_first_ctaid_y", "T.clc_get_first_ctaid_z"})


def instruction_family(call: str, extern: str | None = None) -> str | None:
    """The TARGET_FEATURES family a call prints (`extern`: a `T.call_extern`'s function name), or None."""
    if call in _WGMMA_CALLS:
        return "wgmma"
    if call == "T.set_max_nreg":
        return "setmaxnreg"
    if call in _TCGEN05_CALLS or call.startswith(("T.tcgen05_", "T.ptx_tcgen05_")):
        return "tcgen05"
    if extern and extern.startswith("tl::tcgen05"):
        return "tcgen05"
    if call in _CLC_CALLS:
        return "clusterlaunchcontrol"
    return None


def target_name(target) -> str | None:
    """`"sm_90a"`, `"90a"`, a TIR target dict -> `"sm_90a"` (suffix kept), or None."""
    if isinstance(target, dict):
        target = target.get("arch")
    if not isinstance(target, str):
        return None
    m = re.fullmatch(r"(?:sm_?|compute_?)?(\d+)([af]?)", target.strip().lower())
    return f"sm_{m.group(1)}{m.group(2)}" if m else None


# the target to suggest for a family, where the first that assembles it is not one TileLang builds
# it for: its tl::clc_* templates need an arch- or family-specific target (models/clc.py)
SUGGESTED_TARGET = {"clusterlaunchcontrol": "sm_100a"}


def targets_with(family: str) -> list[str]:
    """The probed targets that assemble `family`, in order."""
    return sorted(TARGET_FEATURES[family], key=lambda t: (int(re.sub(r"\D", "", t)), t))
