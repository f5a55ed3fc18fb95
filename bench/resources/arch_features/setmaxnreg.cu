// setmaxnreg: what T.set_max_nreg prints through tl::warpgroup_reg_alloc (tl_templates/cuda/intrin.h)
__global__ void k(float* p) { asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n"); p[0] = 1; }
