// CPU references for kernels/gemm/batched_gemm.cu: C[b] = scales * (A[b] * B[b]^T) + bias, in
// double (Eigen), rounded once to C's dtype. Inputs arrive decoded exactly (bf16, int8, fp8 e4m3).
// Batched tensors are [Bt, rows, cols]; bias is [N] (param bias_per_batch 0, kernel bias_stride 0)
// or [Bt, N] (bias_per_batch 1, bias_stride N).
#include <string>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

// a_group: 0 for a per-row a_scale [Bt, M] (or none when the tensor is absent), 128 for a
// per-(row, 128-wide K group) one [Bt, M, ceil(K / 128)].
void batched(Context& ctx, int a_group) {
  const Eigen::Index Bt = ctx.integer("Bt"), M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  const Eigen::Index stride = ctx.integer("bias_per_batch") ? N : 0, groups = (K + 127) / 128;
  const bool scaled = ctx.tensors.count("b_scale") > 0;
  auto A = ctx.matrix("A", Bt * M, K);
  auto B = ctx.matrix("B", Bt * N, K);
  auto C = ctx.matrix("C", Bt * M, N);
  const auto& bias = ctx.tensor("bias").data;
  // One batch per index (its operands scaled, multiplied and stored there): each writes its own
  // rows of C, with the product it would have alone.
  ctx.parallel_for(Bt, [&](int64_t b) {
    RowMatrix a = A.middleRows(b * M, M);
    RowMatrix bm = B.middleRows(b * N, N);
    if (a_group) {
      hk::ref::scale_blocks(a, ctx.matrix("a_scale", Bt * M, groups).middleRows(b * M, M), 1, a_group);
    } else if (scaled) {
      auto sa = ctx.matrix("a_scale", Bt, M);
      a = sa.row(b).transpose().asDiagonal() * a;
    }
    if (scaled) bm = ctx.matrix("b_scale", Bt, N).row(b).transpose().asDiagonal() * bm;
    const RowMatrix p = a * bm.transpose();
    for (Eigen::Index m = 0; m < M; ++m)
      for (Eigen::Index n = 0; n < N; ++n)
        C(b * M + m, n) = ctx.round_to("C", p(m, n) + bias[b * stride + n]);
  });
}

}  // namespace

HK_REFERENCE(batched_gemm_bf16) { batched(ctx, 0); }
HK_REFERENCE(batched_gemm_a8w8) { batched(ctx, 0); }
HK_REFERENCE(batched_gemm_a8w8_ptgq) { batched(ctx, 128); }
