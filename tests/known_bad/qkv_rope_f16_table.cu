// Known bad: manifests/fused.json's fused_qkv_split_qk_rope with its cos/sin table stored in
// shared memory as f16 (half the bytes) instead of f32. Every cos and sin is then off by up to
// 2^-12 relative, so the f32 outputs (|x| up to 2) err by up to ~1e-3 where the kernel's f32
// arithmetic errs by ~3e-7: inside a loose atol (the old 3e-3), far outside the manifest's 2e-6.
#include "hkcheck.h"

HK_KERNEL void qkv_rope_f16_table(T* q, T* k, T* v, const T* qkv, const i32* positions,
                                  int Hq, int Hk, int D, float theta) {
  HK_DYNAMIC_SHARED(f16, cs);  // the bug: cs[0, D/2): cos, cs[D/2, D): sin, rounded to f16
  const int half = D / 2;
  const long long t = blockIdx.x;
  const float pos = (float)positions[t];

  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float inv_freq = (float)pow((double)theta, -2.0 * i / D);
    const float angle = pos * inv_freq;
    cs[i] = hk::from_f32<f16>(cosf(angle));
    cs[half + i] = hk::from_f32<f16>(sinf(angle));
  }
  __syncthreads();

  const long long row = (long long)(Hq + 2 * Hk) * D;
  const T* src = qkv + t * row;

  const long long pairs = (long long)(Hq + Hk) * half;
  for (long long p = threadIdx.x; p < pairs; p += blockDim.x) {
    const int h = (int)(p / half);
    const int i = (int)(p - (long long)h * half);
    const T* x = src + (long long)h * D;
    const float x1 = hk::to_f32(x[i]);
    const float x2 = hk::to_f32(x[i + half]);
    const float c = hk::to_f32(cs[i]), s = hk::to_f32(cs[half + i]);
    T* out = h < Hq ? q + (t * Hq + h) * D : k + (t * Hk + (h - Hq)) * D;
    out[i] = hk::from_f32<T>(x1 * c - x2 * s);
    out[i + half] = hk::from_f32<T>(x2 * c + x1 * s);
  }

  const T* vsrc = src + (long long)(Hq + Hk) * D;
  T* vdst = v + t * Hk * (long long)D;
  for (long long j = threadIdx.x; j < (long long)Hk * D; j += blockDim.x) vdst[j] = vsrc[j];
}
