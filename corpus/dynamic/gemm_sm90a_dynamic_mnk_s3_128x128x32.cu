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

extern "C" __global__ void main_kernel(__grid_constant__ const CUtensorMap A_desc, __grid_constant__ const CUtensorMap B_desc, half_t* __restrict__ C, int k, int m, int n);
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(__grid_constant__ const CUtensorMap A_desc, __grid_constant__ const CUtensorMap B_desc, half_t* __restrict__ C, int k, int m, int n) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* A_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* B_shared = ((void*)((char*)buf_dyn_shmem + 24576));
  __shared__ __align__(16) uint64_t mbarrier_mem[6];
  auto mbarrier = reinterpret_cast<Barrier*>(mbarrier_mem);
  float C_local[128];
  if (tl::tl_shuffle_elect<0>()) {
    tl::prefetch_tma_descriptor(A_desc);
    tl::prefetch_tma_descriptor(B_desc);
  }
  if (tl::tl_shuffle_elect<0>()) {
    mbarrier[0].init(1);
    mbarrier[1].init(1);
    mbarrier[2].init(1);
    mbarrier[3].init(128);
    mbarrier[4].init(128);
    mbarrier[5].init(128);
  }
  tl::fence_barrier_init();
  __syncthreads();
  if (((int)threadIdx.x) < 128) {
    tl::warpgroup_reg_dealloc<24>();
    for (int k_1 = 0; k_1 < ((k + 31) >> 5); ++k_1) {
      mbarrier[((k_1 % 3) + 3)].wait((((k_1 % 6) / 3) ^ 1));
      if (tl::tl_shuffle_elect<128>()) {
        mbarrier[(k_1 % 3)].expect_transaction(8192);
        tl::tma_load(A_desc, mbarrier[(k_1 % 3)], (&(((half_t*)A_shared)[((k_1 % 3) * 4096)])), (k_1 * 32), (((int)blockIdx.y) * 128));
        mbarrier[(k_1 % 3)].arrive_and_expect_tx(8192);
        #pragma unroll
        for (int i = 0; i < 2; ++i) {
          tl::tma_load(B_desc, mbarrier[(k_1 % 3)], (&(((half_t*)B_shared)[(((k_1 % 3) * 4096) + (i * 2048))])), ((((int)blockIdx.x) * 128) + (i * 64)), (k_1 * 32));
        }
      }
    }
  } else {
    tl::warpgroup_reg_alloc<240>();
    #pragma unroll
    for (int i_1 = 0; i_1 < 32; ++i_1) {
      float broadcast_var = 0x0p+0f/*0.000000e+00*/;
      *(float4*)(C_local + (i_1 * 4)) = make_float4(broadcast_var, broadcast_var, broadcast_var, broadcast_var);
    }
    for (int k_2 = 0; k_2 < ((k + 31) >> 5); ++k_2) {
      mbarrier[(k_2 % 3)].wait(((k_2 % 6) / 3));
      {
        tl::GmmaDescriptor desc_a;
        tl::GmmaDescriptor desc_b;
        tl::initialize_wgmma_descriptor<2, 1, 32>(desc_a, (&(((half_t*)A_shared)[0])));
        tl::increase_descriptor_offset<int>(desc_a, ((k_2 % 3) * 8192));
        tl::initialize_wgmma_descriptor<1, 256, 64>(desc_b, (&(((half_t*)B_shared)[0])));
        tl::increase_descriptor_offset<int>(desc_b, ((k_2 % 3) * 8192));
        tl::warpgroup_fence_operand(reinterpret_cast<float*>(C_local + 0), 128);
        tl::warpgroup_arrive();
        #pragma unroll
        for (int i_2 = 0; i_2 < 2; ++i_2) {
          #pragma unroll
          for (int ki = 0; ki < 2; ++ki) {
            tl::wgmma_ss<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, true, 1, 1>(uint64_t(desc_a + (((i_2 * 4096) + (ki * 32)) >> 4)), uint64_t(desc_b + ((ki * 2048) >> 4)), ((uint32_t*)(C_local + (i_2 * 64))), 1);
          }
        }
        tl::warpgroup_commit_batch();
        tl::warpgroup_wait<0>();
        tl::warpgroup_fence_operand(reinterpret_cast<float*>(C_local + 0), 128);
      }
      mbarrier[((k_2 % 3) + 3)].arrive();
    }
    #pragma unroll
    for (int i_3 = 0; i_3 < 128; ++i_3) {
      if (((((((((int)blockIdx.y) * 128) + ((i_3 >> 6) * 64)) + ((((int)threadIdx.x) >> 5) * 16)) + (((i_3 & 3) >> 1) * 8)) + ((((int)threadIdx.x) & 31) >> 2)) < (m + 64)) && (((((((int)blockIdx.x) * 128) + (((i_3 & 63) >> 2) * 8)) + ((((int)threadIdx.x) & 3) * 2)) + (i_3 & 1)) < n)) {
        C[(((((((int64_t)((int)blockIdx.x)) * (int64_t)128) + (((((int64_t)i_3) & (int64_t)63) >> (int64_t)2) * (int64_t)8)) + ((((int64_t)((int)threadIdx.x)) & (int64_t)3) * (int64_t)2)) + (((((((((int64_t)((int)blockIdx.y)) * (int64_t)128) + ((((int64_t)i_3) >> (int64_t)6) * (int64_t)64)) + ((((int64_t)((int)threadIdx.x)) >> (int64_t)5) * (int64_t)16)) + (((((int64_t)i_3) & (int64_t)3) >> (int64_t)1) * (int64_t)8)) + ((((int64_t)((int)threadIdx.x)) & (int64_t)31) >> (int64_t)2)) - (int64_t)64) * ((int64_t)n))) + (((int64_t)i_3) & (int64_t)1))] = ((half_t)C_local[i_3]);
      }
    }
  }
}

