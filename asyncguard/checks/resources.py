"""Launch and shared-memory budgets (kind `resource`, AG5xx): what the launch requests against what
the kernel's views reach and what the architecture allows; alignment of cp.async, TMA and mbarrier
addresses. Numbers: `asyncguard.models.arch`; policy and sources: docs/resources.md.

What the TIR alone cannot show (the host launch) the file may state, in a comment anywhere

    # asyncguard: launch [kernel=NAME] dynamic_shared_memory=N max_dynamic_shared_memory=M|default
    #                    dyn_align=A carveout=P min_blocks_per_sm=B tma_swizzle[.DESC]=128B|64B|32B|none

or in a func_attr `"asyncguard.launch": {...}` with the same keys. Without `kernel=` a comment
applies to every kernel of the file.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..diagnostics import Finding, rule
from ..engine.state.cluster import local_bytes
from ..events import Access
from ..models.arch import (PROBED, STATIC_CAP, SUGGESTED_TARGET, TARGET_FEATURES, Arch, instruction_family, lookup,
                           target_name, targets_with)
from ..models.memory import BARRIER_SCOPES

TILELANG_DYN_ALIGN = 1024   # TileLang codegen: `extern __shared__ __align__(1024) uchar buf_dyn_shmem[]`
STATIC_ALIGN = 16           # TileLang codegen: `__shared__ __align__(16) uint64_t mbarrier_mem[N]`

DYN_TOO_SMALL = rule("AG501", "dyn-smem-smaller-than-views", "resource", "error",
                     "the launch's dynamic shared memory is smaller than the bytes the kernel's views reach", """
## What it does
Compares the dynamic shared memory the launch passes (`dyn_shared_memory_buf`, or the
`dynamic_shared_memory=` the file states for its launch) with the farthest byte of the dynamic
buffer that any shared view reaches: the `shared.dyn` allocations, every view carved out of them
(`T.decl_buffer(data=...)`, `T.handle_add_byte_offset`), and every access the engine executed.

## Why is this bad?
Every access past the requested size is outside the block's shared-memory window: it faults
("an illegal memory access was encountered") or, worse, reads and writes another resident
block's shared memory. A host entry that launches with 0 bytes while the views reach 80 KiB is
the common case: the size computed for the kernel never made it into the launch.

## Example
```python
T.func_attr({"dyn_shared_memory_buf": 0, ...})
buf = T.alloc_buffer((81920,), "uint8", scope="shared.dyn")
```

## Use instead
```python
T.func_attr({"dyn_shared_memory_buf": 81920, ...})   # and launch with those bytes
```

## Witness
The request and where it is stated, the farthest byte and the view or access that reaches it.
""")

NOT_OPTED_IN = rule("AG502", "dyn-smem-above-48k-without-opt-in", "resource", "error",
                    "more than 48 KiB of shared memory per block with no cudaFuncSetAttribute opt-in", """
## What it does
When the file states its launch and says how the launcher sets
`cudaFuncAttributeMaxDynamicSharedMemorySize` (`max_dynamic_shared_memory=M`, or `=default`
for a launcher that never calls `cudaFuncSetAttribute`), flags a dynamic request above that
attribute. The default attribute is 48 KiB minus the kernel's static shared memory.

## Why is this bad?
The launch fails with `cudaErrorInvalidValue` ("invalid argument") and the kernel never runs;
measured on an H200: 49152 bytes launch, 49153 do not, until the attribute is raised.

## Example
```python
# asyncguard: launch dynamic_shared_memory=98304 max_dynamic_shared_memory=default
```

## Use instead
```cpp
cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304);
kernel<<<grid, block, 98304>>>(...);
```

## Witness
The dynamic request, the static bytes, the attribute in force.
""")

OVER_LIMIT = rule("AG503", "smem-over-block-limit", "resource", "error",
                  "static + dynamic shared memory (with alignment padding) exceeds the per-block limit", """
## What it does
Adds the kernel's static shared memory (each allocation at its alignment, the end rounded up to
the dynamic buffer's alignment, as ptxas lays it out) to the dynamic request (or to the
`max_dynamic_shared_memory` the launcher sets) and compares the sum with the architecture's
per-block opt-in maximum (sm_80 166912, sm_86/sm_89 101376, sm_90/sm_100 232448 bytes).

## Why is this bad?
`cudaFuncSetAttribute` and the launch both fail with "invalid argument" (Triton words it
"out of resource: shared memory, Required: 232464, Hardware limit: 232448"). Forgetting the
static part is the classic: 16 bytes of static mbarriers plus a dynamic request of exactly the
device limit asks for 232464 bytes on a device that has 232448.

## Example
```python
mbar = T.alloc_buffer((2,), "uint64", scope="shared.barrier")        # 16 static bytes
T.func_attr({"dyn_shared_memory_buf": 232448, ...})                  # = the sm_90 limit
```

## Use instead
```python
T.func_attr({"dyn_shared_memory_buf": 232432, ...})                  # limit - static
```

## Witness
dynamic, static (and its alignment padding), the required total and the device limit.
""")

STATIC_OVER_48K = rule("AG504", "static-smem-over-48k", "resource", "error",
                       "static shared memory above the 48 KiB that ptxas allows", """
## What it does
Sums the static (`scope="shared"` and barrier) allocations and flags more than 49152 bytes on a
target that is not architecture-specific (sm_90a and sm_100a are exempt: ptxas accepts them).

