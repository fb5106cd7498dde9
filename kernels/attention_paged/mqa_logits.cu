// MQA logits over a paged key cache (the scores of a sparse-attention indexer): every query head
// of a decode token against every cached key of its sequence, one kv head (MQA).
//
//   pa_mqa_logits(logits, q, k_cache, block_tables, seq_lens, H, page_size, max_blocks, scale)
//     q        [B, H, D] (T)            k_cache [num_blocks, page_size, D] (T)
//     logits   [B, H, max_blocks * page_size] f32
//     logits[b, h, j] = scale * q[b, h]·k[j] for j < seq_lens[b]; -inf for j >= seq_lens[b]
//   fp8_mqa_logits(logits, q, k_cache, k_scales, block_tables, seq_lens, H, page_size, max_blocks,
//                  scale)
//     q fp8e4m3 [B, H, D], k_cache fp8e4m3 [num_blocks, page_size, D], k_scales f32
//     [num_blocks, page_size] (one dequantization scale per cached token, same paging as k):
//     logits[b, h, j] = scale * k_scales[page, slot] * (q[b, h]·k[j]) for j < seq_lens[b], else -inf.
//     (Per head, no ReLU: the indexer op's weighted ReLU sum over heads is indexer_logits.cu.)
//   block_tables [B, max_blocks] i32: token j of sequence b is slot j % page_size of page
//   block_tables[b, j / page_size]; entries of pages past seq_lens[b] are never read.
//   Dot products in f32 (fp8 values are exact in f32). D = HEAD_DIM, T (defines).
// Grid: (max_blocks, B): one block per (table entry, sequence); block: 128 threads, each thread
// computes (head, slot) pairs. Dynamic shared: page_size * (D + 1) * 4 bytes (the page's keys in
// f32, rows padded by one against bank conflicts).
#include "hkcheck.h"

HK_DEVICE float logits_neg_inf() { return -__int_as_float(0x7f800000); }

template <typename QT>
HK_DEVICE void logits_page(f32* logits, const QT* q, const QT* k_cache, const f32* k_scales,
                           const i32* block_tables, const i32* seq_lens, int H, int page,
                           int max_blocks, float scale) {
  HK_DYNAMIC_SHARED(float, ks);
  constexpr int D = HEAD_DIM, LD = HEAD_DIM + 1;
  const int b = blockIdx.y, blk = blockIdx.x;
  const int len = seq_lens[b], j0 = blk * page;
  const long long width = (long long)max_blocks * page;
  f32* lrow = logits + (long long)b * H * width;
  if (j0 >= len) {  // block-uniform: a page past the sequence's end, never read
    for (int idx = threadIdx.x; idx < H * page; idx += blockDim.x)
      lrow[(idx / page) * width + j0 + idx % page] = logits_neg_inf();
    return;
  }
  const long long pg = block_tables[(long long)b * max_blocks + blk];
  for (int idx = threadIdx.x; idx < page * D; idx += blockDim.x)
    ks[(idx / D) * LD + idx % D] = hk::to_f32(k_cache[pg * page * D + idx]);
  __syncthreads();
  for (int idx = threadIdx.x; idx < H * page; idx += blockDim.x) {
    const int h = idx / page, t = idx % page, j = j0 + t;
    float v = logits_neg_inf();
    if (j < len) {
      const QT* qr = q + ((long long)b * H + h) * D;
      const float* kr = ks + t * LD;
      float dot = 0.f;
      for (int d = 0; d < D; ++d) dot += hk::to_f32(qr[d]) * kr[d];
      const float ksc = k_scales ? k_scales[pg * page + t] : 1.f;
      v = scale * ksc * dot;
    }
    lrow[h * width + j] = v;
  }
}

HK_KERNEL void pa_mqa_logits(f32* logits, const T* q, const T* k_cache, const i32* block_tables,
                             const i32* seq_lens, i32 H, i32 page_size, i32 max_blocks, f32 scale) {
  logits_page<T>(logits, q, k_cache, (const f32*)nullptr, block_tables, seq_lens, H, page_size,
                 max_blocks, scale);
}

HK_KERNEL void fp8_mqa_logits(f32* logits, const fp8e4m3* q, const fp8e4m3* k_cache,
                              const f32* k_scales, const i32* block_tables, const i32* seq_lens,
                              i32 H, i32 page_size, i32 max_blocks, f32 scale) {
  logits_page<fp8e4m3>(logits, q, k_cache, k_scales, block_tables, seq_lens, H, page_size,
                       max_blocks, scale);
}
