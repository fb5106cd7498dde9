// Attention backward: the tile steps shared by flash_attn_bwd.cu, mha_fused_bwd.cu and
// mha_onekernel_bwd.cu (softmax attention with a saved natural-log lse, recomputing P).
//
// Layouts (row-major, element strides):
//   q, out, dout [B, Sq, Hq, D] (T)     k, v [B, Sk, Hkv, D] (T)     lse [B, Hq, Sq] f32
//   dq [B, Sq, Hq, D] f32               dk, dv [B, Sk, Hkv, D] f32
//   Query head h uses kv head h / G, G = Hq / Hkv; dk/dv sum over the G heads of the group.
//   Causal masks are bottom-right aligned: query i sees keys j <= i + Sk - Sq.
// Math, for a visible (i, j): s = scale q_i·k_j, P = exp(s - lse_i), dP = dout_i·v_j,
// delta_i = dout_i·out_i, dS = P (dP - delta_i); dv_j += P dout_i, dk_j += scale dS q_i,
// dq_i += scale dS k_j. Masked pairs contribute nothing. All in f32.
// Tiles: BM = 16 query rows x BN = 16 keys, 128 threads; shared (static):
// (4 * 16 * (D+1) + 2 * 16 * 16 + 32) * 4 bytes (35.1 KiB at D = 128).
#pragma once

#include "../attention/online_softmax.h"

