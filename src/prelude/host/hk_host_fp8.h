// The 8-bit float types of CUDA's <cuda_fp8.h> and HIP's <hip/hip_fp8.h> on the host backend,
// over the exact codecs of hk_minifloat.h, so that the host rounds as hkcheck's inputs and
// references do. OCP e4m3/e5m2 (CUDA, gfx950) and the fnuz formats of gfx942 (bias one more, no
// negative zero, 0x80 the only NaN, no Inf).
#pragma once
#include "hk_host_half.h"
#include "hk_minifloat.h"

namespace hk_host_fp8 {
enum format { e4m3, e5m2, e4m3_fnuz, e5m2_fnuz };

inline HkFloatFormat ocp(format f) { return f == e4m3 ? HK_FMT_E4M3 : HK_FMT_E5M2; }

inline float decode(unsigned char b, format f) {
  if (f == e4m3 || f == e5m2) return hk_decode_float<float>(b, ocp(f));
  if (b == 0x80) return hk_decode_float<float>(0x7fu, HK_FMT_E4M3);  // NaN, without naming NAN (-ffast-math warns)
  const int mbits = f == e4m3_fnuz ? 3 : 2, bias = f == e4m3_fnuz ? 8 : 16;
  const unsigned mant = b & ((1u << mbits) - 1u), e = (b & 0x7fu) >> mbits;
  const float v = e == 0 ? ldexpf((float)mant, 1 - bias - mbits) : ldexpf((float)(mant | (1u << mbits)), (int)e - bias - mbits);
  return (b & 0x80) ? -v : v;
}

// Round to nearest even; `saturate` clamps to the largest finite value as CUDA's __NV_SATFINITE.
inline unsigned char encode(float x, format f, bool saturate) {
  if (f == e4m3 || f == e5m2) {
    HkFloatFormat fmt = ocp(f);
    fmt.saturate = saturate;  // otherwise overflow is Inf (e5m2) or NaN (e4m3, which has no Inf)
    return (unsigned char)hk_encode_float(x, fmt);
  }
  if (x != x) return 0x80;
  // fnuz: the same significands one exponent lower than OCP with one more exponent value on
  // top; encoded through a format whose all-ones pattern is finite.
  const HkFloatFormat fmt = f == e4m3_fnuz ? HkFloatFormat{4, 3, 8, false, saturate, 0x80u, 240.0, true}
                                           : HkFloatFormat{5, 2, 16, false, saturate, 0x80u, 57344.0, true};
  const unsigned bits = hk_encode_float(x, fmt) & 0xffu;
  return (unsigned char)(bits == 0x80 && fabsf(x) < 1.0f ? 0 : bits);  // no negative zero; 0x80 from overflow is NaN
}
}  // namespace hk_host_fp8

#define HK_HOST_FP8_TYPES(HkT, FORMAT, SAT)                                                                          \
  struct HkT {                                                                                                     \
    unsigned char __x;                                                                                             \
    HkT() = default;                                                                                               \
    HkT(float f) : __x(hk_host_fp8::encode(f, hk_host_fp8::FORMAT, SAT)) {}                                        \
    HkT(double f) : HkT(static_cast<float>(f)) {}                                                                 \
    HkT(int i) : HkT(static_cast<float>(i)) {}                                                                    \
    HkT(__half h) : HkT(float(h)) {}                                                                              \
    HkT(__nv_bfloat16 h) : HkT(float(h)) {}                                                                       \
    operator float() const { return hk_host_fp8::decode(__x, hk_host_fp8::FORMAT); }                             \
    operator __half() const { return __half(float(*this)); }                                                     \
    operator __nv_bfloat16() const { return __nv_bfloat16(float(*this)); }                                      \
  };                                                                                                               \
  struct HkT##x2 {                                                                                                 \
    unsigned short __x;                                                                                            \
    HkT##x2() = default;                                                                                           \
    HkT##x2(float2 f) : __x((unsigned short)(HkT(f.x).__x | (HkT(f.y).__x << 8))) {}                                \
    operator float2() const { return float2{lo(), hi()}; }                                                       \
    float lo() const { return hk_host_fp8::decode((unsigned char)__x, hk_host_fp8::FORMAT); }                    \
    float hi() const { return hk_host_fp8::decode((unsigned char)(__x >> 8), hk_host_fp8::FORMAT); }             \
  };                                                                                                               \
  struct HkT##x4 {                                                                                                 \
    unsigned int __x;                                                                                              \
    HkT##x4() = default;                                                                                           \
    HkT##x4(float4 f)                                                                                              \
        : __x((unsigned)HkT(f.x).__x | ((unsigned)HkT(f.y).__x << 8) | ((unsigned)HkT(f.z).__x << 16) |                \
              ((unsigned)HkT(f.w).__x << 24)) {}                                                                 \
    operator float4() const {                                                                                      \
      float4 r;                                                                                                    \
      float* p = &r.x;                                                                                             \
      for (int i = 0; i < 4; ++i) p[i] = hk_host_fp8::decode((unsigned char)(__x >> (8 * i)), hk_host_fp8::FORMAT); \
      return r;                                                                                                    \
    }                                                                                                              \
  };
