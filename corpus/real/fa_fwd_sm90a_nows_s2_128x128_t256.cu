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
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/copy_sm90.h>
#include <math_constants.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(const half_t* __restrict__ K, __grid_constant__ const CUtensorMap Output_desc, const half_t* __restrict__ Q, const half_t* __restrict__ V);
extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(const half_t* __restrict__ K, __grid_constant__ const CUtensorMap Output_desc, const half_t* __restrict__ Q, const half_t* __restrict__ V) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* O_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* Q_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* K_shared = ((void*)((char*)buf_dyn_shmem + 32768));
  void* V_shared = ((void*)((char*)buf_dyn_shmem + 98304));
  float acc_o[64];
  float logsum[2];
  float scores_max[2];
  float acc_s[64];
  float scores_max_prev[2];
  float scores_scale[2];
  float scores_sum[2];
  half_t acc_s_cast[64];
  float scores_max_clear[2];
  float scores_max_clear_1[2];
  float scores_max_clear_2[2];
  if (tl::tl_shuffle_elect<0>()) {
    tl::prefetch_tma_descriptor(Output_desc);
  }
  #pragma unroll
  for (int i = 0; i < 8; ++i) {
    *(uint4*)(((half_t*)Q_shared) + ((((((((((int)threadIdx.x) & 15) >> 3) * 8192) + (i * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))) = *(uint4*)(Q + (((((((int)blockIdx.x) * 32768) + (i * 4096)) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8)));
  }
  #pragma unroll
  for (int i_1 = 0; i_1 < 16; ++i_1) {
    float broadcast_var = 0x0p+0f/*0.000000e+00*/;
    *(float4*)(acc_o + (i_1 * 4)) = make_float4(broadcast_var, broadcast_var, broadcast_var, broadcast_var);
  }
  float broadcast_var_1 = 0x0p+0f/*0.000000e+00*/;
  *(float2*)(logsum + 0) = make_float2(broadcast_var_1, broadcast_var_1);
  float broadcast_var_2 = -CUDART_INF_F;
  *(float2*)(scores_max + 0) = make_float2(broadcast_var_2, broadcast_var_2);
  __syncthreads();
  #pragma unroll
  for (int i_2 = 0; i_2 < 8; ++i_2) {
    tl::cp_async_gs<16>((&(((half_t*)K_shared)[((((((((((int)threadIdx.x) & 15) >> 3) * 8192) + (i_2 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(K[((((i_2 * 4096) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8))])));
  }
  tl::cp_async_commit();
  #pragma unroll
  for (int i_3 = 0; i_3 < 8; ++i_3) {
    tl::cp_async_gs<16>((&(((half_t*)V_shared)[((((((((((int)threadIdx.x) & 15) >> 3) * 8192) + (i_3 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(V[((((i_3 * 4096) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8))])));
  }
  tl::cp_async_commit();
  #pragma unroll
  for (int i_4 = 0; i_4 < 8; ++i_4) {
    tl::cp_async_gs<16>((&(((half_t*)K_shared)[(((((((((((int)threadIdx.x) & 15) >> 3) * 8192) + (i_4 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8)) + 16384)])), (&(K[(((((i_4 * 4096) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 32768)])));
  }
  tl::cp_async_commit();
  #pragma unroll
  for (int i_5 = 0; i_5 < 8; ++i_5) {
    tl::cp_async_gs<16>((&(((half_t*)V_shared)[(((((((((((int)threadIdx.x) & 15) >> 3) * 8192) + (i_5 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8)) + 16384)])), (&(V[(((((i_5 * 4096) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 32768)])));
  }
  tl::cp_async_commit();
  for (int k = 0; k < 2; ++k) {
    #pragma unroll
    for (int i_6 = 0; i_6 < 16; ++i_6) {
      float broadcast_var_3 = 0x0p+0f/*0.000000e+00*/;
      *(float4*)(acc_s + (i_6 * 4)) = make_float4(broadcast_var_3, broadcast_var_3, broadcast_var_3, broadcast_var_3);
    }
    tl::cp_async_wait<3>();
    __syncthreads();
    {
      tl::GmmaDescriptor desc_a;
      tl::GmmaDescriptor desc_b;
      tl::initialize_wgmma_descriptor<1, 1, 64>(desc_a, (&(((half_t*)Q_shared)[0])));
      tl::initialize_wgmma_descriptor<1, 1, 64>(desc_b, (&(((half_t*)K_shared)[0])));
      tl::increase_descriptor_offset<int>(desc_b, (k * 32768));
      tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
      tl::warpgroup_arrive();
      tl::fence_proxy_async();
      #pragma unroll
      for (int ki = 0; ki < 8; ++ki) {
        tl::wgmma_ss<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, false, 1, 1>(uint64_t(desc_a + (((((ki >> 2) * 16384) + ((((int)threadIdx.x) >> 7) * 8192)) + ((ki & 3) * 32)) >> 4)), uint64_t(desc_b + ((((ki >> 2) * 16384) + ((ki & 3) * 32)) >> 4)), ((uint32_t*)(acc_s + 0)), 1);
      }
      tl::warpgroup_commit_batch();
      tl::warpgroup_wait<0>();
      tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
    }
    __syncthreads();
    #pragma unroll
    for (int i_7 = 0; i_7 < 8; ++i_7) {
      tl::cp_async_gs<16>((&(((half_t*)K_shared)[(((((((k * 16384) + (((((int)threadIdx.x) & 15) >> 3) * 8192)) + (i_7 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(K[((((((k * 32768) + (i_7 * 4096)) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 65536)])));
    }
    tl::cp_async_commit();
    *(float2*)(scores_max_prev + 0) = *(float2*)(scores_max + 0);
    float broadcast_var_4 = -CUDART_INF_F;
    *(float2*)(scores_max + 0) = make_float2(broadcast_var_4, broadcast_var_4);
    #pragma unroll
    for (int i_8 = 0; i_8 < 2; ++i_8) {
      scores_max_clear[i_8] = -CUDART_INF_F;
      #pragma unroll
      for (int rv = 0; rv < 32; ++rv) {
        scores_max_clear[i_8] = max(scores_max_clear[i_8], acc_s[((((rv & 15) * 4) + (i_8 * 2)) + (rv >> 4))]);
      }
      scores_max_clear[i_8] = tl::AllReduce<tl::MaxOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_max_clear[i_8]);
      scores_max[i_8] = max(scores_max[i_8], scores_max_clear[i_8]);
    }
    float2 __1;
      float2 v_ = *(float2*)(scores_max + 0);
      float2 v__1 = *(float2*)(scores_max_prev + 0);
      __1.x = max(v_.x, v__1.x);
      __1.y = max(v_.y, v__1.y);
    *(float2*)(scores_max + 0) = __1;
    float broadcast_var_5 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
    float broadcast_var_6 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
    float2 __2;
    float2 __3;
      float2 __4;
        float2 v__2 = *(float2*)(scores_max_prev + 0);
        float2 v__3 = make_float2(broadcast_var_5, broadcast_var_5);
        __4.x = (v__2.x*v__3.x);
        __4.y = (v__2.y*v__3.y);
      float2 __5;
        float2 v__4 = *(float2*)(scores_max + 0);
        float2 v__5 = make_float2(broadcast_var_6, broadcast_var_6);
        __5.x = (v__4.x*v__5.x);
        __5.y = (v__4.y*v__5.y);
      __3.x = (__4.x-__5.x);
      __3.y = (__4.y-__5.y);
    __2.x = exp2f(__3.x);
    __2.y = exp2f(__3.y);
    *(float2*)(scores_scale + 0) = __2;
    #pragma unroll
    for (int i_9 = 0; i_9 < 32; ++i_9) {
      float broadcast_var_7 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
      float2 __6;
      float2 __7;
        float2 __8;
          float2 v__6 = *(float2*)(acc_s + (i_9 * 2));
          float2 v__7 = make_float2(broadcast_var_7, broadcast_var_7);
          __8.x = (v__6.x*v__7.x);
          __8.y = (v__6.y*v__7.y);
        float2 v__8 = make_float2((scores_max[(i_9 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/), (scores_max[(i_9 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/));
        __7.x = (__8.x-v__8.x);
        __7.y = (__8.y-v__8.y);
      __6.x = exp2f(__7.x);
      __6.y = exp2f(__7.y);
      *(float2*)(acc_s + (i_9 * 2)) = __6;
    }
    #pragma unroll
    for (int i_10 = 0; i_10 < 2; ++i_10) {
      scores_sum[i_10] = 0x0p+0f/*0.000000e+00*/;
      #pragma unroll
      for (int rv_1 = 0; rv_1 < 32; ++rv_1) {
        scores_sum[i_10] = (scores_sum[i_10] + acc_s[((((rv_1 & 15) * 4) + (i_10 * 2)) + (rv_1 >> 4))]);
      }
      scores_sum[i_10] = tl::AllReduce<tl::SumOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_sum[i_10]);
    }
    float2 __9;
      float2 __10;
        float2 v__9 = *(float2*)(logsum + 0);
        float2 v__10 = *(float2*)(scores_scale + 0);
        __10.x = (v__9.x*v__10.x);
        __10.y = (v__9.y*v__10.y);
      float2 v__11 = *(float2*)(scores_sum + 0);
      __9.x = (__10.x+v__11.x);
      __9.y = (__10.y+v__11.y);
    *(float2*)(logsum + 0) = __9;
    #pragma unroll
    for (int i_11 = 0; i_11 < 16; ++i_11) {
      uint2 __11;
      float4 v__12 = *(float4*)(acc_s + (i_11 * 4));
      ((half2*)(&__11))[0] = __float22half2_rn(((float2*)(&v__12))[0]);
      ((half2*)(&__11))[1] = __float22half2_rn(((float2*)(&v__12))[1]);
      *(uint2*)(acc_s_cast + (i_11 * 4)) = __11;
    }
    #pragma unroll
    for (int i_12 = 0; i_12 < 32; ++i_12) {
      float2 __12;
        float2 v__13 = *(float2*)(acc_o + (i_12 * 2));
        float2 v__14 = make_float2(scores_scale[(i_12 & 1)], scores_scale[(i_12 & 1)]);
        __12.x = (v__13.x*v__14.x);
        __12.y = (v__13.y*v__14.y);
      *(float2*)(acc_o + (i_12 * 2)) = __12;
    }
    tl::cp_async_wait<3>();
    __syncthreads();
    {
      tl::GmmaDescriptor desc_b_1;
      tl::initialize_wgmma_descriptor<1, 1024, 64>(desc_b_1, (&(((half_t*)V_shared)[0])));
      tl::increase_descriptor_offset<int>(desc_b_1, (k * 32768));
      tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
      tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
      tl::warpgroup_arrive();
      tl::fence_proxy_async();
      #pragma unroll
      for (int ki_1 = 0; ki_1 < 8; ++ki_1) {
        tl::wgmma_rs<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, true, 1, 1>(reinterpret_cast<const uint32_t*>(acc_s_cast + (ki_1 * 8)), uint64_t(desc_b_1 + ((ki_1 * 2048) >> 4)), reinterpret_cast<uint32_t*>(acc_o + 0), 1);
      }
      tl::warpgroup_commit_batch();
      tl::warpgroup_wait<0>();
      tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
      tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
    }
    __syncthreads();
    #pragma unroll
    for (int i_13 = 0; i_13 < 8; ++i_13) {
      tl::cp_async_gs<16>((&(((half_t*)V_shared)[(((((((k * 16384) + (((((int)threadIdx.x) & 15) >> 3) * 8192)) + (i_13 * 1024)) + ((((int)threadIdx.x) >> 4) * 64)) + (((((((int)threadIdx.x) & 127) >> 6) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(V[((((((k * 32768) + (i_13 * 4096)) + ((((int)threadIdx.x) >> 4) * 256)) + (((int)blockIdx.y) * 128)) + ((((int)threadIdx.x) & 15) * 8)) + 65536)])));
    }
    tl::cp_async_commit();
  }
  #pragma unroll
  for (int i_14 = 0; i_14 < 16; ++i_14) {
    float broadcast_var_8 = 0x0p+0f/*0.000000e+00*/;
    *(float4*)(acc_s + (i_14 * 4)) = make_float4(broadcast_var_8, broadcast_var_8, broadcast_var_8, broadcast_var_8);
  }
  tl::cp_async_wait<3>();
  __syncthreads();
  {
    tl::GmmaDescriptor desc_a_1;
    tl::GmmaDescriptor desc_b_2;
    tl::initialize_wgmma_descriptor<1, 1, 64>(desc_a_1, (&(((half_t*)Q_shared)[0])));
    tl::initialize_wgmma_descriptor<1, 1, 64>(desc_b_2, (&(((half_t*)K_shared)[0])));
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
    tl::warpgroup_arrive();
    tl::fence_proxy_async();
    #pragma unroll
    for (int ki_2 = 0; ki_2 < 8; ++ki_2) {
      tl::wgmma_ss<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, false, 1, 1>(uint64_t(desc_a_1 + (((((ki_2 >> 2) * 16384) + ((((int)threadIdx.x) >> 7) * 8192)) + ((ki_2 & 3) * 32)) >> 4)), uint64_t(desc_b_2 + ((((ki_2 >> 2) * 16384) + ((ki_2 & 3) * 32)) >> 4)), ((uint32_t*)(acc_s + 0)), 1);
    }
    tl::warpgroup_commit_batch();
    tl::warpgroup_wait<0>();
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
  }
  *(float2*)(scores_max_prev + 0) = *(float2*)(scores_max + 0);
  float broadcast_var_9 = -CUDART_INF_F;
  *(float2*)(scores_max + 0) = make_float2(broadcast_var_9, broadcast_var_9);
  #pragma unroll
  for (int i_15 = 0; i_15 < 2; ++i_15) {
    scores_max_clear_1[i_15] = -CUDART_INF_F;
    #pragma unroll
    for (int rv_2 = 0; rv_2 < 32; ++rv_2) {
      scores_max_clear_1[i_15] = max(scores_max_clear_1[i_15], acc_s[((((rv_2 & 15) * 4) + (i_15 * 2)) + (rv_2 >> 4))]);
    }
    scores_max_clear_1[i_15] = tl::AllReduce<tl::MaxOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_max_clear_1[i_15]);
    scores_max[i_15] = max(scores_max[i_15], scores_max_clear_1[i_15]);
  }
  float2 __13;
    float2 v__15 = *(float2*)(scores_max + 0);
    float2 v__16 = *(float2*)(scores_max_prev + 0);
    __13.x = max(v__15.x, v__16.x);
    __13.y = max(v__15.y, v__16.y);
  *(float2*)(scores_max + 0) = __13;
  float broadcast_var_10 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
  float broadcast_var_11 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
  float2 __14;
  float2 __15;
    float2 __16;
      float2 v__17 = *(float2*)(scores_max_prev + 0);
      float2 v__18 = make_float2(broadcast_var_10, broadcast_var_10);
      __16.x = (v__17.x*v__18.x);
      __16.y = (v__17.y*v__18.y);
    float2 __17;
      float2 v__19 = *(float2*)(scores_max + 0);
      float2 v__20 = make_float2(broadcast_var_11, broadcast_var_11);
      __17.x = (v__19.x*v__20.x);
      __17.y = (v__19.y*v__20.y);
    __15.x = (__16.x-__17.x);
    __15.y = (__16.y-__17.y);
  __14.x = exp2f(__15.x);
  __14.y = exp2f(__15.y);
  *(float2*)(scores_scale + 0) = __14;
  #pragma unroll
  for (int i_16 = 0; i_16 < 32; ++i_16) {
    float broadcast_var_12 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
    float2 __18;
    float2 __19;
      float2 __20;
        float2 v__21 = *(float2*)(acc_s + (i_16 * 2));
        float2 v__22 = make_float2(broadcast_var_12, broadcast_var_12);
        __20.x = (v__21.x*v__22.x);
        __20.y = (v__21.y*v__22.y);
      float2 v__23 = make_float2((scores_max[(i_16 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/), (scores_max[(i_16 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/));
      __19.x = (__20.x-v__23.x);
      __19.y = (__20.y-v__23.y);
    __18.x = exp2f(__19.x);
    __18.y = exp2f(__19.y);
    *(float2*)(acc_s + (i_16 * 2)) = __18;
  }
  #pragma unroll
  for (int i_17 = 0; i_17 < 2; ++i_17) {
    scores_sum[i_17] = 0x0p+0f/*0.000000e+00*/;
    #pragma unroll
    for (int rv_3 = 0; rv_3 < 32; ++rv_3) {
      scores_sum[i_17] = (scores_sum[i_17] + acc_s[((((rv_3 & 15) * 4) + (i_17 * 2)) + (rv_3 >> 4))]);
    }
    scores_sum[i_17] = tl::AllReduce<tl::SumOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_sum[i_17]);
  }
  float2 __21;
    float2 __22;
      float2 v__24 = *(float2*)(logsum + 0);
      float2 v__25 = *(float2*)(scores_scale + 0);
      __22.x = (v__24.x*v__25.x);
      __22.y = (v__24.y*v__25.y);
    float2 v__26 = *(float2*)(scores_sum + 0);
    __21.x = (__22.x+v__26.x);
    __21.y = (__22.y+v__26.y);
  *(float2*)(logsum + 0) = __21;
  #pragma unroll
  for (int i_18 = 0; i_18 < 16; ++i_18) {
    uint2 __23;
    float4 v__27 = *(float4*)(acc_s + (i_18 * 4));
    ((half2*)(&__23))[0] = __float22half2_rn(((float2*)(&v__27))[0]);
    ((half2*)(&__23))[1] = __float22half2_rn(((float2*)(&v__27))[1]);
    *(uint2*)(acc_s_cast + (i_18 * 4)) = __23;
  }
  #pragma unroll
  for (int i_19 = 0; i_19 < 32; ++i_19) {
    float2 __24;
      float2 v__28 = *(float2*)(acc_o + (i_19 * 2));
      float2 v__29 = make_float2(scores_scale[(i_19 & 1)], scores_scale[(i_19 & 1)]);
      __24.x = (v__28.x*v__29.x);
      __24.y = (v__28.y*v__29.y);
    *(float2*)(acc_o + (i_19 * 2)) = __24;
  }
  tl::cp_async_wait<2>();
  __syncthreads();
  {
    tl::GmmaDescriptor desc_b_3;
    tl::initialize_wgmma_descriptor<1, 1024, 64>(desc_b_3, (&(((half_t*)V_shared)[0])));
    tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
    tl::warpgroup_arrive();
    #pragma unroll
    for (int ki_3 = 0; ki_3 < 8; ++ki_3) {
      tl::wgmma_rs<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, true, 1, 1>(reinterpret_cast<const uint32_t*>(acc_s_cast + (ki_3 * 8)), uint64_t(desc_b_3 + ((ki_3 * 2048) >> 4)), reinterpret_cast<uint32_t*>(acc_o + 0), 1);
    }
    tl::warpgroup_commit_batch();
    tl::warpgroup_wait<0>();
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
    tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
  }
  #pragma unroll
  for (int i_20 = 0; i_20 < 16; ++i_20) {
    float broadcast_var_13 = 0x0p+0f/*0.000000e+00*/;
    *(float4*)(acc_s + (i_20 * 4)) = make_float4(broadcast_var_13, broadcast_var_13, broadcast_var_13, broadcast_var_13);
  }
  tl::cp_async_wait<1>();
  __syncthreads();
  {
    tl::GmmaDescriptor desc_a_2;
    tl::GmmaDescriptor desc_b_4;
    tl::initialize_wgmma_descriptor<1, 1, 64>(desc_a_2, (&(((half_t*)Q_shared)[0])));
    tl::initialize_wgmma_descriptor<1, 1, 64>(desc_b_4, ((void*)((char*)(&(((half_t*)K_shared)[0])) + 32768)));
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
    tl::warpgroup_arrive();
    #pragma unroll
    for (int ki_4 = 0; ki_4 < 8; ++ki_4) {
      tl::wgmma_ss<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, false, 1, 1>(uint64_t(desc_a_2 + (((((ki_4 >> 2) * 16384) + ((((int)threadIdx.x) >> 7) * 8192)) + ((ki_4 & 3) * 32)) >> 4)), uint64_t(desc_b_4 + ((((ki_4 >> 2) * 16384) + ((ki_4 & 3) * 32)) >> 4)), ((uint32_t*)(acc_s + 0)), 1);
    }
    tl::warpgroup_commit_batch();
    tl::warpgroup_wait<0>();
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_s + 0), 128);
  }
  *(float2*)(scores_max_prev + 0) = *(float2*)(scores_max + 0);
  float broadcast_var_14 = -CUDART_INF_F;
  *(float2*)(scores_max + 0) = make_float2(broadcast_var_14, broadcast_var_14);
  #pragma unroll
  for (int i_21 = 0; i_21 < 2; ++i_21) {
    scores_max_clear_2[i_21] = -CUDART_INF_F;
    #pragma unroll
    for (int rv_4 = 0; rv_4 < 32; ++rv_4) {
      scores_max_clear_2[i_21] = max(scores_max_clear_2[i_21], acc_s[((((rv_4 & 15) * 4) + (i_21 * 2)) + (rv_4 >> 4))]);
    }
    scores_max_clear_2[i_21] = tl::AllReduce<tl::MaxOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_max_clear_2[i_21]);
    scores_max[i_21] = max(scores_max[i_21], scores_max_clear_2[i_21]);
  }
  float2 __25;
    float2 v__30 = *(float2*)(scores_max + 0);
    float2 v__31 = *(float2*)(scores_max_prev + 0);
    __25.x = max(v__30.x, v__31.x);
    __25.y = max(v__30.y, v__31.y);
  *(float2*)(scores_max + 0) = __25;
  float broadcast_var_15 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
  float broadcast_var_16 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
  float2 __26;
  float2 __27;
    float2 __28;
      float2 v__32 = *(float2*)(scores_max_prev + 0);
      float2 v__33 = make_float2(broadcast_var_15, broadcast_var_15);
      __28.x = (v__32.x*v__33.x);
      __28.y = (v__32.y*v__33.y);
    float2 __29;
      float2 v__34 = *(float2*)(scores_max + 0);
      float2 v__35 = make_float2(broadcast_var_16, broadcast_var_16);
      __29.x = (v__34.x*v__35.x);
      __29.y = (v__34.y*v__35.y);
    __27.x = (__28.x-__29.x);
    __27.y = (__28.y-__29.y);
  __26.x = exp2f(__27.x);
  __26.y = exp2f(__27.y);
  *(float2*)(scores_scale + 0) = __26;
  #pragma unroll
  for (int i_22 = 0; i_22 < 32; ++i_22) {
    float broadcast_var_17 = 0x1.0527dbd5cafffp-3f/*1.275174e-01*/;
    float2 __30;
    float2 __31;
      float2 __32;
        float2 v__36 = *(float2*)(acc_s + (i_22 * 2));
        float2 v__37 = make_float2(broadcast_var_17, broadcast_var_17);
        __32.x = (v__36.x*v__37.x);
        __32.y = (v__36.y*v__37.y);
      float2 v__38 = make_float2((scores_max[(i_22 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/), (scores_max[(i_22 & 1)] * 0x1.0527dbd5cafffp-3f/*1.275174e-01*/));
      __31.x = (__32.x-v__38.x);
      __31.y = (__32.y-v__38.y);
    __30.x = exp2f(__31.x);
    __30.y = exp2f(__31.y);
    *(float2*)(acc_s + (i_22 * 2)) = __30;
  }
  #pragma unroll
  for (int i_23 = 0; i_23 < 2; ++i_23) {
    scores_sum[i_23] = 0x0p+0f/*0.000000e+00*/;
    #pragma unroll
    for (int rv_5 = 0; rv_5 < 32; ++rv_5) {
      scores_sum[i_23] = (scores_sum[i_23] + acc_s[((((rv_5 & 15) * 4) + (i_23 * 2)) + (rv_5 >> 4))]);
    }
    scores_sum[i_23] = tl::AllReduce<tl::SumOp, 4, 1, 0, tl::NamedBarrier<256>>::run(scores_sum[i_23]);
  }
  float2 __33;
    float2 __34;
      float2 v__39 = *(float2*)(logsum + 0);
      float2 v__40 = *(float2*)(scores_scale + 0);
      __34.x = (v__39.x*v__40.x);
      __34.y = (v__39.y*v__40.y);
    float2 v__41 = *(float2*)(scores_sum + 0);
    __33.x = (__34.x+v__41.x);
    __33.y = (__34.y+v__41.y);
  *(float2*)(logsum + 0) = __33;
  #pragma unroll
  for (int i_24 = 0; i_24 < 16; ++i_24) {
    uint2 __35;
    float4 v__42 = *(float4*)(acc_s + (i_24 * 4));
    ((half2*)(&__35))[0] = __float22half2_rn(((float2*)(&v__42))[0]);
    ((half2*)(&__35))[1] = __float22half2_rn(((float2*)(&v__42))[1]);
    *(uint2*)(acc_s_cast + (i_24 * 4)) = __35;
  }
  #pragma unroll
  for (int i_25 = 0; i_25 < 32; ++i_25) {
    float2 __36;
      float2 v__43 = *(float2*)(acc_o + (i_25 * 2));
      float2 v__44 = make_float2(scores_scale[(i_25 & 1)], scores_scale[(i_25 & 1)]);
      __36.x = (v__43.x*v__44.x);
      __36.y = (v__43.y*v__44.y);
    *(float2*)(acc_o + (i_25 * 2)) = __36;
  }
  tl::cp_async_wait<0>();
  __syncthreads();
  {
    tl::GmmaDescriptor desc_b_5;
    tl::initialize_wgmma_descriptor<1, 1024, 64>(desc_b_5, ((void*)((char*)(&(((half_t*)V_shared)[0])) + 32768)));
    tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
    tl::warpgroup_arrive();
    #pragma unroll
    for (int ki_5 = 0; ki_5 < 8; ++ki_5) {
      tl::wgmma_rs<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 64, 128, 16, false, true, 1, 1>(reinterpret_cast<const uint32_t*>(acc_s_cast + (ki_5 * 8)), uint64_t(desc_b_5 + ((ki_5 * 2048) >> 4)), reinterpret_cast<uint32_t*>(acc_o + 0), 1);
    }
    tl::warpgroup_commit_batch();
    tl::warpgroup_wait<0>();
    tl::warpgroup_fence_operand(reinterpret_cast<float*>(acc_o + 0), 128);
    tl::warpgroup_fence_operand(reinterpret_cast<uint32_t*>(acc_s_cast + 0), 32);
  }
  #pragma unroll
  for (int i_26 = 0; i_26 < 32; ++i_26) {
    float2 __37;
      float2 v__45 = *(float2*)(acc_o + (i_26 * 2));
      float2 v__46 = make_float2(logsum[(i_26 & 1)], logsum[(i_26 & 1)]);
      __37.x = (v__45.x/v__46.x);
      __37.y = (v__45.y/v__46.y);
    *(float2*)(acc_o + (i_26 * 2)) = __37;
  }
  __syncthreads();
  #pragma unroll
  for (int i_27 = 0; i_27 < 8; ++i_27) {
    tl::ptx_stmatrix_m8n8_x4((&(((half_t*)O_shared)[(((((((i_27 >> 2) * 8192) + ((((int)threadIdx.x) >> 5) * 1024)) + ((((int)threadIdx.x) & 15) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + ((i_27 & 3) >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (i_27 & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), __pack_half2(((half_t)acc_o[(i_27 * 8)]), ((half_t)acc_o[((i_27 * 8) + 1)])), __pack_half2(((half_t)acc_o[((i_27 * 8) + 2)]), ((half_t)acc_o[((i_27 * 8) + 3)])), __pack_half2(((half_t)acc_o[((i_27 * 8) + 4)]), ((half_t)acc_o[((i_27 * 8) + 5)])), __pack_half2(((half_t)acc_o[((i_27 * 8) + 6)]), ((half_t)acc_o[((i_27 * 8) + 7)])));
  }
  __syncthreads();
  if (tl::tl_shuffle_elect<256>()) {
    tl::fence_proxy_async();
    #pragma unroll
    for (int i_28 = 0; i_28 < 2; ++i_28) {
      tl::tma_store(Output_desc, (&(((half_t*)O_shared)[(i_28 * 8192)])), (i_28 * 64), (((int)blockIdx.x) * 128), ((int)blockIdx.y), 0);
    }
    tl::tma_store_arrive();
    tl::tma_store_wait<0, true>();
  }
}