namespace hk_bwd {

constexpr int BM = 16, BN = 16, NT = 128, D = HEAD_DIM, LD = HEAD_DIM + 1;
constexpr int KD = BN * D / NT;  // (key, dim) pairs per thread in dk/dv
constexpr int QD = BM * D / NT;  // (row, dim) pairs per thread in dq
static_assert(BN * D % NT == 0 && BM * D % NT == 0 && NT % BM == 0, "tiling");

struct Smem {
  float q[BM * LD], dout[BM * LD], k[BN * LD], v[BN * LD];
  float p[BM * BN], ds[BM * BN];
  float lse[BM], delta[BM];
};

template <typename T> struct Prob {
  const T *q, *k, *v, *out, *dout;
  const f32* lse;
  f32 *dq, *dk, *dv;
  int Sq, Sk, Hq, Hkv, G;
  bool causal;
  float scale;
  HK_DEVICE long long qoff(int b, int i, int h) const { return (((long long)b * Sq + i) * Hq + h) * D; }
  HK_DEVICE long long koff(int b, int j, int hk) const { return (((long long)b * Sk + j) * Hkv + hk) * D; }
  // Keys visible to query i: j < hi(i).
  HK_DEVICE int hi(int i) const { return hk_attn::causal_hi(i, Sq, Sk, causal); }
  // First query row that sees key j (causal), 0 otherwise.
  HK_DEVICE int first_row(int j) const {
    const int r = causal ? j - (Sk - Sq) : 0;
    return r < 0 ? 0 : r;
  }
};

// Rows i0.. of query head h: q, dout, lse, and delta = dout·out (NT / BM lanes per row, reduced
// with shuffles inside a warp). Rows past Sq are zero. Every thread calls.
template <typename T> HK_DEVICE void load_rows(Smem& s, const Prob<T>& P, int b, int h, int i0) {
  constexpr int TPR = NT / BM;
  const int r = threadIdx.x / TPR, sub = threadIdx.x % TPR, i = i0 + r;
  float dsum = 0.f;
  for (int d = sub; d < D; d += TPR) {
    float qv = 0.f, gv = 0.f, ov = 0.f;
    if (i < P.Sq) {
      const long long o = P.qoff(b, i, h) + d;
      qv = hk::to_f32(P.q[o]); gv = hk::to_f32(P.dout[o]); ov = hk::to_f32(P.out[o]);
    }
    s.q[r * LD + d] = qv;
    s.dout[r * LD + d] = gv;
    dsum += gv * ov;
  }
  for (int m = TPR / 2; m > 0; m /= 2) dsum += hk::shfl_xor(dsum, m);
  if (sub == 0) {
    s.delta[r] = dsum;
    s.lse[r] = i < P.Sq ? P.lse[((long long)b * P.Hq + h) * P.Sq + i] : 0.f;
  }
}

// Keys j0.. of kv head hk (rows past Sk are zero).
template <typename T> HK_DEVICE void load_keys(Smem& s, const Prob<T>& P, int b, int hk, int j0) {
  for (int idx = threadIdx.x; idx < BN * D; idx += NT) {
    const int c = idx / D, d = idx % D, j = j0 + c;
    float kv = 0.f, vv = 0.f;
    if (j < P.Sk) {
      const long long o = P.koff(b, j, hk) + d;
      kv = hk::to_f32(P.k[o]); vv = hk::to_f32(P.v[o]);
    }
    s.k[c * LD + d] = kv;
    s.v[c * LD + d] = vv;
  }
}

// P and dS of the tile (rows i0.., keys j0..) into s.p, s.ds; masked pairs 0.
template <typename T> HK_DEVICE void tile_p_ds(Smem& s, const Prob<T>& P, int i0, int j0) {
  for (int idx = threadIdx.x; idx < BM * BN; idx += NT) {
    const int r = idx / BN, c = idx % BN, i = i0 + r, j = j0 + c;
    float p = 0.f, ds = 0.f;
    if (i < P.Sq && j < P.Sk && j < P.hi(i)) {
      float sc = 0.f, dp = 0.f;
      for (int d = 0; d < D; ++d) {
        sc += s.q[r * LD + d] * s.k[c * LD + d];
        dp += s.dout[r * LD + d] * s.v[c * LD + d];
      }
      p = expf(sc * P.scale - s.lse[r]);
      ds = p * (dp - s.delta[r]);
    }
    s.p[idx] = p;
    s.ds[idx] = ds;
  }
}

// dk/dv of this thread's (key, dim) pairs += the tile's contribution.
HK_DEVICE void add_dkdv(const Smem& s, float scale, float* dk, float* dv) {
  for (int t = 0; t < KD; ++t) {
    const int idx = threadIdx.x + NT * t, c = idx / D, d = idx % D;
    float a = 0.f, g = 0.f;
    for (int r = 0; r < BM; ++r) {
      g += s.p[r * BN + c] * s.dout[r * LD + d];
      a += s.ds[r * BN + c] * s.q[r * LD + d];
    }
    dv[t] += g;
    dk[t] += scale * a;
  }
}

// The tile's contribution to dq of this thread's (row, dim) pairs.
HK_DEVICE void dq_part(const Smem& s, float scale, float* part) {
  for (int t = 0; t < QD; ++t) {
    const int idx = threadIdx.x + NT * t, r = idx / D, d = idx % D;
    float a = 0.f;
    for (int c = 0; c < BN; ++c) a += s.ds[r * BN + c] * s.k[c * LD + d];
    part[t] = scale * a;
  }
}

// Writes dk/dv of keys j0.. (this thread's pairs).
template <typename T>
HK_DEVICE void store_dkdv(const Prob<T>& P, int b, int hk, int j0, const float* dk, const float* dv) {
  for (int t = 0; t < KD; ++t) {
    const int idx = threadIdx.x + NT * t, c = idx / D, d = idx % D;
    if (j0 + c >= P.Sk) continue;
    const long long o = P.koff(b, j0 + c, hk) + d;
    P.dk[o] = dk[t];
    P.dv[o] = dv[t];
  }
}

// Problem description from the kernels' common arguments (scale <= 0 means 1/sqrt(D)).
template <typename T>
HK_DEVICE Prob<T> make_prob(f32* dq, f32* dk, f32* dv, const T* q, const T* k, const T* v,
                            const T* out, const T* dout, const f32* lse, int Sq, int Sk, int Hq,
                            int Hkv, float scale, int causal) {
  Prob<T> P;
  P.q = q; P.k = k; P.v = v; P.out = out; P.dout = dout; P.lse = lse;
  P.dq = dq; P.dk = dk; P.dv = dv;
  P.Sq = Sq; P.Sk = Sk; P.Hq = Hq; P.Hkv = Hkv; P.G = Hq / Hkv;
  P.causal = causal != 0;
  P.scale = scale > 0.f ? scale : 1.f / sqrtf((float)D);
  return P;
}

enum DqMode { kDqNone = 0, kDqAtomic = 1, kDqOwned = 2 };

// One key tile (keys j0.., kv head hk): dk and dv over every query row of the G heads that can
// see it. DQ = kDqAtomic also adds the tile's dq contributions with atomics; kDqOwned adds them
// with plain read-modify-writes (only when this block is the only writer of those dq rows; each
// (row, dim) pair is always updated by the same thread). Every thread calls.
template <int DQ, typename T> HK_DEVICE void key_tile(Smem& s, const Prob<T>& P, int b, int hk, int j0) {
  float dk[KD], dv[KD];
  for (int t = 0; t < KD; ++t) dk[t] = dv[t] = 0.f;
  __syncthreads();  // earlier users of s are done
  load_keys(s, P, b, hk, j0);
  const int i_start = (P.first_row(j0) / BM) * BM;
  for (int g = 0; g < P.G; ++g) {
    const int h = hk * P.G + g;
    for (int i0 = i_start; i0 < P.Sq; i0 += BM) {
      __syncthreads();  // the previous rows' tile is consumed
      load_rows(s, P, b, h, i0);
      __syncthreads();
      tile_p_ds(s, P, i0, j0);
      __syncthreads();
      add_dkdv(s, P.scale, dk, dv);
      if (DQ == kDqNone) continue;
      float part[QD];
      dq_part(s, P.scale, part);
      for (int t = 0; t < QD; ++t) {
        const int idx = threadIdx.x + NT * t, i = i0 + idx / D;
        if (i >= P.Sq) continue;
        f32* dst = P.dq + P.qoff(b, i, h) + idx % D;
        if (DQ == kDqAtomic) atomicAdd(dst, part[t]);
        else *dst += part[t];
      }
    }
  }
  store_dkdv(P, b, hk, j0, dk, dv);
}

}  // namespace hk_bwd