## Why is this bad?
ptxas rejects the kernel ("uses too much shared data (0xc010 bytes, 0xc000 max)") whatever the
`cudaFuncAttributeMaxDynamicSharedMemorySize` attribute says: only dynamic shared memory can go
past 48 KiB.

## Example
```python
ring = T.alloc_buffer((3, 8192), "float16", scope="shared")    # 49152 + anything else
```

## Use instead
```python
ring = T.alloc_buffer((3, 8192), "float16", scope="shared.dyn")
```

## Witness
The static allocations, their total, the cap.
""")

NOT_ON_TARGET = rule("AG510", "instruction-not-on-target", "resource", "warning",
                     "an instruction the kernel's target architecture does not have (wgmma, setmaxnreg, tcgen05, "
                     "cluster launch control)", """
## What it does
Reads the target the kernel was lowered for (`T.target({"arch": ...})` in its attributes, or
`--arch`) and flags the first call of each instruction family that ptxas assembles only for
architecture-specific targets: wgmma (`T.ptx_wgmma_*`, `T.warpgroup_arrive/commit_batch/wait`)
only for sm_90a; setmaxnreg (`T.set_max_nreg`) for the `a` and `f` targets of sm_90 to sm_121;
tcgen05 and tensor memory for the `a` and `f` targets of sm_100, sm_103 and sm_110; cluster
launch control (`T.clc_try_cancel*`, `T.clc_is_canceled`, `T.clc_get_first_ctaid_*`) for sm_100
and later targets (below sm_100 ptxas answers "Feature 'clusterlaunchcontrol.try_cancel.async'
requires .target sm_100 or higher"; TileLang's own templates ask an `a` or `f` target on top,
which a check on a plain sm_100+ target reports as not modelled).

## Why is this bad?
A build for the target as written fails: ptxas answers "Instruction 'wgmma.fence' not supported
on .target 'sm_90'", and TileLang's templates stop at a static_assert ("requires a target with CTA
register reconfiguration, such as sm_90a"). TileLang lowers wgmma and setmaxnreg for a plain
`sm_90` or `sm_120` target and its nvcc backends pass that target to nvcc as written; only its
auto-detected target (and its NVRTC backend) adds the `a`. A warning, not an error: whether the
build adds the suffix is outside the text.

## Example
```python
T.func_attr({"target": T.target({"arch": "sm_90", "kind": "cuda", ...}), ...})
T.warpgroup_arrive()
```

## Use instead
```python
T.func_attr({"target": T.target({"arch": "sm_90a", "kind": "cuda", ...}), ...})
```
(or `asyncguard check --arch sm_90a` when the build compiles for it).

## Witness
The target, the instruction family, the call and its line, and the targets that have it.
""")

# findings about the launch as written (its allocations and requests, its target), whatever path
# its threads take: they stand when the run lost control of its paths (analyze.py keeps them then)
LAUNCH_RULES = frozenset((NOT_OPTED_IN.code, OVER_LIMIT.code, STATIC_OVER_48K.code, NOT_ON_TARGET.code))

OVER_REQUEST = rule("AG505", "smem-request-costs-occupancy", "resource", "warning",
                    "the launch requests more shared memory than the views reach, and that costs blocks per SM", """
## What it does
Computes blocks per SM (shared memory, threads, and the block limit) for the request and for the
bytes the views actually reach; flags a request that fits fewer blocks than the need would.

## Why is this bad?
Blocks per SM = floor(smem per SM / (round_up(static + dynamic, 128) + 1 KiB reserved)). An
over-sized request leaves room for one block per SM where eight would fit, and nothing fails:
the kernel just runs slower.

## Example
```python
T.func_attr({"dyn_shared_memory_buf": 200000, ...})   # views reach 16384 on sm_90: 1 block/SM
```

## Use instead
```python
T.func_attr({"dyn_shared_memory_buf": 16384, ...})    # 13 blocks/SM
```

## Witness
Request and need with their blocks per SM, and the largest request that keeps the better one.
""")

CARVEOUT_SMALL = rule("AG506", "carveout-too-small", "resource", "warning",
                      "the preferred shared-memory carveout cannot hold the blocks per SM the launch asks for", """
