#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(const float* __restrict__ A, float* __restrict__ B);
extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(const float* __restrict__ A, float* __restrict__ B) {
  extern __shared__ __align__(1024) float S[];
  #pragma unroll
  for (int i = 0; i < 2; ++i) {
    *(float4*)(S + ((i * 512) + (((int)threadIdx.x) * 4))) = *(float4*)(A + (((((((int)blockIdx.y) * 32768) + (i * 16384)) + ((((int)threadIdx.x) >> 3) * 1024)) + (((int)blockIdx.x) * 32)) + ((((int)threadIdx.x) & 7) * 4)));
  }
  __syncthreads();
  #pragma unroll
  for (int i_1 = 0; i_1 < 8; ++i_1) {
    B[(((((((int)blockIdx.x) * 32768) + (i_1 * 4096)) + ((((int)threadIdx.x) >> 5) * 1024)) + (((int)blockIdx.y) * 32)) + (((int)threadIdx.x) & 31))] = S[((((((int)threadIdx.x) & 31) * 32) + (i_1 * 4)) + (((int)threadIdx.x) >> 5))];
  }
}

