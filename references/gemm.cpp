// CPU references for kernels/gemm/: the plain and 8-bit GEMMs (gemm_a16w16*, gemm_a8w8*,
// gemm_a16w8_blockscale). Inputs arrive decoded exactly (int8 as is, fp8 e4m3 and bf16 by their
// format), are scaled as each kernel's format says, multiplied in double with Eigen, and the
// output is rounded once to its dtype. B is [N, K] throughout (C = A * B^T).
#include <cmath>
#include <string>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

// rows x cols view of a tensor, copied (so it can be scaled in place).
RowMatrix mat(Context& ctx, const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  return ctx.matrix(name, rows, cols);
}

// Writes v rounded to the output's dtype.
void store(Context& ctx, const std::string& name, const RowMatrix& v) {
  auto out = ctx.matrix(name, v.rows(), v.cols());
  for (Eigen::Index r = 0; r < v.rows(); ++r)
    for (Eigen::Index c = 0; c < v.cols(); ++c) out(r, c) = ctx.round_to(name, v(r, c));
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }

}  // namespace

HK_REFERENCE(gemm_a16w16) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  store(ctx, "C", hk::ref::product(ctx, mat(ctx, "A", M, K), mat(ctx, "B", N, K).transpose()));
}

// C (f32, inout) += A * B^T.
HK_REFERENCE(gemm_a16w16_atomic) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  store(ctx, "C", mat(ctx, "C", M, N) + hk::ref::product(ctx, mat(ctx, "A", M, K), mat(ctx, "B", N, K).transpose()));
}

// B is [2N, K]: rows [0, N) the gate, rows [N, 2N) the up projection.
HK_REFERENCE(gemm_a16w16_gated) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  const RowMatrix A = mat(ctx, "A", M, K), B = mat(ctx, "B", 2 * N, K);
  const RowMatrix g = hk::ref::product(ctx, A, B.topRows(N).transpose()), u = hk::ref::product(ctx, A, B.bottomRows(N).transpose());
  store(ctx, "C", g.unaryExpr([](double x) { return silu(x); }).cwiseProduct(u));
}

// C = a_scale[m] * b_scale[n] * (A * B^T), A and B int8 or fp8 e4m3 (also gemm_a8w8_per_token_scale).
HK_REFERENCE(gemm_a8w8) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  const RowMatrix P = hk::ref::product(ctx, mat(ctx, "A", M, K), mat(ctx, "B", N, K).transpose());
  const RowMatrix sa = mat(ctx, "a_scale", M, 1), sb = mat(ctx, "b_scale", 1, N);
  store(ctx, "C", sa.asDiagonal() * P * sb.row(0).asDiagonal());
}

// A fp8 with a_scale [M, ceil(K / 128)]; B fp8 with b_scale [ceil(N / 128), ceil(K / 128)].
HK_REFERENCE(gemm_a8w8_blockscale) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K"), KB = (K + 127) / 128;
  RowMatrix A = mat(ctx, "A", M, K), B = mat(ctx, "B", N, K);
  hk::ref::scale_blocks(A, mat(ctx, "a_scale", M, KB), 1, 128);
  hk::ref::scale_blocks(B, mat(ctx, "b_scale", (N + 127) / 128, KB), 128, 128);
  store(ctx, "C", hk::ref::product(ctx, A, B.transpose()));
}

// A bf16 unscaled; B fp8 with b_scale [ceil(N / 128), ceil(K / 128)].
HK_REFERENCE(gemm_a16w8_blockscale) {
  const Eigen::Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K"), KB = (K + 127) / 128;
  RowMatrix B = mat(ctx, "B", N, K);
  hk::ref::scale_blocks(B, mat(ctx, "b_scale", (N + 127) / 128, KB), 128, 128);
  store(ctx, "C", hk::ref::product(ctx, mat(ctx, "A", M, K), B.transpose()));
}
