// asyncguard sanitize: synchronization skeleton of consumer_parity_from_one
#define AG_SPIN_LIMIT 200000u
#define AG_SMEM_BYTES 8192LL
namespace agns_ag0_0_0_consumer_parity_from_one_consumer_parity_from_one {

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

__device__ __forceinline__ i64 ag_floordiv(i64 a, i64 b) {
  i64 q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q; }
__device__ __forceinline__ i64 ag_floormod(i64 a, i64 b) {
  i64 m = a % b; if (m != 0 && ((m < 0) != (b < 0))) m += b; return m; }
__device__ __forceinline__ i64 ag_min(i64 a, i64 b) { return a < b ? a : b; }
__device__ __forceinline__ i64 ag_max(i64 a, i64 b) { return a > b ? a : b; }
__device__ __forceinline__ i64 ag_abs(i64 a) { return a < 0 ? -a : a; }
__device__ __forceinline__ u32 ag_fmix(u32 h) {
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16; return h; }
__device__ __forceinline__ u32 ag_seed(u32 tid, u32 w) { return ag_fmix(tid * 65599u + w * 2654435761u + 12345u); }
__device__ __forceinline__ u32 ag_pat(u32 seed, u32 a) { return ag_fmix(seed ^ (a * 0x9E3779B1u)) & 0xffu; }
__device__ __forceinline__ u32 ag_fnv_byte(u32 h, u32 b) { return (h ^ b) * 16777619u; }
__device__ __forceinline__ u32 ag_fnv_word(u32 h, u32 w) {
  h = ag_fnv_byte(h, w & 0xffu); h = ag_fnv_byte(h, (w >> 8) & 0xffu);
  h = ag_fnv_byte(h, (w >> 16) & 0xffu); return ag_fnv_byte(h, w >> 24); }
__device__ __forceinline__ bool ag_elect(u32 tid, i64 n) {
  u32 lane = tid % 32u, warp = tid / 32u;
  if (n == 0) return lane == 0 && warp == 0;
  u32 g = (u32)((n + 31) / 32); return lane == 0 && warp % g == 0; }

extern __shared__ __align__(1024) unsigned char ag_smem[];

struct AgState {
  u32 tid, w, r, src, maxr; bool traced; u32* trace; const unsigned char* pool; u32 per; u32* flags;
};

__device__ __forceinline__ void ag_record(AgState& s, u32 h) {
  if (s.traced && s.r < s.maxr) s.trace[s.r] = h;
  s.r++; }

__device__ __noinline__ void ag_read(AgState& s, i64 addr, i64 n) {
  u32 h = 2166136261u; const unsigned char* p = ag_smem + addr;
  if (((addr | n) & 3) == 0) { for (i64 i = 0; i < n; i += 4) h = ag_fnv_word(h, *(const u32*)(p + i)); }
  else { for (i64 i = 0; i < n; ++i) h = ag_fnv_byte(h, p[i]); }
  ag_record(s, h); }

__device__ __noinline__ void ag_write(AgState& s, i64 addr, i64 n) {
  u32 seed = ag_seed(s.tid, s.w++); unsigned char* p = ag_smem + addr;
  if (((addr | n) & 3) == 0) {
    for (i64 i = 0; i < n; i += 4) { u32 a = (u32)(addr + i);
      *(u32*)(p + i) = ag_pat(seed, a) | (ag_pat(seed, a + 1) << 8) | (ag_pat(seed, a + 2) << 16) | (ag_pat(seed, a + 3) << 24); }
  } else { for (i64 i = 0; i < n; ++i) p[i] = (unsigned char)ag_pat(seed, (u32)(addr + i)); } }

__device__ __forceinline__ u32 ag_saddr(const void* p) {
  u64 a; asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p)); return (u32)a; }

// The global source of the thread's next copy: the next `slot` bytes of its pool slice. The
// pool is sized from the traced blocks' copies; a block that is not traced (or a reference that
// under-counted) may copy more: that copy reads from the slice's start instead of past the pool
// (the pool has `smem` bytes of padding behind it, more than any copy into shared memory),
// and an overrun in a traced block is counted (flags[1]: the trace cannot be compared).
__device__ __forceinline__ const unsigned char* ag_src(AgState& s, u32 slot) {
  u32 off = s.src; s.src += slot;
  if ((u64)off + slot > s.per) { off = 0; if (s.traced) atomicAdd(&s.flags[1], 1u); }
  return s.pool + (u64)s.tid * s.per + off; }

__device__ __forceinline__ void ag_delay(u32 us) {
  // replay of a static witness: hold this warp back so the other side of the race goes first
  for (u32 i = 0; i < us; ++i) __nanosleep(1000); }

