#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(const half_t* __restrict__ X, half_t* __restrict__ Y);
extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(const half_t* __restrict__ X, half_t* __restrict__ Y) {
  extern __shared__ __align__(1024) half_t S[];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    tl::cp_async_gs<16>((&(S[((i * 1024) + (((int)threadIdx.x) * 8))])), (&(X[((((((int)blockIdx.x) * 32768) + (i * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + ((((int)threadIdx.x) & 15) * 8))])));
  }
  tl::cp_async_commit();
  for (int k = 0; k < 7; ++k) {
    tl::cp_async_wait<0>();
    __syncthreads();
    #pragma unroll
    for (int i_1 = 0; i_1 < 4; ++i_1) {
      *(uint4*)(Y + (((((((int)blockIdx.x) * 32768) + (i_1 * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + (k * 128)) + ((((int)threadIdx.x) & 15) * 8))) = *(uint4*)(S + ((i_1 * 1024) + (((int)threadIdx.x) * 8)));
    }
    __syncthreads();
    #pragma unroll
    for (int i_2 = 0; i_2 < 4; ++i_2) {
      tl::cp_async_gs<16>((&(S[((i_2 * 1024) + (((int)threadIdx.x) * 8))])), (&(X[((((((((int)blockIdx.x) * 32768) + (i_2 * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + (k * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 128)])));
    }
    tl::cp_async_commit();
  }
  tl::cp_async_wait<0>();
  __syncthreads();
  #pragma unroll
  for (int i_3 = 0; i_3 < 4; ++i_3) {
    *(uint4*)(Y + (((((((int)blockIdx.x) * 32768) + (i_3 * 8192)) + ((((int)threadIdx.x) >> 4) * 1024)) + ((((int)threadIdx.x) & 15) * 8)) + 896)) = *(uint4*)(S + ((i_3 * 1024) + (((int)threadIdx.x) * 8)));
  }
}

