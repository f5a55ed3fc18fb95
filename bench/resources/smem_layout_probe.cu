// One kernel per translation unit (-DVARIANT=n): static size the driver reports, where the dynamic
// buffer starts, and the largest dynamic request cudaFuncSetAttribute accepts. asyncguard issue 7.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#include <cstdlib>
__device__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void k(unsigned* out) {
#if VARIANT == 1   // TileLang sm_90 shape
  extern __shared__ __align__(1024) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[6];
#elif VARIANT == 2 // 16 B static + 16-aligned dynamic
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[2];
#elif VARIANT == 3 // dynamic only, align 16
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ uint64_t* st; // unused placeholder
#elif VARIANT == 4 // dynamic only, align 1024
  extern __shared__ __align__(1024) unsigned char buf[];
  __shared__ uint64_t* st;
#elif VARIANT == 5 // 48 B static + 128-aligned dynamic
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[6];
#elif VARIANT == 6 // static exactly 48 KiB, dynamic align 16
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[6144];
#elif VARIANT == 7 // static 48 KiB + 8, should not link
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[6145];
#elif VARIANT == 8 // two static arrays, odd size, dynamic 16
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ __align__(16) uint64_t st[3];
  __shared__ __align__(16) float st2[5];
#endif
#if VARIANT == 3 || VARIANT == 4
  buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = sa(buf); out[1] = 0; out[2] = buf[3]; }
#elif VARIANT == 8
  st[threadIdx.x % 3] = 1; st2[threadIdx.x % 5] = 2; buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = sa(buf); out[1] = sa(st) * 65536 + sa(st2); out[2] = buf[3] + (unsigned)st[1] + (unsigned)st2[2]; }
#else
  st[threadIdx.x % (sizeof(st) / 8)] = threadIdx.x; buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = sa(buf); out[1] = sa(st); out[2] = (unsigned)st[1] + buf[3]; }
#endif
}

int main() {
  cudaFuncAttributes a; cudaFuncGetAttributes(&a, k);
  int optin; cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  int lo = 0, hi = optin + 4096;
  if (getenv("NOSET")) { unsigned* d0; cudaMalloc(&d0, 16);
    for (int dyn : {0, 1024, 49152 - (int)a.sharedSizeBytes, 49152 - (int)a.sharedSizeBytes + 1}) {
      k<<<1, 128, dyn>>>(d0); cudaError_t e0 = cudaGetLastError(); cudaDeviceSynchronize();
      printf("variant %d: static=%zu no attribute raised, dyn=%d -> %s (max dyn attr %d)\n", VARIANT, a.sharedSizeBytes, dyn, cudaGetErrorString(e0), a.maxDynamicSharedSizeBytes); }
    return 0; }
  while (lo < hi) { int mid = (lo + hi + 1) / 2;
    if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, mid) == cudaSuccess) lo = mid; else { hi = mid - 1; cudaGetLastError(); } }
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, lo);
  unsigned* d; cudaMalloc(&d, 16); unsigned h[3] = {0, 0, 0};
  k<<<1, 128, 4096>>>(d); cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, 12, cudaMemcpyDeviceToHost);
  int nb16 = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb16, k, 128, 16384);
  int nb100 = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb100, k, 128, 100000);
  printf("variant %d: static=%zu max_dyn_accepted=%d (static+max=%d, optin %d) launch=%s buf@%u static@%u (%u) blocks/SM dyn16384=%d dyn100000=%d\n",
         VARIANT, a.sharedSizeBytes, lo, lo + (int)a.sharedSizeBytes, optin, cudaGetErrorString(e), h[0], h[1], h[1], nb16, nb100);
  return 0;
}
