// Does a warp's wgmma.wait_group cover the wgmma of the other warps of its warpgroup?
// (asyncguard docs/model.md "Conservative rules and approximations": one operation per warpgroup,
// completed by any of its threads' wait, against NVIDIA/Fuser#3865's "wgmma.wait_group only
// synchronizes a warp".) One CTA of 128 threads = one warpgroup. A and B in shared memory hold
// fp16 1.0. Every warp issues ITERS wgmma m64n8k16 (f32 += f16 * f16), commits and waits. Warp
// DELAYED first spins `delay` ns before its issue. Warp 0, right after its own wait, overwrites B
// with 0 and fences the async proxy. If warp 0's wait returned before the delayed warp's part ran,
// that part reads zeros: its accumulators come out below ITERS * 16. Timestamps (globaltimer) of
// warp 0's wait return and of the delayed warp's issue are written out.
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O2 -o wgmma_wait_scope wgmma_wait_scope.cu
#include <cstdio>
#include <cstdint>
#include <cuda_fp16.h>

constexpr int ITERS = 64;
constexpr int DELAYED = 1;

__device__ __forceinline__ uint64_t now() {
  uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}

__device__ __forceinline__ uint64_t desc(const void* smem, uint32_t lbo, uint32_t sbo) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint64_t d = 0;
  d |= (uint64_t)((addr >> 4) & 0x3FFF);
  d |= (uint64_t)((lbo >> 4) & 0x3FFF) << 16;
  d |= (uint64_t)((sbo >> 4) & 0x3FFF) << 32;
  return d;  // no swizzle, base offset 0
}

__global__ void probe(float* out, unsigned long long* stamps, long long delay) {
  __shared__ __align__(1024) half A[64 * 16];
  __shared__ __align__(1024) half B[8 * 16 * 4];
  int tid = threadIdx.x, warp = tid / 32;
  for (int i = tid; i < 64 * 16; i += 128) A[i] = __float2half(1.0f);
  for (int i = tid; i < 8 * 16 * 4; i += 128) B[i] = __float2half(1.0f);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  uint64_t da = desc(A, 128, 256), db = desc(B, 128, 256);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  if (warp == DELAYED) {
    uint64_t t0 = now();
    while ((long long)(now() - t0) < delay) { }
    if (tid % 32 == 0) stamps[1] = now();
  }
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int k = 0; k < ITERS; ++k) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(k) : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  if (warp == 0) {
    if (tid == 0) stamps[0] = now();
    for (int i = tid; i < 8 * 16 * 4; i += 32) B[i] = __float2half(0.0f);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  out[tid * 4 + 0] = d0; out[tid * 4 + 1] = d1; out[tid * 4 + 2] = d2; out[tid * 4 + 3] = d3;
}

int main() {
  float* out; unsigned long long* stamps;
  cudaMallocManaged(&out, 128 * 4 * sizeof(float));
  cudaMallocManaged(&stamps, 2 * sizeof(unsigned long long));
  const long long delays[] = {0, 2000, 20000, 200000};
  for (long long delay : delays) {
    for (int rep = 0; rep < 3; ++rep) {
      probe<<<1, 128>>>(out, stamps, delay);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
      float lo[4] = {1e30f, 1e30f, 1e30f, 1e30f}, hi[4] = {-1e30f, -1e30f, -1e30f, -1e30f};
      for (int t = 0; t < 128; ++t)
        for (int j = 0; j < 4; ++j) {
          float v = out[t * 4 + j]; int w = t / 32;
          lo[w] = v < lo[w] ? v : lo[w]; hi[w] = v > hi[w] ? v : hi[w];
        }
      long long gap = (long long)stamps[1] - (long long)stamps[0];
      printf("delay %7lld ns rep %d: warp accumulators min/max (expect %d):", delay, rep, ITERS * 16);
      for (int w = 0; w < 4; ++w) printf(" w%d %g/%g", w, lo[w], hi[w]);
      printf("  | delayed warp's issue - warp 0's wait return = %lld ns\n", gap);
    }
  }
  return 0;
}
