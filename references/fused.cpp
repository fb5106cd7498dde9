// CPU references for the fused element-wise / layout kernels (kernels/fused/).
#include "reference.h"
#include "rope_angles.h"

#include <cmath>

// out = a * b + c
HK_REFERENCE(fused_mul_add_tensor) {
  const auto& a = ctx.tensor("a").data;
  const auto& b = ctx.tensor("b").data;
  const auto& c = ctx.tensor("c").data;
  auto& out = ctx.tensor("out").data;
  for (size_t i = 0; i < out.size(); ++i) out[i] = a[i] * b[i] + c[i];
}

// out = alpha * x + beta; the kernel receives alpha and beta as f32, so round them likewise.
HK_REFERENCE(fused_mul_add_scalar) {
  const double alpha = static_cast<float>(ctx.num("alpha"));
  const double beta = static_cast<float>(ctx.num("beta"));
  const auto& x = ctx.tensor("x").data;
  auto& out = ctx.tensor("out").data;
  for (size_t i = 0; i < out.size(); ++i) out[i] = alpha * x[i] + beta;
}

// q = [q_nope | q_rope] and k = [k_nope | k_rope] along the last dimension.
HK_REFERENCE(fused_qk_concat) {
  for (const char* p : {"q", "k"}) {
    const std::string s(p);
    auto nope = ctx.matrix(s + "_nope");  // [tokens * heads, Dn]
    auto rope = ctx.matrix(s + "_rope");  // [tokens * heads, Dr]
    auto out = ctx.matrix(s);             // [tokens * heads, Dn + Dr]
    out.leftCols(nope.cols()) = nope;
    out.rightCols(rope.cols()) = rope;
  }
}

// Split packed qkv [T, (Hq + 2 Hk) * D] into q, k, v; neox RoPE on q and k in double, by the
// angle pos * theta^(-2i/D) formed in f32 as the kernel's contract says (rope_cos_sin_f32_angle),
// pairs (i, i + D/2).
HK_REFERENCE(fused_qkv_split_qk_rope) {
  const int64_t Hq = ctx.integer("Hq"), Hk = ctx.integer("Hk"), D = ctx.integer("D");
  const double theta = static_cast<float>(ctx.num("theta"));  // passed to the kernel as f32
  const int64_t half = D / 2;
  const auto& pos = ctx.tensor("positions").data;
  const int64_t tokens = static_cast<int64_t>(pos.size());
  auto qkv = ctx.matrix("qkv", tokens, (Hq + 2 * Hk) * D);
  auto q = ctx.matrix("q", tokens * Hq, D);
  auto k = ctx.matrix("k", tokens * Hk, D);
  auto v = ctx.matrix("v", tokens, Hk * D);
  std::vector<double> cs, sn;
  for (int64_t t = 0; t < tokens; ++t) {
    hk::ref::rope_cos_sin_f32_angle(pos[t], theta, D, cs, sn);
    for (int64_t h = 0; h < Hq + Hk; ++h) {
      auto out = h < Hq ? q.row(t * Hq + h) : k.row(t * Hk + (h - Hq));
      for (int64_t i = 0; i < half; ++i) {
        const double x1 = qkv(t, h * D + i), x2 = qkv(t, h * D + i + half);
        out(i) = x1 * cs[i] - x2 * sn[i];
        out(i + half) = x2 * cs[i] + x1 * sn[i];
      }
    }
    v.row(t) = qkv.row(t).segment((Hq + Hk) * D, Hk * D);
  }
}
