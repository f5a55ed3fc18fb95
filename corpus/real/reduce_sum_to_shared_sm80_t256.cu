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

extern "C" __global__ void main_kernel(const float* __restrict__ X, float* __restrict__ Y);
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* X_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* s_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* workspace = ((void*)((char*)buf_dyn_shmem + 0));
  float X_frag[16];
  float s[4];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    *(float4*)(((float*)X_shared) + ((i * 1024) + (((int)threadIdx.x) * 4))) = *(float4*)(X + (((((int)blockIdx.x) * 4096) + (i * 1024)) + (((int)threadIdx.x) * 4)));
  }
  #pragma unroll
  for (int i_1 = 0; i_1 < 4; ++i_1) {
    *(float4*)(X_frag + (i_1 * 4)) = *(float4*)(((float*)X_shared) + ((i_1 * 1024) + (((int)threadIdx.x) * 4)));
  }
  #pragma unroll
  for (int i_2 = 0; i_2 < 4; ++i_2) {
    s[i_2] = 0x0p+0f/*0.000000e+00*/;
    #pragma unroll
    for (int rv = 0; rv < 4; ++rv) {
      s[i_2] = (s[i_2] + X_frag[((i_2 * 4) + rv)]);
    }
    __syncthreads();
    s[i_2] = tl::AllReduce<tl::SumOp, 128, 1, 0, tl::NamedBarrier<256>>::run(s[i_2], (&(((float*)workspace)[0])));
  }
  __syncthreads();
  if ((((int)threadIdx.x) % 128) == 0) {
    #pragma unroll
    for (int i_3 = 0; i_3 < 4; ++i_3) {
      ((float*)s_shared)[((i_3 * 2) + (((int)threadIdx.x) >> 7))] = s[i_3];
    }
  }
  __syncthreads();
  if (((int)threadIdx.x) < 8) {
    Y[((((int)blockIdx.x) * 8) + ((int)threadIdx.x))] = ((float*)s_shared)[((int)threadIdx.x)];
  }
}

