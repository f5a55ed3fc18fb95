// What do TileLang's `tl::__sync_thread_partial(id)` (`bar.sync id, 0`: thread count 0 in a
// register, src/tl_templates/cuda/common.h) and `bar.sync id, n` with more arriving threads than
// n do, and what does a warp whose lanes name different barrier ids do? Evidence for
// docs/model.md "Named barriers: the 2-argument form, surplus arrivals, per-thread ids".
//
// One block of 256 threads per launch, 100 launches per mode. Thread 224 (warp 7) publishes the
// epoch into a shared flag after spinning 2,000,000 clock64 cycles; then every thread runs the
// barrier under test; then thread 0 reads the flag: a stale value means thread 0 left the
// barrier before warp 7 arrived.
//   mode 0: bar.sync 1;                         (no count: every thread of the CTA)
//   mode 1: bar.sync 1, r;   r = 0 at run time  (what T.sync_threads(1) prints)
//   mode 2: bar.sync 1, r;   r = 128, 256 threads arrive
//   mode 3: bar.sync 1, r;   r = 256
//   mode 5: bar.sync 1, r;   r = 32             (control: the probe sees an early pass)
//   mode 6: bar.sync 1 + tid / 128, 128         (one id per warp, two barriers of 128)
//   mode 4 (`./p 4`, under a timeout): bar.sync tid % 4, 256 (TileLang's computed-id test)
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -o p bar_sync_counts.cu && ./p; timeout -s KILL 20 ./p 4
//
// H200 (session of branch h-barid, nvcc 13.0):
//   mode 0 count 0: stale 0 of 100
//   mode 1 count 0: stale 0 of 100
//   mode 2 count 128: stale 81 of 100
//   mode 3 count 256: stale 0 of 100
//   mode 5 count 32: stale 100 of 100
//   mode 6 count 128: stale 100 of 100
//   mode4 returned an illegal instruction was encountered
// (an earlier run of modes 0-4 with a __nanosleep delay instead of the clock64 spin saw no
// stale read in any mode, mode 2 included: that delay was too short to tell; mode 4 also ended
// with "an illegal instruction was encountered". Its SASS: `BAR.SYNC.DEFER_BLOCKING 0x1, R3`
// for the register-count form, `BAR.SYNC.DEFER_BLOCKING R3, R3` for mode 4.)
#include <cstdio>
__global__ void k(int*s,int e,int m,int c){__shared__ volatile int f;if(threadIdx.x==0)f=-1;__syncthreads();
if(threadIdx.x==224){long long t=clock64();while(clock64()-t<2000000);f=e;}
if(m==0)asm volatile("bar.sync 1;":::"memory");
else if(m==4){int id=threadIdx.x%4;asm volatile("bar.sync %0, %1;"::"r"(id),"r"(c):"memory");}
else if(m==6){int id=1+threadIdx.x/128;asm volatile("bar.sync %0, %1;"::"r"(id),"r"(c):"memory");}
else asm volatile("bar.sync 1, %0;"::"r"(c):"memory");
if(threadIdx.x==0&&f!=e)atomicAdd(s,1);__syncthreads();}
int main(int a,char**v){int*s;cudaMalloc(&s,4);int h;
if(a>1){cudaMemset(s,0,4);printf("mode4 launch\n");fflush(stdout);k<<<1,256>>>(s,1,4,256);cudaError_t r=cudaDeviceSynchronize();cudaMemcpy(&h,s,4,cudaMemcpyDeviceToHost);printf("mode4 returned %s stale %d\n",cudaGetErrorString(r),h);return 0;}
int ms[6]={0,1,2,3,5,6},cs[6]={0,0,128,256,32,128};for(int j=0;j<6;++j){int m=ms[j],t=0;for(int e=1;e<=100;++e){cudaMemset(s,0,4);k<<<1,256>>>(s,m*1000+e,m,cs[j]);cudaError_t r=cudaDeviceSynchronize();if(r){printf("m%d %s\n",m,cudaGetErrorString(r));return 1;}cudaMemcpy(&h,s,4,cudaMemcpyDeviceToHost);t+=h;}printf("mode %d count %d: stale %d of 100\n",m,cs[j],t);}return 0;}