__device__ __forceinline__ void ag_cp_async(AgState& s, i64 addr, i64 n, bool pred) {
  const unsigned char* src = ag_src(s, 16u);
  u32 d = ag_saddr(ag_smem + addr); int ss = pred ? (int)n : 0;
  if (n == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else if (n == 8) asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else if (n == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(d), "l"(src), "r"(ss) : "memory");
  else __trap(); }
__device__ __forceinline__ void ag_cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
#define AG_WAIT_CASE(k) case k: asm volatile("cp.async.wait_group " #k ";\n" ::: "memory"); break;
__device__ __forceinline__ void ag_cp_wait(i64 n) {
  switch (n) { case 0: asm volatile("cp.async.wait_all;\n" ::: "memory"); break;
    AG_WAIT_CASE(1) AG_WAIT_CASE(2) AG_WAIT_CASE(3) AG_WAIT_CASE(4) AG_WAIT_CASE(5) AG_WAIT_CASE(6)
    AG_WAIT_CASE(7) AG_WAIT_CASE(8) AG_WAIT_CASE(9) AG_WAIT_CASE(10) AG_WAIT_CASE(11) AG_WAIT_CASE(12)
    AG_WAIT_CASE(13) AG_WAIT_CASE(14) AG_WAIT_CASE(15)
    default: __trap(); } }
__device__ __forceinline__ void ag_bar_sync(i64 id, i64 n) {
  asm volatile("bar.sync %0, %1;\n" :: "r"((int)id), "r"((int)n) : "memory"); }
__device__ __forceinline__ void ag_bar_arrive(i64 id, i64 n) {
  asm volatile("bar.arrive %0, %1;\n" :: "r"((int)id), "r"((int)n) : "memory"); }

__device__ __noinline__ void ag_ldmatrix(AgState& s, i64 addr, int num, bool trans) {
  u32 a = ag_saddr(ag_smem + addr), r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if (num == 4) {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  } else if (num == 2) {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
  } else {
    if (trans) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(a) : "memory");
    else asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(a) : "memory");
  }
  u32 h = ag_fnv_word(2166136261u, r0);
  if (num >= 2) h = ag_fnv_word(h, r1);
  if (num == 4) { h = ag_fnv_word(h, r2); h = ag_fnv_word(h, r3); }
  ag_record(s, h); }


__device__ __forceinline__ void ag_mbar_init(u64* b, i64 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((int)count) : "memory"); }
__device__ __forceinline__ void ag_mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void ag_mbar_arrive(u64* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(ag_saddr(b)) : "memory"); }
__device__ __forceinline__ void ag_mbar_expect_tx(u64* b, i64 tx) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((u32)tx) : "memory"); }
__device__ __forceinline__ void ag_mbar_arrive_expect_tx(u64* b, i64 tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(ag_saddr(b)), "r"((u32)tx) : "memory"); }
// the mbarrier tracks the thread's prior cp.asyncs; once they complete, the arrival is made
// for the thread (noinc: it counts against the init count, as TileLang's template issues it)
__device__ __forceinline__ void ag_mbar_cp_async_arrive(u64* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" :: "r"(ag_saddr(b)) : "memory"); }
__device__ __noinline__ void ag_mbar_wait(AgState& s, u64* b, i64 parity) {
  u32 a = ag_saddr(b), ok = 0;
  for (u32 spin = 0; spin < AG_SPIN_LIMIT && !ok; ++spin) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(ok) : "r"(a), "r"((u32)(parity & 1)) : "memory");
  }
  if (!ok) atomicAdd(&s.flags[0], 1u); }
__device__ __forceinline__ void ag_bulk_load(AgState& s, i64 addr, i64 n, u64* b) {
  const unsigned char* src = ag_src(s, (u32)((n + 15) / 16 * 16));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               :: "r"(ag_saddr(ag_smem + addr)), "l"(src), "r"((u32)n), "r"(ag_saddr(b)) : "memory"); }
__device__ __forceinline__ void ag_bulk_store(unsigned char* sink, i64 addr, i64 n) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
               :: "l"(sink + addr), "r"(ag_saddr(ag_smem + addr)), "r"((u32)n) : "memory"); }
__device__ __forceinline__ void ag_bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
#define AG_BWAIT_CASE(k) case k: asm volatile("cp.async.bulk.wait_group.read " #k ";\n" ::: "memory"); break;
__device__ __forceinline__ void ag_bulk_wait(i64 n) {
  switch (n) { AG_BWAIT_CASE(0) AG_BWAIT_CASE(1) AG_BWAIT_CASE(2) AG_BWAIT_CASE(3) AG_BWAIT_CASE(4)
    AG_BWAIT_CASE(5) AG_BWAIT_CASE(6) AG_BWAIT_CASE(7) default: __trap(); } }