## What it does
When the file states `carveout=P` (cudaFuncAttributePreferredSharedMemoryCarveout, percent) and
`min_blocks_per_sm=B` (`__launch_bounds__`' second argument), rounds P% of the SM's shared
memory up to a supported carveout size and checks that B blocks fit.

## Why is this bad?
The carveout is a hint the driver follows: measured on an H200, 50% of 228 KiB gives a 132 KiB
carveout and 7 blocks of 16 KiB, not the 13 a full carveout holds. Asking for more blocks per SM
than the carveout holds silently loses occupancy.

## Example
```python
# asyncguard: launch carveout=25 min_blocks_per_sm=4     (16 KiB blocks: 3 fit in 64 KiB)
```

## Use instead
```python
# asyncguard: launch carveout=50 min_blocks_per_sm=4
```

## Witness
The carveout in percent and bytes, the per-block footprint, blocks that fit, blocks asked for.
""")

CP_ASYNC_ALIGN = rule("AG507", "cp-async-misaligned", "resource", "error",
                      "cp.async destination not aligned to the copy size", """
## What it does
Flags a `cp.async` of 4, 8 or 16 bytes whose shared-memory destination (per thread, as the
engine executed it) is not a multiple of the copy size.

## Why is this bad?
PTX requires the shared and global addresses of `cp.async` to be aligned to the copy size;
a misaligned one raises a misaligned-address error at run time.

## Example
```python
T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S.data, tx * 8 + 4, 8, 2), src, 8)
```

## Use instead
```python
T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("float16"), S.data, tx * 8, 8, 2), src, 8)
```

## Witness
The copy (line, thread, loop values), its destination byte address and size.
""")

TMA_ALIGN = rule("AG508", "tma-smem-misaligned", "resource", "error",
                 "TMA shared-memory address not 128-byte aligned (1024 with 128-byte swizzle)", """
## What it does
Flags a `T.tma_load` / `T.tma_store` whose shared-memory address is provably not a multiple of
128 bytes (1024 / 512 / 256 for a 128 / 64 / 32-byte swizzled descriptor, when the file states
the swizzle), and a 1-D bulk copy not 16-byte aligned. The address is reduced modulo the
alignment from the buffer's offset and the index expression (loop variables stay symbolic).

## Why is this bad?
`cp.async.bulk.tensor` requires the shared address aligned to 128 bytes, and swizzled layouts
assume a base aligned to the swizzle pattern's repeat; a misaligned box faults or lands
permuted.

## Example
```python
T.tma_load(A_desc, mbar[0], T.tvm_access_ptr(T.type_annotation("float16"), A_shared, 32, 4096, 2), 0, 0)
```

## Use instead
```python
T.tma_load(A_desc, mbar[0], T.tvm_access_ptr(T.type_annotation("float16"), A_shared, 0, 4096, 2), 0, 0)
```

## Witness
The call, the address as `residue mod modulus`, the alignment required.
""")

MBARRIER_ALIGN = rule("AG509", "mbarrier-misaligned", "resource", "error",
                      "mbarrier object not 8-byte aligned", """
## What it does
Flags an mbarrier operation (init, arrive, expect_tx, wait, or a TMA's completion barrier) whose
barrier word is provably not 8-byte aligned, e.g. carved out of the dynamic buffer at an odd
byte offset.

## Why is this bad?
PTX: an mbarrier object is an opaque 64-bit object that must be 8-byte aligned in shared memory;
a misaligned one faults.

## Example
```python
mbar: T.handle("uint64", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 16388)
```

## Use instead
```python
mbar: T.handle("uint64", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 16384)
```

## Witness
The call, the barrier address as `residue mod modulus`.
""")


# ---------------------------------------------------------------- launch directives
_DIRECTIVE = re.compile(r"#\s*asyncguard:\s*launch\b(.*)$")


def launch_directives(source: str, kernel: str) -> dict:
    """{key: (value, line)} from `# asyncguard: launch k=v ...` comments that apply to `kernel`."""
    out: dict = {}
    for n, text in enumerate(source.splitlines(), 1):
        m = _DIRECTIVE.search(text)
        if not m:
            continue
        pairs = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
        if pairs.pop("kernel", kernel) != kernel:
            continue
        for k, v in pairs.items():
            out[k] = (_value(v), n)
    return out


def _value(v):
    v = str(v).strip().strip(",")
    try:
        return int(v, 0)
    except ValueError:
        return v


# ---------------------------------------------------------------- address congruences
def _gcd(a: int, b: int) -> int:
    return math.gcd(a, b)


def congruence(e, lets: dict | None = None) -> tuple:
    """(r, m): the value is r + m*k for some integer k (m == 0: exactly r). Unknown: (0, 1)."""
    if isinstance(e, ir.Const) and isinstance(e.value, (bool, int)) and not isinstance(e.value, bool):
        return e.value, 0
    if isinstance(e, ir.Var):
        if lets and e.name in lets:
            return lets[e.name]
        return 0, 1
    if isinstance(e, ir.Call):
        if e.name in ("T.int32", "T.int64", "T.uint32", "T.Cast") and e.args:
            return congruence(e.args[-1], lets)
        if e.name in ("T.shift_left", "T.shift_right") and len(e.args) == 2:
            s = congruence(e.args[1], lets)
            if s[1] == 0 and s[0] >= 0:
                op = "*" if e.name == "T.shift_left" else "//"
                return _binop(op, congruence(e.args[0], lets), (1 << s[0], 0))
        return 0, 1
    if isinstance(e, ir.BinOp):
        return _binop(e.op, congruence(e.left, lets), congruence(e.right, lets))
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        r, m = congruence(e.operand, lets)
        return -r, m
    return 0, 1


def _binop(op: str, a: tuple, b: tuple) -> tuple:
    (r1, m1), (r2, m2) = a, b
    if op == "+":
        return r1 + r2, _gcd(m1, m2)
    if op == "-":
        return r1 - r2, _gcd(m1, m2)
    if op == "*":
        return r1 * r2, _gcd(_gcd(abs(r1) * m2, abs(r2) * m1), m1 * m2)
    if op in ("%", "//") and m2 == 0 and r2 > 0:
        c = r2
        if m1 == 0:
            return (r1 % c if op == "%" else r1 // c), 0
        if op == "%":
            g = _gcd(m1, c)
            return r1 % g, g
        if m1 % c == 0:      # (r1 + m1 k) // c == r1 // c + (m1 / c) k
            return r1 // c, m1 // c
    return 0, 1


def misaligned(r: int, m: int, align: int) -> bool:
    """True when every value r + m*k is not a multiple of `align` (proved, not guessed)."""
    return (m == 0 or m % align == 0) and r % align != 0


# ---------------------------------------------------------------- per-kernel context
@dataclass
class Budget:
    kernel: str
    arch: Arch | None
    threads: int
    static: int            # bytes of static allocations (scope shared + barriers)
    padding: int           # alignment padding ptxas adds (between allocations, before dyn)
    dynamic: int           # the launch's dynamic request
    request_from: str      # "dyn_shared_memory_buf" | "directive" | "views"
    need: int              # farthest byte of the dynamic buffer any view reaches
    need_what: str
    request_line: int
    request_col: int

    @property
    def static_driver(self) -> int:
        """What cudaFuncGetAttributes reports as sharedSizeBytes."""
        return self.static + self.padding

    @property
    def total(self) -> int:
        return self.static_driver + self.dynamic

    @property
    def limit(self) -> int | None:
        return self.arch.smem_per_block_optin if self.arch else None

    def blocks_smem(self, dynamic: int | None = None, capacity: int | None = None) -> int | None:
        a = self.arch
        if a is None:
            return None
        dyn = self.dynamic if dynamic is None else dynamic
        per = -(-(self.static_driver + dyn) // a.smem_alloc_unit) * a.smem_alloc_unit + a.reserved_per_block
        cap = a.smem_per_sm if capacity is None else capacity
        return cap // per if per else a.max_blocks_per_sm

    def blocks_threads(self) -> int | None:
        a = self.arch
        if a is None or self.threads <= 0:
            return None
        if self.threads > a.max_threads_per_block:
            return 0
        return a.max_threads_per_sm // (-(-self.threads // 32) * 32)

    def occupancy(self, dynamic: int | None = None) -> int | None:
        s, t = self.blocks_smem(dynamic), self.blocks_threads()
        if s is None or t is None:
            return None
        return min(s, t, self.arch.max_blocks_per_sm)

    def max_request_for(self, blocks: int) -> int | None:
        """The largest dynamic request that still fits `blocks` blocks per SM by shared memory."""
        a = self.arch
        if a is None or blocks <= 0:
            return None
        per = a.smem_per_sm // blocks - a.reserved_per_block
        fit = per // a.smem_alloc_unit * a.smem_alloc_unit - self.static_driver
        return max(0, min(fit, a.smem_per_block_optin - self.static_driver))


@dataclass
class KernelContext:
    """What the resource checks need besides the machine's result: the elaborated program, its
    syntax tree, the file's text (launch directives), the --arch override, and what the access
    observer saw while the machine ran."""
    program: object
    func: ir.Function
    source: str = ""
    arch_override: str | None = None
    dyn_hi: int = 0                       # farthest dynamic byte any executed access touched
    dyn_hi_where: str = ""
    cp_async_bad: dict = field(default_factory=dict)   # span.start -> witness
    _largest_of: dict = field(default_factory=dict, repr=False)   # _largest: id -> (array, max)

    # ---- engine hook
    def observe(self, machine) -> None:
        """Wrap the machine's access handler (its entry in `machine.handlers`, this machine
        only) so every shared access passes through `_see` before the race check."""
        inner = machine.handlers.get(Access)
        if inner is None:
            return   # an engine limit: the machine will not run

        def _access(task, ev, s, inner=inner):
            try:
                self._see(task, ev, s)
            except Exception:   # noqa: BLE001
                # Deliberately broad: any exception here is a bug in `_see`, and letting it out
                # would turn the whole kernel into AG003 (verdict unknown, race findings lost).
                # Swallowing it costs at most this access's resource observation (dyn_hi or
                # cp_async_bad: a missed AG5xx). The --timeout alarm (_Deadline) and Ctrl-C are
                # BaseExceptions and still pass through.
                pass
            return inner(task, ev, s)
        machine.handlers[Access] = _access

    def _largest(self, ends: np.ndarray) -> int:
        """`ends.max()`, remembered for a read-only array (a model's ranges reused while the
        address and threads are the same: models.ThreadRanges) by its identity."""
        if ends.flags.writeable:
            return int(ends.max())
        known = self._largest_of.get(id(ends))
        if known is None or known[0] is not ends:
            if len(self._largest_of) >= 4096:
                self._largest_of.clear()
            known = self._largest_of[id(ends)] = (ends, int(ends.max()))
        return known[1]

    def _see(self, task, ev, s) -> None:
        if ev.tids.size == 0:
            return
        view = self.program.views.get(ev.buffer)
        if view is not None and view.region is not None and view.region.scope == "shared.dyn":
            hi = self._largest(local_bytes(ev, self.program.layout)[1])   # in its own CTA (clusters)
            if hi > self.dyn_hi:
                self.dyn_hi, self.dyn_hi_where = hi, f"{ev.via} of {ev.buffer} at line {s.span.line}"
        if ev.via == "ptx_cp_async" and s.span.start not in self.cp_async_bad:
            size = ev.hi - ev.lo
            bad = np.flatnonzero((size > 0) & (ev.lo % np.maximum(size, 1) != 0))
            if bad.size:
                k = int(bad[0])
                self.cp_async_bad[s.span.start] = {
                    "line": s.span.line, "col": s.span.col, "thread": int(ev.tids[k]),
                    "loops": dict(task.loops()), "buffer": ev.buffer, "address": int(ev.lo[k]),
                    "bytes": int(size[k]), "threads": int(bad.size)}

    # ---- inputs
    @functools.cached_property
    def directives(self) -> dict:
        d = launch_directives(self.source, self.program.name) if self.source else {}
        attr = self.program.attrs.get("asyncguard.launch")
        if isinstance(attr, dict):
            line = self._attr_span()[0]
            for k, v in attr.items():
                d.setdefault(str(k), (_value(v), line))
        return d

    @property
    def arch(self) -> Arch | None:
        return lookup(self.arch_override) if self.arch_override else lookup(self.program.attrs.get("target"))

    @property
    def target(self) -> str | None:
        """The target as written (`sm_90a`, suffix kept), or the --arch override."""
        return target_name(self.arch_override or self.program.attrs.get("target"))

    @functools.cached_property
    def instruction_families(self) -> dict:
        """family (models/arch.py TARGET_FEATURES) -> the first call that prints it."""
        out: dict = {}
        for c in self._all_calls:
            extern = None
            if c.name == "T.call_extern" and len(c.args) > 1 and isinstance(c.args[1], ir.Const):
                extern = str(c.args[1].value)
            fam = instruction_family(c.name, extern)
            if fam is not None and fam not in out:
                out[fam] = c
        return out

    def _attr_span(self) -> tuple:
        for s in self.func.body:
            if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.Call) and s.expr.name == "T.func_attr":
                return s.span.line, s.span.col
        return self.func.span.line, self.func.span.col

    def dyn_align(self) -> int:
        v = self.directives.get("dyn_align", (TILELANG_DYN_ALIGN, 0))[0]
        return v if isinstance(v, int) and v > 0 else TILELANG_DYN_ALIGN

    def static_regions(self) -> list:
        p = self.program
        return [r for r in p.layout.regions if r.scope == "shared"] + \
               [r for r in p.barrier_regions if r.scope in BARRIER_SCOPES]

    def budget(self) -> Budget:
        """Recomputed on each call: the observer may have seen farther accesses since."""
        return self._compute_budget()

    def row(self) -> dict:
        """The `check --resources` table row (also KernelReport.resources)."""
        b = self.budget()
        occ, occ_need = b.occupancy(), b.occupancy(b.need)
        return {"kernel": b.kernel, "arch": b.arch.name if b.arch else None, "threads": b.threads,
                "static": b.static, "pad": b.padding, "dynamic": b.dynamic, "need": b.need,
                "total": b.total, "limit": b.limit, "blk/SM smem": b.blocks_smem(),
                "blk/SM thr": b.blocks_threads(), "blk/SM": occ, "at need": occ_need,
                "keep<=": b.max_request_for(occ_need) if occ_need else None,
                "request_from": b.request_from, "need_what": b.need_what}

    def _compute_budget(self) -> Budget:
        p = self.program
        dyn_regions = [r for r in p.layout.regions if r.scope == "shared.dyn"]
        need, what = 0, ""
        for r in dyn_regions:
            if r.base + r.nbytes > need:
                need, what = r.base + r.nbytes, f"allocation {r.name} (line {r.line})"
        for v in p.views.values():
            if v.region is None or v.region.scope != "shared.dyn" or not v.shape:
                continue
            if all(isinstance(s, int) for s in v.shape):
                # in bits: a sub-byte element (int4, fp4) is half a byte, not one
                end = v.flat_base + -(-int(np.prod(v.shape)) * v.elem_bits // 8)
                if end > need:
                    need, what = end, f"view {v.name}"
        if self.dyn_hi > need:
            need, what = self.dyn_hi, self.dyn_hi_where
        d = self.directives
        line, col = self._attr_span()
        if "dynamic_shared_memory" in d and isinstance(d["dynamic_shared_memory"][0], int):
            dyn, src = d["dynamic_shared_memory"][0], "directive"
            line, col = d["dynamic_shared_memory"][1], 1
        elif isinstance(p.attrs.get("dyn_shared_memory_buf"), int):
            dyn, src = int(p.attrs["dyn_shared_memory_buf"]), "dyn_shared_memory_buf"
        else:
            dyn, src = need, "views"
        # static layout: each allocation at 16-byte alignment, then the end rounded up to the
        # dynamic buffer's alignment when the kernel declares one (measured: ptxas reports 48 B of
        # mbarriers before a 1024-aligned extern buffer as 1024 B of static shared memory)
        raw, end = 0, 0
        for r in self.static_regions():
            end = -(-end // STATIC_ALIGN) * STATIC_ALIGN + r.nbytes
            raw += r.nbytes
        has_dyn = bool(dyn_regions) or dyn > 0
        align = self.dyn_align() if has_dyn else STATIC_ALIGN
        driver = -(-end // align) * align
        threads = p.launch.num_threads
        return Budget(p.name, self.arch, threads, raw, driver - raw, dyn, src, need, what, line, col)

    # ---- static address checks over the syntax tree
    def _calls(self):
        return self._all_calls

    @functools.cached_property
    def _all_calls(self) -> list:
        """Every call in the function's syntax tree, walked once per kernel (the checks run
        after every machine run: per sampled block and size)."""
        out: list = []
        for s in self.func.body:
            _collect_calls(s, out)
        return out

    def _view(self, e):
        if isinstance(e, ir.Var):
            return self.program.views.get(e.name)
        if isinstance(e, ir.Attr) and e.name == "data":
            return self._view(e.value)
        return None

    def _base(self, view) -> tuple:
        """(r, m) of the view's byte 0 in the shared window."""
        r = view.region
        if r.scope == "shared.dyn":
            return view.flat_base, self.dyn_align()
        return view.byte_offset, STATIC_ALIGN

    def address(self, e) -> tuple | None:
        """(r, m, view name) of the shared address an operand names, or None."""
        if isinstance(e, ir.Call) and e.name == "T.address_of" and e.args:
            return self.address(e.args[0])
        if isinstance(e, ir.Call) and e.name == "T.tvm_access_ptr" and len(e.args) == 5:
            ann, data, off = e.args[0], e.args[1], e.args[2]
            view = self._view(data)
            if view is None or view.region is None:
                return None
            from ..models.memory import dtype_bits
            dt = ann.args[0].value if isinstance(ann, ir.Call) and ann.args and isinstance(ann.args[0], ir.Const) else None
            bits = (dtype_bits(str(dt)) if dt else None) or view.elem_bits
            return self._combine(view, congruence(off), bits)
        if isinstance(e, ir.Subscript) and len(e.indices) == 1 and not isinstance(e.indices[0], ir.Slice):
            view = self._view(e.value)
            if view is None or view.region is None:
                return None
            return self._combine(view, congruence(e.indices[0]), view.elem_bits)
        view = self._view(e)
        if view is not None and view.region is not None:
            return self._combine(view, (0, 0), 8)
        return None

    def _combine(self, view, idx: tuple, bits: int):
        """The byte address `r (mod m)` of element index `idx` (a congruence) of `bits`-bit
        elements; None where a sub-byte element's address is not a whole byte in every case."""
        br, bm = self._base(view)
        r, m = idx
        if (r * bits) % 8 or (m * bits) % 8:
            return None
        return br + r * bits // 8, _gcd(bm, m * bits // 8), view.name


