// Does racecheck report 32 threads' cp.async of the SAME 16 global bytes into the SAME 16 shared bytes?
#include <cstdio>
__global__ void k(const unsigned char* g, unsigned char* out, int mode) {
  __shared__ __align__(16) unsigned char s[16 * 32];
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  if (mode == 0) {        // A: same source, same destination (the TileLang tests)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(a), "l"(g) : "memory");
  } else if (mode == 1) { // B: control: different sources, same destination
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(a), "l"(g + 16 * threadIdx.x) : "memory");
  } else {                // C: plain stores of one value by every thread
    for (int i = 0; i < 16; ++i) s[i] = g[i];
  }
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x < 16) out[threadIdx.x] = s[threadIdx.x];
}
int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  unsigned char *g, *o; cudaMalloc(&g, 1024); cudaMalloc(&o, 64);
  unsigned char h[1024]; for (int i = 0; i < 1024; ++i) h[i] = (unsigned char)(i * 7 + 1);
  cudaMemcpy(g, h, 1024, cudaMemcpyHostToDevice);
  k<<<1, 32>>>(g, o, mode);
  printf("mode %d: %s\n", mode, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
