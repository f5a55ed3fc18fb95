"""Calls with no shared-memory or synchronization effect (registers, global memory, hints)."""
from . import PURE

PURE.update({
    # register-only tensor-core math and fences on register operands
    # (ptx_mma_block_scale: sm_120's mma.sync ... kind::mxf4nvf4.block_scale, whose A/B/C and
    # scale-factor operands are all registers: TileLang passes `local` buffers)
    "T.ptx_mma", "T.ptx_mma_sp", "T.ptx_mma_block_scale", "T.mma_store", "T.mma_fill", "T.warpgroup_fence_operand",
    # scheduling / register-allocation hints
    "T.set_max_nreg", "T.prefetch_tma_descriptor", "T.attr", "T.func_attr", "T.evaluate",
    "T.assume", "T.tvm_tuple", "T.annotate_layout",
    # global-memory atomics and prints do not touch shared memory
    "T.atomic_add_elem_op", "T.atomic_addx2_elem_op", "T.atomic_addx4_elem_op", "T.print",
    # programmatic dependent launch: griddepcontrol.launch_dependents / .wait order this grid
    # against the previous and next grids' global memory, not shared memory
    "T.pdl_trigger", "T.pdl_sync",
    # curand_init of a per-thread register state
    "T.rng_init",
    # a failing assert traps the whole grid; checked kernels are ones whose asserts hold
    "T.device_assert", "T.device_assert_with_msg",
    # register-allocation hints
    "T.annotate_producer_reg_dealloc", "T.annotate_consumer_reg_alloc", "T.no_set_max_nreg",
})
