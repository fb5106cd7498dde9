// CPU references for kernels/ff_fused/ff_fused.cu, in double precision. The kernel stores the
// intermediate h in bf16, so h is rounded to bf16 here too (ctx.round_to with x's dtype) before
// the down projection; out is rounded once at the end. Products are tiled over ctx's threads
// (hk::ref::product), the elementwise steps split by rows.
#include <cmath>

#include "reference.h"

namespace {

using hk::ref::Context;
using hk::ref::RowMatrix;

double silu(double g) { return g / (1.0 + std::exp(-g)); }
double gelu_erf(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }

// out = round(h . w2^T) with h [T, I] already rounded.
void down(Context& ctx, const RowMatrix& h) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), I = ctx.integer("I");
  const RowMatrix y = hk::ref::product(ctx, h, ctx.matrix("w2", H, I).transpose());
  auto out = ctx.matrix("out", T, H);
  ctx.parallel_for(T, [&](int64_t t) {
    for (int64_t j = 0; j < H; ++j) out(t, j) = ctx.round_to("out", y(t, j));
  });
}

}  // namespace

HK_REFERENCE(ff_fused_gated) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), I = ctx.integer("I");
  const RowMatrix x = ctx.matrix("x", T, H);
  const RowMatrix g = hk::ref::product(ctx, x, ctx.matrix("w1", I, H).transpose());
  const RowMatrix u = hk::ref::product(ctx, x, ctx.matrix("w3", I, H).transpose());
  RowMatrix h(T, I);
  ctx.parallel_for(T, [&](int64_t t) {
    for (int64_t i = 0; i < I; ++i) h(t, i) = ctx.round_to("x", silu(g(t, i)) * u(t, i));
  });
  down(ctx, h);
}

HK_REFERENCE(ff_fused_ungated) {
  const int64_t T = ctx.integer("T"), H = ctx.integer("H"), I = ctx.integer("I");
  const RowMatrix a = hk::ref::product(ctx, ctx.matrix("x", T, H), ctx.matrix("w1", I, H).transpose());
  RowMatrix h(T, I);
  ctx.parallel_for(T, [&](int64_t t) {
    for (int64_t i = 0; i < I; ++i) h(t, i) = ctx.round_to("x", gelu_erf(a(t, i)));
  });
  down(ctx, h);
}
