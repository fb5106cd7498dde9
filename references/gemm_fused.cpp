// CPU references for the fused GEMMs of kernels/gemm/ (fused_gemm_pair.cu, fused_gemm_mul_add.cu,
// fused_gemm_split_cat.cu). The quantized operands are dequantized exactly (fp8 e4m3 times its f32
// block scale; MX fp4 e2m1 times its e8m0 scale), products in double (Eigen), and each output
// rounded once to its dtype. B operands are [N, K] (P = A * B^T).
#include <string>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;
using Index = Eigen::Index;

// fp8 [rows, K] times f32 scales s[(r / row_block), k / 128] (row_block 1 or 128).
RowMatrix fp8_block(Context& ctx, const std::string& q, const std::string& s, Index rows, Index K, Index row_block) {
  RowMatrix x = ctx.matrix(q, rows, K);
  auto sc = ctx.matrix(s, (rows + row_block - 1) / row_block, (K + 127) / 128);
  hk::ref::scale_blocks(x, sc, row_block, 128);
  return x;
}

// MX fp4 [rows, K] times its e8m0 scales [rows, ceil(K / 32)].
RowMatrix mx_fp4(Context& ctx, const std::string& q, const std::string& s, Index rows, Index K) {
  RowMatrix x = ctx.matrix(q, rows, K);
  auto sc = ctx.matrix(s, rows, (K + 31) / 32);
  hk::ref::scale_blocks(x, sc, 1, 32);
  return x;
}

// deq(a) deq(b)^T for tensors a, b and scales named a_scale/b_scale (fp8) or a_scales/b_scales (fp4).
RowMatrix quant_product(Context& ctx, bool fp4, const std::string& a, const std::string& b, Index M, Index N, Index K) {
  if (fp4) return hk::ref::product(ctx, mx_fp4(ctx, a, "a_scales", M, K), mx_fp4(ctx, b, "b_scales", N, K).transpose());
  return hk::ref::product(ctx, fp8_block(ctx, a, "a_scale", M, K, 1), fp8_block(ctx, b, "b_scale", N, K, 128).transpose());
}

void store(Context& ctx, const std::string& name, const RowMatrix& v) {
  auto out = ctx.matrix(name, v.rows(), v.cols());
  for (Index r = 0; r < v.rows(); ++r)
    for (Index c = 0; c < v.cols(); ++c) out(r, c) = ctx.round_to(name, v(r, c));
}

void pair(Context& ctx, bool fp4) {
  const Index M = ctx.integer("M"), Nq = ctx.integer("Nq"), Kq = ctx.integer("Kq");
  const Index N16 = ctx.integer("N16"), K16 = ctx.integer("K16");
  store(ctx, "c_q", quant_product(ctx, fp4, "a_q", "b_q", M, Nq, Kq));
  store(ctx, "c_bf16", hk::ref::product(ctx, ctx.matrix("a_bf16", M, K16), RowMatrix(ctx.matrix("b_bf16", N16, K16)).transpose()));
}

// c = c_a * P + c_b; c_a / c_b are [M, N] or one broadcast row [N] (params ca_bcast / cb_bcast).
void mul_add(Context& ctx, bool fp4) {
  const Index M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  const RowMatrix P = quant_product(ctx, fp4, "a", "b", M, N, K);
  const bool ca_b = ctx.integer("ca_bcast"), cb_b = ctx.integer("cb_bcast");
  auto ca = ctx.matrix("c_a", ca_b ? 1 : M, N);
  auto cb = ctx.matrix("c_b", cb_b ? 1 : M, N);
  RowMatrix c(M, N);
  for (Index m = 0; m < M; ++m)
    for (Index n = 0; n < N; ++n) c(m, n) = ca(ca_b ? 0 : m, n) * P(m, n) + cb(cb_b ? 0 : m, n);
  store(ctx, "c", c);
}

// c1 = [P[:, :N1], y], c2 = P[:, N1:].
void split_cat(Context& ctx, bool fp4) {
  const Index M = ctx.integer("M"), N1 = ctx.integer("N1"), N2 = ctx.integer("N2"), K = ctx.integer("K");
  const Index D = ctx.integer("D");
  const RowMatrix P = quant_product(ctx, fp4, "a", "b", M, N1 + N2, K);
  RowMatrix c1(M, N1 + D);
  c1 << P.leftCols(N1), RowMatrix(ctx.matrix("y", M, D));
  store(ctx, "c1", c1);
  store(ctx, "c2", P.rightCols(N2));
}

}  // namespace

HK_REFERENCE(fused_gemm_a8w8_blockscale_a16w16) { pair(ctx, false); }
HK_REFERENCE(fused_gemm_afp4wfp4_a16w16) { pair(ctx, true); }
HK_REFERENCE(fused_gemm_a8w8_blockscale_mul_add) { mul_add(ctx, false); }
HK_REFERENCE(fused_gemm_afp4wfp4_mul_add) { mul_add(ctx, true); }
HK_REFERENCE(fused_gemm_a8w8_blockscale_split_cat) { split_cat(ctx, false); }
HK_REFERENCE(fused_gemm_afp4wfp4_split_cat) { split_cat(ctx, true); }
