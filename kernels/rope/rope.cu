// Rotary position embedding (RoPE), out of place, on q [T, Hq, D] and k [T, Hk, D]
// (row-major, token-major) with positions [T] (i32, any order). Rotary dim = D (even).
//
//   rope_neox: rotates the pairs (x[i], x[i + D/2])  ("rotate halves", GPT-NeoX / Llama)
//   rope_gptj: rotates the pairs (x[2i], x[2i + 1])  (interleaved, GPT-J)
// For pair i < D/2 with angle a = pos * theta^(-2i/D):
//   out[first] = x[first] cos a - x[second] sin a,  out[second] = x[second] cos a + x[first] sin a.
//
// T (f32, bf16, f16) is the storage type; math in f32. inv_freq = theta^(-2i/D) is evaluated in
// double and rounded once to f32 (what a host-side f32 inv_freq table holds; an f32 powf would
// add a few ulps, which at angles ~4096 rad is ~1e-3 rad); the angle is then an f32 product and
// cos/sin are accurate f32 sincosf (needs no fast-math: __sinf is useless at large angles).
// Launch: grid (T) (one block per token), block a multiple of 64, dynamic shared memory D * 4
// bytes: the cos and sin of the token's D/2 angles, computed once and shared by all Hq + Hk heads.
#include "hkcheck.h"

template <bool NEOX>
HK_DEVICE void rope_token(T* __restrict__ q_out, T* __restrict__ k_out, const T* __restrict__ q,
                          const T* __restrict__ k, const i32* __restrict__ positions, i32 Hq, i32 Hk,
                          i32 D, f32 theta) {
  HK_DYNAMIC_SHARED(float, cs);  // cs[0, D/2): cos, cs[D/2, D): sin
  const i32 half = D / 2;
  const i64 t = blockIdx.x;
  const float pos = (float)positions[t];  // exact for |pos| < 2^24

  for (i32 i = threadIdx.x; i < half; i += blockDim.x) {
    const float inv_freq = (float)pow((double)theta, -2.0 * i / D);
    float s, c;
    sincosf(pos * inv_freq, &s, &c);
    cs[i] = c;
    cs[half + i] = s;
  }
  __syncthreads();

  // One flat loop over every (head, pair) of q then k, so small D still keeps all threads busy.
  // Head h of this token starts at its own offset (t * H + h) * D: every head reads its own columns.
  const i64 pairs = (i64)(Hq + Hk) * half;
  for (i64 p = threadIdx.x; p < pairs; p += blockDim.x) {
    const i32 h = (i32)(p / half);
    const i32 i = (i32)(p - (i64)h * half);
    const i64 base = h < Hq ? (t * Hq + h) * D : (t * Hk + (h - Hq)) * D;
    const T* src = (h < Hq ? q : k) + base;
    T* dst = (h < Hq ? q_out : k_out) + base;
    const i32 a = NEOX ? i : 2 * i;         // first element of the pair
    const i32 b = NEOX ? i + half : a + 1;  // second element of the pair
    const float x1 = hk::to_f32(src[a]);
    const float x2 = hk::to_f32(src[b]);
    const float c = cs[i], s = cs[half + i];
    dst[a] = hk::from_f32<T>(x1 * c - x2 * s);
    dst[b] = hk::from_f32<T>(x2 * c + x1 * s);
  }
}

HK_KERNEL void rope_neox(T* q_out, T* k_out, const T* q, const T* k, const i32* positions, i32 Hq,
                         i32 Hk, i32 D, f32 theta) {
  rope_token<true>(q_out, k_out, q, k, positions, Hq, Hk, D, theta);
}

HK_KERNEL void rope_gptj(T* q_out, T* k_out, const T* q, const T* k, const i32* positions, i32 Hq,
                         i32 Hk, i32 D, f32 theta) {
  rope_token<false>(q_out, k_out, q, k, positions, Hq, Hk, D, theta);
}
