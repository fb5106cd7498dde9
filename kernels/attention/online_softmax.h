// Shared pieces of the attention kernels: a per-row online softmax, the merge of partial results
// (split-KV), and a block-level Q·Kᵀ / P·V tile loop with the K/V rows read through a source
// object (contiguous, two-part, or paged). Include it after "hkcheck.h"; HEAD_DIM is not used here.
//
// INTERFACE STABLE (hk_attn::OnlineSoftmax, hk_attn::LseMerge, hk_attn::Tile, hk_attn::ContigKV,
// hk_attn::causal_hi, hk_attn::neg_inf: names and signatures below will not change).
//
// Common layout of the attention family (row-major, element strides):
//   q   [B, Sq, Hq, D]      k, v [B, Sk, Hkv, D]      out [B, Sq, Hq, D]
//   lse [B, Hq, Sq] f32, natural log: lse = ln sum_j exp(scale * q·k_j) over the visible keys.
//   Element types: q/k/v/out bf16 (also f16, f32); everything is computed in f32.
//   Hq is a multiple of Hkv (GQA); query head h reads kv head h / (Hq / Hkv) (MQA: Hkv = 1).
//   scale = 1/sqrt(D) unless the kernel is given one.
//   Causal masks are aligned to the BOTTOM RIGHT: query i (0-based, of Sq) sees keys j with
//   j <= i + Sk - Sq. With Sq = Sk this is the usual j <= i; with Sq > Sk the first Sq - Sk
//   queries see no key at all. A query that sees no key gets out = 0 and lse = -inf.
//
// The tile loop: a block of NT threads owns BM query rows; each row is processed by TPR = NT/BM
// consecutive lanes (TPR a power of two <= 32, so a row never spans two warps, for warps of 32
// and of 64). Lane `sub` of a row owns score columns sub + TPR*k (k < BN/TPR) of each K tile and
// output columns sub + TPR*k (k < D/TPR) of the accumulator. The rows of a tile may be anything
// (several tokens, several query heads of one kv group, decode rows of several sequences): the
// caller gives each row its q pointer (nullptr: a padding row) and its visible-key bound row_hi
// (keys j < row_hi are visible), and all rows of the block read the same keys [j_begin, j_end).
// Scores are kept in the log2 domain: q is pre-multiplied by qscale (scale * log2(e) for a
// softmax), so probabilities are exp2(s - m). Shared memory: (BM*(D+1) + BN*(D+1) + BM*BN) * 4
// bytes, static, checked below 48 KiB. K and V share one buffer (V is loaded after the scores).
// Declare the `__shared__ Tile<...>::Smem` in the HK_KERNEL entry itself, never in a template or
// inline function: on the host backend such a static is one GNU-unique object per process, shared
// by the libraries built with other HEAD_DIMs, and sized by whichever was loaded first.
#pragma once