TMA_OPS = ("T.tma_load", "T.tma_load_multicast", "T.tma_load_im2col", "T.tma_store")
MBAR_OPS = ("T.ptx_init_barrier_thread_count", "T.mbarrier_wait_parity", "T.mbarrier_expect_tx",
            "T.ptx_arrive_barrier", "T.ptx_arrive_barrier_expect_tx", "T.ptx_arrive_cluster_barrier",
            "T.mbarrier_arrive")
_SWIZZLE_ALIGN = {"128b": 1024, "64b": 512, "32b": 256, "none": 128, "0": 128}


def _is_shared_ptr(ctx: KernelContext, e) -> bool:
    a = ctx.address(e)
    if a is None:
        return False
    view = ctx.program.views.get(a[2])
    return view is not None and view.is_shared


# ---------------------------------------------------------------- the check
def check(result, path: str, kernel: KernelContext | None = None) -> list[Finding]:
    if kernel is None:
        return []
    out: list[Finding] = []
    b = kernel.budget()
    arch = b.arch
    d = kernel.directives
    wit = {"kernel": b.kernel, "arch": arch.name if arch else None, "dynamic": b.dynamic,
           "static": b.static, "padding": b.padding, "required": b.total, "limit": b.limit,
           "request_from": b.request_from}

    if b.request_from != "views" and b.dynamic < b.need:
        w = dict(wit, need=b.need, reached_by=b.need_what)
        out.append(Finding(DYN_TOO_SMALL, b.request_line, b.request_col,
                           f"the launch requests {b.dynamic} bytes of dynamic shared memory "
                           f"({'stated by the launch directive' if b.request_from == 'directive' else 'dyn_shared_memory_buf'}) "
                           f"but {b.need_what} reaches byte {b.need - 1}: {b.need} bytes are needed", w, path))

    if "max_dynamic_shared_memory" in d:
        mval, mline = d["max_dynamic_shared_memory"]
        default = STATIC_CAP - b.static_driver
        attr = mval if isinstance(mval, int) else default
        if b.dynamic > attr:
            how = (f"the launcher sets cudaFuncAttributeMaxDynamicSharedMemorySize to {attr}"
                   if isinstance(mval, int) else
                   f"the launcher never raises cudaFuncAttributeMaxDynamicSharedMemorySize "
                   f"(default: 48 KiB - {b.static_driver} static = {default})")
            out.append(Finding(NOT_OPTED_IN, mline, 1,
                               f"the launch asks for {b.dynamic} bytes of dynamic shared memory but {how}: "
                               "the launch fails with cudaErrorInvalidValue", dict(wit, attribute=attr), path))
        if isinstance(mval, int) and arch and b.static_driver + mval > arch.smem_per_block_optin:
            out.append(Finding(OVER_LIMIT, mline, 1,
                               f"cudaFuncSetAttribute(MaxDynamicSharedMemorySize, {mval}) fails: "
                               f"dynamic {mval} + static {b.static_driver} = {mval + b.static_driver} > "
                               f"{arch.smem_per_block_optin} ({arch.name} per-block maximum)",
                               dict(wit, dynamic=mval, required=mval + b.static_driver), path))

    if arch and b.total > arch.smem_per_block_optin:
        pad = f" (of which {b.padding} alignment padding)" if b.padding else ""
        out.append(Finding(OVER_LIMIT, b.request_line, b.request_col,
                           f"shared memory per block: dynamic {b.dynamic} + static {b.static_driver}{pad} "
                           f"= {b.total} required > {arch.smem_per_block_optin} device limit "
                           f"({arch.name} opt-in maximum); cudaFuncSetAttribute and the launch fail", wit, path))

    if (arch is None or arch.static_cap_applies) and b.static_driver > STATIC_CAP:
        run, where = 0, None
        for r in kernel.static_regions():
            run += r.nbytes
            if run > STATIC_CAP and where is None:
                where = r
        line = where.line if where and where.line else b.request_line
        out.append(Finding(STATIC_OVER_48K, line, _col(kernel.source, line),
                           f"{b.static_driver} bytes of static shared memory "
                           f"(> {STATIC_CAP}: ptxas rejects it for {arch.name if arch else 'this target'}; "
                           "use scope=\"shared.dyn\")",
                           dict(wit, regions=[(r.name, r.nbytes) for r in kernel.static_regions()]), path))

    if arch and b.request_from != "views" and b.dynamic > b.need:
        occ_req, occ_need = b.occupancy(), b.occupancy(b.need)
        if occ_req is not None and occ_need is not None and occ_req < occ_need:
            keep = b.max_request_for(occ_need)
            out.append(Finding(OVER_REQUEST, b.request_line, b.request_col,
                               f"the launch requests {b.dynamic} bytes of dynamic shared memory but the views "
                               f"reach {b.need}: {occ_req} block(s) per SM instead of {occ_need} on {arch.name} "
                               f"(any request up to {keep} keeps {occ_need})",
                               dict(wit, need=b.need, blocks=occ_req, blocks_at_need=occ_need,
                                    keep_request=keep), path))

    if arch and "carveout" in d and "min_blocks_per_sm" in d:
        pct, cline = d["carveout"]
        want = d["min_blocks_per_sm"][0]
        if isinstance(pct, int) and isinstance(want, int):
            cap = arch.carveout_bytes(pct)
            fit = b.blocks_smem(capacity=cap)
            if fit is not None and fit < want:
                out.append(Finding(CARVEOUT_SMALL, cline, 1,
                                   f"preferred carveout {pct}% = {cap} bytes of shared memory per SM on {arch.name} "
                                   f"holds {fit} block(s) of {b.total} (+{arch.reserved_per_block} reserved) bytes; "
                                   f"the launch asks for {want} per SM",
                                   dict(wit, carveout=pct, carveout_bytes=cap, fit=fit, min_blocks=want), path))

    for w in kernel.cp_async_bad.values():
        out.append(Finding(CP_ASYNC_ALIGN, w["line"], w["col"],
                           f"cp.async of {w['bytes']} bytes by thread {w['thread']} writes {w['buffer']} at smem "
                           f"byte {w['address']}, not a multiple of {w['bytes']}" +
                           (f" ({', '.join(f'{k}={v}' for k, v in w['loops'].items())})" if w["loops"] else ""),
                           dict(w), path))

    out.extend(_address_findings(kernel, d, path))
    out.extend(_target_findings(kernel, path))
    return out


