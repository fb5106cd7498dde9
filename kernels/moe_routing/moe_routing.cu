// A whole MoE router in one launch: softmax top-k of every token, the per-expert histogram, and
// the align-block-size grouping of the routed slots (moe_align_block_size.cu).
//
//   moe_routing(logits [T, E] T, topk_weights [T, K] f32, topk_ids [T, K] i32, hist [E] i32,
//               sorted_token_ids [S] i32, expert_ids [NB] i32, num_tokens_post_padded [1] i32,
//               ticket [1] i32 (workspace), T_, E, K, renormalize, BM, ROWS)
//   topk_weights, topk_ids: as moe_topk.cu (softmax, top K by logit with ties to the smaller
//     index, renormalized when renormalize != 0)
//   hist[e]: the number of slots (t, k) routed to e
//   sorted_token_ids, expert_ids, num_tokens_post_padded: as moe_align_block_size.cu over the
//     N = T * K slots i = t * K + k, with S = N + E * (BM - 1) and NB = ceil_div(S, BM)
//   ticket must be 0 at the launch and is 0 again at its end.
//
// Grid: ceil_div(T, ROWS) blocks; block b routes rows [b * ROWS, min(T, (b + 1) * ROWS)), one
// warp per row. Then every block takes a ticket; the last block (all ids written and fenced)
// counts, scans and places the slots for the whole batch and resets the ticket. Block: any
// multiple of HK_WARP_SIZE up to 1024. Dynamic shared memory: as moe_align_block_size.cu.
#include "hkcheck.h"
#include "routing_common.h"

HK_KERNEL void moe_routing(const T* __restrict__ logits, f32* __restrict__ topk_weights, i32* topk_ids,
                           i32* __restrict__ hist, i32* __restrict__ sorted_token_ids, i32* __restrict__ expert_ids,
                           i32* __restrict__ num_tokens_post_padded, i32* ticket, i32 num_tokens, i32 E, i32 K,
                           i32 renormalize, i32 BM, i32 ROWS) {
  HK_DYNAMIC_SHARED(i32, smem);
  const i32 warps = (i32)(blockDim.x / HK_WARP_SIZE);
  const i32 r1 = min(num_tokens, ((i32)blockIdx.x + 1) * ROWS);
  for (i32 t = (i32)blockIdx.x * ROWS + hk::warp_id(); t < r1; t += warps)
    moe::softmax_topk_row(logits + (i64)t * E, E, K, renormalize, topk_weights + (i64)t * K, topk_ids + (i64)t * K);

  __shared__ i32 is_last;
  __threadfence();  // this block's ids are visible device-wide before its ticket
  __syncthreads();
  if (threadIdx.x == 0) is_last = atomicAdd(ticket, 1) == (i32)gridDim.x - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  const i32 N = num_tokens * K, S = N + E * (BM - 1);
  moe::align_block_size(topk_ids, N, E, BM, sorted_token_ids, S, expert_ids, hk::ceil_div(S, BM),
                        num_tokens_post_padded, nullptr, hist, smem);
  if (threadIdx.x == 0) ticket[0] = 0;
}
