// <hip/hip_bfloat16.h> for ROCm 5's hipRTC: hip_bfloat16 (the bits in `data`, round to nearest
// even from float); the system's header pulls in glibc's, which clash with the built-ins.
#pragma once
#include "hip/hip_bf16.h"

struct hip_bfloat16 {
  unsigned short data;
  hip_bfloat16() = default;
  __device__ hip_bfloat16(float f) : data(hk_hiprtc5_f32_to_bf16(f)) {}
  __device__ operator float() const { return hk_hiprtc5_bf16_to_f32(data); }
};
