"""Calls with no shared-memory or synchronization effect (registers, global memory, hints)."""
from . import PURE

PURE.update({
    # register-only tensor-core math and fences on register operands
    "T.ptx_mma", "T.ptx_mma_sp", "T.mma_store", "T.mma_fill", "T.warpgroup_fence_operand",
    # scheduling / register-allocation hints
    "T.set_max_nreg", "T.prefetch_tma_descriptor", "T.attr", "T.func_attr", "T.evaluate",
    "T.assume", "T.tvm_tuple", "T.annotate_layout",
    # global-memory atomics and prints do not touch shared memory
    "T.atomic_add_elem_op", "T.atomic_addx2_elem_op", "T.atomic_addx4_elem_op", "T.print",
})
