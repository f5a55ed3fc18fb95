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

extern "C" __global__ void main_kernel(const float* __restrict__ X, float* __restrict__ Y);
extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(const float* __restrict__ X, float* __restrict__ Y) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* X_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* s_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* workspace = ((void*)((char*)buf_dyn_shmem + 0));
  float X_frag[32];
  float s_clear[8];
  float s[1];
  #pragma unroll
  for (int i = 0; i < 8; ++i) {
    *(float4*)(((float*)X_shared) + ((i * 512) + (((int)threadIdx.x) * 4))) = *(float4*)(X + (((((int)blockIdx.x) * 4096) + (i * 512)) + (((int)threadIdx.x) * 4)));
  }
  #pragma unroll
  for (int i_1 = 0; i_1 < 8; ++i_1) {
    *(float4*)(X_frag + (i_1 * 4)) = *(float4*)(((float*)X_shared) + ((i_1 * 512) + (((int)threadIdx.x) * 4)));
  }
  #pragma unroll
  for (int i_2 = 0; i_2 < 8; ++i_2) {
    s_clear[i_2] = 0x0p+0f/*0.000000e+00*/;
    #pragma unroll
    for (int rv = 0; rv < 4; ++rv) {
      s_clear[i_2] = (s_clear[i_2] + X_frag[((i_2 * 4) + rv)]);
    }
    __syncthreads();
    s_clear[i_2] = tl::AllReduce<tl::SumOp, 128, 1, 0, tl::NamedBarrier<128>>::run(s_clear[i_2], (&(((float*)workspace)[0])));
    if ((((int)threadIdx.x) & 7) == i_2) {
      s[0] = s_clear[i_2];
    }
  }
  __syncthreads();
  if ((((int)threadIdx.x) >> 3) == 0) {
    ((float*)s_shared)[(((int)threadIdx.x) & 7)] = s[0];
  }
  __syncthreads();
  if (tl::tl_shuffle_elect<128>()) {
    tl::fence_proxy_async();
    tl::tma_store((&(Y[(((int)blockIdx.x) * 8)])), (&(((float*)s_shared)[0])), 32);
    tl::tma_store_arrive();
    tl::tma_store_wait<0, true>();
  }
}

