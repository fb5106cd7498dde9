// CPU references for kernels/norm/rmsnorm.cu and kernels/norm/layernorm.cu, in double precision.
// Rows are the tensor viewed as [numel / D, D]. eps arrives as a double param but the kernel
// receives it as f32, so it is rounded to float here too.
#include <cmath>

#include "reference.h"

namespace {

using hk::ref::Context;

double eps_of(Context& ctx) { return static_cast<double>(static_cast<float>(ctx.num("eps"))); }

// out[r, :] = v[r, :] / sqrt(mean(v[r, :]^2) + eps) * w
void rmsnorm_rows(Context& ctx, const std::string& input) {
  auto v = ctx.matrix(input);
  auto out = ctx.matrix("out");
  auto w = ctx.matrix("w", 1, v.cols()).row(0);
  const double eps = eps_of(ctx);
  for (Eigen::Index r = 0; r < v.rows(); ++r) {
    const double ms = v.row(r).squaredNorm() / static_cast<double>(v.cols());
    out.row(r) = v.row(r).cwiseProduct(w) / std::sqrt(ms + eps);
  }
}

// out[r, :] = (v[r, :] - mean) / sqrt(var + eps) * w + b, biased variance.
void layernorm_rows(Context& ctx, const std::string& input) {
  auto v = ctx.matrix(input);
  auto out = ctx.matrix("out");
  auto w = ctx.matrix("w", 1, v.cols()).row(0);
  auto b = ctx.matrix("b", 1, v.cols()).row(0);
  const double eps = eps_of(ctx);
  for (Eigen::Index r = 0; r < v.rows(); ++r) {
    const double mean = v.row(r).mean();
    const auto centered = (v.row(r).array() - mean).matrix();
    const double var = centered.squaredNorm() / static_cast<double>(v.cols());
    out.row(r) = centered.cwiseProduct(w) / std::sqrt(var + eps) + b;
  }
}

// residual = x + residual, stored in residual's dtype: the kernel writes the rounded sum and
// normalizes that rounded value, so the reference rounds too.
void add_residual(Context& ctx) {
  auto x = ctx.matrix("x");
  auto res = ctx.matrix("residual");
  for (Eigen::Index r = 0; r < res.rows(); ++r)
    for (Eigen::Index c = 0; c < res.cols(); ++c) res(r, c) = ctx.round_to("residual", x(r, c) + res(r, c));
}

}  // namespace

HK_REFERENCE(rmsnorm) { rmsnorm_rows(ctx, "x"); }
HK_REFERENCE(fused_add_rmsnorm) {
  add_residual(ctx);
  rmsnorm_rows(ctx, "residual");
}
HK_REFERENCE(layernorm) { layernorm_rows(ctx, "x"); }
HK_REFERENCE(fused_add_layernorm) {
  add_residual(ctx);
  layernorm_rows(ctx, "residual");
}
