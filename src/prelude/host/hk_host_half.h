// __half and __nv_bfloat16 on the host backend: 16-bit storage with the conversions CUDA's
// headers give (round to nearest even, as __float2half_rn / __float2bfloat16_rn), and arithmetic
// done in float then rounded, as the GPU's intrinsics for these types return it.
#pragma once

#include <math.h>
#include <string.h>

#include "hk_minifloat.h"

struct __half;
struct __nv_bfloat16;

namespace hk_host_half {
inline unsigned short f32_to_bf16_bits(float f) {
  unsigned int u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40);  // NaN stays NaN
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16_bits_to_f32(unsigned short b) {
  const unsigned int u = static_cast<unsigned int>(b) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
// The compiler's _Float16 converts with IEEE round to nearest even. clang before 15 has no
// _Float16 on x86 (and its __fp16 calls a helper libgcc lacks there): hkcheck's own exact codec.
#if defined(__clang__) && !defined(__FLT16_MAX__)
inline unsigned short f32_to_f16_bits(float f) { return static_cast<unsigned short>(hk_encode_float(f, HK_FMT_F16)); }
inline float f16_bits_to_f32(unsigned short b) { return hk_decode_float<float>(b, HK_FMT_F16); }
#else
inline unsigned short f32_to_f16_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  unsigned short b;
  memcpy(&b, &h, 2);
  return b;
}
inline float f16_bits_to_f32(unsigned short b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return static_cast<float>(h);
}
#endif
}  // namespace hk_host_half

#define HK_HOST_HALF_TYPE(HkT, TO_BITS, FROM_BITS)                                           \
  struct HkT {                                                                               \
    unsigned short __x;                                                                    \
    HkT() = default;                                                                         \
    HkT(float f) : __x(hk_host_half::TO_BITS(f)) {}                                          \
    HkT(double f) : __x(hk_host_half::TO_BITS(static_cast<float>(f))) {}                     \
    HkT(int i) : __x(hk_host_half::TO_BITS(static_cast<float>(i))) {}                        \
    operator float() const { return hk_host_half::FROM_BITS(__x); }                        \
    HkT& operator+=(HkT o) { return *this = HkT(float(*this) + float(o)); }                     \
    HkT& operator-=(HkT o) { return *this = HkT(float(*this) - float(o)); }                      \
    HkT& operator*=(HkT o) { return *this = HkT(float(*this) * float(o)); }                      \
    HkT& operator/=(HkT o) { return *this = HkT(float(*this) / float(o)); }                      \
  };                                                                                       \
  inline HkT operator+(HkT a, HkT b) { return HkT(float(a) + float(b)); }                          \
  inline HkT operator-(HkT a, HkT b) { return HkT(float(a) - float(b)); }                          \
  inline HkT operator*(HkT a, HkT b) { return HkT(float(a) * float(b)); }                          \
  inline HkT operator/(HkT a, HkT b) { return HkT(float(a) / float(b)); }                          \
  inline HkT operator-(HkT a) { HkT r = a; r.__x ^= 0x8000; return r; }                          \
  inline bool operator==(HkT a, HkT b) { return float(a) == float(b); }                        \
  inline bool operator!=(HkT a, HkT b) { return float(a) != float(b); }                        \
  inline bool operator<(HkT a, HkT b) { return float(a) < float(b); }                          \
  inline bool operator<=(HkT a, HkT b) { return float(a) <= float(b); }                        \
  inline bool operator>(HkT a, HkT b) { return float(a) > float(b); }                          \
  inline bool operator>=(HkT a, HkT b) { return float(a) >= float(b); }                        \
  struct HkT##2 {                                                                            \
    HkT x, y;                                                                                \
  };

HK_HOST_HALF_TYPE(__half, f32_to_f16_bits, f16_bits_to_f32)
HK_HOST_HALF_TYPE(__nv_bfloat16, f32_to_bf16_bits, bf16_bits_to_f32)
#undef HK_HOST_HALF_TYPE

typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 h) { return float(h); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
// The pair conversions (float2 comes with the host dialect, hk_host_vectors.h).
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{float(h.x), float(h.y)}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162{__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
inline float2 __half22float2(__half2 h) { return float2{float(h.x), float(h.y)}; }
inline __half2 __float22half2_rn(float2 f) { return __half2{__half(f.x), __half(f.y)}; }

// The arithmetic intrinsics, for both types.
template <typename HkT> inline HkT __hadd(HkT a, HkT b) { return a + b; }
template <typename HkT> inline HkT __hsub(HkT a, HkT b) { return a - b; }
template <typename HkT> inline HkT __hmul(HkT a, HkT b) { return a * b; }
template <typename HkT> inline HkT __hdiv(HkT a, HkT b) { return a / b; }
template <typename HkT> inline HkT __hneg(HkT a) { return -a; }
template <typename HkT> inline HkT __hfma(HkT a, HkT b, HkT c) { return HkT(float(a) * float(b) + float(c)); }
template <typename HkT> inline HkT __habs(HkT a) { HkT r = a; r.__x &= 0x7fff; return r; }
template <typename HkT> inline HkT __hmax(HkT a, HkT b) { return float(a) < float(b) ? b : a; }
template <typename HkT> inline HkT __hmin(HkT a, HkT b) { return float(b) < float(a) ? b : a; }
template <typename HkT> inline bool __heq(HkT a, HkT b) { return a == b; }
template <typename HkT> inline bool __hlt(HkT a, HkT b) { return a < b; }
template <typename HkT> inline bool __hgt(HkT a, HkT b) { return a > b; }
// The pair intrinsics: each half rounds on its own, as the GPU's packed instructions do.
template <typename HkP> inline HkP __hadd2(HkP a, HkP b) { return HkP{a.x + b.x, a.y + b.y}; }
template <typename HkP> inline HkP __hsub2(HkP a, HkP b) { return HkP{a.x - b.x, a.y - b.y}; }
template <typename HkP> inline HkP __hmul2(HkP a, HkP b) { return HkP{a.x * b.x, a.y * b.y}; }
template <typename HkP> inline HkP __h2div(HkP a, HkP b) { return HkP{a.x / b.x, a.y / b.y}; }
template <typename HkP> inline HkP __hfma2(HkP a, HkP b, HkP c) { return HkP{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
template <typename HkP> inline HkP __hneg2(HkP a) { return HkP{-a.x, -a.y}; }
// The math intrinsics of both types and their pairs, through float as the GPU's are.
#define HK_HOST_HALF_MATH(HkName, HkF)                                                      \
  template <typename HkT> inline HkT h##HkName(HkT a) { return HkT(HkF(float(a))); }        \
  template <typename HkP> inline HkP h2##HkName(HkP a) { return HkP{h##HkName(a.x), h##HkName(a.y)}; }
HK_HOST_HALF_MATH(exp, expf)
HK_HOST_HALF_MATH(exp2, exp2f)
HK_HOST_HALF_MATH(exp10, exp10f)
HK_HOST_HALF_MATH(log, logf)
HK_HOST_HALF_MATH(log2, log2f)
HK_HOST_HALF_MATH(log10, log10f)
HK_HOST_HALF_MATH(sqrt, sqrtf)
HK_HOST_HALF_MATH(rsqrt, 1.0f / sqrtf)
HK_HOST_HALF_MATH(rcp, 1.0f /)
HK_HOST_HALF_MATH(sin, sinf)
HK_HOST_HALF_MATH(cos, cosf)
HK_HOST_HALF_MATH(ceil, ceilf)
HK_HOST_HALF_MATH(floor, floorf)
HK_HOST_HALF_MATH(trunc, truncf)
HK_HOST_HALF_MATH(rint, rintf)
#undef HK_HOST_HALF_MATH
template <typename HkP> inline HkP __habs2(HkP a) { return HkP{__habs(a.x), __habs(a.y)}; }
template <typename HkP> inline HkP __hmax2(HkP a, HkP b) { return HkP{__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
template <typename HkP> inline HkP __hmin2(HkP a, HkP b) { return HkP{__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
// The bit reinterpretations.
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { __nv_bfloat16 r; r.__x = b; return r; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __short_as_bfloat16(short b) { __nv_bfloat16 r; r.__x = (unsigned short)b; return r; }
inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
inline __half __ushort_as_half(unsigned short b) { __half r; r.__x = b; return r; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short b) { __half r; r.__x = (unsigned short)b; return r; }
inline short __half_as_short(__half h) { return (short)h.__x; }
