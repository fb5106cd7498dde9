// CPU references for kernels/mla/: mla_decode_rope and sparse_mla (absorbed MLA decode over a
// latent cache kv [num_tokens, 576]: dims 0..511 latent, also V; 512..575 rope part). Double
// precision; q_pe rotated in double from the given f32 cos/sin (mla_decode_rope only).
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;
constexpr int KV = 576, DV = 512, PE = 64;

// out rows [first, first + q.rows()) (each DV wide) = softmax over the rows of kv of scale * q.kv,
// applied to kv[:, :DV]; no rows gives 0. The products are tiled over ctx's threads, the softmax
// split by query rows: each index writes only its own rows.
void attend(const Context& ctx, const RowMatrix& q, const RowMatrix& kv, double scale, double* out) {
  Eigen::Map<RowMatrix> o(out, q.rows(), DV);
  if (kv.rows() == 0) {
    o.setZero();
    return;
  }
  RowMatrix p = hk::ref::product(ctx, q, kv.transpose());
  std::vector<double> sum(static_cast<size_t>(q.rows()));
  ctx.parallel_for(q.rows(), [&](int64_t h) {
    double m = -std::numeric_limits<double>::infinity(), total = 0.0;
    for (Eigen::Index t = 0; t < p.cols(); ++t) m = std::max(m, p(h, t) *= scale);
    for (Eigen::Index t = 0; t < p.cols(); ++t) total += p(h, t) = std::exp(p(h, t) - m);
    sum[static_cast<size_t>(h)] = total;
  });
  const RowMatrix v = hk::ref::product(ctx, p, kv.leftCols(DV));
  ctx.parallel_for(q.rows(), [&](int64_t h) { o.row(h) = v.row(h) / sum[static_cast<size_t>(h)]; });
}

// The 576-value query of (b, h): q_nope then q_pe, q_pe rotated (neox halves) when cs is given.
std::vector<double> query(Context& ctx, long long row, const double* cs) {
  const double* qn = ctx.tensor("q_nope").data.data() + row * DV;
  const double* qp = ctx.tensor("q_pe").data.data() + row * PE;
  std::vector<double> q(qn, qn + DV);
  q.resize(KV);
  for (int e = 0; e < PE / 2; ++e) {
    const double lo = qp[e], hi = qp[e + PE / 2];
    const double c = cs ? cs[e] : 1.0, s = cs ? cs[PE / 2 + e] : 0.0;
    q[DV + e] = lo * c - hi * s;
    q[DV + PE / 2 + e] = hi * c + lo * s;
  }
  return q;
}

// The [H, KV] queries of batch b.
RowMatrix queries(Context& ctx, int b, int H, const double* cs) {
  RowMatrix q(H, KV);
  for (int h = 0; h < H; ++h) q.row(h) = Eigen::Map<const Eigen::RowVectorXd>(query(ctx, (long long)b * H + h, cs).data(), KV);
  return q;
}

double scale_f32(Context& ctx) { return static_cast<float>(ctx.num("scale")); }

}  // namespace

HK_REFERENCE(mla_ref_decode_rope) {
  const int B = static_cast<int>(ctx.integer("B")), H = static_cast<int>(ctx.integer("H"));
  const double* cu = ctx.tensor("cu_seqlens_kv").data.data();
  const double* pos = ctx.tensor("positions").data.data();
  const double* cos_sin = ctx.tensor("cos_sin").data.data();
  auto kv = ctx.matrix("kv", ctx.tensor("kv").numel() / KV, KV);
  double* out = ctx.tensor("out").data.data();
  for (int b = 0; b < B; ++b) {
    const auto first = static_cast<Eigen::Index>(cu[b]), last = static_cast<Eigen::Index>(cu[b + 1]);
    const RowMatrix rows = kv.middleRows(first, std::max<Eigen::Index>(last - first, 0));
    attend(ctx, queries(ctx, b, H, cos_sin + static_cast<long long>(pos[b]) * PE), rows, scale_f32(ctx), out + (long long)b * H * DV);
  }
}

HK_REFERENCE(mla_ref_sparse) {
  const int B = static_cast<int>(ctx.integer("B")), H = static_cast<int>(ctx.integer("H")),
            topk = static_cast<int>(ctx.integer("topk"));
  const double* idx = ctx.tensor("indices").data.data();
  auto kv = ctx.matrix("kv", ctx.tensor("kv").numel() / KV, KV);
  double* out = ctx.tensor("out").data.data();
  for (int b = 0; b < B; ++b) {
    std::vector<Eigen::Index> picked;
    for (int t = 0; t < topk; ++t)
      if (idx[(long long)b * topk + t] >= 0) picked.push_back(static_cast<Eigen::Index>(idx[(long long)b * topk + t]));
    RowMatrix rows(static_cast<Eigen::Index>(picked.size()), KV);
    for (size_t t = 0; t < picked.size(); ++t) {
      if (picked[t] >= kv.rows()) throw std::runtime_error("indices: a kv row past the cache");
      rows.row(static_cast<Eigen::Index>(t)) = kv.row(picked[t]);
    }
    attend(ctx, queries(ctx, b, H, nullptr), rows, scale_f32(ctx), out + (long long)b * H * DV);
  }
}
