// tcgen05: the fence TileLang's T.tcgen05_before_thread_sync prints (tl_templates/cuda/tcgen_05.h)
__global__ void k(float* p) { asm volatile("tcgen05.fence::before_thread_sync;\n"); p[0] = 1; }
