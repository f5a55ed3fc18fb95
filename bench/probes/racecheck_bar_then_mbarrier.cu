// Does compute-sanitizer racecheck see the ordering "256 producer threads store to shared memory,
// bar.sync among them, ONE of them arrives on an mbarrier, the consumers wait on it and read"?
// By the PTX memory model it is race free: the producers' bar.sync synchronizes with the elected
// thread's, whose mbarrier.arrive (release) synchronizes with the consumers' wait (acquire), and
// causality order is transitive. TileLang lowers warp-specialized SIMT-copy producers this way
// (corpus/unseen/issue__issue_ws_simt_copy_full_producer_extent__...sm_90a.tir).
//
//   nvcc -arch=sm_90a -o probe racecheck_bar_then_mbarrier.cu
//   compute-sanitizer --tool racecheck ./probe elected    # one thread arrives (count 1)
//   compute-sanitizer --tool racecheck ./probe all        # every producer arrives (count 256)
//   compute-sanitizer --tool racecheck ./probe none       # no arrive/wait at all: a real race
//
// Evidence for docs/sanitizer-gate.md "racecheck and an elected thread's mbarrier arrive".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__device__ __forceinline__ void mbar_init(unsigned long long *bar, unsigned count) {
    unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(a), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long *bar) {
    unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(a) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned parity) {
    unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile(
        "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
        ::"r"(a), "r"(parity) : "memory");
}

// mode 0: elected thread arrives; 1: every producer arrives; 2: no mbarrier at all
__global__ void probe(int mode, unsigned *out) {
    __shared__ unsigned char buf[256];
    __shared__ unsigned long long bar;
    unsigned tid = threadIdx.x;
    if (tid == 0) mbar_init(&bar, mode == 1 ? 256 : 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    if (tid < 256) {
        buf[tid] = (unsigned char)(tid * 7 + 1);
        asm volatile("bar.sync 3, 256;" ::: "memory");
        if (mode == 1 || (mode == 0 && tid == 0)) mbar_arrive(&bar);
    } else {
        if (mode != 2) mbar_wait(&bar, 0);
        unsigned i = (tid - 256) ^ 5;          // another thread's byte
        out[tid - 256] = buf[i];
    }
}

int main(int argc, char **argv) {
    int mode = 0;
    if (argc > 1 && !strcmp(argv[1], "all")) mode = 1;
    if (argc > 1 && !strcmp(argv[1], "none")) mode = 2;
    unsigned *d, h[256];
    cudaMalloc(&d, sizeof h);
    probe<<<1, 512>>>(mode, d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (unsigned t = 0; t < 256; ++t) wrong += h[t] != (unsigned char)(((t ^ 5) * 7) + 1);
    printf("mode %s: %s, %d wrong reads\n", argc > 1 ? argv[1] : "elected", cudaGetErrorString(e), wrong);
    return 0;
}
