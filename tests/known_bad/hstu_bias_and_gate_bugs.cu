// Known bad: kernels/attention/hstu_attn.cu (same contract, tiling and arguments) with one of
// two hand-made bugs in the HSTU parts of the op, each a kernel of its own:
//  - hstu_bias_sign_flipped reads the relative-position bias at j - p instead of p - j: right
//    for distance 0 and with a one-entry table, wrong for every other pair;
//  - hstu_gate_skipped stores the attention without multiplying it by u.
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

template <int kSign>
HK_DEVICE float kb_rel_bias(const T* rel_bias, int max_pos, int p, int j) {
  if (max_pos <= 0) return 0.f;
  const int lim = max_pos - 1, d = kSign * (p - j);
  return hk::to_f32(rel_bias[(d < -lim ? -lim : (d > lim ? lim : d)) + lim]);
}

// The body of hstu_attn; the entries below declare the shared tile (see online_softmax.h).
template <int kSign, bool kGate>
HK_DEVICE void kb_hstu(FwdTile::Smem& s, T* out, const T* q, const T* k, const T* v, const T* u,
                       const T* rel_bias, int Sq, int Sk, int H, float alpha, int max_len,
                       int causal, int max_pos, int gate) {
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
  for (int j0 = 0; j0 < j_end; j0 += FwdTile::BN) {
    __syncthreads();
    FwdTile::load_kv(s, src, 0, j0, j_end);
    __syncthreads();
    float sc[FwdTile::CPT];
    t.scores(s, j0, j_end, sc);
    for (int c = 0; c < FwdTile::CPT; ++c) {
      float w = 0.f;
      if (sc[c] != neg_inf()) {
        const float x = sc[c] + kb_rel_bias<kSign>(rel_bias, max_pos, i + Sk - Sq, j0 + t.col(c));
        w = x / (1.f + expf(-x)) * inv_n;
      }
      s.p[t.row * FwdTile::BN + t.col(c)] = w;
    }
    __syncthreads();
    FwdTile::load_kv(s, src, 1, j0, j_end);
    __syncthreads();
    t.pv(s);
  }
  if (!valid) return;
  for (int c = 0; c < FwdTile::DPT; ++c) {
    const float g = kGate && gate != 0 ? hk::to_f32(u[off + t.col(c)]) : 1.f;
    out[off + t.col(c)] = hk::from_f32<T>(t.acc[c] * g);
  }
}

HK_KERNEL void hstu_bias_sign_flipped(T* out, const T* q, const T* k, const T* v, const T* u,
                                      const T* rel_bias, i32 Sq, i32 Sk, i32 H, f32 alpha,
                                      i32 max_len, i32 causal, i32 max_pos, i32 gate) {
  __shared__ FwdTile::Smem s;
  kb_hstu<-1, true>(s, out, q, k, v, u, rel_bias, Sq, Sk, H, alpha, max_len, causal, max_pos, gate);
}

HK_KERNEL void hstu_gate_skipped(T* out, const T* q, const T* k, const T* v, const T* u,
                                 const T* rel_bias, i32 Sq, i32 Sk, i32 H, f32 alpha,
                                 i32 max_len, i32 causal, i32 max_pos, i32 gate) {
  __shared__ FwdTile::Smem s;
  kb_hstu<1, false>(s, out, q, k, v, u, rel_bias, Sq, Sk, H, alpha, max_len, causal, max_pos, gate);
}
