// Does cp.async.mbarrier.arrive (without .noinc) count as one of the phase's expected arrivals?
// PTX ISA: it raises the pending count by one at issue and the arrive-on on completion takes it
// back ("zero-net change"), so with an init count of 1 the phase cannot complete before the
// thread's own mbarrier.arrive. If it were a plain arrival, the phase would complete as soon as
// the copy lands. One thread, one 16-byte copy; the result is read with test_wait before and
// after the thread's own arrive.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void probe(const int4* src, int* out) {
  __shared__ alignas(16) int4 buf[1];
  __shared__ alignas(8) uint64_t bar;
  uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
  uint32_t d = (uint32_t)__cvta_generic_to_shared(&buf[0]);
  if (threadIdx.x != 0) return;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(src) : "memory");
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(b) : "memory");
  // give the copy ample time to land
  long long t0 = clock64();
  while (clock64() - t0 < 20000000) {}
  uint32_t done_before = 0, done_after = 0;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
               : "=r"(done_before) : "r"(b) : "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
  t0 = clock64();
  while (clock64() - t0 < 20000000) {}
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
               : "=r"(done_after) : "r"(b) : "memory");
  out[0] = (int)done_before;
  out[1] = (int)done_after;
  out[2] = buf[0].x;
}

int main() {
  int4 h = make_int4(42, 1, 2, 3);
  int4* src; int* out; int res[3] = {-1, -1, -1};
  cudaMalloc(&src, sizeof(int4)); cudaMalloc(&out, 3 * sizeof(int));
  cudaMemcpy(src, &h, sizeof(int4), cudaMemcpyHostToDevice);
  probe<<<1, 32>>>(src, out);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(res, out, sizeof(res), cudaMemcpyDeviceToHost);
  printf("launch: %s\nphase 0 complete before the thread's own arrive: %d\n"
         "phase 0 complete after it: %d\ncopied value: %d\n", cudaGetErrorString(e), res[0], res[1], res[2]);
  return 0;
}
