// <hip/hip_bf16.h> for ROCm 5's hipRTC, which predates it: ROCm 6's __hip_bfloat16 (the bits in
// `data`), converted with round to nearest even, arithmetic in float then rounded, as ROCm 6's
// header does on targets without bf16 instructions.
#pragma once

__device__ __forceinline__ unsigned short hk_hiprtc5_f32_to_bf16(float f) {
  const unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40);  // NaN stays NaN
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ float hk_hiprtc5_bf16_to_f32(unsigned short b) { return __uint_as_float((unsigned int)b << 16); }

struct __hip_bfloat16 {
  unsigned short data;
  __hip_bfloat16() = default;
  __device__ __hip_bfloat16(float f) : data(hk_hiprtc5_f32_to_bf16(f)) {}
  __device__ operator float() const { return hk_hiprtc5_bf16_to_f32(data); }
};
struct __hip_bfloat162 {
  __hip_bfloat16 x, y;
};

__device__ __forceinline__ __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
__device__ __forceinline__ __hip_bfloat16 __float2bfloat16_rn(float f) { return __hip_bfloat16(f); }
__device__ __forceinline__ float __bfloat162float(__hip_bfloat16 b) { return float(b); }
__device__ __forceinline__ __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__hip_bfloat16(a), __hip_bfloat16(b)}; }
__device__ __forceinline__ __hip_bfloat162 __float2bfloat162_rn(float a) { return {__hip_bfloat16(a), __hip_bfloat16(a)}; }
__device__ __forceinline__ __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return {a, b}; }
__device__ __forceinline__ float __low2float(__hip_bfloat162 v) { return float(v.x); }
__device__ __forceinline__ float __high2float(__hip_bfloat162 v) { return float(v.y); }

#define HK_HIPRTC5_BF16_OP(op)                                                                        \
  __device__ __forceinline__ __hip_bfloat16 operator op(__hip_bfloat16 a, __hip_bfloat16 b) {         \
    return __hip_bfloat16(float(a) op float(b));                                                      \
  }
HK_HIPRTC5_BF16_OP(+)
HK_HIPRTC5_BF16_OP(-)
HK_HIPRTC5_BF16_OP(*)
HK_HIPRTC5_BF16_OP(/)
#undef HK_HIPRTC5_BF16_OP
__device__ __forceinline__ __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) { return a + b; }
__device__ __forceinline__ __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return a * b; }
__device__ __forceinline__ __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __hip_bfloat16(float(a) * float(b) + float(c));
}
