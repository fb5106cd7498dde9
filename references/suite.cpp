// CPU references for kernels/suite/ (the attention suite), in double precision.
// Tensors are [batch, heads, seq, D] (or [batch, heads, seq_q, seq_k] for weights and scores);
// each (batch, head) pair is one row-major matrix, viewed with Eigen maps, and one index of
// ctx.parallel_for (it writes only its own slice).
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::MatrixMap;

// The (batch, head) slice `bh` of a [.., .., rows, cols] tensor as a matrix.
MatrixMap slice(hk::ref::Tensor& t, int64_t bh) {
  const int64_t rows = t.dim(-2), cols = t.dim(-1);
  return MatrixMap(t.data.data() + bh * rows * cols, rows, cols);
}

int64_t batch_heads(const hk::ref::Tensor& t) { return t.shape.at(0) * t.shape.at(1); }

}  // namespace

// out = softmax(scale * q k^T) v per (batch, head), softmax over keys with its max subtracted.
// scale = scale_mul / sqrt(D), as the manifest's argument says, rounded to f32 as the kernel gets it.
HK_REFERENCE(suite_flash_nocausal) {
  auto& q = ctx.tensor("q");
  auto& k = ctx.tensor("k");
  auto& v = ctx.tensor("v");
  auto& out = ctx.tensor("out");
  const double scale = static_cast<double>(static_cast<float>(ctx.num("scale_mul") / std::sqrt(ctx.num("D"))));
  ctx.parallel_for(batch_heads(q), [&](int64_t bh) {
    hk::ref::RowMatrix s = scale * (slice(q, bh) * slice(k, bh).transpose());
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
      s.row(i).array() = (s.row(i).array() - s.row(i).maxCoeff()).exp();
      s.row(i) /= s.row(i).sum();
    }
    slice(out, bh) = s * slice(v, bh);
  });
}

// out = w v per (batch, head).
HK_REFERENCE(suite_weighted_matmul) {
  auto& w = ctx.tensor("w");
  auto& v = ctx.tensor("v");
  auto& out = ctx.tensor("out");
  ctx.parallel_for(batch_heads(w), [&](int64_t bh) { slice(out, bh) = slice(w, bh) * slice(v, bh); });
}

// scores[.., i, j] = -inf where j > i + (seq_k - seq_q); the rest as it came in (inout).
HK_REFERENCE(suite_causal_mask) {
  auto& s = ctx.tensor("scores");
  const int64_t seq_q = s.dim(-2), seq_k = s.dim(-1);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  double* p = s.data.data();
  ctx.parallel_for(batch_heads(s), [&](int64_t bh) {
    for (int64_t i = 0; i < seq_q; ++i)
      for (int64_t j = std::max<int64_t>(0, i + (seq_k - seq_q) + 1); j < seq_k; ++j)
        p[(bh * seq_q + i) * seq_k + j] = neg_inf;
  });
}

HK_REFERENCE(suite_buffer_copy) { ctx.tensor("out").data = ctx.tensor("x").data; }
