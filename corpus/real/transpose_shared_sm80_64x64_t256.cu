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
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(const float* __restrict__ A, float* __restrict__ B) {
  extern __shared__ __align__(1024) float S[];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    *(float4*)(S + ((i * 1024) + (((int)threadIdx.x) * 4))) = *(float4*)(A + (((((((int)blockIdx.y) * 65536) + (i * 16384)) + ((((int)threadIdx.x) >> 4) * 1024)) + (((int)blockIdx.x) * 64)) + ((((int)threadIdx.x) & 15) * 4)));
  }
  __syncthreads();
  #pragma unroll
  for (int i_1 = 0; i_1 < 16; ++i_1) {
    B[(((((((int)blockIdx.x) * 65536) + (i_1 * 4096)) + ((((int)threadIdx.x) >> 6) * 1024)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.x) & 63))] = S[((((((int)threadIdx.x) & 63) * 64) + (i_1 * 4)) + (((int)threadIdx.x) >> 6))];
  }
}

