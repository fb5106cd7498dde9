// __half and __nv_bfloat16 on the host backend: 16-bit storage with the conversions CUDA's
// headers give (round to nearest even, as __float2half_rn / __float2bfloat16_rn), and arithmetic
// done in float then rounded, as the GPU's intrinsics for these types return it.
#pragma once

#include <string.h>

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
// The compiler's _Float16 converts with IEEE round to nearest even.
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