def _target_findings(kernel: KernelContext, path: str) -> list[Finding]:
    """AG510: each instruction family the target cannot assemble, at its first call."""
    target = kernel.target
    if target not in PROBED:
        return []
    out = []
    for fam, call in kernel.instruction_families.items():
        if target in TARGET_FEATURES[fam]:
            continue
        have = targets_with(fam)
        suggest = SUGGESTED_TARGET.get(fam, have[0])
        out.append(Finding(NOT_ON_TARGET, call.span.line, call.span.col,
                           f"{call.name} prints {fam} instructions, which target {target} does not have: "
                           f"ptxas assembles them only for {', '.join(have)}; a build for {target} fails "
                           f"(lower for {suggest}, or check with --arch {suggest} if the build compiles for it)",
                           {"target": target, "family": fam, "call": call.name, "targets": have}, path))
    return out


def _address_findings(kernel: KernelContext, d: dict, path: str) -> list[Finding]:
    out, seen = [], {}
    for call in kernel._calls():
        name = call.name
        if name in TMA_OPS and call.args:
            args = call.args
            # a 1-D bulk copy (cp.async.bulk, no tensor map) needs 16-byte addresses: a load names
            # its shared destination first, a store its global destination (a pointer, where a
            # tensor store names its descriptor)
            bulk_store = name == "T.tma_store" and isinstance(args[0], ir.Call) and \
                args[0].name == "T.tvm_access_ptr" and len(args) > 1
            if _is_shared_ptr(kernel, args[0]) and name != "T.tma_store":
                smem, mbar, align, what = args[0], (args[2] if len(args) > 2 else None), 16, "1-D bulk copy"
            elif bulk_store:
                smem, mbar, align, what = args[1], None, 16, "1-D bulk copy"
            else:
                smem = next((a for a in args[1:] if _is_shared_ptr(kernel, a)), None)
                mbar = args[1] if name != "T.tma_store" and len(args) > 1 else None
                desc = ir.dotted(args[0]) or ""
                sw = d.get(f"tma_swizzle.{desc}", d.get("tma_swizzle", ("none", 0)))[0]
                align = _SWIZZLE_ALIGN.get(str(sw).lower(), 128)
                what = f"TMA box ({desc or 'descriptor'}, swizzle {sw})"
            a = kernel.address(smem) if smem is not None else None
            if a and misaligned(a[0], a[1], align) and (call.span.start, "tma") not in seen:
                seen[(call.span.start, "tma")] = True
                out.append(Finding(TMA_ALIGN, call.span.line, call.span.col,
                                   f"{name.removeprefix('T.')} {what}: shared address of {a[2]} is "
                                   f"{_mod_text(a)}, never a multiple of {align}",
                                   {"buffer": a[2], "residue": a[0], "modulus": a[1], "align": align}, path))
            if mbar is not None:
                _mbar(kernel, call, mbar, out, seen, path)
        elif name in MBAR_OPS and call.args:
            _mbar(kernel, call, call.args[0], out, seen, path)
    return out


