#include "portable_normal.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace hk {
namespace {

constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kHalfPi = 1.57079632679489661923132169163975144;

// x * (c[0] + z * (c[1] + z * (...))), one rounding per operation, in this order.
template <int N>
double horner(const double (&c)[N], double z) {
  double p = c[N - 1];
  for (int k = N - 2; k >= 0; --k) p = c[k] + z * p;
  return p;
}

uint64_t bits_of(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double double_of(uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace

__attribute__((always_inline)) inline double minus_two_log_inline(double u) {
  // u = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
  const uint64_t bits = bits_of(u);
  // Exponent and mantissa m in [1, 2); m above sqrt(2) is halved (exactly) and the exponent raised.
  const uint64_t mantissa = bits & 0x000FFFFFFFFFFFFFull;
  const uint64_t high = mantissa > 0x6A09E667F3BCCull ? 1 : 0;  // the mantissa bits of sqrt(2)
  const double m = double_of(mantissa | ((1023 - high) << 52));
  // 32-bit integers here and below: what vector units convert to and from double.
  const int32_t e = static_cast<int32_t>((bits >> 52) & 0x7FF) - 1023 + static_cast<int32_t>(high);
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  // atanh(s) / s = sum z^k / (2k + 1): ten terms leave an error under 1e-16 for z < 0.0295.
  static constexpr double kAtanh[] = {1.0,        1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,
                                      1.0 / 11,   1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19};
  const double ln_m = 2.0 * s * horner(kAtanh, z);
  return -2.0 * (static_cast<double>(e) * kLn2 + ln_m);
}

__attribute__((always_inline)) inline void cos_sin_turn_inline(double t, double* c, double* s) {
  // 2 pi t = q pi/2 + y with q the nearest quarter turn and |y| <= pi/4 (4t and 4t - q are exact).
  const double quarters = 4.0 * t;
  const int32_t quarter = static_cast<int32_t>(quarters + 0.5);  // t >= 0: truncation rounds down
  const uint64_t q = static_cast<uint64_t>(quarter);
  const double y = (quarters - static_cast<double>(quarter)) * kHalfPi, z = y * y;
  // Taylor series to y^15 and y^16: errors under 1e-16 for |y| <= pi/4.
  static constexpr double kSin[] = {1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800.0,
                                    -1.0 / 1307674368000.0};
  static constexpr double kCos[] = {1.0, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600.0,
                                    -1.0 / 87178291200.0, 1.0 / 20922789888000.0};
  const uint64_t sin_y = bits_of(y * horner(kSin, z)), cos_y = bits_of(horner(kCos, z));
  // Quarter q turns (cos, sin) into (-sin, cos): selected and negated by bits, without branches,
  // whose direction a random angle makes unpredictable.
  const uint64_t odd = 0 - (q & 1), sign = uint64_t{1} << 63;
  const uint64_t c0 = (cos_y & ~odd) | (sin_y & odd), s0 = (sin_y & ~odd) | (cos_y & odd);
  *c = double_of(c0 ^ (((q + 1) & 2) ? sign : 0));
  *s = double_of(s0 ^ ((q & 2) ? sign : 0));
}

double minus_two_log(double u) { return minus_two_log_inline(u); }
void cos_sin_turn(double t, double* c, double* s) { cos_sin_turn_inline(t, c, s); }

namespace {

// Two plain loops of independent iterations: the processor overlaps the long polynomial chains
// of several elements, and the compiler vectorizes them (-O3 -fno-math-errno for this file).
// Every operation is the same IEEE one in the same order, so any vector width gives the same bits.
__attribute__((always_inline)) inline void normal_pairs_body(const double* __restrict u1, const double* __restrict u2,
                                                             double* __restrict a, double* __restrict b, size_t count) {
  for (size_t k = 0; k < count; ++k) a[k] = std::sqrt(minus_two_log_inline(1.0 - u1[k]));  // sqrt is rounded exactly by IEEE 754
  for (size_t k = 0; k < count; ++k) {
    double c, s;
    cos_sin_turn_inline(u2[k], &c, &s);
    b[k] = a[k] * s;
    a[k] = a[k] * c;
  }
}

__attribute__((target("avx2"))) void normal_pairs_avx2(const double* u1, const double* u2, double* a, double* b, size_t count) {
  normal_pairs_body(u1, u2, a, b, count);
}

}  // namespace

void normal_pairs_baseline(const double* u1, const double* u2, double* a, double* b, size_t count) {
  normal_pairs_body(u1, u2, a, b, count);
}

void normal_pairs(const double* u1, const double* u2, double* a, double* b, size_t count) {
  static const bool avx2 = __builtin_cpu_supports("avx2");  // 4 doubles a step, about 2x
  if (avx2) normal_pairs_avx2(u1, u2, a, b, count);
  else normal_pairs_baseline(u1, u2, a, b, count);
}

}  // namespace hk
