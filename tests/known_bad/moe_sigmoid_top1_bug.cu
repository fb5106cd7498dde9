// Known bad: a top-1 sigmoid MoE router whose argmax never leaves expert 0.
//
//   moe_routing_sigmoid_top1_fused(x [T, H] bf16, w [E, H] bf16, topk_ids [T, 1] i32,
//                                  topk_weights [T, 1] f32, H, E)
// Meant: logit[t, e] = x[t, :] . w[e, :] (f32), topk_ids[t] = argmax_e (ties to the smaller
// e), topk_weights[t] = sigmoid(that logit): the contract of
// kernels/moe_routing/sigmoid_top1.cu, whose reference (moe_routing_sigmoid_top1) judges it.
// The bug: the loop over experts updates copies of the running best that live only inside the
// loop body, so the best stays at expert 0: every id is 0 and every weight is
// sigmoid(logit[t, 0]). Both are wrong wherever expert 0 is not the argmax, and right where it
// is. Grid: T blocks, one token each (as the correct kernel); block: any, thread 0 does it all.
#include "hkcheck.h"

HK_DEVICE float router_logit(const bf16* xr, const bf16* wr, i32 H) {
  float acc = 0.0f;
  for (i32 h = 0; h < H; ++h) acc += hk::to_f32(xr[h]) * hk::to_f32(wr[h]);
  return acc;
}

HK_KERNEL void moe_routing_sigmoid_top1_fused(const bf16* __restrict__ x, const bf16* __restrict__ w,
                                              i32* __restrict__ topk_ids, f32* __restrict__ topk_weights,
                                              i32 H, i32 E) {
  if (threadIdx.x != 0) return;
  const i32 t = (i32)blockIdx.x;
  const bf16* xr = x + (i64)t * H;
  float best = router_logit(xr, w, H);
  i32 best_e = 0;
  for (i32 e = 1; e < E; ++e) {
    const float acc = router_logit(xr, w + (i64)e * H, H);
    float best_v = best;  // BUG: meant to update best and best_e, updates these copies instead
    i32 best_i = best_e;
    if (acc > best_v) { best_v = acc; best_i = e; }
  }
  topk_ids[t] = best_e;
  topk_weights[t] = 1.0f / (1.0f + expf(-best));
}