def _mbar(kernel, call, e, out, seen, path) -> None:
    a = kernel.address(e)
    if not (a and misaligned(a[0], a[1], 8)):
        return
    key = ("mbar", a[2], a[0] % max(a[1], 1) if a[1] else a[0])
    if key in seen:   # one finding per barrier word, at its first use; later uses in the witness
        seen[key].witness.setdefault("also_used_at", []).append(call.span.line)
        return
    f = Finding(MBARRIER_ALIGN, call.span.line, call.span.col,
                f"{call.name.removeprefix('T.')}: mbarrier {a[2]} at shared address "
                f"{_mod_text(a)}, never a multiple of 8",
                {"buffer": a[2], "residue": a[0], "modulus": a[1], "align": 8}, path)
    seen[key] = f
    out.append(f)


def _mod_text(a) -> str:
    r, m = a[0], a[1]
    return str(r) if m == 0 else f"= {r % m} (mod {m})"


def _col(source: str, line: int) -> int:
    lines = source.splitlines()
    if 1 <= line <= len(lines):
        return len(lines[line - 1]) - len(lines[line - 1].lstrip()) + 1
    return 1


# ---------------------------------------------------------------- `check --resources`
COLUMNS = ("kernel", "arch", "threads", "static", "pad", "dynamic", "need", "total", "limit",
           "blk/SM smem", "blk/SM thr", "blk/SM", "at need", "keep<=")


