// Row-wise numerically stable softmax over the last dimension, one block per row.
//
//   softmax(out, x, N):  out[r, j] = exp(x[r, j] - max_r) / sum_k exp(x[r, k] - max_r)
//
// T (f32, bf16, f16) is the storage type; all math is in f32.
// Pass 1 reads the row once: each thread keeps an online pair (m = running max of its elements,
// s = sum of exp(x - m)), rescaling s whenever m grows; the block then combines the pairs:
// row_max = max(m), row_sum = sum(s * exp(m - row_max)). Pass 2 writes exp(x - row_max) / row_sum,
// re-reading the row (just read by this block, so served by L1/L2; no shared buffer, any N).
// Grid: one block per row; block: any multiple of HK_WARP_SIZE up to 1024; any N >= 1.
// -inf inputs (masking) give 0; a row that is entirely -inf gives NaN (0/0), like PyTorch.
#include "hkcheck.h"

HK_KERNEL void softmax(T* __restrict__ out, const T* __restrict__ x, i32 N) {
  const i64 off = (i64)blockIdx.x * N;
  const T* xr = x + off;
  T* orow = out + off;

  // m starts at -FLT_MAX, not -inf: then exp(v - m) never sees (-inf) - (-inf) = NaN, and a
  // thread with no element (N < blockDim.x) contributes s = 0 to the sum.
  float m = -3.402823466e38f, s = 0.0f;
  for (i32 i = threadIdx.x; i < N; i += blockDim.x) {
    const float v = hk::to_f32(xr[i]);
    if (v > m) {
      s = s * expf(m - v) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  const float row_max = hk::block_max(m);
  const float row_sum = hk::block_sum(s * expf(m - row_max));
  const float inv_sum = 1.0f / row_sum;

  for (i32 i = threadIdx.x; i < N; i += blockDim.x)
    orow[i] = hk::from_f32<T>(expf(hk::to_f32(xr[i]) - row_max) * inv_sum);
}
