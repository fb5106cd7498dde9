// <hip/hip_fp8.h> on the host backend: OCP __hip_fp8_e4m3/e5m2 (gfx950) and the fnuz types of
// gfx942, with their pairs and quads (hk_host_fp8.h). Conversions from float saturate, as HIP's
// constructors do.
#pragma once
#include "hk_host_fp8.h"

HK_HOST_FP8_TYPES(__hip_fp8_e4m3, e4m3, true)
HK_HOST_FP8_TYPES(__hip_fp8_e5m2, e5m2, true)
HK_HOST_FP8_TYPES(__hip_fp8_e4m3_fnuz, e4m3_fnuz, true)
HK_HOST_FP8_TYPES(__hip_fp8_e5m2_fnuz, e5m2_fnuz, true)
// HIP spells the pairs and quads __hip_fp8x2_e4m3, not __hip_fp8_e4m3x2.
typedef __hip_fp8_e4m3x2 __hip_fp8x2_e4m3;
typedef __hip_fp8_e4m3x4 __hip_fp8x4_e4m3;
typedef __hip_fp8_e5m2x2 __hip_fp8x2_e5m2;
typedef __hip_fp8_e5m2x4 __hip_fp8x4_e5m2;
typedef __hip_fp8_e4m3_fnuzx2 __hip_fp8x2_e4m3_fnuz;
typedef __hip_fp8_e4m3_fnuzx4 __hip_fp8x4_e4m3_fnuz;
typedef __hip_fp8_e5m2_fnuzx2 __hip_fp8x2_e5m2_fnuz;
typedef __hip_fp8_e5m2_fnuzx4 __hip_fp8x4_e5m2_fnuz;
typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;
enum __hip_saturation_t { __HIP_NOSAT, __HIP_SATFINITE };
enum __hip_fp8_interpretation_t { __HIP_E4M3_FNUZ, __HIP_E5M2_FNUZ, __HIP_E4M3, __HIP_E5M2 };
inline hk_host_fp8::format hk_host_fp8_format(__hip_fp8_interpretation_t f) {
  return f == __HIP_E4M3 ? hk_host_fp8::e4m3 : f == __HIP_E5M2 ? hk_host_fp8::e5m2 : f == __HIP_E4M3_FNUZ ? hk_host_fp8::e4m3_fnuz : hk_host_fp8::e5m2_fnuz;
}
inline __hip_fp8_storage_t __hip_cvt_float_to_fp8(float x, __hip_saturation_t s, __hip_fp8_interpretation_t f) {
  return hk_host_fp8::encode(x, hk_host_fp8_format(f), s == __HIP_SATFINITE);
}
inline __hip_fp8_storage_t __hip_cvt_double_to_fp8(double x, __hip_saturation_t s, __hip_fp8_interpretation_t f) {
  return __hip_cvt_float_to_fp8((float)x, s, f);
}
