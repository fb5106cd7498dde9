// The CPU reference of the struct-argument example, in double precision.
#include <cmath>

#include "reference.h"

HK_REFERENCE(scaled_rows) {
  const auto& x = ctx.tensor("x").data;
  const auto& scale = ctx.tensor("scale").data;
  auto& counts = ctx.tensor("counts").data;
  auto& out = ctx.tensor("out").data;
  const int64_t cols = ctx.integer("C"), shift = ctx.integer("shift"), offset = ctx.integer("offset");
  const double bias = ctx.num("bias");
  const bool relu = ctx.integer("relu") != 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i] * scale[i % static_cast<size_t>(cols)] + bias;
    out[i] = relu && v < 0 ? 0 : v;
  }
  for (double& c : counts) c = std::floor(c / std::ldexp(1.0, static_cast<int>(shift))) + static_cast<double>(offset);
}
