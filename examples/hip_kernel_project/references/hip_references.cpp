// CPU references of the HIP example kernels, in double precision (see hkcheck's reference.h).
#include <cmath>

#include "reference.h"

using hk::ref::Context;

// out[r, j] = x[r, j] / sqrt(mean(x[r, :]^2) + eps) * w[j]
HK_REFERENCE(hipex_rms_norm) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const auto& w = ctx.tensor("w").data;
  const double eps = ctx.num("eps");
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double inv_rms = 1.0 / std::sqrt(x.row(r).squaredNorm() / static_cast<double>(x.cols()) + eps);
    for (Eigen::Index j = 0; j < x.cols(); ++j) out(r, j) = x(r, j) * inv_rms * w[static_cast<size_t>(j)];
  }
}

HK_REFERENCE(hipex_row_sum) { ctx.matrix("out", ctx.matrix("x").rows(), 1) = ctx.matrix("x").rowwise().sum(); }

HK_REFERENCE(hipex_count_positive) {
  auto x = ctx.matrix("x");
  auto counts = ctx.matrix("counts", x.rows(), 1);
  for (Eigen::Index r = 0; r < x.rows(); ++r) counts(r, 0) = static_cast<double>((x.row(r).array() > 0.0).count());
}

// x: [rows, 2d], out: [rows, d]: out = silu(x[:, :d]) * x[:, d:].
HK_REFERENCE(hipex_silu_and_mul) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const Eigen::Index d = out.cols();
  out = x.leftCols(d).unaryExpr([](double v) { return v / (1.0 + std::exp(-v)); }).cwiseProduct(x.rightCols(d));
}

// c = a * b: a [M, K], b [K, N], c [M, N].
HK_REFERENCE(hipex_gemm) {
  const int64_t M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  ctx.matrix("c", M, N) = ctx.matrix("a", M, K) * ctx.matrix("b", K, N);
}
