// Known bad: the sparse-attention indexer (kernels/attention_paged/indexer_logits.cu) without its
// ReLU: logits[b, j] = sum_h w[b, h] * (q[b, h]·k[j]) instead of sum_h w[b, h] * relu(q[b, h]·k[j]).
// This is exactly the per-head q·k the earlier mqa_logits entries computed, folded over heads, so
// a reference that only checked that much would pass it. Every logit with a head whose q·k < 0
// is wrong (almost all of them at 8 heads); the -inf past each sequence's end stays right.
//
// kb_indexer_no_relu(logits, q, k_cache, weights, block_tables, seq_lens, H, page_size,
// max_blocks): layouts as pa_indexer_logits (T = bf16, D = HEAD_DIM). Grid: (max_blocks, B);
// block: any size, a thread per slot of the page. Self-contained on purpose.
#include "hkcheck.h"

HK_KERNEL void kb_indexer_no_relu(f32* logits, const T* q, const T* k_cache, const f32* weights,
                                  const i32* block_tables, const i32* seq_lens, i32 H, i32 page,
                                  i32 max_blocks) {
  constexpr int D = HEAD_DIM;
  const int b = blockIdx.y, j0 = blockIdx.x * page, len = seq_lens[b];
  f32* lrow = logits + (long long)b * max_blocks * page;
  for (int t = threadIdx.x; t < page; t += blockDim.x) {
    if (j0 + t >= len) {
      lrow[j0 + t] = -__int_as_float(0x7f800000);
      continue;
    }
    const long long slot = (long long)block_tables[(long long)b * max_blocks + blockIdx.x] * page + t;
    float v = 0.f;
    for (int h = 0; h < H; ++h) {
      float dot = 0.f;
      for (int d = 0; d < D; ++d)
        dot += hk::to_f32(q[((long long)b * H + h) * D + d]) * hk::to_f32(k_cache[slot * D + d]);
      v += weights[(long long)b * H + h] * dot;  // the bug: no fmaxf(dot, 0.f)
    }
    lrow[j0 + t] = v;
  }
}
