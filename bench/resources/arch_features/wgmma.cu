// wgmma: what T.warpgroup_arrive / warpgroup_commit_batch / warpgroup_wait print (TileLang 0.1.15)
__global__ void k(float* p) {
  asm volatile("wgmma.fence.sync.aligned;\n");
  asm volatile("wgmma.commit_group.sync.aligned;\n");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n");
  p[0] = 1;
}
