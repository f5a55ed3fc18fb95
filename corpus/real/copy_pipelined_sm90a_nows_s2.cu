#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
#include <tl_templates/cuda/intrin.h>
#include <tl_templates/cuda/barrier.h>
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/copy_sm90.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(const half_t* __restrict__ X, __grid_constant__ const CUtensorMap Y_desc);
extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(const half_t* __restrict__ X, __grid_constant__ const CUtensorMap Y_desc) {
  extern __shared__ __align__(1024) half_t S[];
  if (tl::tl_shuffle_elect<0>()) {
    tl::prefetch_tma_descriptor(Y_desc);
  }
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    tl::cp_async_gs<16>((&(S[((((((((((int)threadIdx.x) & 15) >> 3) * 2048) + (i * 512)) + ((((int)threadIdx.x) >> 4) * 64)) + ((((((int)threadIdx.x) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(X[((((((int)blockIdx.x) * 32768) + (i * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + ((((int)threadIdx.x) & 15) * 8))])));
  }
  tl::cp_async_commit();
  for (int k = 0; k < 7; ++k) {
    __syncthreads();
    #pragma unroll
    for (int i_1 = 0; i_1 < 4; ++i_1) {
      tl::cp_async_gs<16>((&(S[(((((((((k + 1) & 1) * 4096) + (((((int)threadIdx.x) & 15) >> 3) * 2048)) + (i_1 * 512)) + ((((int)threadIdx.x) >> 4) * 64)) + ((((((int)threadIdx.x) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(X[((((((((int)blockIdx.x) * 32768) + (i_1 * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + (k * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 128)])));
    }
    tl::cp_async_commit();
    tl::cp_async_wait<1>();
    __syncthreads();
    if (tl::tl_shuffle_elect<128>()) {
      tl::fence_proxy_async();
      #pragma unroll
      for (int i_2 = 0; i_2 < 2; ++i_2) {
        tl::tma_store(Y_desc, (&(S[(((k & 1) * 4096) + (i_2 * 2048))])), ((k * 128) + (i_2 * 64)), (((int)blockIdx.x) * 32));
      }
      tl::tma_store_arrive();
      tl::tma_store_wait<0, true>();
    }
  }
  tl::cp_async_wait<0>();
  __syncthreads();
  if (tl::tl_shuffle_elect<128>()) {
    tl::fence_proxy_async();
    #pragma unroll
    for (int i_3 = 0; i_3 < 2; ++i_3) {
      tl::tma_store(Y_desc, (&(S[((i_3 * 2048) + 4096)])), ((i_3 * 64) + 896), (((int)blockIdx.x) * 32));
    }
    tl::tma_store_arrive();
    tl::tma_store_wait<0, true>();
  }
}

