// The arithmetic of hkcheck's input values, written once for the host (generator.cpp,
// portable_normal.cpp) and the device (hk_input_generator.h): splitmix64 draws and the Box-Muller
// transform with its logarithm, sine and cosine as polynomials of +, -, *, / and sqrt, which IEEE
// 754 rounds exactly. Compiled without contraction of a multiply and an add into one rounding
// (-ffp-contract=off on the host, --fmad=false / -ffp-contract=off on the device), every element
// has the same bits wherever it is made.
#pragma once
#ifndef HK_HD
#define HK_HD
#endif

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define HK_IV_INLINE __forceinline__
#define HK_IV_BITS_OF(x) static_cast<unsigned long long>(__double_as_longlong(x))
#define HK_IV_DOUBLE_OF(b) __longlong_as_double(static_cast<long long>(b))
#else
#include <cmath>
#include <cstring>
// Inlined into the host's loops, which the compiler then vectorizes (portable_normal.cpp).
#define HK_IV_INLINE __attribute__((always_inline)) inline
inline unsigned long long hk_iv_bits_of(double x) {
  unsigned long long b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
inline double hk_iv_double_of(unsigned long long b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
#define HK_IV_BITS_OF(x) hk_iv_bits_of(x)
#define HK_IV_DOUBLE_OF(b) hk_iv_double_of(b)
#endif

// Draw k (from 0) of the splitmix64 stream of seed, in [0, 1): the state after k draws is
// seed + k * 0x9E37..., so any element is made without the draws before it.
HK_HD HK_IV_INLINE double hk_uniform01_at(unsigned long long seed, unsigned long long k) {
  unsigned long long z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

// atanh(s) / s = sum z^k / (2k + 1) for z = s^2: ten terms leave an error under 1e-16 for
// z < 0.0295. Horner's scheme from the highest term, one rounding per operation in this order.
HK_HD HK_IV_INLINE double hk_atanh_ratio(double z) {
  double p = 1.0 / 19;
  p = 1.0 / 17 + z * p;
  p = 1.0 / 15 + z * p;
  p = 1.0 / 13 + z * p;
  p = 1.0 / 11 + z * p;
  p = 1.0 / 9 + z * p;
  p = 1.0 / 7 + z * p;
  p = 1.0 / 5 + z * p;
  p = 1.0 / 3 + z * p;
  return 1.0 + z * p;
}

// sin(y) / y and cos(y) as Taylor series to y^15 and y^16 (z = y^2): errors under 1e-16 for
// |y| <= pi/4.
HK_HD HK_IV_INLINE double hk_sin_ratio(double z) {
  double p = -1.0 / 1307674368000.0;
  p = 1.0 / 6227020800.0 + z * p;
  p = -1.0 / 39916800 + z * p;
  p = 1.0 / 362880 + z * p;
  p = -1.0 / 5040 + z * p;
  p = 1.0 / 120 + z * p;
  p = -1.0 / 6 + z * p;
  return 1.0 + z * p;
}

HK_HD HK_IV_INLINE double hk_cos_series(double z) {
  double p = 1.0 / 20922789888000.0;
  p = -1.0 / 87178291200.0 + z * p;
  p = 1.0 / 479001600.0 + z * p;
  p = -1.0 / 3628800 + z * p;
  p = 1.0 / 40320 + z * p;
  p = -1.0 / 720 + z * p;
  p = 1.0 / 24 + z * p;
  p = -1.0 / 2 + z * p;
  return 1.0 + z * p;
}

// -2 ln(u) for u in (0, 1] (a normal double), within a few ulps of the exact value.
HK_HD HK_IV_INLINE double hk_minus_two_log(double u) {
  const double kLn2 = 0.693147180559945309417232121458176568;
  // u = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
  const unsigned long long bits = HK_IV_BITS_OF(u);
  // Exponent and mantissa m in [1, 2); m above sqrt(2) is halved (exactly) and the exponent raised.
  const unsigned long long mantissa = bits & 0x000FFFFFFFFFFFFFull;
  const unsigned long long high = mantissa > 0x6A09E667F3BCCull ? 1 : 0;  // the mantissa bits of sqrt(2)
  const double m = HK_IV_DOUBLE_OF(mantissa | ((1023 - high) << 52));
  // 32-bit integers here and below: what vector units convert to and from double.
  const int e = static_cast<int>((bits >> 52) & 0x7FF) - 1023 + static_cast<int>(high);
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  const double ln_m = 2.0 * s * hk_atanh_ratio(z);
  return -2.0 * (static_cast<double>(e) * kLn2 + ln_m);
}

// cos and sin of 2 pi t for t in [0, 1), within a few ulps.
HK_HD HK_IV_INLINE void hk_cos_sin_turn(double t, double* c, double* s) {
  const double kHalfPi = 1.57079632679489661923132169163975144;
  // 2 pi t = q pi/2 + y with q the nearest quarter turn and |y| <= pi/4 (4t and 4t - q are exact).
  const double quarters = 4.0 * t;
  const int quarter = static_cast<int>(quarters + 0.5);  // t >= 0: truncation rounds down
  const unsigned long long q = static_cast<unsigned long long>(quarter);
  const double y = (quarters - static_cast<double>(quarter)) * kHalfPi, z = y * y;
  const unsigned long long sin_y = HK_IV_BITS_OF(y * hk_sin_ratio(z)), cos_y = HK_IV_BITS_OF(hk_cos_series(z));
  // Quarter q turns (cos, sin) into (-sin, cos): selected and negated by bits, without branches,
  // whose direction a random angle makes unpredictable.
  const unsigned long long odd = 0 - (q & 1), sign = 1ull << 63;
  const unsigned long long c0 = (cos_y & ~odd) | (sin_y & odd), s0 = (sin_y & ~odd) | (cos_y & odd);
  *c = HK_IV_DOUBLE_OF(c0 ^ (((q + 1) & 2) ? sign : 0));
  *s = HK_IV_DOUBLE_OF(s0 ^ ((q & 2) ? sign : 0));
}

// The standard normal pair of draws u1, u2: a = r cos(2 pi u2), b = r sin(2 pi u2) with
// r = sqrt(-2 ln(1 - u1)); sqrt is rounded exactly by IEEE 754.
HK_HD HK_IV_INLINE void hk_normal_pair(double u1, double u2, double* a, double* b) {
  const double r = sqrt(hk_minus_two_log(1.0 - u1));
  double c, s;
  hk_cos_sin_turn(u2, &c, &s);
  *b = r * s;
  *a = r * c;
}
