// MoE top-k gating: softmax over the E experts of each token, its K best experts, and
// optionally the K weights renormalized to sum to 1.
//
//   moe_topk(gating_output [T, E] T, topk_weights [T, K] f32, topk_ids [T, K] i32,
//            T_, E, K, renormalize)
//   p[t, e]          = exp(g[t, e] - max_e g[t, :]) / sum_e exp(g[t, e] - max_e g[t, :])   (f32)
//   topk_ids[t, :]   = the K experts of row t by logit descending, ties to the smaller index
//   topk_weights[t,k]= p[t, topk_ids[t, k]], divided by sum_k p[t, topk_ids[t, k]] when
//                      renormalize != 0
// The element type T (f32, bf16) is a define; arithmetic is f32. Requires 1 <= K <= E.
//
// Grid: any number of blocks; block: any multiple of HK_WARP_SIZE up to 1024. One warp per
// token row, rows taken grid-stride, so any grid covers T whatever the warp size.
#include "hkcheck.h"
#include "routing_common.h"

HK_KERNEL void moe_topk(const T* __restrict__ gating_output, f32* __restrict__ topk_weights,
                        i32* __restrict__ topk_ids, i32 num_tokens, i32 E, i32 K, i32 renormalize) {
  const i32 warps = (i32)(blockDim.x / HK_WARP_SIZE);
  for (i32 t = (i32)blockIdx.x * warps + hk::warp_id(); t < num_tokens; t += (i32)gridDim.x * warps)
    moe::softmax_topk_row(gating_output + (i64)t * E, E, K, renormalize, topk_weights + (i64)t * K,
                          topk_ids + (i64)t * K);
}
