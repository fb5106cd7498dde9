// Known bad: manifests/norm.json's rmsnorm with its store rounding toward zero instead of to
// nearest: every output is still within 1 ulp of the right value, so a 1-ulp tolerance passes
// it; about half the elements are more than half an ulp off, which the manifest's half-ulp check
// with a 2% mismatch fraction catches.
#include "hkcheck.h"

HK_KERNEL void rmsnorm_round_toward_zero(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w, f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  float ss = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = hk::to_f32(x[off + i]);
    ss += v * v;
  }
  ss = hk::block_sum(ss);
  const float inv_rms = rsqrtf(ss / (float)D + eps);
  for (i32 i = threadIdx.x; i < D; i += blockDim.x)
    out[off + i] = hk::from_f32_rz<T>(hk::to_f32(x[off + i]) * inv_rms * hk::to_f32(w[i]));
}
