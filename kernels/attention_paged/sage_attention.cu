// SageAttention-style forward: int8 Q and K with per-block scales, an exact integer Q·Kᵀ, and
// softmax(P)·V with V in T (bf16 or f16) and P kept in f32.
//
//   sage_attention(out, q_int8, k_int8, q_scale, k_scale, v, Sq, Sk, Hq, Hkv, qblk, kblk, scale, causal)
//     q_int8 [B, Sq, Hq, D] i8       q_scale [B, Hq, ceil(Sq / qblk)] f32: one scale per head and
//                                    block of qblk consecutive query tokens
//     k_int8 [B, Sk, Hkv, D] i8      k_scale [B, Hkv, ceil(Sk / kblk)] f32: per head, per kblk keys
//     v [B, Sk, Hkv, D] (T)          out [B, Sq, Hq, D] (T)
//   The dequantized values are q = q_int8 * q_scale and k = k_int8 * k_scale (K is taken as given:
//   any smoothing, such as subtracting K's mean over tokens, happened before quantization).
//   out[i, h] = sum_j softmax_j(scale * q_i·k_j) v_j, with q_i·k_j = (sum_d q_int8 k_int8) (an i32,
//   exact) * q_scale * k_scale. Query head h reads kv head h / (Hq / Hkv). scale <= 0 means
//   1/sqrt(D); causal (non-zero) is bottom-right (query i sees keys j <= i + Sk - Sq); a query that
//   sees no key gets 0. D = HEAD_DIM, T (defines).
// Grid: (ceil(Sq * G / 32), Hkv, B), G = Hq / Hkv; block: 128 threads = 32 rows (token, query
// head of the group) x 4 lanes; lane `sub` owns keys sub + 4k of a 32-key tile and output columns
// sub + 4k. Shared: static, 2 * 32 * D bytes (int8 Q and K) + (32 * (D+1) + 32 * 32 + 32) * 4
// (28.8 KiB at D = 128).
#include "hkcheck.h"
#include "../attention/online_softmax.h"

using hk_attn::OnlineSoftmax;
using hk_attn::causal_hi;
using hk_attn::neg_inf;

namespace {
constexpr int BM = 32, BN = 32, NT = 128, TPR = NT / BM, CPT = BN / TPR, D = HEAD_DIM;
constexpr int DPT = D / TPR, LD = D + 1;

struct SageSmem {
  i8 q[BM * D];
  i8 k[BN * D];
  float v[BN * LD];
  float p[BM * BN];
  float ks[BN];  // k_scale of each key of the tile
};

HK_DEVICE float row_max(float x) {
  for (int o = TPR / 2; o > 0; o /= 2) x = fmaxf(x, hk::shfl_xor(x, o));
  return x;
}
HK_DEVICE float row_sum(float x) {
  for (int o = TPR / 2; o > 0; o /= 2) x += hk::shfl_xor(x, o);
  return x;
}

// K (int8), its scales, and V (f32) of keys j0 .. j0+31 of one (batch, kv head); zero past Sk.
HK_DEVICE void load_tile(SageSmem& s, const i8* k, const f32* kscale, const T* v, long long stride,
                         int j0, int Sk, int kblk) {
  for (int idx = threadIdx.x; idx < BN * D; idx += NT) {
    const int c = idx / D, d = idx % D, j = j0 + c;
    const bool in = j < Sk;
    s.k[idx] = in ? k[j * stride + d] : (i8)0;
    s.v[c * LD + d] = in ? hk::to_f32(v[j * stride + d]) : 0.f;
  }
  for (int c = threadIdx.x; c < BN; c += NT) s.ks[c] = j0 + c < Sk ? kscale[(j0 + c) / kblk] : 0.f;
}

// Scores (log2 domain) of this lane's keys: exact i32 dot, then the scales.
HK_DEVICE void tile_scores(const SageSmem& s, int row, int sub, float qs, int j0, int hi, float* sc) {
  for (int t = 0; t < CPT; ++t) {
    const int c = sub + TPR * t;
    sc[t] = neg_inf();
    if (j0 + c >= hi) continue;
    int dot = 0;
    for (int d = 0; d < D; ++d) dot += (int)s.q[row * D + d] * (int)s.k[c * D + d];
    sc[t] = (float)dot * qs * s.ks[c];
  }
}
}  // namespace

HK_KERNEL void sage_attention(T* out, const i8* q_int8, const i8* k_int8, const f32* q_scale,
                              const f32* k_scale, const T* v, i32 Sq, i32 Sk, i32 Hq, i32 Hkv,
                              i32 qblk, i32 kblk, f32 scale, i32 causal) {
  __shared__ SageSmem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv, nrows = Sq * G;
  const int row = threadIdx.x / TPR, sub = threadIdx.x % TPR, r0 = blockIdx.x * BM, r = r0 + row;
  const bool valid = r < nrows;
  const int i = r / G, h = hk * G + r % G;
  const long long qoff = (((long long)b * Sq + i) * Hq + h) * D;
  for (int d = sub; d < D; d += TPR) s.q[row * D + d] = valid ? q_int8[qoff + d] : (i8)0;
  const float sm = (scale > 0.f ? scale : 1.f / sqrtf((float)D)) * hk_attn::kLog2e;
  const float qs = valid ? q_scale[((long long)b * Hq + h) * hk::ceil_div(Sq, qblk) + i / qblk] * sm : 0.f;
  const int hi = valid ? causal_hi(i, Sq, Sk, causal != 0) : 0;
  const int last = (r0 + BM < nrows ? r0 + BM : nrows) - 1;
  const int j_end = causal_hi(last / G, Sq, Sk, causal != 0);
  const long long stride = (long long)Hkv * D, kvoff = (long long)b * Sk * stride + hk * D;
  const f32* ksc = k_scale + ((long long)b * Hkv + hk) * hk::ceil_div(Sk, kblk);
  OnlineSoftmax st;
  st.init();
  float acc[DPT];
  for (int t = 0; t < DPT; ++t) acc[t] = 0.f;
  for (int j0 = 0; j0 < j_end; j0 += BN) {
    __syncthreads();  // q stored / the previous tile consumed
    load_tile(s, k_int8 + kvoff, ksc, v + kvoff, stride, j0, Sk, kblk);
    __syncthreads();
    float sc[CPT], tmax = neg_inf(), psum = 0.f;
    tile_scores(s, row, sub, qs, j0, hi, sc);
    for (int t = 0; t < CPT; ++t) tmax = fmaxf(tmax, sc[t]);
    const float alpha = st.rescale(row_max(tmax));
    for (int t = 0; t < CPT; ++t) {
      const float p = st.prob(sc[t]);
      s.p[row * BN + sub + TPR * t] = p;
      psum += p;
    }
    st.add(row_sum(psum));
    for (int t = 0; t < DPT; ++t) acc[t] *= alpha;
    __syncthreads();  // p visible to the row's lanes
    for (int c = 0; c < BN; ++c) {
      const float p = s.p[row * BN + c];
      for (int t = 0; t < DPT; ++t) acc[t] += p * s.v[c * LD + sub + TPR * t];
    }
  }
  if (!valid) return;
  const float inv = st.inv_sum();
  for (int t = 0; t < DPT; ++t) out[qoff + sub + TPR * t] = hk::from_f32<T>(acc[t] * inv);
}
