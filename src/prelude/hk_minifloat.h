// Exact round-to-nearest-even conversions between binary floating formats of up to 16 bits
// (f16, bf16, fp8 e4m3/e5m2, fp4 e2m1) and float/double, and the OCP MX e8m0 scale format. This one file is compiled both into the host
// (dtype.cpp) and into every kernel (the device prelude), so host and device round alike.
#pragma once
#ifndef HK_HD
#define HK_HD
#endif

struct HkFloatFormat {
  int ebits;          // exponent field width
  int mbits;          // stored mantissa bits
  int bias;           // exponent bias
  bool has_inf;       // IEEE-like: all-ones exponent is Inf/NaN
  bool saturate;      // overflow gives the largest finite value instead of Inf/NaN
  unsigned nan_bits;  // the canonical NaN pattern (positive)
  double max_finite;  // largest finite magnitude
  bool no_nan;        // no NaN pattern at all (fp4 e2m1): NaN encodes as +max
};

// f16 (IEEE binary16), bf16, OCP fp8 e4m3 (no Inf, saturating) and e5m2 (IEEE-like).
#define HK_FMT_F16 HkFloatFormat{5, 10, 15, true, false, 0x7E00u, 65504.0, false}
#define HK_FMT_BF16 HkFloatFormat{8, 7, 127, true, false, 0x7FC0u, 3.3895313892515355e38, false}
#define HK_FMT_E4M3 HkFloatFormat{4, 3, 7, false, true, 0x7Fu, 448.0, false}
#define HK_FMT_E5M2 HkFloatFormat{5, 2, 15, true, false, 0x7Eu, 57344.0, false}
// OCP MX fp4 e2m1: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no Inf or NaN, saturating. One 4-bit code.
#define HK_FMT_E2M1 HkFloatFormat{2, 1, 1, false, true, 0u, 6.0, true}

HK_HD inline float hk_rint(float x) { return rintf(x); }
HK_HD inline double hk_rint(double x) { return rint(x); }
HK_HD inline float hk_ldexp(float x, int e) { return ldexpf(x, e); }
HK_HD inline double hk_ldexp(double x, int e) { return ldexp(x, e); }
HK_HD inline float hk_frexp(float x, int* e) { return frexpf(x, e); }
HK_HD inline double hk_frexp(double x, int* e) { return frexp(x, e); }

// Encodes x (float or double) into the format's bit pattern, rounding to nearest even.
template <typename HkF>
HK_HD inline unsigned hk_encode_float(HkF x, HkFloatFormat f) {
  const unsigned sign = (x < HkF(0) || (x == HkF(0) && HkF(1) / x < HkF(0))) ? 1u : 0u;
  const unsigned sign_bits = sign << (f.ebits + f.mbits);
  const unsigned exp_all_ones = (1u << f.ebits) - 1u;
  const unsigned inf_bits = exp_all_ones << f.mbits;
  const unsigned all_ones = (1u << (f.ebits + f.mbits)) - 1u;
  // The largest finite pattern: below Inf, or below an all-ones NaN, or all ones.
  const unsigned max_bits = f.has_inf ? inf_bits - 1u : (!f.no_nan && f.nan_bits == all_ones ? all_ones - 1u : all_ones);
  if (x != x) return f.no_nan ? max_bits : (f.nan_bits | sign_bits);
  HkF a = sign ? -x : x;
  if (a > HkF(f.max_finite) * HkF(2)) {  // also catches Inf
    if (f.saturate) return max_bits | sign_bits;
    return (f.has_inf ? inf_bits : f.nan_bits) | sign_bits;
  }
  const int emin = 1 - f.bias;  // exponent of the smallest normal
  int e = 0;
  hk_frexp(a, &e);
  e -= 1;  // a = m * 2^e with m in [1, 2)
  if (a == HkF(0) || e < emin) e = emin;
  const HkF r = hk_ldexp(hk_rint(hk_ldexp(a, f.mbits - e)), e - f.mbits);  // exact: power-of-two scaling
  if (r > HkF(f.max_finite)) {
    if (f.saturate) return max_bits | sign_bits;
    return (f.has_inf ? inf_bits : f.nan_bits) | sign_bits;
  }
  if (r == HkF(0)) return sign_bits;
  int re = 0;
  hk_frexp(r, &re);
  re -= 1;
  if (re < emin) {  // subnormal
    return sign_bits | (unsigned)hk_ldexp(r, f.mbits - emin);
  }
  const unsigned mant = (unsigned)(hk_ldexp(r, f.mbits - re)) - (1u << f.mbits);
  return sign_bits | ((unsigned)(re + f.bias) << f.mbits) | mant;
}

// Decodes a bit pattern of the format into float or double (exact: every value fits).
template <typename HkF>
HK_HD inline HkF hk_decode_float(unsigned bits, HkFloatFormat f) {
  const unsigned mant_mask = (1u << f.mbits) - 1u;
  const unsigned exp_all_ones = (1u << f.ebits) - 1u;
  const unsigned mant = bits & mant_mask;
  const unsigned expf_ = (bits >> f.mbits) & exp_all_ones;
  const bool neg = (bits >> (f.ebits + f.mbits)) & 1u;
  const HkF inf = hk_ldexp(HkF(1), 1 << 14);  // overflows to +Inf in float and double
  HkF v;
  if (f.has_inf && expf_ == exp_all_ones) {
    v = mant ? inf - inf : inf;
  } else if (!f.has_inf && !f.no_nan && (bits & ((1u << (f.ebits + f.mbits)) - 1u)) == f.nan_bits) {
    v = inf - inf;
  } else if (expf_ == 0) {
    v = hk_ldexp(HkF(mant), 1 - f.bias - f.mbits);
  } else {
    v = hk_ldexp(HkF(mant | (1u << f.mbits)), (int)expf_ - f.bias - f.mbits);
  }
  return neg ? -v : v;
}

// OCP MX e8m0 scale: an 8-bit biased exponent, value 2^(bits - 127); 0xFF is NaN; no sign, no
// zero. A value that is not a power of two rounds toward zero (2^floor(log2 x)), as the MX
// scale rule floor(log2(amax)) does. Below 2^-127 (0 included) clamps to 2^-127 (0x00); above
// 2^127 (Inf included) saturates to 2^127 (0xFE); NaN and negative values give 0xFF.
template <typename HkF>
HK_HD inline unsigned hk_encode_e8m0(HkF x) {
  if (x != x || x < HkF(0)) return 0xFFu;
  if (x == HkF(0)) return 0u;
  if (x - x != HkF(0)) return 0xFEu;  // Inf
  int e = 0;
  hk_frexp(x, &e);
  e -= 1;                           // x = m * 2^e with m in [1, 2)
  if (e < -127) return 0u;
  if (e > 127) return 0xFEu;
  return (unsigned)(e + 127);
}

template <typename HkF>
HK_HD inline HkF hk_decode_e8m0(unsigned bits) {
  bits &= 0xFFu;
  if (bits == 0xFFu) {
    const HkF inf = hk_ldexp(HkF(1), 1 << 14);
    return inf - inf;
  }
  return hk_ldexp(HkF(1), (int)bits - 127);
}
