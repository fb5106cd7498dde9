// Non-causal attention, one block per query row, online softmax over tiles of keys.
//
//   flash_nocausal(out, q, k, v, scale, seq_q, seq_k, D):
//     out[b, h, i, :] = sum_j softmax_j(scale * q[b, h, i, :] . k[b, h, j, :]) * v[b, h, j, :]
//
// Layouts (f32, row-major): q, out [batch, heads, seq_q, D]; k, v [batch, heads, seq_k, D].
// Grid (seq_q, heads, batch); block BLOCK threads (32 in the suite: a full warp on NVIDIA, half a
// wavefront on AMD, so every reduction goes through shared memory, never a warp shuffle).
// Shared memory: s_scores[BLOCK] (the tile's exp-weights), s_partial[BLOCK] (reductions) and a
// dynamic buffer of D floats (the output accumulator; launch.shared = 4 * D bytes).
// Each tile of BLOCK keys: thread t scores key j0 + t (f32 dot product), the block takes the
// tile's max, rescales the running sum l and accumulator by exp(m_old - m_new), adds the tile's
// exp(s - m_new) weights; thread t owns output dims t, t + BLOCK, ... Any seq_q, seq_k >= 1, D >= 1.
#include "hkcheck.h"
#include "suite_reduce.h"

#ifndef BLOCK
#define BLOCK 32
#endif

HK_KERNEL void flash_nocausal(f32* __restrict__ out, const f32* __restrict__ q, const f32* __restrict__ k,
                              const f32* __restrict__ v, f32 scale, i32 seq_q, i32 seq_k, i32 D) {
  __shared__ f32 s_scores[BLOCK];
  __shared__ f32 s_partial[BLOCK];
  HK_DYNAMIC_SHARED(f32, s_acc);
  const int t = (int)threadIdx.x, nt = (int)blockDim.x;
  const i64 bh = (i64)blockIdx.z * gridDim.y + blockIdx.y;
  const f32* qr = q + (bh * seq_q + blockIdx.x) * D;
  const f32* kb = k + bh * seq_k * D;
  const f32* vb = v + bh * seq_k * D;

  for (int d = t; d < D; d += nt) s_acc[d] = 0.f;  // each thread touches only its own dims
  // m starts at -FLT_MAX, not -inf: exp(m - m_new) is then 0, never exp(-inf - -inf) = NaN.
  float m = -3.402823466e38f, l = 0.f;
  for (int j0 = 0; j0 < seq_k; j0 += nt) {
    const int j = j0 + t;
    float sc = -3.402823466e38f;
    if (j < seq_k) {
      float dot = 0.f;
      for (int d = 0; d < D; ++d) dot += qr[d] * kb[(i64)j * D + d];
      sc = dot * scale;
    }
    const float m_new = fmaxf(m, suite::block_max(sc, s_partial));
    const float p = j < seq_k ? expf(sc - m_new) : 0.f;
    s_scores[t] = p;
    const float alpha = expf(m - m_new);
    l = l * alpha + suite::block_sum(p, s_partial);  // its barriers also publish s_scores
    const int nj = min(nt, seq_k - j0);
    for (int d = t; d < D; d += nt) {
      float acc = s_acc[d] * alpha;
      for (int jj = 0; jj < nj; ++jj) acc += s_scores[jj] * vb[(i64)(j0 + jj) * D + d];
      s_acc[d] = acc;
    }
    m = m_new;
    __syncthreads();  // s_scores is rewritten by the next tile
  }
  const float inv_l = 1.f / l;
  f32* orow = out + (bh * seq_q + blockIdx.x) * D;
  for (int d = t; d < D; d += nt) orow[d] = s_acc[d] * inv_l;
}
