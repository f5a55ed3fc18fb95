// cluster launch control: the request and the query TileLang's T.clc_try_cancel and
// T.clc_is_canceled print (tl_templates/cuda: clusterlaunchcontrol.try_cancel / .query_cancel)
#include <cstdint>
__global__ void k(int* p) {
  __shared__ alignas(16) uint32_t response[4];
  __shared__ alignas(8) uint64_t bar;
  uint32_t r = (uint32_t)__cvta_generic_to_shared(response), b = (uint32_t)__cvta_generic_to_shared(&bar);
  uint32_t cancelled;
  asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];"
               :: "r"(r), "r"(b) : "memory");
  asm volatile("{\n .reg .pred c;\n .reg .b128 v;\n ld.shared.b128 v, [%1];\n"
               " clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 c, v;\n selp.u32 %0, 1, 0, c;\n}"
               : "=r"(cancelled) : "r"(r));
  p[0] = cancelled;
}
