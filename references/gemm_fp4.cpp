// CPU references for the OCP MX fp4 GEMMs of kernels/gemm/ (gemm_fp4.cu, batched_gemm_fp4.cu).
// fp4e2m1 and e8m0 tensors arrive decoded exactly (e2m1 values, 2^(bits - 127) scales); an MX
// operand is value * scale of its 32-wide block along K; products in double (Eigen), the output
// rounded once to its dtype. B is [N, K] (C = A * B^T), batched tensors [Bt, rows, cols]. Rows
// are dequantized and stored, and products tiled, on ctx's threads (each index its own rows).
#include <string>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

// Tensor `q` viewed as [rows, K], times its MX scales `s` [rows, ceil(K / 32)].
RowMatrix mx_dequant(Context& ctx, const std::string& q, const std::string& s, Eigen::Index rows, Eigen::Index K) {
  RowMatrix x = ctx.matrix(q, rows, K);
  auto sc = ctx.matrix(s, rows, (K + 31) / 32);
  ctx.parallel_for(rows, [&](int64_t r) { hk::ref::scale_blocks(x.middleRows(r, 1), sc.middleRows(r, 1), 1, 32); });
  return x;
}

// Writes batch b of the output ([Bt * M, N] view) rounded to its dtype.
void store(Context& ctx, const std::string& name, Eigen::Index b, const RowMatrix& v) {
  auto out = ctx.matrix(name, ctx.tensor(name).numel() / v.cols(), v.cols());
  ctx.parallel_for(v.rows(), [&](int64_t r) {
    for (Eigen::Index c = 0; c < v.cols(); ++c) out(b * v.rows() + r, c) = ctx.round_to(name, v(r, c));
  });
}

struct Dims {
  Eigen::Index Bt, M, N, K;
};
Dims dims(Context& ctx) {
  return {ctx.has("Bt") ? ctx.integer("Bt") : 1, ctx.integer("M"), ctx.integer("N"), ctx.integer("K")};
}

// A is bf16 ("A") or MX fp4 ("A" with "a_scales"); B MX fp4 with "b_scales".
void mx_gemm(Context& ctx, bool a_is_mx) {
  const Dims d = dims(ctx);
  const RowMatrix A = a_is_mx ? mx_dequant(ctx, "A", "a_scales", d.Bt * d.M, d.K) : RowMatrix(ctx.matrix("A", d.Bt * d.M, d.K));
  const RowMatrix B = mx_dequant(ctx, "B", "b_scales", d.Bt * d.N, d.K);
  for (Eigen::Index b = 0; b < d.Bt; ++b)
    store(ctx, "C", b, hk::ref::product(ctx, A.middleRows(b * d.M, d.M), B.middleRows(b * d.N, d.N).transpose()));
}

}  // namespace

HK_REFERENCE(gemm_a16wfp4) { mx_gemm(ctx, false); }
HK_REFERENCE(gemm_afp4wfp4) { mx_gemm(ctx, true); }

// A fp8 e4m3 with a per-row a_scale [M].
HK_REFERENCE(gemm_a8wfp4) {
  const Dims d = dims(ctx);
  const RowMatrix sa = ctx.matrix("a_scale", d.M, 1);
  const RowMatrix A = sa.col(0).asDiagonal() * RowMatrix(ctx.matrix("A", d.M, d.K));
  store(ctx, "C", 0, hk::ref::product(ctx, A, mx_dequant(ctx, "B", "b_scales", d.N, d.K).transpose()));
}

// Batched: A [Bt, M, K], B [Bt, N, K], scales [Bt, rows, ceil(K / 32)], C [Bt, M, N].
HK_REFERENCE(batched_gemm_a16wfp4) { mx_gemm(ctx, false); }
HK_REFERENCE(batched_gemm_afp4wfp4) { mx_gemm(ctx, true); }
