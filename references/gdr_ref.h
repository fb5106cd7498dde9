// Shared pieces of the GDN references (gdr.cpp, gdr_chunk.cpp), in double precision. Notation and
// layouts: kernels/gdr/gdr_common.h. Tensors are read flat from ctx.tensor(name).data.
#pragma once

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "reference.h"

namespace gdr {

using hk::ref::Context;

inline std::vector<double>& data(Context& ctx, const std::string& name) { return ctx.tensor(name).data; }

// fn(i) for every i in [0, n), in chunks on ctx's threads: for the references that compute each
// element on its own (a conversion, an activation), where 16M elements took seconds on one core.
template <typename Fn>
void each_element(Context& ctx, size_t n, const Fn& fn) {
  constexpr size_t kChunk = size_t{1} << 16;
  ctx.parallel_for(static_cast<int64_t>((n + kChunk - 1) / kChunk), [&](int64_t c) {
    for (size_t i = static_cast<size_t>(c) * kChunk, end = std::min(n, i + kChunk); i < end; ++i) fn(i);
  });
}

// `count` rows of `width` values of a flat tensor, starting at row `first`, `step` rows apart:
// the tokens of one head in a [T, H, D] tensor are rows t*H + h, step H.
using Rows = Eigen::Map<hk::ref::RowMatrix, 0, Eigen::OuterStride<>>;
using ConstRows = Eigen::Map<const hk::ref::RowMatrix, 0, Eigen::OuterStride<>>;
inline Rows rows(std::vector<double>& t, int64_t first, int64_t count, int64_t width, int64_t step) {
  return Rows(t.data() + first * width, count, width, Eigen::OuterStride<>(step * width));
}
inline ConstRows rows(const std::vector<double>& t, int64_t first, int64_t count, int64_t width, int64_t step) {
  return ConstRows(t.data() + first * width, count, width, Eigen::OuterStride<>(step * width));
}

// A scalar the kernel receives as f32 (scale, eps), rounded as the kernel sees it.
inline double f32_param(Context& ctx, const std::string& name) { return static_cast<double>(static_cast<float>(ctx.num(name))); }

// The manifests pass scale = 1 / sqrt(Dk) as an f32 argument.
inline double scale_of(Context& ctx) {
  return static_cast<double>(static_cast<float>(1.0 / std::sqrt(static_cast<double>(ctx.integer("Dk")))));
}

inline std::vector<int64_t> cu_seqlens(Context& ctx) {
  std::vector<int64_t> cu;
  for (double x : data(ctx, "cu_seqlens")) cu.push_back(static_cast<int64_t>(x));
  return cu;
}

struct Chunk {
  int64_t seq, bos, len;
};

// Chunks of C tokens local to each sequence, numbered globally in sequence order.
inline std::vector<Chunk> chunks(const std::vector<int64_t>& cu, int64_t C) {
  std::vector<Chunk> out;
  for (size_t n = 0; n + 1 < cu.size(); ++n)
    for (int64_t b = cu[n]; b < cu[n + 1]; b += C) out.push_back({static_cast<int64_t>(n), b, std::min(C, cu[n + 1] - b)});
  return out;
}

inline double softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double gate(double a, double A_log, double dt_bias) { return -std::exp(A_log) * softplus(a + dt_bias); }

inline double dot(const double* a, const double* b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// x / sqrt(|x|^2 + 1e-6), the kernels' in-kernel L2 normalization (eps is 1e-6f there).
inline std::vector<double> l2n(const double* x, int64_t n) {
  const double inv = 1.0 / std::sqrt(dot(x, x, n) + static_cast<double>(1e-6f));
  std::vector<double> r(x, x + n);
  for (double& e : r) e *= inv;
  return r;
}

// The recurrence of gdr_common.h over every (sequence, head), token by token:
//   u = beta (v - a S^T k); S = a S + k u^T; o = scale S^T q.
// gate(th, h, g, beta) gives the token's gate; `u_out` (may be null) receives u per token.
using Gate = std::function<void(int64_t th, int64_t h, double& g, double& beta)>;
inline void recurrence(Context& ctx, const Gate& gate_of, bool l2norm, double* u_out) {
  const auto cu = cu_seqlens(ctx);
  const auto& q = data(ctx, "q");
  const auto& k = data(ctx, "k");
  const auto& v = data(ctx, "v");
  const auto& h0 = data(ctx, "h0");
  auto& o = data(ctx, "o");
  auto& ht = data(ctx, "ht");
  const int64_t H = ctx.tensor("q").dim(-2), Dk = ctx.tensor("q").dim(-1), Dv = ctx.tensor("v").dim(-1);
  const double scale = scale_of(ctx);
  // Each (sequence, head) is independent and writes its own rows of o, u and its own ht.
  ctx.parallel_for(static_cast<int64_t>(cu.size() - 1) * H, [&](int64_t index) {
    const int64_t n = index / H, h = index % H;
    const int64_t st = index * Dk * Dv;
    std::vector<double> S(h0.begin() + st, h0.begin() + st + Dk * Dv), u(Dv), kv(Dv), acc(Dv);
    for (int64_t t = cu[n]; t < cu[n + 1]; ++t) {
      const int64_t th = t * H + h;
      std::vector<double> qt(&q[th * Dk], &q[th * Dk] + Dk), kt(&k[th * Dk], &k[th * Dk] + Dk);
      if (l2norm) { qt = l2n(qt.data(), Dk); kt = l2n(kt.data(), Dk); }
      double g, beta;
      gate_of(th, h, g, beta);
      const double a = std::exp(g);
      // Rows of S in the outer loop, each a whole row at once as Eigen arrays (vectorized: GCC's
      // -O2 leaves these runtime-length loops scalar). Every element gets the same IEEE
      // operations in the same order as one at a time (Eigen fuses no multiply-add here), and
      // each sum still adds i = 0, 1, ...
      using Row = Eigen::Map<Eigen::ArrayXd>;
      Row kv_row(kv.data(), Dv), u_row(u.data(), Dv), acc_row(acc.data(), Dv);
      kv_row.setZero();
      for (int64_t i = 0; i < Dk; ++i) kv_row += Row(&S[i * Dv], Dv) * kt[i];
      u_row = beta * (Eigen::Map<const Eigen::ArrayXd>(&v[th * Dv], Dv) - a * kv_row);
      acc_row.setZero();
      for (int64_t i = 0; i < Dk; ++i) {
        Row s(&S[i * Dv], Dv);
        s = a * s + kt[i] * u_row;
        acc_row += s * qt[i];
      }
      for (int64_t j = 0; j < Dv; ++j) {
        o[th * Dv + j] = scale * acc[j];
        if (u_out) u_out[th * Dv + j] = u[j];
      }
    }
    std::copy(S.begin(), S.end(), ht.begin() + st);
  });
}

}  // namespace gdr
