// Fused MoE router for top-1 with a sigmoid gate: the router matmul, the argmax and the gate.
//
//   moe_routing_sigmoid_top1_fused(x [T, H] bf16, w [E, H] bf16, topk_ids [T, 1] i32,
//                                  topk_weights [T, 1] f32, H, E)
//   logit[t, e]     = sum_h x[t, h] * w[e, h]        (f32 products and accumulation)
//   topk_ids[t]     = argmax_e logit[t, e], ties to the smaller e
//   topk_weights[t] = sigmoid(logit[t, topk_ids[t]]) = 1 / (1 + exp(-logit))
//
// Grid: T blocks, one token each; block: any multiple of HK_WARP_SIZE up to 1024. Warp w takes
// experts w, w + nwarps, ...: its lanes stride over H (the token's row is re-read from L1/L2 per
// expert), a warp sum gives the logit, and lane 0 keeps the warp's best; the block then takes
// the best of the warps. Each warp visits its experts in increasing order and keeps a strictly
// larger logit only, so the smaller index wins a tie at both levels.
#include "hkcheck.h"

HK_KERNEL void moe_routing_sigmoid_top1_fused(const bf16* __restrict__ x, const bf16* __restrict__ w,
                                              i32* __restrict__ topk_ids, f32* __restrict__ topk_weights,
                                              i32 H, i32 E) {
  __shared__ float s_val[1024 / 32];
  __shared__ i32 s_idx[1024 / 32];
  const bf16* xr = x + (i64)blockIdx.x * H;
  const int nwarps = (int)(blockDim.x / HK_WARP_SIZE), warp = hk::warp_id(), lane = hk::lane_id();

  float best = -__int_as_float(0x7f800000);
  i32 best_e = 0x7fffffff;
  for (i32 e = warp; e < E; e += nwarps) {
    const bf16* wr = w + (i64)e * H;
    float acc = 0.0f;
    for (i32 h = lane; h < H; h += HK_WARP_SIZE) acc += hk::to_f32(xr[h]) * hk::to_f32(wr[h]);
    acc = hk::warp_sum(acc);
    if (acc > best) { best = acc; best_e = e; }
  }
  if (lane == 0) { s_val[warp] = best; s_idx[warp] = best_e; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < nwarps; ++i)
      if (s_val[i] > best || (s_val[i] == best && s_idx[i] < best_e)) { best = s_val[i]; best_e = s_idx[i]; }
    topk_ids[blockIdx.x] = best_e;
    topk_weights[blockIdx.x] = 1.0f / (1.0f + expf(-best));
  }
}
