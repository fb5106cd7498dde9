// Known bad: manifests/fused.json's fused_qkv_split_qk_rope with a wrong head offset when it
// splits the q and k heads out of the packed row: the head's first column is taken from the
// pair index (p - i = h * D/2, pairs count D/2 per head) instead of h * D. Head 0 reads its own
// columns; head h > 0 reads columns h * D/2 .. h * D/2 + D-1, half of another head. As in the
// seeds' report on this kernel, head 0 is right and heads 1.. are wrong; their stride was too
// large (and could read past the row), this one is too small, so every read stays in bounds.
#include "hkcheck.h"

HK_KERNEL void qkv_rope_head_offset(T* q, T* k, T* v, const T* qkv, const i32* positions,
                                    int Hq, int Hk, int D, float theta) {
  HK_DYNAMIC_SHARED(float, cs);  // cs[0, D/2): cos, cs[D/2, D): sin
  const int half = D / 2;
  const long long t = blockIdx.x;
  const float pos = (float)positions[t];

  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float inv_freq = (float)pow((double)theta, -2.0 * i / D);
    const float angle = pos * inv_freq;
    cs[i] = cosf(angle);
    cs[half + i] = sinf(angle);
  }
  __syncthreads();

  const long long row = (long long)(Hq + 2 * Hk) * D;
  const T* src = qkv + t * row;

  const long long pairs = (long long)(Hq + Hk) * half;
  for (long long p = threadIdx.x; p < pairs; p += blockDim.x) {
    const int h = (int)(p / half);
    const int i = (int)(p - (long long)h * half);
    const T* x = src + (p - i);  // the bug: h * D/2, the head's first pair, not its first column
    const float x1 = hk::to_f32(x[i]);
    const float x2 = hk::to_f32(x[i + half]);
    const float c = cs[i], s = cs[half + i];
    T* out = h < Hq ? q + (t * Hq + h) * D : k + (t * Hk + (h - Hq)) * D;
    out[i] = hk::from_f32<T>(x1 * c - x2 * s);
    out[i + half] = hk::from_f32<T>(x2 * c + x1 * s);
  }

  const T* vsrc = src + (long long)(Hq + Hk) * D;
  T* vdst = v + t * Hk * (long long)D;
  for (long long j = threadIdx.x; j < (long long)Hk * D; j += blockDim.x) vdst[j] = vsrc[j];
}
