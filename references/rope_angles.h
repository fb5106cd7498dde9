// The rotation RoPE applies to one token, shared by the references that rotate heads: pair i of
// a head of size D turns by pos * theta^(-2i/D), in double precision.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace hk::ref {

// cos and sin of the D/2 angles at position pos, into cs and sn (resized to D/2).
inline void rope_cos_sin(double pos, double theta, int64_t D, std::vector<double>& cs, std::vector<double>& sn) {
  const int64_t half = D / 2;
  cs.resize(static_cast<size_t>(half));
  sn.resize(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    const double angle = pos * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D));
    cs[static_cast<size_t>(i)] = std::cos(angle);
    sn[static_cast<size_t>(i)] = std::sin(angle);
  }
}

// The same with the angle as kernels form it from an f32 inv_freq table: inv_freq rounded once
// to f32, pos * inv_freq an f32 product (the angle's rounding, up to 2.4e-4 rad at position
// 4095, is then the specification's, not an error); cos and sin of that angle in double. What is
// left between a kernel and this is its cos/sin and rotation arithmetic, ~1e-6: a table of lower
// precision (f16 cos/sin) stands out against it.
inline void rope_cos_sin_f32_angle(double pos, double theta, int64_t D, std::vector<double>& cs, std::vector<double>& sn) {
  const int64_t half = D / 2;
  cs.resize(static_cast<size_t>(half));
  sn.resize(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    const float inv_freq = static_cast<float>(std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(D)));
    const double angle = static_cast<float>(static_cast<float>(pos) * inv_freq);
    cs[static_cast<size_t>(i)] = std::cos(angle);
    sn[static_cast<size_t>(i)] = std::sin(angle);
  }
}

}  // namespace hk::ref
