HDR = '''# Transcription (not compiler output) of the main loop nvFuser generated for MLPBenchmarkTest.FwdGEMM/data_parallel_non_warpspec,
# NVIDIA/Fuser#3865 ("Fix WAR async issue with pipelined circular buffering", stacked on #3863): a non-warp-specialized
# Hopper GEMM with a 4-stage TMA circular buffer. Each main-loop iteration: the elected thread issues the TMA loads
# (arriveExpectTX + cpAsyncBulkTensorTileG2S for A and B) of stage (i + 3) % 4, predicated off past the last tile;
# every thread waits T9[i % 4] with parity (i / 4) % 2 (as printed in the PR); the warpgroups issue 4 wgmma (k = 64)
# on stage i % 4; then the loop-end __syncthreads and the wgmma WAR sync (commit, wait_group 0, as #3191 inserts
# it with prefetch = stages - 1).
# BUGGY: the wgmma commit/wait come after the __syncthreads (the order #3865 fixes): the elected thread of warpgroup 0
# can leave the barrier, wait for its own wgmma and issue the next TMA into the stage warpgroup 1's wgmma still reads.
# FIXED: commit, wait, then __syncthreads (the PR's fix: the WAR sync before kir::BlockSync).
# Choices (not in the PR excerpt read): 2 warpgroups of 128 threads each computing 64 rows (M tile 128, N tile 128,
# K tile 64), 8 K tiles, one arrive_expect_tx per stage for both operands (count 1), the elected thread written as
# thread 0, the epilogue reduced to the final wait.
'''
BODY = '''# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def main_kernel(A_desc: T.handle("uint8x128", "grid_constant"), B_desc: T.handle("uint8x128", "grid_constant"), C: T.handle("float16", "global")):
        T.func_attr({"calling_conv": 2, "dyn_shared_memory_buf": 131072, "target": T.target({"arch": "sm_90a", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}), "thread_extent": {"blockIdx.x": 1, "threadIdx.x": 256, "threadIdx.y": 1, "threadIdx.z": 1}, "tirx.is_global_func": T.bool(True), "tirx.kernel_launch_params": ["blockIdx.x", "threadIdx.x", "threadIdx.y", "threadIdx.z", "tirx.use_dyn_shared_memory"], "tirx.noalias": True})
        C_1 = T.decl_buffer((16384,), "float16", data=C)
        bx = T.launch_thread("blockIdx.x", 1)
        buf_dyn_shmem = T.alloc_buffer((131072,), "uint8", scope="shared.dyn")
        A_shared: T.handle("float16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 0)
        B_shared: T.handle("float16", "shared.dyn") = T.handle_add_byte_offset(buf_dyn_shmem.data, 65536)
        T9 = T.alloc_buffer((4,), "uint64", scope="shared.barrier")
        C_local = T.alloc_buffer((64,), scope="local")
        tx = T.launch_thread("threadIdx.x", 256)
        ty = T.launch_thread("threadIdx.y", 1)
        tz = T.launch_thread("threadIdx.z", 1)
        T9_1 = T.decl_buffer((4,), "uint64", data=T9.data, scope="shared.barrier")
        C_local_1 = T.decl_buffer((64,), data=C_local.data, scope="local")
        if tx == 0:
            for s in range(4):
                T.ptx_init_barrier_thread_count(T9_1[s], 1)
            T.ptx_fence_barrier_init()
        T.tvm_storage_sync("shared")
        if tx == 0:
            for s in range(3):
                T.mbarrier_expect_tx(T9_1[s], 32768)
                T.tma_load(A_desc, T9_1[s], T.tvm_access_ptr(T.type_annotation("float16"), A_shared, s * 8192, 8192, 2), s * 64, 0, 0)
                T.tma_load(B_desc, T9_1[s], T.tvm_access_ptr(T.type_annotation("float16"), B_shared, s * 8192, 8192, 2), 0, s * 64, 0)
                T.ptx_arrive_barrier(T9_1[s])
        for i in T.unroll(16):
            C_local_1[i * 4:i * 4 + 4] = T.Broadcast(T.float32(0.0), 4)
        for i20 in range(8):
            if tx == 0 and i20 + 3 < 8:
                T.mbarrier_expect_tx(T9_1[(i20 + 3) % 4], 32768)
                T.tma_load(A_desc, T9_1[(i20 + 3) % 4], T.tvm_access_ptr(T.type_annotation("float16"), A_shared, (i20 + 3) % 4 * 8192, 8192, 2), (i20 + 3) * 64, 0, 0)
                T.tma_load(B_desc, T9_1[(i20 + 3) % 4], T.tvm_access_ptr(T.type_annotation("float16"), B_shared, (i20 + 3) % 4 * 8192, 8192, 2), 0, (i20 + 3) * 64, 0)
                T.ptx_arrive_barrier(T9_1[(i20 + 3) % 4])
            T.mbarrier_wait_parity(T9_1[i20 % 4], i20 // 4 % 2)
            with T.attr(0, "lexical_alloc_scope", 1):
                desc_a = T.alloc_buffer((1,), "uint64", scope="local.descriptor.wgmma")
                desc_b = T.alloc_buffer((1,), "uint64", scope="local.descriptor.wgmma")
                desc_a_1 = T.decl_buffer((1,), "uint64", data=desc_a.data, scope="local.descriptor.wgmma")
                desc_b_1 = T.decl_buffer((1,), "uint64", data=desc_b.data, scope="local.descriptor.wgmma")
                T.initialize_wgmma_descriptor(desc_a_1[0], T.tvm_access_ptr(T.type_annotation("float16"), A_shared, 0, 32768, 1), 1, 1, 64)
                T.increase_descriptor_offset(desc_a_1[0], i20 % 4 * 16384)
                T.initialize_wgmma_descriptor(desc_b_1[0], T.tvm_access_ptr(T.type_annotation("float16"), B_shared, 0, 32768, 1), 1, 512, 64)
                T.increase_descriptor_offset(desc_b_1[0], i20 % 4 * 16384)
                T.warpgroup_fence_operand("float32", C_local.data, 0, 64)
                T.warpgroup_arrive()
                for i25 in T.unroll(4):
                    T.ptx_wgmma_ss("m64n128k16", T.bool(True), T.bool(False), "fp16", "fp16", "fp32", desc_a.data, T.shift_right(tx // 128 * 8192 + i25 * 32, 4), desc_b.data, T.shift_right(i25 * 2048, 4), C_local.data, 0, 1, 1, 1)
@@SYNC@@
        T.warpgroup_wait(0)
'''
BUGGY = '''            T.tvm_storage_sync("shared")
            T.warpgroup_commit_batch()
            T.warpgroup_wait(0)'''
FIXED = '''            T.warpgroup_commit_batch()
            T.warpgroup_wait(0)
            T.tvm_storage_sync("shared")'''
import os
d = os.path.dirname(os.path.abspath(__file__)) + "/"
open(d + "nvfuser3865_wgmma_war_wait_after_blocksync_sm90a.tir", "w").write(HDR + BODY.replace("@@SYNC@@", BUGGY))
open(d + "nvfuser3865_wgmma_war_wait_after_blocksync_sm90a_fixed.tir", "w").write(HDR + BODY.replace("@@SYNC@@", FIXED))
