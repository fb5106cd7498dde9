// Double-precision attention of one query row, shared by the attention references
// (attention.cpp, attention_decode.cpp). Layouts are those of kernels/attention/online_softmax.h.
#pragma once

#include <cmath>
#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "reference.h"

namespace attn_ref {

using Row = std::function<const double*(int)>;  // key index -> D contiguous values
using PairBias = std::function<double(int, int)>;  // (row of a RowSet, key index) -> score bias

inline double neg_inf() { return -std::numeric_limits<double>::infinity(); }

// The scale the kernel uses: the f32 it received, or 1/sqrt(D) when <= 0 (computed in f32).
inline double scale_of(hk::ref::Context& ctx, int D) {
  const float s = ctx.has("scale") ? static_cast<float>(ctx.num("scale")) : 0.f;
  return s > 0.f ? static_cast<double>(s) : 1.0 / std::sqrt(static_cast<double>(D));
}

// Keys visible to query i of sq with sk keys: j < causal_hi (bottom-right aligned).
inline int causal_hi(int i, int sq, int sk, bool causal) {
  if (!causal) return sk;
  const int hi = i + sk - sq + 1;
  return hi < 0 ? 0 : (hi > sk ? sk : hi);
}

// out = sum_{j in [j0, j1)} softmax(scale q·k_j) v_j (max subtracted); lse natural log.
// An empty range gives out = 0, lse = -inf.
inline void attend(const double* q, int D, int j0, int j1, const Row& k, const Row& v, double scale,
                   double* out, double* lse) {
  for (int d = 0; d < D; ++d) out[d] = 0.0;
  if (j1 <= j0) { if (lse) *lse = neg_inf(); return; }
  std::vector<double> s(static_cast<size_t>(j1 - j0));
  double m = neg_inf();
  for (int j = j0; j < j1; ++j) {
    const double* kr = k(j);
    double dot = 0.0;
    for (int d = 0; d < D; ++d) dot += q[d] * kr[d];
    s[j - j0] = dot * scale;
    m = std::max(m, s[j - j0]);
  }
  double sum = 0.0;
  for (int j = j0; j < j1; ++j) {
    const double p = std::exp(s[j - j0] - m);
    sum += p;
    const double* vr = v(j);
    for (int d = 0; d < D; ++d) out[d] += p * vr[d];
  }
  for (int d = 0; d < D; ++d) out[d] /= sum;
  if (lse) *lse = m + std::log(sum);
}

// Row j of a contiguous [.., S, H, D] tensor for (batch b, head h): base + ((b*S + j)*H + h)*D.
inline Row contig(const hk::ref::Tensor& t, long long tok0, int H, int h, int D) {
  const double* base = t.data.data();
  return [=](int j) { return base + ((tok0 + j) * H + h) * static_cast<long long>(D); };
}

// Many query rows of one (batch, head) against the same keys, with Eigen products:
// out_r = sum_{j < hi_r} w_rj v_j. Softmax (hstu_inv_n = 0): w = softmax(scale q·k) with max
// subtraction, lse_r written when lse[r]; otherwise HSTU: w = silu(scale q·k + bias(r, j)) *
// hstu_inv_n, with bias 0 when none is given.
struct RowSet {
  std::vector<const double*> q;
  std::vector<double*> out;
  std::vector<double*> lse;  // nullptr entries: not wanted
  std::vector<int> hi;       // keys j < hi[r] are visible
  void add(const double* qr, double* o, double* l, int h) { q.push_back(qr); out.push_back(o); lse.push_back(l); hi.push_back(h); }
};

inline void attend_rows(const RowSet& rs, int D, const Row& k, const Row& v, double scale,
                        double hstu_inv_n = 0.0, const PairBias& bias = nullptr) {
  const int n = (int)rs.q.size();
  int m = 0;
  for (int h : rs.hi) m = std::max(m, h);
  hk::ref::RowMatrix K(m, D), V(m, D);
  for (int j = 0; j < m; ++j) {  // each row found once: a decode case copies thousands of rows for a query or two
    const double *kr = k(j), *vr = v(j);
    for (int d = 0; d < D; ++d) K(j, d) = kr[d], V(j, d) = vr[d];
  }
  // Blocks of rows, each against the keys its rows see: a causal mask then skips the half of
  // the products it hides, and a block's scores stay in the cache.
  constexpr int kBlock = 256;
  for (int r0 = 0; r0 < n; r0 += kBlock) {
    const int rows = std::min(kBlock, n - r0);
    int seen = 0;
    for (int r = r0; r < r0 + rows; ++r) seen = std::max(seen, rs.hi[r]);
    hk::ref::RowMatrix Q(rows, D);
    for (int r = 0; r < rows; ++r) for (int d = 0; d < D; ++d) Q(r, d) = rs.q[r0 + r][d];
    hk::ref::RowMatrix P = (Q * K.topRows(seen).transpose()) * scale;
    for (int r = 0; r < rows; ++r) {
      const int hi = rs.hi[r0 + r];
      if (hstu_inv_n != 0.0) {
        for (int j = 0; j < seen; ++j) {
          const double x = j < hi ? P(r, j) + (bias ? bias(r0 + r, j) : 0.0) : 0.0;
          P(r, j) = j < hi ? x / (1.0 + std::exp(-x)) * hstu_inv_n : 0.0;
        }
        continue;
      }
      double mx = neg_inf(), sum = 0.0;
      for (int j = 0; j < hi; ++j) mx = std::max(mx, P(r, j));
      for (int j = 0; j < seen; ++j) { P(r, j) = j < hi ? std::exp(P(r, j) - mx) : 0.0; sum += P(r, j); }
      if (hi > 0) P.row(r) /= sum;
      if (rs.lse[r0 + r]) *rs.lse[r0 + r] = hi > 0 ? mx + std::log(sum) : neg_inf();
    }
    const hk::ref::RowMatrix O = P * V.topRows(seen);
    for (int r = 0; r < rows; ++r) for (int d = 0; d < D; ++d) rs.out[r0 + r][d] = O(r, d);
  }
}

}  // namespace attn_ref
