#if defined(_MSC_VER) && !defined(__clang__) && _MSC_VER < 1940
#define _tl_orig_alignas alignas
#define alignas(N) _tl_orig_alignas((N) <= 64 ? (N) : 64)
#include <cuda.h>
#undef alignas
#define alignas _tl_orig_alignas
#endif
#include <tl_templates/cuda/instruction/mma.h>
#include <tl_templates/cuda/copy.h>
#include <math_constants.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/scan.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>
#ifdef ENABLE_BF16
#include <tl_templates/cuda/cuda_bf16_fallbacks.cuh>
#endif

extern "C" __global__ void main_kernel(const half_t* __restrict__ K, half_t* __restrict__ Output, const half_t* __restrict__ Q, const half_t* __restrict__ V);
extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(const half_t* __restrict__ K, half_t* __restrict__ Output, const half_t* __restrict__ Q, const half_t* __restrict__ V) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  void* O_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* Q_shared = ((void*)((char*)buf_dyn_shmem + 0));
  void* K_shared = ((void*)((char*)buf_dyn_shmem + 8192));
  void* V_shared = ((void*)((char*)buf_dyn_shmem + 16384));
  float acc_o[32];
  float logsum[2];
  float scores_max[2];
  float acc_s[32];
  float scores_max_prev[2];
  float scores_scale[2];
  float scores_sum[2];
  half_t acc_s_cast[32];
  float scores_max_clear[2];
  float scores_max_clear_1[2];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    *(uint4*)(((half_t*)Q_shared) + (((((i * 1024) + ((((int)threadIdx.x) >> 3) * 64)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 31) >> 4) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))) = *(uint4*)(Q + (((((((int)blockIdx.x) * 8192) + (i * 2048)) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8)));
  }
  #pragma unroll
  for (int i_1 = 0; i_1 < 8; ++i_1) {
    float broadcast_var = 0x0p+0f/*0.000000e+00*/;
    *(float4*)(acc_o + (i_1 * 4)) = make_float4(broadcast_var, broadcast_var, broadcast_var, broadcast_var);
  }
  float broadcast_var_1 = 0x0p+0f/*0.000000e+00*/;
  *(float2*)(logsum + 0) = make_float2(broadcast_var_1, broadcast_var_1);
  float broadcast_var_2 = -CUDART_INF_F;
  *(float2*)(scores_max + 0) = make_float2(broadcast_var_2, broadcast_var_2);
  __syncthreads();
  #pragma unroll
  for (int i_2 = 0; i_2 < 4; ++i_2) {
    tl::cp_async_gs<16>((&(((half_t*)K_shared)[(((((i_2 * 1024) + ((((int)threadIdx.x) >> 3) * 64)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 31) >> 4) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(K[((((i_2 * 2048) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8))])));
  }
  tl::cp_async_commit();
  #pragma unroll
  for (int i_3 = 0; i_3 < 4; ++i_3) {
    tl::cp_async_gs<16>((&(((half_t*)V_shared)[(((((i_3 * 1024) + ((((int)threadIdx.x) >> 3) * 64)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 31) >> 4) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(V[((((i_3 * 2048) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8))])));
  }
  tl::cp_async_commit();
  for (int k = 0; k < 3; ++k) {
    #pragma unroll
    for (int i_4 = 0; i_4 < 8; ++i_4) {
      float broadcast_var_3 = 0x0p+0f/*0.000000e+00*/;
      *(float4*)(acc_s + (i_4 * 4)) = make_float4(broadcast_var_3, broadcast_var_3, broadcast_var_3, broadcast_var_3);
    }
    tl::cp_async_wait<1>();
    __syncthreads();
    {
      half_t A_local[8];
      half_t B_local[32];
      for (int ki = 0; ki < 4; ++ki) {
        tl::ptx_ldmatrix_x4((&(((half_t*)Q_shared)[((((((((int)threadIdx.x) >> 5) * 1024) + ((((int)threadIdx.x) & 15) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (ki >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (ki & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(A_local[0])));
        #pragma unroll
        for (int i_5 = 0; i_5 < 4; ++i_5) {
          tl::ptx_ldmatrix_x4((&(((half_t*)K_shared)[((((((i_5 * 1024) + (((((int)threadIdx.x) & 31) >> 4) * 512)) + ((((int)threadIdx.x) & 7) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (ki >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (ki & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(B_local[(i_5 * 8)])));
        }
        for (int j = 0; j < 4; ++j) {
          tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_s + (j * 8)), reinterpret_cast<const unsigned*>(A_local + 0), reinterpret_cast<const unsigned*>(B_local + (j * 8)));
          tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_s + ((j * 8) + 4)), reinterpret_cast<const unsigned*>(A_local + 0), reinterpret_cast<const unsigned*>(B_local + ((j * 8) + 4)));
        }
      }
    }
    __syncthreads();
    #pragma unroll
    for (int i_6 = 0; i_6 < 4; ++i_6) {
      tl::cp_async_gs<16>((&(((half_t*)K_shared)[(((((i_6 * 1024) + ((((int)threadIdx.x) >> 3) * 64)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 31) >> 4) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(K[((((((k * 8192) + (i_6 * 2048)) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8)) + 8192)])));
    }
    tl::cp_async_commit();
    *(float2*)(scores_max_prev + 0) = *(float2*)(scores_max + 0);
    float broadcast_var_4 = -CUDART_INF_F;
    *(float2*)(scores_max + 0) = make_float2(broadcast_var_4, broadcast_var_4);
    #pragma unroll
    for (int i_7 = 0; i_7 < 2; ++i_7) {
      scores_max_clear[i_7] = -CUDART_INF_F;
      #pragma unroll
      for (int rv = 0; rv < 16; ++rv) {
        scores_max_clear[i_7] = max(scores_max_clear[i_7], acc_s[((((rv & 7) * 4) + (i_7 * 2)) + (rv >> 3))]);
      }
      scores_max_clear[i_7] = tl::AllReduce<tl::MaxOp, 4, 1, 0, tl::NamedBarrier<128>>::run(scores_max_clear[i_7]);
      scores_max[i_7] = max(scores_max[i_7], scores_max_clear[i_7]);
    }
    float2 __1;
      float2 v_ = *(float2*)(scores_max + 0);
      float2 v__1 = *(float2*)(scores_max_prev + 0);
      __1.x = max(v_.x, v__1.x);
      __1.y = max(v_.y, v__1.y);
    *(float2*)(scores_max + 0) = __1;
    float broadcast_var_5 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
    float broadcast_var_6 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
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
    for (int i_8 = 0; i_8 < 16; ++i_8) {
      float broadcast_var_7 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
      float2 __6;
      float2 __7;
        float2 __8;
          float2 v__6 = *(float2*)(acc_s + (i_8 * 2));
          float2 v__7 = make_float2(broadcast_var_7, broadcast_var_7);
          __8.x = (v__6.x*v__7.x);
          __8.y = (v__6.y*v__7.y);
        float2 v__8 = make_float2((scores_max[(i_8 & 1)] * 0x1.7154764ee6c2fp-3f/*1.803369e-01*/), (scores_max[(i_8 & 1)] * 0x1.7154764ee6c2fp-3f/*1.803369e-01*/));
        __7.x = (__8.x-v__8.x);
        __7.y = (__8.y-v__8.y);
      __6.x = exp2f(__7.x);
      __6.y = exp2f(__7.y);
      *(float2*)(acc_s + (i_8 * 2)) = __6;
    }
    #pragma unroll
    for (int i_9 = 0; i_9 < 2; ++i_9) {
      scores_sum[i_9] = 0x0p+0f/*0.000000e+00*/;
      #pragma unroll
      for (int rv_1 = 0; rv_1 < 16; ++rv_1) {
        scores_sum[i_9] = (scores_sum[i_9] + acc_s[((((rv_1 & 7) * 4) + (i_9 * 2)) + (rv_1 >> 3))]);
      }
      scores_sum[i_9] = tl::AllReduce<tl::SumOp, 4, 1, 0, tl::NamedBarrier<128>>::run(scores_sum[i_9]);
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
    for (int i_10 = 0; i_10 < 8; ++i_10) {
      uint2 __11;
      float4 v__12 = *(float4*)(acc_s + (i_10 * 4));
      ((half2*)(&__11))[0] = __float22half2_rn(((float2*)(&v__12))[0]);
      ((half2*)(&__11))[1] = __float22half2_rn(((float2*)(&v__12))[1]);
      *(uint2*)(acc_s_cast + (i_10 * 4)) = __11;
    }
    #pragma unroll
    for (int i_11 = 0; i_11 < 16; ++i_11) {
      float2 __12;
        float2 v__13 = *(float2*)(acc_o + (i_11 * 2));
        float2 v__14 = make_float2(scores_scale[(i_11 & 1)], scores_scale[(i_11 & 1)]);
        __12.x = (v__13.x*v__14.x);
        __12.y = (v__13.y*v__14.y);
      *(float2*)(acc_o + (i_11 * 2)) = __12;
    }
    tl::cp_async_wait<1>();
    __syncthreads();
    {
      half_t B_local_1[32];
      for (int ki_1 = 0; ki_1 < 4; ++ki_1) {
        #pragma unroll
        for (int i_12 = 0; i_12 < 4; ++i_12) {
          tl::ptx_ldmatrix_x4_trans((&(((half_t*)V_shared)[(((((ki_1 * 1024) + ((((int)threadIdx.x) & 15) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (i_12 >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (i_12 & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(B_local_1[(i_12 * 8)])));
        }
        for (int j_1 = 0; j_1 < 4; ++j_1) {
          tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_o + (j_1 * 8)), reinterpret_cast<const unsigned*>(acc_s_cast + (ki_1 * 8)), reinterpret_cast<const unsigned*>(B_local_1 + (j_1 * 8)));
          tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_o + ((j_1 * 8) + 4)), reinterpret_cast<const unsigned*>(acc_s_cast + (ki_1 * 8)), reinterpret_cast<const unsigned*>(B_local_1 + ((j_1 * 8) + 4)));
        }
      }
    }
    __syncthreads();
    #pragma unroll
    for (int i_13 = 0; i_13 < 4; ++i_13) {
      tl::cp_async_gs<16>((&(((half_t*)V_shared)[(((((i_13 * 1024) + ((((int)threadIdx.x) >> 3) * 64)) + (((((((int)threadIdx.x) & 63) >> 5) + ((((int)threadIdx.x) & 7) >> 2)) & 1) * 32)) + (((((((int)threadIdx.x) & 31) >> 4) + ((((int)threadIdx.x) & 3) >> 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(V[((((((k * 8192) + (i_13 * 2048)) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8)) + 8192)])));
    }
    tl::cp_async_commit();
  }
  #pragma unroll
  for (int i_14 = 0; i_14 < 8; ++i_14) {
    float broadcast_var_8 = 0x0p+0f/*0.000000e+00*/;
    *(float4*)(acc_s + (i_14 * 4)) = make_float4(broadcast_var_8, broadcast_var_8, broadcast_var_8, broadcast_var_8);
  }
  tl::cp_async_wait<1>();
  __syncthreads();
  {
    half_t A_local_1[8];
    half_t B_local_2[32];
    for (int ki_2 = 0; ki_2 < 4; ++ki_2) {
      tl::ptx_ldmatrix_x4((&(((half_t*)Q_shared)[((((((((int)threadIdx.x) >> 5) * 1024) + ((((int)threadIdx.x) & 15) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (ki_2 >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (ki_2 & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(A_local_1[0])));
      #pragma unroll
      for (int i_15 = 0; i_15 < 4; ++i_15) {
        tl::ptx_ldmatrix_x4((&(((half_t*)K_shared)[((((((i_15 * 1024) + (((((int)threadIdx.x) & 31) >> 4) * 512)) + ((((int)threadIdx.x) & 7) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (ki_2 >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (ki_2 & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 15) >> 3) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(B_local_2[(i_15 * 8)])));
      }
      for (int j_2 = 0; j_2 < 4; ++j_2) {
        tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_s + (j_2 * 8)), reinterpret_cast<const unsigned*>(A_local_1 + 0), reinterpret_cast<const unsigned*>(B_local_2 + (j_2 * 8)));
        tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_s + ((j_2 * 8) + 4)), reinterpret_cast<const unsigned*>(A_local_1 + 0), reinterpret_cast<const unsigned*>(B_local_2 + ((j_2 * 8) + 4)));
      }
    }
  }
  *(float2*)(scores_max_prev + 0) = *(float2*)(scores_max + 0);
  float broadcast_var_9 = -CUDART_INF_F;
  *(float2*)(scores_max + 0) = make_float2(broadcast_var_9, broadcast_var_9);
  #pragma unroll
  for (int i_16 = 0; i_16 < 2; ++i_16) {
    scores_max_clear_1[i_16] = -CUDART_INF_F;
    #pragma unroll
    for (int rv_2 = 0; rv_2 < 16; ++rv_2) {
      scores_max_clear_1[i_16] = max(scores_max_clear_1[i_16], acc_s[((((rv_2 & 7) * 4) + (i_16 * 2)) + (rv_2 >> 3))]);
    }
    scores_max_clear_1[i_16] = tl::AllReduce<tl::MaxOp, 4, 1, 0, tl::NamedBarrier<128>>::run(scores_max_clear_1[i_16]);
    scores_max[i_16] = max(scores_max[i_16], scores_max_clear_1[i_16]);
  }
  float2 __13;
    float2 v__15 = *(float2*)(scores_max + 0);
    float2 v__16 = *(float2*)(scores_max_prev + 0);
    __13.x = max(v__15.x, v__16.x);
    __13.y = max(v__15.y, v__16.y);
  *(float2*)(scores_max + 0) = __13;
  float broadcast_var_10 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
  float broadcast_var_11 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
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
  for (int i_17 = 0; i_17 < 16; ++i_17) {
    float broadcast_var_12 = 0x1.7154764ee6c2fp-3f/*1.803369e-01*/;
    float2 __18;
    float2 __19;
      float2 __20;
        float2 v__21 = *(float2*)(acc_s + (i_17 * 2));
        float2 v__22 = make_float2(broadcast_var_12, broadcast_var_12);
        __20.x = (v__21.x*v__22.x);
        __20.y = (v__21.y*v__22.y);
      float2 v__23 = make_float2((scores_max[(i_17 & 1)] * 0x1.7154764ee6c2fp-3f/*1.803369e-01*/), (scores_max[(i_17 & 1)] * 0x1.7154764ee6c2fp-3f/*1.803369e-01*/));
      __19.x = (__20.x-v__23.x);
      __19.y = (__20.y-v__23.y);
    __18.x = exp2f(__19.x);
    __18.y = exp2f(__19.y);
    *(float2*)(acc_s + (i_17 * 2)) = __18;
  }
  #pragma unroll
  for (int i_18 = 0; i_18 < 2; ++i_18) {
    scores_sum[i_18] = 0x0p+0f/*0.000000e+00*/;
    #pragma unroll
    for (int rv_3 = 0; rv_3 < 16; ++rv_3) {
      scores_sum[i_18] = (scores_sum[i_18] + acc_s[((((rv_3 & 7) * 4) + (i_18 * 2)) + (rv_3 >> 3))]);
    }
    scores_sum[i_18] = tl::AllReduce<tl::SumOp, 4, 1, 0, tl::NamedBarrier<128>>::run(scores_sum[i_18]);
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
  for (int i_19 = 0; i_19 < 8; ++i_19) {
    uint2 __23;
    float4 v__27 = *(float4*)(acc_s + (i_19 * 4));
    ((half2*)(&__23))[0] = __float22half2_rn(((float2*)(&v__27))[0]);
    ((half2*)(&__23))[1] = __float22half2_rn(((float2*)(&v__27))[1]);
    *(uint2*)(acc_s_cast + (i_19 * 4)) = __23;
  }
  #pragma unroll
  for (int i_20 = 0; i_20 < 16; ++i_20) {
    float2 __24;
      float2 v__28 = *(float2*)(acc_o + (i_20 * 2));
      float2 v__29 = make_float2(scores_scale[(i_20 & 1)], scores_scale[(i_20 & 1)]);
      __24.x = (v__28.x*v__29.x);
      __24.y = (v__28.y*v__29.y);
    *(float2*)(acc_o + (i_20 * 2)) = __24;
  }
  tl::cp_async_wait<0>();
  __syncthreads();
  {
    half_t B_local_3[32];
    for (int ki_3 = 0; ki_3 < 4; ++ki_3) {
      #pragma unroll
      for (int i_21 = 0; i_21 < 4; ++i_21) {
        tl::ptx_ldmatrix_x4_trans((&(((half_t*)V_shared)[(((((ki_3 * 1024) + ((((int)threadIdx.x) & 15) * 64)) + (((((((int)threadIdx.x) & 7) >> 2) + (i_21 >> 1)) & 1) * 32)) + (((((((int)threadIdx.x) & 3) >> 1) + (i_21 & 1)) & 1) * 16)) + (((((((int)threadIdx.x) & 31) >> 4) + (((int)threadIdx.x) & 1)) & 1) * 8))])), (&(B_local_3[(i_21 * 8)])));
      }
      for (int j_3 = 0; j_3 < 4; ++j_3) {
        tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_o + (j_3 * 8)), reinterpret_cast<const unsigned*>(acc_s_cast + (ki_3 * 8)), reinterpret_cast<const unsigned*>(B_local_3 + (j_3 * 8)));
        tl::mma_sync<tl::DataType::kFloat16, tl::DataType::kFloat16, tl::DataType::kFloat32, 16, 8, 16, false, true>(reinterpret_cast<float*>(acc_o + ((j_3 * 8) + 4)), reinterpret_cast<const unsigned*>(acc_s_cast + (ki_3 * 8)), reinterpret_cast<const unsigned*>(B_local_3 + ((j_3 * 8) + 4)));
      }
    }
  }
  #pragma unroll
  for (int i_22 = 0; i_22 < 16; ++i_22) {
    float2 __25;
      float2 v__30 = *(float2*)(acc_o + (i_22 * 2));
      float2 v__31 = make_float2(logsum[(i_22 & 1)], logsum[(i_22 & 1)]);
      __25.x = (v__30.x/v__31.x);
      __25.y = (v__30.y/v__31.y);
    *(float2*)(acc_o + (i_22 * 2)) = __25;
  }
  __syncthreads();
  #pragma unroll
  for (int i_23 = 0; i_23 < 16; ++i_23) {
    half_t O_shared_local_cast[2];
    uint1 __26;
    float2 v__32 = *(float2*)(acc_o + (i_23 * 2));
    ((half2*)(&__26))[0] = __float22half2_rn(((float2*)(&v__32))[0]);
    *(uint1*)(O_shared_local_cast + 0) = __26;
    *(uint1*)(((half_t*)O_shared) + ((((((((int)threadIdx.x) >> 5) * 1024) + ((i_23 & 1) * 512)) + (((((int)threadIdx.x) & 31) >> 2) * 64)) + ((i_23 >> 1) * 8)) + ((((int)threadIdx.x) & 3) * 2))) = *(uint1*)(O_shared_local_cast + 0);
  }
  __syncthreads();
  #pragma unroll
  for (int i_24 = 0; i_24 < 4; ++i_24) {
    *(uint4*)(Output + (((((((int)blockIdx.x) * 8192) + (i_24 * 2048)) + ((((int)threadIdx.x) >> 3) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) & 7) * 8))) = *(uint4*)(((half_t*)O_shared) + ((i_24 * 1024) + (((int)threadIdx.x) * 8)));
  }
}

