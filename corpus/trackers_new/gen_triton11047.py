"""Write the hand-transcribed TIR pair for triton-lang/triton#11047 (and two probes, split per warpgroup)."""
import os

HDR = '''# Transcription (not compiler output) of the Gluon reproducer of triton-lang/triton#11047 ("warpgroup_mma_wait does not
# properly synchronize across warpgroups"; fixed by triton-lang/triton#11056, reapplying #9484; #11050 describes the
# same fix as "wait_group 0 -> barrier.cta.sync -> conflicting cp.async"): WG = 2 warpgroups (8 warps, 256 threads);
# a_smem [64 * WG, D] and the B tile in shared memory, D = 64, bf16; per block the B tile is refilled with cp.async
# by all threads (commit, wait_group 0), a CTA barrier and fence.proxy.async precede the wgmma (each warpgroup its 64
# rows of a_smem against the whole B tile, k = 64 as 4 x m64n64k16), then commit and warpgroup_mma_wait(0).
# BUGGY: nothing after the wait(0) before the next block's cp.async: a warpgroup that finished its wait refills the B
# tile while the other warpgroup's wgmma may still read it (Triton treated the wait as if it synchronized all warps).
# FIXED: a CTA barrier after the wait(0) (the fix's barrier before the conflicting cp.async).
# Choices (the issue's program was read only up to its shared allocations): one B buffer refilled per block (the
# reproducer allocates b0_smem / b1_smem), NBLK = 4, a_smem filled once by cp.async before the loop, the
# accumulator store left out (a final wait(0) stands for it).
'''
BODY = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def kernel(a_ptr: T.handle("bfloat16", "global"), b_ptr: T.handle("bfloat16", "global")):
        T.func_attr({"calling_conv": 2, "dyn_shared_memory_buf": 24576, "target": T.target({"arch": "sm_90a", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 256, "threadIdx.y": 1, "threadIdx.z": 1}, "tirx.is_global_func": T.bool(True), "tirx.kernel_launch_params": ["blockIdx.x", "threadIdx.x", "threadIdx.y", "threadIdx.z", "tirx.use_dyn_shared_memory"], "tirx.noalias": True})
        bx = T.launch_thread("blockIdx.x", 1)
        buf_dyn_shmem = T.alloc_buffer((24576,), "uint8", scope="shared.dyn")
        a_smem: T.handle("bfloat16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
        b_smem: T.handle("bfloat16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 16384)
        acc = T.alloc_buffer((32,), scope="local")
        tx = T.launch_thread("threadIdx.x", 256)
        ty = T.launch_thread("threadIdx.y", 1)
        tz = T.launch_thread("threadIdx.z", 1)
        acc_1 = T.decl_buffer((32,), data=acc.data, scope="local")
        for c in T.unroll(4):
            T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("bfloat16"), a_smem, (c * 256 + tx) * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("bfloat16"), a_ptr, (c * 256 + tx) * 8, 8, 1), 8)
        T.ptx_commit_group()
        for i in T.unroll(8):
            acc_1[i * 4:i * 4 + 4] = T.Broadcast(T.float32(0.0), 4)
        for blk in range(4):
            for c in T.unroll(2):
                T.ptx_cp_async(T.tvm_access_ptr(T.type_annotation("bfloat16"), b_smem, (c * 256 + tx) * 8, 8, 2), T.tvm_access_ptr(T.type_annotation("bfloat16"), b_ptr, blk * 4096 + (c * 256 + tx) * 8, 8, 1), 8)
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            T.fence_proxy_async()
            T.tvm_storage_sync("shared")
            with T.attr(0, "lexical_alloc_scope", 1):
                desc_a = T.alloc_buffer((1,), "uint64", scope="local.descriptor.wgmma")
                desc_b = T.alloc_buffer((1,), "uint64", scope="local.descriptor.wgmma")
                desc_a_1 = T.decl_buffer((1,), "uint64", data=desc_a.data, scope="local.descriptor.wgmma")
                desc_b_1 = T.decl_buffer((1,), "uint64", data=desc_b.data, scope="local.descriptor.wgmma")
                T.initialize_wgmma_descriptor(desc_a_1[0], T.tvm_access_ptr(T.type_annotation("bfloat16"), a_smem, 0, 8192, 1), 1, 1, 64)
                T.initialize_wgmma_descriptor(desc_b_1[0], T.tvm_access_ptr(T.type_annotation("bfloat16"), b_smem, 0, 4096, 1), 1, 256, 64)
                T.warpgroup_fence_operand("float32", acc.data, 0, 32)
                T.warpgroup_arrive()
@@WGMMA@@
                T.warpgroup_commit_batch()
                T.warpgroup_wait(0)
                T.warpgroup_fence_operand("float32", acc.data, 0, 32)
@@SYNC@@
        T.warpgroup_wait(0)
'''
ONE = '''                for ki in T.unroll(4):
                    T.ptx_wgmma_ss("m64n64k16", T.bool(True), T.bool(False), "bf16", "bf16", "fp32", desc_a.data, T.shift_right(tx // 128 * 8192 + ki * 32, 4), desc_b.data, T.shift_right(ki * 2048, 4), acc.data, 0, 1, 1, 1)'''
SPLIT = '''                if tx < 128:
                    for ki in T.unroll(4):
                        T.ptx_wgmma_ss("m64n64k16", T.bool(True), T.bool(False), "bf16", "bf16", "fp32", desc_a.data, T.shift_right(ki * 32, 4), desc_b.data, T.shift_right(ki * 2048, 4), acc.data, 0, 1, 1, 1)
                else:
                    for ki in T.unroll(4):
                        T.ptx_wgmma_ss("m64n64k16", T.bool(True), T.bool(False), "bf16", "bf16", "fp32", desc_a.data, T.shift_right(8192 + ki * 32, 4), desc_b.data, T.shift_right(ki * 2048, 4), acc.data, 0, 1, 1, 1)'''
SYNC = '''            T.tvm_storage_sync("shared")'''
d = os.path.dirname(os.path.abspath(__file__)) + "/"
name = "triton11047_multi_wg_wgmma_wait_cpasync_sm90a"
open(d + name + ".tir", "w").write(HDR + BODY.replace("@@WGMMA@@", ONE).replace("@@SYNC@@\n", ""))
open(d + name + "_fixed.tir", "w").write(HDR + BODY.replace("@@WGMMA@@", ONE).replace("@@SYNC@@", SYNC))
# probes: the same kernels with each warpgroup's wgmma written as its own statement
open(d + "probes/" + name + "_probe_split.tir", "w").write(HDR + BODY.replace("@@WGMMA@@", SPLIT).replace("@@SYNC@@\n", ""))
open(d + "probes/" + name + "_probe_split_fixed.tir", "w").write(HDR + BODY.replace("@@WGMMA@@", SPLIT).replace("@@SYNC@@", SYNC))
