// MoE align-block-size: groups the flat (token, k) routing slots by expert, each expert's group
// padded to a multiple of BM rows, so that a grouped GEMM can give every BM-row block one expert.
//
//   moe_align_block_size(topk_ids [N] i32, sorted_token_ids [S] i32, expert_ids [NB] i32,
//                        num_tokens_post_padded [1] i32, cumsum [E + 1] i32 (may be null),
//                        N = T * topk, E, BM)
//   S  = N + E * (BM - 1)      the worst-case padded length
//   NB = ceil_div(S, BM)       its number of BM-row blocks
//
// Slot i = t * topk + k holds expert topk_ids[i]; ids outside [0, E) are dropped. With cnt[e]
// the slots of expert e and pad[e] = ceil(cnt[e] / BM) * BM, expert e's group is the positions
// [cumsum[e], cumsum[e + 1]) of sorted_token_ids, cumsum[e] = sum_{e' < e} pad[e']:
//   - its first cnt[e] entries are the slot indices i of expert e in increasing i (a stable
//     counting sort: the output is deterministic);
//   - the remaining pad[e] - cnt[e] entries are the sentinel N.
// num_tokens_post_padded[0] = cumsum[E] = sum of pad; sorted_token_ids from there to S holds N.
// expert_ids[b] is the expert owning block b (positions [b * BM, (b + 1) * BM)) for
// b < num_tokens_post_padded / BM, and -1 for the unused blocks up to NB.
//
// Grid: 1 block; block: any multiple of HK_WARP_SIZE up to 1024. Dynamic shared memory:
// 4 * (2E + 1 + (blockDim / warp size) * E) bytes (routing_common.h, align_block_size).
#include "hkcheck.h"
#include "routing_common.h"

HK_KERNEL void moe_align_block_size(const i32* __restrict__ topk_ids, i32* __restrict__ sorted_token_ids,
                                    i32* __restrict__ expert_ids, i32* __restrict__ num_tokens_post_padded,
                                    i32* __restrict__ cumsum, i32 N, i32 E, i32 BM) {
  HK_DYNAMIC_SHARED(i32, smem);
  const i32 S = N + E * (BM - 1);
  moe::align_block_size(topk_ids, N, E, BM, sorted_token_ids, S, expert_ids, hk::ceil_div(S, BM),
                        num_tokens_post_padded, cumsum, nullptr, smem);
}
