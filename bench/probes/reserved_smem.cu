// Where a block's own shared memory starts in the shared window, and where the system-reserved
// region lies (%reserved_smem_offset_begin/end). Evidence for models/extern.py's IKET model:
// TileLang's IKET markers store to window offsets 0x20 and 0x24.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe(unsigned *out) {
    __shared__ int static_buf[64];
    extern __shared__ int dynamic_buf[];
    unsigned begin, end, cap;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
    if (threadIdx.x == 0) {
        static_buf[0] = 1;
        dynamic_buf[0] = 2;
        out[0] = (unsigned)__cvta_generic_to_shared(static_buf);
        out[1] = (unsigned)__cvta_generic_to_shared(dynamic_buf);
        out[2] = begin;
        out[3] = end;
        out[4] = cap;
    }
}

int main() {
    unsigned *d, h[5];
    cudaMalloc(&d, sizeof h);
    probe<<<1, 32, 4096>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int reserved = 0;
    cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
    printf("static_buf at 0x%x, dynamic_buf at 0x%x, reserved [0x%x, 0x%x) cap 0x%x, "
           "cudaDevAttrReservedSharedMemoryPerBlock %d\n", h[0], h[1], h[2], h[3], h[4], reserved);
    return 0;
}