def budget_rows(text: str, path: str, arch: str | None = None) -> list[dict]:
    """Rows for a file without running the engine (static bounds only); `check --resources`
    uses KernelReport.resources, which also counts the accesses the engine executed."""
    from ..engine.program import elaborate
    from ..parse import parse
    from ..engine.scopes import scoped_lets
    return [dict(KernelContext(elaborate(f), f, text, arch).row(), path=path)
            for f in map(scoped_lets, parse(text, path).functions)]


def render_table(rows: list[dict]) -> str:
    def cell(v):
        return "?" if v is None else str(v)
    head = ("file",) + COLUMNS
    body = [(str(r.get("path", "")).rsplit("/", 1)[-1],) + tuple(cell(r.get(c)) for c in COLUMNS)
            for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)] if body else [len(h) for h in head]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < 3 else c.rjust(w)  # noqa: E731
                                  for i, (c, w) in enumerate(zip(cells, widths)))
    lines = [fmt(head)] + [fmt(b) for b in body]
    lines.append("static/pad: static allocations and the alignment padding ptxas adds; need: farthest "
                 "dynamic byte any view reaches; blk/SM: blocks per SM (smem, threads, overall); "
                 "at need: blocks per SM if the request were `need`; keep<=: largest request that keeps them")
    return "\n".join(lines)


