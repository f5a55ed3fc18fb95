#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
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

extern "C" __global__ void main_kernel(__grid_constant__ const CUtensorMap X_desc, __grid_constant__ const CUtensorMap Y_desc);
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(__grid_constant__ const CUtensorMap X_desc, __grid_constant__ const CUtensorMap Y_desc) {
  __shared__ __align__(16) uint64_t mbarrier_mem[6];
  auto mbarrier = reinterpret_cast<Barrier*>(mbarrier_mem);
  extern __shared__ __align__(1024) half_t S[];
  if (tl::tl_shuffle_elect<0>()) {
    tl::prefetch_tma_descriptor(X_desc);
    tl::prefetch_tma_descriptor(Y_desc);
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
    for (int k = 0; k < 8; ++k) {
      mbarrier[((k % 3) + 3)].wait((((k % 6) / 3) ^ 1));
      if (tl::tl_shuffle_elect<128>()) {
        mbarrier[(k % 3)].arrive_and_expect_tx(8192);
        #pragma unroll
        for (int i = 0; i < 2; ++i) {
          tl::tma_load(X_desc, mbarrier[(k % 3)], (&(S[(((k % 3) * 4096) + (i * 2048))])), ((k * 128) + (i * 64)), (((int)blockIdx.x) * 32));
        }
      }
    }
  } else {
    tl::warpgroup_reg_alloc<240>();
    for (int k_1 = 0; k_1 < 8; ++k_1) {
      mbarrier[(k_1 % 3)].wait(((k_1 % 6) / 3));
      if (tl::tl_shuffle_elect<128>()) {
        #pragma unroll
        for (int i_1 = 0; i_1 < 2; ++i_1) {
          tl::tma_store(Y_desc, (&(S[(((k_1 % 3) * 4096) + (i_1 * 2048))])), ((k_1 * 128) + (i_1 * 64)), (((int)blockIdx.x) * 32));
        }
        tl::tma_store_arrive();
        tl::tma_store_wait<0, true>();
      }
      mbarrier[((k_1 % 3) + 3)].arrive();
    }
  }
}

