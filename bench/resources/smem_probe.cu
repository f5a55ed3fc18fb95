// Measures what the driver does with static + dynamic shared memory (asyncguard issue 7).
// nvcc -arch=sm_90a -o probe smem_probe.cu && ./probe
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// TileLang's Hopper shape: static mbarriers (align 16) + dynamic buffer aligned to 1024.
__global__ void k_mbar6_dyn1024(unsigned* out) {
  extern __shared__ __align__(1024) unsigned char buf[];
  __shared__ __align__(16) uint64_t mb[6];
  mb[threadIdx.x % 6] = threadIdx.x; buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = smem_addr(buf); out[1] = smem_addr(mb); out[2] = (unsigned)mb[1] + buf[3]; }
}
// 16 bytes of static shared + dynamic aligned to 16 (the 232464 case).
__global__ void k_static16_dyn16(unsigned* out) {
  extern __shared__ __align__(16) unsigned char buf[];
  __shared__ __align__(16) uint64_t mb[2];
  mb[threadIdx.x % 2] = threadIdx.x; buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = smem_addr(buf); out[1] = smem_addr(mb); out[2] = (unsigned)mb[1] + buf[3]; }
}
// dynamic only.
__global__ void k_dyn_only(unsigned* out) {
  extern __shared__ __align__(16) unsigned char buf[];
  buf[threadIdx.x] = 1; __syncthreads();
  if (threadIdx.x == 0) { out[0] = smem_addr(buf); out[1] = 0; out[2] = buf[3]; }
}
// static only, 3 arrays of odd sizes: how the compiler pads between them.
__global__ void k_static_odd(unsigned* out) {
  __shared__ unsigned char a[100];
  __shared__ float b[7];
  __shared__ __align__(16) double c[3];
  a[threadIdx.x % 100] = 1; b[threadIdx.x % 7] = 2; c[threadIdx.x % 3] = 3; __syncthreads();
  if (threadIdx.x == 0) { out[0] = smem_addr(a); out[1] = smem_addr(b); out[2] = smem_addr(c) + a[1] + (unsigned)b[2] + (unsigned)c[0]; }
}

#define CK(x) do { cudaError_t e = (x); printf("  %-60s -> %s\n", #x, cudaGetErrorString(e)); cudaGetLastError(); } while (0)

template <typename K>
void probe(const char* name, K kern, int threads) {
  cudaFuncAttributes a; cudaFuncGetAttributes(&a, kern);
  printf("%s: sharedSizeBytes(static)=%zu maxDynamicSharedSizeBytes=%d regs=%d maxThreads=%d\n", name,
         a.sharedSizeBytes, a.maxDynamicSharedSizeBytes, a.numRegs, a.maxThreadsPerBlock);
  int optin; cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  int st = (int)a.sharedSizeBytes;
  for (int dyn : {optin - st, optin - st + 1, optin - st + 16, optin}) {
    cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
    printf("  setattr MaxDynamic=%d (static %d, total %d) -> %s\n", dyn, st, dyn + st, cudaGetErrorString(e));
    cudaGetLastError();
  }
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - st);
  unsigned* d; cudaMalloc(&d, 16); unsigned h[3] = {0, 0, 0};
  for (int dyn : {1024, 49152, optin - st, optin - st + 16}) {
    kern<<<1, threads, dyn>>>(d);
    cudaError_t e = cudaGetLastError(); cudaError_t s = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 12, cudaMemcpyDeviceToHost);
    printf("  launch dyn=%d -> %s / %s; buf@%u other@%u\n", dyn, cudaGetErrorString(e), cudaGetErrorString(s), h[0], h[1]);
  }
  for (int dyn : {0, 1024, 8192, 16384, 32768, 49152, 65536, 98304, 101376, 114688, 116736, 232448 - st}) {
    int nb = -1; cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, threads, dyn);
    size_t avail = 0; cudaOccupancyAvailableDynamicSMemPerBlock(&avail, kern, nb > 0 ? nb : 1, threads);
    printf("  occupancy threads=%d dyn=%d -> %d blocks/SM (%s); avail dyn for that many=%zu\n", threads, dyn, nb, cudaGetErrorString(e), avail);
  }
  for (int carve : {0, 25, 50, 100}) {
    cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, carve);
    for (int dyn : {16384, 49152}) {
      int nb = -1; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, threads, dyn);
      printf("  carveout=%d%% dyn=%d -> %d blocks/SM\n", carve, dyn, nb);
    }
  }
  cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, -1);
  cudaFree(d);
}

__global__ void k_fresh(unsigned* out) { extern __shared__ unsigned char buf[]; buf[threadIdx.x] = 1; __syncthreads(); if (threadIdx.x == 0) out[0] = buf[1]; }

int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  printf("device %s cc %d.%d SMs %d\n", p.name, p.major, p.minor, p.multiProcessorCount);
  printf("sharedMemPerBlock=%zu sharedMemPerBlockOptin=%zu sharedMemPerMultiprocessor=%zu reservedSharedMemPerBlock=%zu\n",
         p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor, p.reservedSharedMemPerBlock);
  printf("maxThreadsPerBlock=%d maxThreadsPerMultiProcessor=%d maxBlocksPerMultiProcessor=%d regsPerBlock=%d regsPerMultiprocessor=%d\n",
         p.maxThreadsPerBlock, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.regsPerBlock, p.regsPerMultiprocessor);
  // A fresh kernel that never raised the attribute: launches over 48 KiB must fail.
  unsigned* d; cudaMalloc(&d, 16);
  for (int dyn : {49152, 49153, 65536}) {
    k_fresh<<<1, 32, dyn>>>(d);
    cudaError_t e = cudaGetLastError(); cudaDeviceSynchronize();
    printf("k_fresh (no attribute) dyn=%d -> %s\n", dyn, cudaGetErrorString(e));
  }
  probe("k_mbar6_dyn1024", k_mbar6_dyn1024, 256);
  probe("k_static16_dyn16", k_static16_dyn16, 128);
  probe("k_dyn_only", k_dyn_only, 128);
  probe("k_static_odd", k_static_odd, 128);
  return 0;
}
