// The sparse-attention indexer's logits over a paged key cache: for every decode token and every
// cached key of its sequence, a weighted sum over the query heads of ReLU(q_h·k); one kv head is
// shared by all query heads (MQA). The top-k of these logits picks the keys that attention reads.
//
//   pa_indexer_logits(logits, q, k_cache, weights, block_tables, seq_lens, H, page_size, max_blocks)
//     q [B, H, D] (T), k_cache [num_blocks, page_size, D] (T), weights [B, H] f32
//     logits [B, max_blocks * page_size] f32
//     logits[b, j] = sum_h weights[b, h] * relu(q[b, h]·k[j]) for j < seq_lens[b]; -inf beyond
//   fp8_indexer_logits(logits, q, k_cache, k_scales, weights, block_tables, seq_lens, H, page_size,
//                      max_blocks)
//     q, k_cache fp8e4m3; k_scales f32 [num_blocks, page_size] (one dequantization scale per cached
//     token, same paging as k):
//     logits[b, j] = sum_h weights[b, h] * relu(k_scales[page, slot] * (q[b, h]·k[j])), else -inf.
//   The weights carry the softmax scale (and any scale of q), as the real op folds them in; there
//   is no separate scale argument. Weights may be negative; ReLU acts before the weight.
//   block_tables [B, max_blocks] i32: token j of sequence b is slot j % page_size of page
//   block_tables[b, j / page_size]; entries of pages past seq_lens[b] are never read.
//   Dot products in f32 (fp8 values are exact in f32). D = HEAD_DIM, T (defines).
// Grid: (max_blocks, B): one block per (table entry, sequence); block: 128 threads. Each thread takes
// one slot of the page and every hs-th head (hs = blockDim / page_size head splits, at least 1); the
// splits' partial sums are added in a fixed order, so the result does not depend on scheduling.
// Dynamic shared: (page_size * (D + 1) + max(page_size, blockDim)) * 4 bytes: the page's keys in f32
// (rows padded by one against bank conflicts), then the partial sums.
#include "hkcheck.h"

HK_DEVICE float indexer_neg_inf() { return -__int_as_float(0x7f800000); }

template <typename QT>
HK_DEVICE void indexer_page(f32* logits, const QT* q, const QT* k_cache, const f32* k_scales,
                            const f32* weights, const i32* block_tables, const i32* seq_lens, int H,
                            int page, int max_blocks) {
  HK_DYNAMIC_SHARED(float, ks);
  constexpr int D = HEAD_DIM, LD = HEAD_DIM + 1;
  float* part = ks + page * LD;
  const int b = blockIdx.y, blk = blockIdx.x;
  const int len = seq_lens[b], j0 = blk * page;
  f32* lrow = logits + (long long)b * max_blocks * page;
  if (j0 >= len) {  // block-uniform: a page past the sequence's end, never read
    for (int t = threadIdx.x; t < page; t += blockDim.x) lrow[j0 + t] = indexer_neg_inf();
    return;
  }
  const long long pg = block_tables[(long long)b * max_blocks + blk];
  for (int idx = threadIdx.x; idx < page * D; idx += blockDim.x)
    ks[(idx / D) * LD + idx % D] = hk::to_f32(k_cache[pg * page * D + idx]);
  __syncthreads();
  const int hs = (int)blockDim.x / page > 1 ? (int)blockDim.x / page : 1;
  for (int idx = threadIdx.x; idx < page * hs; idx += blockDim.x) {
    const int t = idx % page, s = idx / page;
    float acc = 0.f;
    if (j0 + t < len) {
      const float* kr = ks + t * LD;
      const float ksc = k_scales ? k_scales[pg * page + t] : 1.f;
      for (int h = s; h < H; h += hs) {
        const QT* qr = q + ((long long)b * H + h) * D;
        float dot = 0.f;
        for (int d = 0; d < D; ++d) dot += hk::to_f32(qr[d]) * kr[d];
        acc += weights[(long long)b * H + h] * fmaxf(ksc * dot, 0.f);
      }
    }
    part[idx] = acc;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < page; t += blockDim.x) {
    float v = indexer_neg_inf();
    if (j0 + t < len) {
      v = 0.f;
      for (int s = 0; s < hs; ++s) v += part[s * page + t];
    }
    lrow[j0 + t] = v;
  }
}

HK_KERNEL void pa_indexer_logits(f32* logits, const T* q, const T* k_cache, const f32* weights,
                                 const i32* block_tables, const i32* seq_lens, i32 H, i32 page_size,
                                 i32 max_blocks) {
  indexer_page<T>(logits, q, k_cache, (const f32*)nullptr, weights, block_tables, seq_lens, H,
                  page_size, max_blocks);
}

HK_KERNEL void fp8_indexer_logits(f32* logits, const fp8e4m3* q, const fp8e4m3* k_cache,
                                  const f32* k_scales, const f32* weights, const i32* block_tables,
                                  const i32* seq_lens, i32 H, i32 page_size, i32 max_blocks) {
  indexer_page<fp8e4m3>(logits, q, k_cache, k_scales, weights, block_tables, seq_lens, H, page_size,
                        max_blocks);
}
