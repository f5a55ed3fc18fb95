#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
#include <tl_templates/cuda/instruction/wgmma.h>
#include <tl_templates/cuda/intrin.h>
#include <tl_templates/cuda/barrier.h>
#include <tl_templates/cuda/copy_sm90.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(__grid_constant__ const CUtensorMap data_desc, __grid_constant__ const CUtensorMap kernel_flat_desc, half_t* __restrict__ out_flat);
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(__grid_constant__ const CUtensorMap data_desc, __grid_constant__ const CUtensorMap kernel_flat_desc, half_t* __restrict__ out_flat) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* data_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* out_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* kernel_shared = ((void*)((char*)buf_dyn_shmem + 8192));
  __shared__ __align__(16) uint64_t mbarrier_mem[4];
  auto mbarrier = reinterpret_cast<Barrier*>(mbarrier_mem);
  float out_local[32];
  if (tl::tl_shuffle_elect<0>()) {
    tl::prefetch_tma_descriptor(data_desc);
    tl::prefetch_tma_descriptor(kernel_flat_desc);
  }
  if (tl::tl_shuffle_elect<0>()) {
    mbarrier[0].init(1);
    mbarrier[1].init(1);
    mbarrier[2].init(128);
    mbarrier[3].init(128);
  }
  tl::fence_barrier_init();
  __syncthreads();
  if (((int)threadIdx.x) < 128) {
    tl::warpgroup_reg_dealloc<24>();
    for (int k_iter = 0; k_iter < 18; ++k_iter) {
      mbarrier[((k_iter & 1) + 2)].wait((((k_iter & 3) >> 1) ^ 1));
      if (tl::tl_shuffle_elect<128>()) {
        mbarrier[(k_iter & 1)].expect_transaction(4096);
        tl::tma_load_im2col(data_desc, mbarrier[(k_iter & 1)], (&(((half_t*)data_shared)[((k_iter & 1) * 2048)])), ((k_iter & 1) * 32), -1, ((((int)blockIdx.y) * 2) - 1), 0, ((k_iter % 6) >> 1), (k_iter / 6));
        mbarrier[(k_iter & 1)].arrive_and_expect_tx(4096);
        tl::tma_load(kernel_flat_desc, mbarrier[(k_iter & 1)], (&(((half_t*)kernel_shared)[((k_iter & 1) * 2048)])), 0, (k_iter * 32));
      }
    }
  } else {
    tl::warpgroup_reg_alloc<240>();
    #pragma unroll
    for (int i = 0; i < 8; ++i) {
      float broadcast_var = 0x0p+0f/*0.000000e+00*/;
      *(float4*)(out_local + (i * 4)) = make_float4(broadcast_var, broadcast_var, broadcast_var, broadcast_var);
    }
    for (int k_iter_1 = 0; k_iter_1 < 18; ++k_iter_1) {
      mbarrier[(k_iter_1 & 1)].wait(((k_iter_1 & 3) >> 1));
      {
        tl::GmmaDescriptor desc_a;
        tl::GmmaDescriptor desc_b;
        tl::initialize_wgmma_descriptor<2, 1, 32>(desc_a, (&(((half_t*)data_shared)[0])));
        tl::increase_descriptor_offset<int>(desc_a, ((k_iter_1 & 1) * 4096));
        tl::initialize_wgmma_descriptor<1, 0, 64>(desc_b, (&(((half_t*)kernel_shared)[0])));
        tl::increase_descriptor_offset<int>(desc_b, ((k_iter_1 & 1) * 4096));
        tl::warpgroup_fence_operand(reinterpret_cast<float*>(out_local + 0), 32);
        tl::warpgroup_arrive();
        #pragma unroll
        for (int ki = 0; ki < 2; ++ki) {
          tl::wgmma_ss<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 64, 16, false, true, 1, 1>(uint64_t(desc_a + ((ki * 32) >> 4)), uint64_t(desc_b + ((ki * 2048) >> 4)), ((uint32_t*)(out_local + 0)), 1);
        }
        tl::warpgroup_commit_batch();
        tl::warpgroup_wait<0>();
        tl::warpgroup_fence_operand(reinterpret_cast<float*>(out_local + 0), 32);
      }
      mbarrier[((k_iter_1 & 1) + 2)].arrive();
    }
    tl::__sync_thread_partial(3, 128);
    #pragma unroll
    for (int i_1 = 0; i_1 < 4; ++i_1) {
      tl::ptx_stmatrix_m8n8_x4((&(((half_t*)out_shared)[((((((((int)threadIdx.x) >> 5) * 1024) + ((((int)threadIdx.x) & 15) * 64)) + (i_1 * 16)) + (((((int)threadIdx.x) & 31) >> 4) * 8)) - 4096)])), __pack_half2(((half_t)out_local[(i_1 * 8)]), ((half_t)out_local[((i_1 * 8) + 1)])), __pack_half2(((half_t)out_local[((i_1 * 8) + 2)]), ((half_t)out_local[((i_1 * 8) + 3)])), __pack_half2(((half_t)out_local[((i_1 * 8) + 4)]), ((half_t)out_local[((i_1 * 8) + 5)])), __pack_half2(((half_t)out_local[((i_1 * 8) + 6)]), ((half_t)out_local[((i_1 * 8) + 7)])));
    }
    tl::__sync_thread_partial(3, 128);
    if (tl::tl_shuffle_elect<128>()) {
      tl::fence_proxy_async();
      tl::tma_store((&(out_flat[(((int)blockIdx.y) * 4096)])), (&(((half_t*)out_shared)[0])), 8192);
      tl::tma_store_arrive();
      tl::tma_store_wait<0, true>();
    }
  }
}