__device__ __forceinline__ void ag_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// A wgmma's shared operand, read by the warpgroup's 128 threads in equal contiguous slices
// (the hardware reads it once for the warpgroup): thread r of the group checksums its slice.
__device__ __forceinline__ void ag_wgmma_read(AgState& s, i64 start, i64 n) {
  i64 chunk = (n + 127) / 128, lo = start + (i64)(s.tid % 128u) * chunk, hi = start + n;
  hi = hi < AG_SMEM_BYTES ? hi : AG_SMEM_BYTES;
  lo = lo < hi ? lo : hi; hi = lo + chunk < hi ? lo + chunk : hi;
  ag_read(s, lo, hi - lo); }

}  // namespace agns_ag0_0_0_consumer_parity_from_one_consumer_parity_from_one
using namespace agns_ag0_0_0_consumer_parity_from_one_consumer_parity_from_one;
extern "C" __global__ void __launch_bounds__(256) ag0_0_0_consumer_parity_from_one_consumer_parity_from_one(
    u32* __restrict__ ag_trace, u32* __restrict__ ag_counts, u32* __restrict__ ag_flags,
    const int* __restrict__ ag_bmap, const unsigned char* __restrict__ ag_pool,
    unsigned char* __restrict__ ag_sink, u32 ag_per, u32 ag_maxr, u32 ag_nslots) {
  const u32 ag_tid = threadIdx.x + threadIdx.y * 256u + threadIdx.z * 256u;
  const int ag_s = (int)blockIdx.x;
  AgState ag; ag.tid = ag_tid; ag.w = 0; ag.r = 0; ag.src = 0; ag.maxr = ag_maxr; ag.traced = ag_s < (int)ag_nslots;
  ag.trace = ag_trace + ((u64)(ag.traced ? ag_s : 0) * 256u + ag_tid) * ag_maxr;
  ag.pool = ag_pool; ag.per = ag_per; ag.flags = ag_flags;
  unsigned char* ag_sinkb = ag_sink + (u64)(ag.traced ? (u32)ag_s : ag_nslots) * 8192u; (void)ag_sinkb;
  __shared__ __align__(8) u64 ag_mbar[2];
  for (u32 i = ag_tid * 4u; i < 8192u; i += 1024u) {
    *(u32*)(ag_smem + i) = ag_pat(0xC0FFEE11u, i) | (ag_pat(0xC0FFEE11u, i + 1) << 8) | (ag_pat(0xC0FFEE11u, i + 2) << 16) | (ag_pat(0xC0FFEE11u, i + 3) << 24); }
  __syncthreads();
  const i64 v_tx = (i64)threadIdx.x; (void)v_tx;
  if (ag_elect(ag_tid, 0LL)) {
    ag_mbar_init((&ag_mbar[0LL + (0LL)]), 1LL);  // line 16
    ag_mbar_init((&ag_mbar[0LL + (1LL)]), 128LL);  // line 17
  }
  ag_mbar_fence_init();
  __syncthreads();  // line 19
  if ((v_tx < 128LL)) {
    for (i64 v_k = 0LL; v_k < 5LL; ++v_k) {
      if (ag_elect(ag_tid, 128LL)) {
        ag_mbar_wait(ag, (&ag_mbar[0LL + (1LL)]), ag_floormod(v_k, 2LL));  // line 23
        ag_mbar_expect_tx((&ag_mbar[0LL + (0LL)]), 8192LL);
        ag_bulk_load(ag, (0LL + (0LL) * 2LL), (4096LL) * 2LL, (&ag_mbar[0LL + (0LL)]));  // line 25: TMA load as cp.async.bulk
        ag_mbar_arrive((&ag_mbar[0LL + (0LL)]));  // line 26
      }
    }
  }
  else {
    for (i64 v_k = 1LL; v_k < 6LL; ++v_k) {
      ag_mbar_wait(ag, (&ag_mbar[0LL + (0LL)]), ag_floormod(v_k, 2LL));  // line 29
      for (i64 v_i = 0LL; v_i < 2LL; ++v_i) {
        ag_ldmatrix(ag, (0LL + ((((v_i * 2048LL) + (ag_floormod((v_tx - 128LL), 32LL) * 8LL)) + (ag_floordiv((v_tx - 128LL), 32LL) * 256LL))) * 2LL), 4, false);  // line 31
      }
      ag_mbar_arrive((&ag_mbar[0LL + (1LL)]));  // line 32
    }
  }
  if (ag.traced) ag_counts[(u64)ag_s * 256u + ag_tid] = ag.r;
}