@functools.lru_cache(maxsize=None)
def _node_fields(cls) -> tuple | None:
    """The fields of syntax-node class `cls` that may hold calls (None: not a node; a span
    holds none)."""
    if not dataclasses.is_dataclass(cls) or issubclass(cls, ir.Span):
        return None
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")


def _collect_calls(node, out: list) -> None:
    """Append every call in `node` to `out`, each before the calls inside it (program order).
    The repair search checks hundreds of candidate trees that share most statement objects
    (repair/splice.py): a simple statement's calls are remembered by the statement object, and
    the recursion looks up each node class's fields once."""
    if isinstance(node, tuple):
        for x in node:
            _collect_calls(x, out)
        return
    if type(node) in _SIMPLE_STATEMENTS:
        hit = _STATEMENT_CALLS.get(id(node))
        if hit is None or hit[0] is not node:
            calls: list = []
            _walk_calls(node, calls)
            if len(_STATEMENT_CALLS) >= _STATEMENT_CALLS_KEPT:
                _STATEMENT_CALLS.clear()
            # the statement itself is kept with its calls: its id names no other object meanwhile
            hit = _STATEMENT_CALLS[id(node)] = (node, calls)
        out.extend(hit[1])
        return
    _walk_calls(node, out)


def _walk_calls(node, out: list) -> None:
    names = _node_fields(type(node))
    if names is None:
        return
    if isinstance(node, ir.Call):
        out.append(node)
    for name in names:
        _collect_calls(getattr(node, name), out)


_SIMPLE_STATEMENTS = (ir.ExprStmt, ir.Assign, ir.Other)
_STATEMENT_CALLS: dict = {}      # id(simple statement) -> (the statement, its calls)
_STATEMENT_CALLS_KEPT = 20_000
