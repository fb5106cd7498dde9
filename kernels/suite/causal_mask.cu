// Causal mask applied in place to attention scores.
//
//   causal_mask(scores, seq_q, seq_k):
//     scores[b, h, i, j] = -inf  where j > i + (seq_k - seq_q)   (the future of query i)
//     scores[b, h, i, j] unchanged otherwise
//
// Layout: scores [batch, heads, seq_q, seq_k] f32, row-major, in place. With seq_q == seq_k this
// is "-inf above the diagonal"; with seq_q < seq_k the queries are the last seq_q positions
// (bottom-right aligned, as in decoding with a cache). The fill is a true -inf (not a large
// negative number): a softmax then gives exactly 0 to masked keys, and hkcheck compares -inf with
// -inf as equal. Grid (ceil_div(seq_k, blockDim.x), seq_q, batch * heads); one thread per score.
#include "hkcheck.h"

HK_KERNEL void causal_mask(f32* __restrict__ scores, i32 seq_q, i32 seq_k) {
  const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  const int i = (int)blockIdx.y;
  if (j >= seq_k) return;
  if (j > i + (seq_k - seq_q)) {
    const i64 row = (i64)blockIdx.z * seq_q + i;
    scores[row * seq_k + j] = -__int_as_float(0x7f800000);
  }
}
