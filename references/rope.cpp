// CPU references for kernels/rope/rope.cu, in double precision (angles and sin/cos too).
// q [T, Hq, D], k [T, Hk, D], positions [T]; pair i < D/2 rotated by pos * theta^(-2i/D):
//   neox pairs (i, i + D/2), gptj pairs (2i, 2i + 1).
// theta reaches the kernel as f32, so it is rounded to float here too. The kernel's f32 angle
// (pos * f32 inv_freq) is off by up to ~1.5 ulp of the angle (~3.7e-4 rad at pos 4095), which
// the manifest's atol covers; the reference does not model it.
#include <cmath>
#include <tuple>
#include <vector>

#include "reference.h"
#include "rope_angles.h"

namespace {

void rope(hk::ref::Context& ctx, bool neox) {
  const int64_t Hq = ctx.integer("Hq"), Hk = ctx.integer("Hk"), D = ctx.integer("D");
  const double theta = static_cast<float>(ctx.num("theta"));
  const int64_t half = D / 2;
  const auto& pos = ctx.tensor("positions").data;
  const int64_t tokens = static_cast<int64_t>(pos.size());
  std::vector<double> cs, sn;
  for (int64_t t = 0; t < tokens; ++t) {
    hk::ref::rope_cos_sin(pos[t], theta, D, cs, sn);
    for (const auto& [in_name, out_name, H] : {std::tuple{"q", "q_out", Hq}, std::tuple{"k", "k_out", Hk}}) {
      auto x = ctx.matrix(in_name, tokens * H, D);  // row t * H + h is head h of token t
      auto out = ctx.matrix(out_name, tokens * H, D);
      for (int64_t h = 0; h < H; ++h) {
        const int64_t r = t * H + h;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
          const double x1 = x(r, a), x2 = x(r, b);
          out(r, a) = x1 * cs[i] - x2 * sn[i];
          out(r, b) = x2 * cs[i] + x1 * sn[i];
        }
      }
    }
  }
}

}  // namespace

HK_REFERENCE(rope_neox) { rope(ctx, true); }
HK_REFERENCE(rope_gptj) { rope(ctx, false); }
