// CPU references for the decode-side GDN kernels (kernels/gdr/: gdr_utils, qkvzba_split,
// fused_recurrent, test_ops, gdn_gating, prepare, cumsum), in double precision.
#include <algorithm>
#include <cmath>

#include "gdr_ref.h"

using gdr::data;

HK_REFERENCE(gdr_abs_diff) {
  const auto &a = data(ctx, "a"), &b = data(ctx, "b");
  auto& out = data(ctx, "out");
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::fabs(a[i] - b[i]);
}

HK_REFERENCE(gdr_squared_diff) {
  const auto &a = data(ctx, "a"), &b = data(ctx, "b");
  auto& out = data(ctx, "out");
  for (size_t i = 0; i < out.size(); ++i) out[i] = (a[i] - b[i]) * (a[i] - b[i]);
}

HK_REFERENCE(gdr_max_reduce) {
  auto x = ctx.matrix("x");
  auto& out = data(ctx, "out");
  for (Eigen::Index r = 0; r < x.rows(); ++r) out[r] = x.row(r).maxCoeff();
}

HK_REFERENCE(gdr_sum_reduce) {
  auto x = ctx.matrix("x");
  auto& out = data(ctx, "out");
  for (Eigen::Index r = 0; r < x.rows(); ++r) out[r] = x.row(r).sum();
}

// Both conversions: the input's value rounded to out's dtype (nearest even; exact for bf16 -> f32).
HK_REFERENCE(gdr_convert) {
  const auto& x = data(ctx, "x");
  auto& out = data(ctx, "out");
  if (x.empty()) return;
  out[0] = ctx.round_to("out", x[0]);  // throws, once, for a missing tensor or rounding
  const std::string& dtype = ctx.tensor("out").dtype;  // what round_to looks up for each element
  gdr::each_element(ctx, x.size(), [&](size_t i) { out[i] = ctx.round_dtype(dtype, x[i]); });
}

HK_REFERENCE(gdr_l2_normalize) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const double eps = gdr::f32_param(ctx, "eps");
  for (Eigen::Index r = 0; r < x.rows(); ++r) out.row(r) = x.row(r) / std::sqrt(x.row(r).squaredNorm() + eps);
}

HK_REFERENCE(gdr_fused_qkvzba_split) {
  const int64_t H = ctx.integer("H"), Dk = ctx.integer("Dk"), Dv = ctx.integer("Dv");
  const int64_t G = 2 * Dk + 2 * Dv, W = H * G + 2 * H;
  const auto& f = data(ctx, "fused");
  auto &q = data(ctx, "q"), &k = data(ctx, "k"), &v = data(ctx, "v"), &z = data(ctx, "z");
  auto &b = data(ctx, "b"), &a = data(ctx, "a");
  const int64_t T = static_cast<int64_t>(f.size()) / W;
  for (int64_t t = 0; t < T; ++t) {
    const double* row = &f[t * W];
    for (int64_t h = 0; h < H; ++h) {
      const double* grp = row + h * G;
      for (int64_t i = 0; i < Dk; ++i) {
        q[(t * H + h) * Dk + i] = grp[i];
        k[(t * H + h) * Dk + i] = grp[Dk + i];
      }
      for (int64_t i = 0; i < Dv; ++i) {
        v[(t * H + h) * Dv + i] = grp[2 * Dk + i];
        z[(t * H + h) * Dv + i] = grp[2 * Dk + Dv + i];
      }
      b[t * H + h] = row[H * G + h];
      a[t * H + h] = row[H * G + H + h];
    }
  }
}

HK_REFERENCE(gdr_fused_recurrent_fwd) {
  const auto &g = data(ctx, "g"), &beta = data(ctx, "beta");
  gdr::recurrence(
      ctx, [&](int64_t th, int64_t, double& gt, double& bt) { gt = g[th]; bt = beta[th]; },
      ctx.integer("qk_l2norm") != 0, nullptr);
}

