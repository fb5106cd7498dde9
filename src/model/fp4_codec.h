#pragma once
// fp4 e2m1 rounding without the generic minifloat path: its 16 values make rounding a handful of
// comparisons. Bit for bit what hk_encode_float gives for HK_FMT_E2M1 (tests/fp4_codec_test.cpp
// checks it over a sweep of doubles), at a small part of its cost: a MoE case packs half a
// billion weights. Decoding is dtype.cpp's decode table, as for the other small formats.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace hk {

// The 4-bit code of v, rounded to nearest even, saturating at +-6; NaN gives +6 (no NaN code).
inline unsigned fp4_encode(double v) {
  // No branch on the value: random weights would make every branch a coin toss.
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const unsigned sign = static_cast<unsigned>(bits >> 63) << 3;  // -0.0 keeps its sign, as the generic codec does
  const double a = std::fabs(v);
  // Midpoints between neighbours 0, 0.5, 1, 1.5, 2, 3, 4, 6; a tie goes to the even code.
  const unsigned code = (a > 0.25) + (a >= 0.75) + (a > 1.25) + (a >= 1.75) + (a > 2.5) + (a >= 3.5) + (a > 5.0);
  const bool nan = a != a;
  return nan ? 0x7u : (sign | code);
}

}  // namespace hk
