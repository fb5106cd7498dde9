// HSTU-style pointwise attention (no softmax): weights are silu of the scaled scores plus an
// optional relative-position bias, divided by a fixed length instead of a normalizing sum, with
// the output optionally gated by u.
//
//   hstu_attn(out, q, k, v, u, rel_bias, Sq, Sk, H, alpha, max_len, causal, max_pos, gate)
//     q, u [B, Sq, H, D], k/v [B, Sk, H, D], out [B, Sq, H, D] (T); rel_bias [2 * max_pos - 1] (T)
//     s_ij = alpha * q[b, i, h]·k[b, j, h] + bias(i, j)
//     out[b, i, h] = g * sum_{j visible} silu(s_ij) / n * v[b, j, h]
//     silu(x) = x / (1 + exp(-x)); n = max_len if max_len > 0, else Sk; visible: every j < Sk,
//     or with causal (non-zero) j <= i + Sk - Sq (bottom-right aligned). A row with no visible
//     key is 0. Hq = Hkv = H (HSTU has no grouped heads).
//     bias: 0 when max_pos is 0; else, with the query at position p_i = i + Sk - Sq (aligned as
//     the causal mask) and rel = p_i - j clamped to [-(max_pos - 1), max_pos - 1],
//     bias = rel_bias[rel + max_pos - 1] (one learned table shared by the heads; relative
//     positions past the table reuse its end entries).
//     g: u[b, i, h] elementwise when gate is non-zero, else 1. The multiply is in f32 before the
//     one rounding of the store.
// Grid: (ceil(Sq / 32), H, B); block: 128 threads; shared memory: static, the Tile of fwd_block.h
// (the probability buffer holds the pointwise weights).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

// The learned bias of query position p and key j; 0 without a table.
HK_DEVICE float rel_pos_bias(const T* rel_bias, int max_pos, int p, int j) {
  if (max_pos <= 0) return 0.f;
  const int lim = max_pos - 1;
  const int rel = p - j < -lim ? -lim : (p - j > lim ? lim : p - j);
  return hk::to_f32(rel_bias[rel + lim]);
}

HK_KERNEL void hstu_attn(T* out, const T* q, const T* k, const T* v, const T* u, const T* rel_bias,
                         i32 Sq, i32 Sk, i32 H, f32 alpha, i32 max_len, i32 causal, i32 max_pos,
                         i32 gate) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, h = blockIdx.y, r0 = blockIdx.x * FwdTile::BM;
  const long long stride = (long long)H * HEAD_DIM;
  const long long kv_off = ((long long)b * Sk * H + h) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, stride};
  FwdTile t;
  const int i = r0 + (int)threadIdx.x / FwdTile::TPR;
  const bool valid = i < Sq;
  const long long off = ((long long)b * Sq + i) * stride + (long long)h * HEAD_DIM;
  t.begin(s, valid ? q + off : (const T*)nullptr, alpha, causal_hi(i, Sq, Sk, causal != 0));
  const int last = (r0 + FwdTile::BM < Sq ? r0 + FwdTile::BM : Sq) - 1;
  const int j_end = causal_hi(last, Sq, Sk, causal != 0);
  const float inv_n = 1.f / (float)(max_len > 0 ? max_len : Sk);
  const int pos = i + Sk - Sq;  // this query's position among the keys
  for (int j0 = 0; j0 < j_end; j0 += FwdTile::BN) {
    __syncthreads();  // q stores / previous V tile reads are done
    FwdTile::load_kv(s, src, 0, j0, j_end);
    __syncthreads();
    float sc[FwdTile::CPT];
    t.scores(s, j0, j_end, sc);
    for (int c = 0; c < FwdTile::CPT; ++c) {
      if (sc[c] == neg_inf()) {  // masked
        s.p[t.row * FwdTile::BN + t.col(c)] = 0.f;
        continue;
      }
      const float x = sc[c] + rel_pos_bias(rel_bias, max_pos, pos, j0 + t.col(c));
      s.p[t.row * FwdTile::BN + t.col(c)] = x / (1.f + expf(-x)) * inv_n;
    }
    __syncthreads();  // K tile reads are done, weights are visible
    FwdTile::load_kv(s, src, 1, j0, j_end);
    __syncthreads();
    t.pv(s);
  }
  if (!valid) return;
  for (int c = 0; c < FwdTile::DPT; ++c) {
    const float g = gate != 0 ? hk::to_f32(u[off + t.col(c)]) : 1.f;
    out[off + t.col(c)] = hk::from_f32<T>(t.acc[c] * g);
  }
}
