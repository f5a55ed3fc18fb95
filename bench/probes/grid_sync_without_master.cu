// Does `cooperative_groups::this_grid().sync()` order anything when thread 0 of each block does
// not call it? Evidence for AG301's `grid_sync_without_master` witness (docs/model.md, the
// `T.sync_grid()` row): TileLang's warp-specialized lowering of the persistent MLA decode puts
// the grid sync under `if 128 <= threadIdx.x` (the producer warpgroup, thread 0 among it, has
// left), and CUDA's sync_grids lets thread (0, 0, 0) of each block do the grid-wide arrive.
//
// Each block's thread 128 publishes epoch e into flag[block] late (a block-dependent delay),
// then the grid syncs, then thread 128 reads its neighbour's flag: a value other than e is a
// read the grid sync did not order. mode 0: every thread syncs; mode 1: only threads >= 128
// (threads 0..127 exit first, as in the TileLang kernel). 108 blocks x 384 threads, the shape
// of that kernel; one cooperative launch per epoch.
//
//   nvcc -arch=sm_90a -o grid_sync_without_master grid_sync_without_master.cu && ./grid_sync_without_master
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void publish_then_read(int *flag, int *stale, int epoch, int mode) {
    const int b = blockIdx.x;
    if (threadIdx.x == 128) {
        for (int i = 0; i < (b % 8) * 200; ++i) __nanosleep(1000);   // up to 1.4 ms late
        flag[b] = epoch;
        __threadfence();
    }
    if (mode == 0 || threadIdx.x >= 128)
        cg::this_grid().sync();
    if (threadIdx.x == 128 && *(volatile int *)&flag[(b + 1) % gridDim.x] != epoch)
        atomicAdd(stale, 1);
}

int main() {
    const int blocks = 108, threads = 384, epochs = 20;
    int *flag, *stale;
    cudaMalloc(&flag, blocks * sizeof(int));
    cudaMalloc(&stale, sizeof(int));
    cudaMemset(flag, 0, blocks * sizeof(int));
    for (int mode = 0; mode < 2; ++mode) {
        int total = 0;
        for (int e = 1; e <= epochs; ++e) {
            cudaMemset(stale, 0, sizeof(int));
            int ep = mode * 1000 + e;
            void *args[] = {&flag, &stale, &ep, &mode};
            cudaError_t err = cudaLaunchCooperativeKernel((void *)publish_then_read, blocks, threads, args, 0, 0);
            if (err == cudaSuccess) err = cudaDeviceSynchronize();
            if (err != cudaSuccess) {
                printf("mode %d epoch %d: %s\n", mode, e, cudaGetErrorString(err));
                return 1;
            }
            int h;
            cudaMemcpy(&h, stale, sizeof h, cudaMemcpyDeviceToHost);
            total += h;
        }
        printf("mode %d (%s): %d of %d neighbour reads stale over %d launches\n", mode,
               mode == 0 ? "every thread syncs the grid" : "only threads >= 128 sync the grid",
               total, blocks * epochs, epochs);
    }
    return 0;
}
