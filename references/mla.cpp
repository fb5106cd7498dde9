// CPU references for kernels/mla/: mla_decode_rope and sparse_mla (absorbed MLA decode over a
// latent cache kv [num_tokens, 576]: dims 0..511 latent, also V; 512..575 rope part). Double
// precision; q_pe rotated in double from the given f32 cos/sin (mla_decode_rope only).
#include <cmath>
#include <limits>
#include <vector>

#include "reference.h"

namespace {

using hk::ref::Context;
constexpr int KV = 576, DV = 512, PE = 64;

// out[0..512) = softmax over rows of scale * q·kv[row], applied to kv[row, :512]; none gives 0.
void attend_rows(const double* q, const double* kv, const std::vector<long long>& rows, double scale,
                 double* out) {
  for (int d = 0; d < DV; ++d) out[d] = 0.0;
  if (rows.empty()) return;
  std::vector<double> s(rows.size());
  double m = -std::numeric_limits<double>::infinity(), sum = 0.0;
  for (size_t t = 0; t < rows.size(); ++t) {
    double dot = 0.0;
    for (int d = 0; d < KV; ++d) dot += q[d] * kv[rows[t] * KV + d];
    s[t] = dot * scale;
    m = std::max(m, s[t]);
  }
  for (size_t t = 0; t < rows.size(); ++t) {
    const double p = std::exp(s[t] - m);
    sum += p;
    for (int d = 0; d < DV; ++d) out[d] += p * kv[rows[t] * KV + d];
  }
  for (int d = 0; d < DV; ++d) out[d] /= sum;
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

double scale_f32(Context& ctx) { return static_cast<float>(ctx.num("scale")); }

}  // namespace

HK_REFERENCE(mla_ref_decode_rope) {
  const int B = static_cast<int>(ctx.integer("B")), H = static_cast<int>(ctx.integer("H"));
  const double* kv = ctx.tensor("kv").data.data();
  const double* cu = ctx.tensor("cu_seqlens_kv").data.data();
  const double* pos = ctx.tensor("positions").data.data();
  const double* cos_sin = ctx.tensor("cos_sin").data.data();
  double* out = ctx.tensor("out").data.data();
  for (int b = 0; b < B; ++b) {
    std::vector<long long> rows;
    for (long long r = static_cast<long long>(cu[b]); r < static_cast<long long>(cu[b + 1]); ++r) rows.push_back(r);
    const double* cs = cos_sin + static_cast<long long>(pos[b]) * PE;
    for (int h = 0; h < H; ++h) {
      const long long row = (long long)b * H + h;
      attend_rows(query(ctx, row, cs).data(), kv, rows, scale_f32(ctx), out + row * DV);
    }
  }
}

HK_REFERENCE(mla_ref_sparse) {
  const int B = static_cast<int>(ctx.integer("B")), H = static_cast<int>(ctx.integer("H")),
            topk = static_cast<int>(ctx.integer("topk"));
  const double* kv = ctx.tensor("kv").data.data();
  const double* idx = ctx.tensor("indices").data.data();
  double* out = ctx.tensor("out").data.data();
  for (int b = 0; b < B; ++b) {
    std::vector<long long> rows;
    for (int t = 0; t < topk; ++t)
      if (idx[(long long)b * topk + t] >= 0) rows.push_back(static_cast<long long>(idx[(long long)b * topk + t]));
    for (int h = 0; h < H; ++h) {
      const long long row = (long long)b * H + h;
      attend_rows(query(ctx, row, nullptr).data(), kv, rows, scale_f32(ctx), out + row * DV);
    }
  }
}
