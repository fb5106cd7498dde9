// CPU references for kernels/activation/activation.cu, in double precision, written from the
// textbook definitions (not from the kernel's rearranged forms).
#include <cmath>

#include "reference.h"

namespace {

using hk::ref::Context;
using Fn = double (*)(double);

constexpr double kSqrt1_2 = 0.70710678118654752440;      // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x * kSqrt1_2)); }
double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x))); }
double relu(double x) { return x < 0.0 ? 0.0 : x; }
double tanh_(double x) { return std::tanh(x); }

// out[i] = f(x[i]) over all elements.
void unary(Context& ctx, Fn f) {
  const auto& x = ctx.tensor("x").data;
  auto& out = ctx.tensor("out").data;
  for (size_t i = 0; i < x.size(); ++i) out[i] = f(x[i]);
}

// x: [M, 2D], out: [M, D]; out = f(x[:, :D]) * x[:, D:].
void gated(Context& ctx, Fn f) {
  auto x = ctx.matrix("x");
  auto out = ctx.matrix("out");
  const Eigen::Index D = out.cols();
  out = x.leftCols(D).unaryExpr([f](double v) { return f(v); }).cwiseProduct(x.rightCols(D));
}

}  // namespace

HK_REFERENCE(silu) { unary(ctx, silu); }
HK_REFERENCE(gelu) { unary(ctx, gelu); }
HK_REFERENCE(gelu_tanh) { unary(ctx, gelu_tanh); }
HK_REFERENCE(relu) { unary(ctx, relu); }
HK_REFERENCE(tanh) { unary(ctx, tanh_); }
HK_REFERENCE(silu_and_mul) { gated(ctx, silu); }
HK_REFERENCE(gelu_and_mul) { gated(ctx, gelu); }