namespace hk_attn {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

HK_DEVICE float neg_inf() { return -__int_as_float(0x7f800000); }

// Keys visible to query i: j < causal_hi(...). Bottom-right aligned; clamped to [0, sk].
HK_DEVICE int causal_hi(int i, int sq, int sk, bool causal) {
  if (!causal) return sk;
  int hi = i + sk - sq + 1;
  return hi < 0 ? 0 : (hi > sk ? sk : hi);
}

// Per-row online softmax state, log2 domain. Use: rescale(tile_max) (multiply the accumulator by
// the returned factor), then prob(s) for each score, then add(sum of those probabilities).
struct OnlineSoftmax {
  float m;  // running max of the scores seen (log2 domain); -inf while none
  float l;  // running sum of exp2(s - m)
  HK_DEVICE void init() { m = neg_inf(); l = 0.f; }
  HK_DEVICE float rescale(float tile_max) {
    const float m_new = fmaxf(m, tile_max);
    // While every score so far is masked (m_new = -inf) nothing was accumulated: factor 1.
    const float alpha = (m_new == neg_inf()) ? 1.f : exp2f(m - m_new);
    m = m_new;
    l *= alpha;
    return alpha;
  }
  HK_DEVICE float prob(float s) const { return m == neg_inf() ? 0.f : exp2f(s - m); }
  HK_DEVICE void add(float psum) { l += psum; }
  HK_DEVICE float inv_sum() const { return l > 0.f ? 1.f / l : 0.f; }
  // Natural-log logsumexp of the unscaled-domain scores (scale * q·k), -inf for an empty row.
  HK_DEVICE float lse() const { return l > 0.f ? (m + log2f(l)) * kLn2 : neg_inf(); }
};

// Merging normalized partial outputs o_i with their (natural-log) lse_i:
//   out = sum_i exp(lse_i - M) o_i / sum_i exp(lse_i - M),  lse = M + ln sum_i exp(lse_i - M).
// Use: alpha = add(lse_i, &w); acc = acc * alpha + w * o_i; at the end out = acc * inv_sum().
// A partial with lse_i = -inf (no visible key) gets weight 0.
struct LseMerge {
  float m;  // max lse seen, -inf while none
  float s;  // sum of exp(lse_i - m)
  HK_DEVICE void init() { m = neg_inf(); s = 0.f; }
  HK_DEVICE float add(float lse_i, float* w) {
    const float m_new = fmaxf(m, lse_i);
    if (m_new == neg_inf()) { *w = 0.f; return 1.f; }
    const float alpha = expf(m - m_new);
    *w = expf(lse_i - m_new);
    m = m_new;
    s = s * alpha + *w;
    return alpha;
  }
  HK_DEVICE float inv_sum() const { return s > 0.f ? 1.f / s : 0.f; }
  HK_DEVICE float lse() const { return s > 0.f ? m + logf(s) : neg_inf(); }
};

// K/V source: rows of D contiguous elements; key j of this (batch, kv head) at base + j * stride.
template <typename KT> struct ContigKV {
  const KT* k;
  const KT* v;
  long long stride;  // elements between consecutive keys (Hkv * D in the common layout)
  HK_DEVICE const KT* k_row(int j) const { return k + (long long)j * stride; }
  HK_DEVICE const KT* v_row(int j) const { return v + (long long)j * stride; }
};

template <int D_, int BM_, int BN_, int NT_> struct Tile {
  static constexpr int D = D_, BM = BM_, BN = BN_, NT = NT_;
  static constexpr int TPR = NT / BM;  // lanes per row
  static constexpr int CPT = BN / TPR;  // score columns per lane
  static constexpr int DPT = D / TPR;   // accumulator columns per lane
  static constexpr int LD = D + 1;      // padded smem row (no bank conflicts across rows)
  static_assert(NT % BM == 0 && TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0, "TPR");
  static_assert(BN % TPR == 0 && D % TPR == 0, "BN and D must be multiples of TPR");
  static_assert((BM * LD + BN * LD + BM * BN) * 4 <= 48 * 1024, "shared memory over 48 KiB");

  struct Smem {
    float q[BM * LD];   // pre-scaled queries
    float kv[BN * LD];  // current K tile, then V tile; rows past the end are 0
    float p[BM * BN];   // probabilities (or pointwise weights) of the current tile
  };

  int row, sub;   // this thread's row of the tile, and lane within the row
  int row_hi;     // keys j < row_hi are visible to the row (0 for a padding row)
  OnlineSoftmax sm;
  float acc[DPT];  // output columns col(k), unnormalized

  HK_DEVICE int col(int k) const { return sub + TPR * k; }

  // Every thread calls. Stores this row's q * qscale (zeros for a padding row) and resets the
  // state. Visible to the others after the next __syncthreads (the first one in run). A block
  // that reuses s for new rows calls __syncthreads() before begin().
  template <typename QT> HK_DEVICE void begin(Smem& s, const QT* qrow, float qscale, int hi) {
    row = (int)threadIdx.x / TPR;
    sub = (int)threadIdx.x % TPR;
    for (int k = 0; k < DPT; ++k)
      s.q[row * LD + col(k)] = qrow ? hk::to_f32(qrow[col(k)]) * qscale : 0.f;
    reset(qrow ? hi : 0);
  }
  // A new range of keys for the same queries (split-KV, stream-K): fresh state and accumulator.
  HK_DEVICE void reset(int hi) {
    row_hi = hi;
    sm.init();
    for (int k = 0; k < DPT; ++k) acc[k] = 0.f;
  }

  // Reductions over the TPR lanes of a row (every lane of the warp must call).
  HK_DEVICE static float row_max(float v) {
    for (int o = TPR / 2; o > 0; o /= 2) v = fmaxf(v, hk::shfl_xor(v, o));
    return v;
  }
  HK_DEVICE static float row_sum(float v) {
    for (int o = TPR / 2; o > 0; o /= 2) v += hk::shfl_xor(v, o);
    return v;
  }

  // Loads rows j0..j0+BN-1 (those < j_end; the rest 0) of K (which = 0) or V (1) into s.kv.
  template <class KV> HK_DEVICE static void load_kv(Smem& s, const KV& src, int which, int j0, int j_end) {
    for (int idx = (int)threadIdx.x; idx < BN * D; idx += NT) {
      const int j = idx / D, d = idx % D;
      float x = 0.f;
      if (j0 + j < j_end) x = hk::to_f32((which == 0 ? src.k_row(j0 + j) : src.v_row(j0 + j))[d]);
      s.kv[j * LD + d] = x;
    }
  }

  // Scores of this lane's columns for the K tile in s.kv (starting at key j0); masked ones -inf.
  HK_DEVICE void scores(const Smem& s, int j0, int j_end, float* sc) const {
    for (int k = 0; k < CPT; ++k) {
      const int j = j0 + col(k);
      float dot = neg_inf();
      if (j < j_end && j < row_hi) {
        dot = 0.f;
        const float* qr = s.q + row * LD;
        const float* kr = s.kv + col(k) * LD;
        for (int d = 0; d < D; ++d) dot += qr[d] * kr[d];
      }
      sc[k] = dot;
    }
  }

  // acc += P(row, :) · V tile (s.p and s.kv hold them).
  HK_DEVICE void pv(const Smem& s) {
    const float* pr = s.p + row * BN;
    for (int j = 0; j < BN; ++j) {
      const float pj = pr[j];
      const float* vr = s.kv + j * LD;
      for (int k = 0; k < DPT; ++k) acc[k] += pj * vr[col(k)];
    }
  }

  // Softmax attention over keys [j_begin, j_end) (block-uniform bounds). Every thread calls.
  template <class KV> HK_DEVICE void run(Smem& s, const KV& src, int j_begin, int j_end) {
    for (int j0 = j_begin; j0 < j_end; j0 += BN) {
      __syncthreads();  // q stores / previous V tile reads are done
      load_kv(s, src, 0, j0, j_end);
      __syncthreads();
      float sc[CPT];
      scores(s, j0, j_end, sc);
      float tmax = neg_inf();
      for (int k = 0; k < CPT; ++k) tmax = fmaxf(tmax, sc[k]);
      const float alpha = sm.rescale(row_max(tmax));
      float psum = 0.f;
      for (int k = 0; k < CPT; ++k) {
        const float p = sm.prob(sc[k]);
        s.p[row * BN + col(k)] = p;
        psum += p;
      }
      sm.add(row_sum(psum));
      for (int k = 0; k < DPT; ++k) acc[k] *= alpha;
      __syncthreads();  // K tile reads are done, p is visible
      load_kv(s, src, 1, j0, j_end);
      __syncthreads();
      pv(s);
    }
  }

  // Normalized output column col(k) of this row (0 for a row that saw no key).
  HK_DEVICE float out(int k) const { return acc[k] * sm.inv_sum(); }
};

}  // namespace hk_attn
