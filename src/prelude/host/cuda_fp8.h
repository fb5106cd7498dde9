// <cuda_fp8.h> on the host backend: __nv_fp8_e4m3/e5m2 and their pairs and quads, saturating
// from float as CUDA's constructors are (hk_host_fp8.h).
#pragma once
#include "hk_host_fp8.h"

HK_HOST_FP8_TYPES(__nv_fp8_e4m3, e4m3, true)
HK_HOST_FP8_TYPES(__nv_fp8_e5m2, e5m2, true)
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };
inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s, __nv_fp8_interpretation_t f) {
  return hk_host_fp8::encode(x, f == __NV_E4M3 ? hk_host_fp8::e4m3 : hk_host_fp8::e5m2, s == __NV_SATFINITE);
}
inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t s, __nv_fp8_interpretation_t f) {
  return __nv_cvt_float_to_fp8((float)x, s, f);
}
