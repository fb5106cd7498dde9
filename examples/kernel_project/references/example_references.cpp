// CPU references of the example kernels, in double precision (see hkcheck's reference.h).
#include <cmath>

#include "reference.h"

using hk::ref::Context;

namespace {

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x))); }

// x: [rows, 2d], out: [rows, d]: out = f(x[:, :d]) * x[:, d:].
template <typename F> void gated(Context& ctx, F f) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const Eigen::Index d = out.cols();
  out = x.leftCols(d).unaryExpr(f).cwiseProduct(x.rightCols(d));
}

}  // namespace

HK_REFERENCE(example_silu_and_mul) { gated(ctx, silu); }
HK_REFERENCE(example_gelu_tanh_and_mul) { gated(ctx, gelu_tanh); }
HK_REFERENCE(example_row_sumsq) { ctx.matrix("out", ctx.matrix("x").rows(), 1) = ctx.matrix("x").rowwise().squaredNorm(); }
HK_REFERENCE(example_scale_rows) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const auto& s = ctx.tensor("scale").data;
  for (Eigen::Index r = 0; r < x.rows(); ++r) out.row(r) = x.row(r) * s[static_cast<size_t>(r)];
}
HK_REFERENCE(example_row_max) { ctx.matrix("out", ctx.matrix("x").rows(), 1) = ctx.matrix("x").rowwise().maxCoeff(); }
