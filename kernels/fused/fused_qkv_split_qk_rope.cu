// Splits a packed QKV projection and applies neox-style RoPE to q and k.
//   qkv:       [T, (Hq + 2 * Hk) * D]  columns: Hq q heads, then Hk k heads, then Hk v heads
//   positions: [T] i32
//   q: [T, Hq, D], k: [T, Hk, D]  rotated;  v: [T, Hk, D]  copied
// Neox RoPE rotates the pairs (x[i], x[i + D/2]), i < D/2, by the angle pos * theta^(-2i/D):
//   out[i] = x[i] cos - x[i + D/2] sin,  out[i + D/2] = x[i + D/2] cos + x[i] sin.
// Launch: grid (T), block a multiple of 64, dynamic shared memory D * 4 bytes (cos and sin of
// the D/2 angles of the token, computed once and shared by all Hq + Hk heads). D must be even.
#include "hkcheck.h"

HK_KERNEL void fused_qkv_split_qk_rope(T* q, T* k, T* v, const T* qkv, const i32* positions,
                                       int Hq, int Hk, int D, float theta) {
  HK_DYNAMIC_SHARED(float, cs);  // cs[0, D/2): cos, cs[D/2, D): sin
  const int half = D / 2;
  const long long t = blockIdx.x;
  const float pos = (float)positions[t];

  // inv_freq = theta^(-2i/D) is evaluated in double and rounded once to f32 (as a host-side
  // f32 inv_freq table would be); the angle pos * inv_freq is then an f32 product, so its
  // error is at most about one f32 ulp of the angle. Only D/2 values per token: cheap.
  for (int i = threadIdx.x; i < half; i += blockDim.x) {
    const float inv_freq = (float)pow((double)theta, -2.0 * i / D);
    const float angle = pos * inv_freq;
    cs[i] = cosf(angle);
    cs[half + i] = sinf(angle);
  }
  __syncthreads();

  const long long row = (long long)(Hq + 2 * Hk) * D;
  const T* src = qkv + t * row;

  // q and k heads are adjacent in qkv (heads 0 .. Hq+Hk-1), so one loop rotates both; each
  // head h reads its own columns h*D .. h*D + D-1.
  const long long pairs = (long long)(Hq + Hk) * half;
  for (long long p = threadIdx.x; p < pairs; p += blockDim.x) {
    const int h = (int)(p / half);
    const int i = (int)(p - (long long)h * half);
    const T* x = src + (long long)h * D;
    const float x1 = hk::to_f32(x[i]);
    const float x2 = hk::to_f32(x[i + half]);
    const float c = cs[i], s = cs[half + i];
    T* out = h < Hq ? q + (t * Hq + h) * D : k + (t * Hk + (h - Hq)) * D;
    out[i] = hk::from_f32<T>(x1 * c - x2 * s);
    out[i + half] = hk::from_f32<T>(x2 * c + x1 * s);
  }

  // v heads: a contiguous copy of Hk * D elements.
  const T* vsrc = src + (long long)(Hq + Hk) * D;
  T* vdst = v + t * Hk * (long long)D;
  for (long long j = threadIdx.x; j < (long long)Hk * D; j += blockDim.x) vdst[j] = vsrc[j];
}
