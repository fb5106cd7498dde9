// Known bad (LEAK): non-causal attention (as kernels/suite/flash_nocausal.cu: one block of
// BLOCK threads per query row, grid (seq_q, heads, batch), layouts [batch, heads, seq, D] f32,
// launch.shared = 4 * D) that keeps each row's running softmax denominator in a __device__
// scratch array it assumes to be zero and never resets.
//
// A freshly loaded program has the array zeroed, so the first case in a worker is right. The
// next case of the same loaded program starts each row's denominator from the sum the previous
// case left in that slot: every output row comes out scaled down, by a few percent up to most of
// its value. Alone in a fresh worker that case passes, so hkcheck reports it as LEAK. The stale
// value is read from global memory after a barrier, so no compiler can fold it away.
// Blocks must number at most KB_SLOTS (seq_q * heads * batch); the corpus cases use <= 128.
#include "hkcheck.h"

#define KB_BLOCK 32
#define KB_SLOTS 4096

__device__ f32 kb_attn_row_sum[KB_SLOTS];  // bug: "zero", but only until the first launch

// Block reduction through shared memory (any warp size; 32 threads are half an AMD wavefront).
template <bool is_max>
__device__ float kb_reduce(float v, float* buf) {
  const int t = (int)threadIdx.x;
  buf[t] = v;
  __syncthreads();
  for (int half = KB_BLOCK / 2; half > 0; half /= 2) {
    if (t < half) buf[t] = is_max ? fmaxf(buf[t], buf[t + half]) : buf[t] + buf[t + half];
    __syncthreads();
  }
  const float r = buf[0];
  __syncthreads();
  return r;
}

// Launch with blockDim.x == KB_BLOCK.
HK_KERNEL void attention_state_leak(f32* out, const f32* q, const f32* k, const f32* v, f32 scale,
                                    i32 seq_q, i32 seq_k, i32 D) {
  __shared__ f32 s_scores[KB_BLOCK];
  __shared__ f32 s_partial[KB_BLOCK];
  HK_DYNAMIC_SHARED(f32, s_acc);
  const int t = (int)threadIdx.x;
  const i64 bh = (i64)blockIdx.z * gridDim.y + blockIdx.y;
  const i64 row = bh * seq_q + blockIdx.x;  // also this block's scratch slot
  const f32* qr = q + row * D;
  const f32* kb = k + bh * seq_k * D;
  const f32* vb = v + bh * seq_k * D;

  for (int d = t; d < D; d += KB_BLOCK) s_acc[d] = 0.f;
  float m = 0.f;  // the running max starts at 0, as the zeroed scratch would have it
  for (int j0 = 0; j0 < seq_k; j0 += KB_BLOCK) {
    const int j = j0 + t;
    float sc = -3.402823466e38f;
    if (j < seq_k) {
      float dot = 0.f;
      for (int d = 0; d < D; ++d) dot += qr[d] * kb[(i64)j * D + d];
      sc = dot * scale;
    }
    const float m_new = fmaxf(m, kb_reduce<true>(sc, s_partial));
    const float p = j < seq_k ? expf(sc - m_new) : 0.f;
    s_scores[t] = p;
    const float alpha = expf(m - m_new);
    const float tile_sum = kb_reduce<false>(p, s_partial);
    if (t == 0) kb_attn_row_sum[row] = kb_attn_row_sum[row] * alpha + tile_sum;  // accumulates onto stale data
    const int nj = min(KB_BLOCK, seq_k - j0);
    for (int d = t; d < D; d += KB_BLOCK) {
      float acc = s_acc[d] * alpha;
      for (int jj = 0; jj < nj; ++jj) acc += s_scores[jj] * vb[(i64)(j0 + jj) * D + d];
      s_acc[d] = acc;
    }
    m = m_new;
    __syncthreads();
  }
  const float inv_l = 1.f / static_cast<volatile f32*>(kb_attn_row_sum)[row];  // thread 0's sum, after the barrier
  for (int d = t; d < D; d += KB_BLOCK) out[row * D + d] = s_acc[d] * inv_l;
}
