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

}  // namespace hk::ref