HK_REFERENCE(gdr_fused_sigmoid_gating_recurrent) {
  const auto &a = data(ctx, "a"), &b = data(ctx, "b"), &A_log = data(ctx, "A_log"), &dt = data(ctx, "dt_bias");
  gdr::recurrence(
      ctx,
      [&](int64_t th, int64_t h, double& gt, double& bt) {
        gt = gdr::gate(a[th], A_log[h], dt[h]);
        bt = gdr::sigmoid(b[th]);
      },
      ctx.integer("qk_l2norm") != 0, nullptr);
}

HK_REFERENCE(gdr_test_ops) {
  const auto& x = data(ctx, "x");
  auto& out = data(ctx, "out");
  const int64_t op = ctx.integer("op");
  gdr::each_element(ctx, x.size(), [&](size_t i) {
    const double v = x[i];
    switch (op) {
      case 0: out[i] = std::exp(v); break;
      case 1: out[i] = std::log(v); break;
      case 2: out[i] = gdr::sigmoid(v); break;
      case 3: out[i] = v * gdr::sigmoid(v); break;
      default: out[i] = gdr::softplus(v); break;
    }
  });
}

HK_REFERENCE(gdr_fused_gdn_gating) {
  const auto &a = data(ctx, "a"), &b = data(ctx, "b"), &A_log = data(ctx, "A_log"), &dt = data(ctx, "dt_bias");
  auto &g = data(ctx, "g"), &beta = data(ctx, "beta");
  const size_t H = A_log.size();
  for (size_t i = 0; i < a.size(); ++i) {
    g[i] = gdr::gate(a[i], A_log[i % H], dt[i % H]);
    beta[i] = gdr::sigmoid(b[i]);
  }
}

HK_REFERENCE(gdr_prepare_lens) {
  const auto cu = gdr::cu_seqlens(ctx);
  auto& out = data(ctx, "lens");
  for (size_t n = 0; n + 1 < cu.size(); ++n) out[n] = static_cast<double>(cu[n + 1] - cu[n]);
}

HK_REFERENCE(gdr_prepare_position_ids) {
  const auto cu = gdr::cu_seqlens(ctx);
  auto& out = data(ctx, "pos");
  for (size_t n = 0; n + 1 < cu.size(); ++n)
    for (int64_t t = cu[n]; t < cu[n + 1]; ++t) out[t] = static_cast<double>(t - cu[n]);
}

HK_REFERENCE(gdr_prepare_chunk_offsets) {
  const auto cu = gdr::cu_seqlens(ctx);
  const int64_t C = ctx.integer("C");
  auto& out = data(ctx, "offs");
  out[0] = 0;
  for (size_t n = 0; n + 1 < cu.size(); ++n) out[n + 1] = out[n] + static_cast<double>((cu[n + 1] - cu[n] + C - 1) / C);
}

HK_REFERENCE(gdr_prepare_chunk_indices) {
  const auto cu = gdr::cu_seqlens(ctx);
  auto& out = data(ctx, "idx");
  int64_t i = 0;
  for (size_t n = 0; n + 1 < cu.size(); ++n)
    for (int64_t c = 0; c * ctx.integer("C") < cu[n + 1] - cu[n]; ++c, ++i) {
      out[2 * i] = static_cast<double>(n);
      out[2 * i + 1] = static_cast<double>(c);
    }
}

// Chunk-local cumsum of x viewed as [Ttot, H, D] (D = 1 for the scalar form), forward or reverse.
static void chunk_cumsum(hk::ref::Context& ctx, int64_t D) {
  const auto& x = data(ctx, "x");
  auto& out = data(ctx, "out");
  const int64_t H = ctx.integer("H"), C = ctx.integer("C");
  const bool rev = ctx.integer("reverse") != 0;
  for (const gdr::Chunk& ch : gdr::chunks(gdr::cu_seqlens(ctx), C))
    for (int64_t e = 0; e < H * D; ++e) {
      double s = 0;
      for (int64_t p = 0; p < ch.len; ++p) {
        const int64_t t = ch.bos + (rev ? ch.len - 1 - p : p);
        s += x[t * H * D + e];
        out[t * H * D + e] = s;
      }
    }
}

HK_REFERENCE(gdr_cumsum_scalar) { chunk_cumsum(ctx, 1); }
HK_REFERENCE(gdr_cumsum_vector) { chunk_cumsum(ctx, ctx.integer("D")); }
