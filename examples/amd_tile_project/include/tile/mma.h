// acc += A * B for one 32x32 output tile, A (32 x Depth) and B (Depth x 32) in shared memory, by
// one wavefront of 64 lanes. The target's matrix-core instruction is chosen by the build's
// target define, as tile libraries do (TILE_CDNA3: gfx90a/gfx942; TILE_CDNA4: gfx950); code
// compiled for no AMD GPU at all (hkcheck's CPU backend) computes each lane's elements of the
// accumulator directly, so the same kernel runs and is checked there.
#pragma once

#include "accumulator.h"
#include "concepts.h"

namespace tile {

#if defined(__AMDGCN__)
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef float float16 __attribute__((ext_vector_type(16)));

__device__ inline float16 as_vector(const acc32x32& acc) {
  float16 c;
  for (int j = 0; j < acc32x32::per_lane; ++j) c[j] = acc.v[j];
  return c;
}
__device__ inline void from_vector(acc32x32& acc, const float16& c) {
  for (int j = 0; j < acc32x32::per_lane; ++j) acc.v[j] = c[j];
}
#endif

template <shared_tile A, shared_tile B>
  requires mma_shape<A::rows, B::cols, A::cols> && (A::cols == B::rows)
__device__ void mma_AB(acc32x32& acc, const A& a, const B& b, int lane) {
  const int m = lane % 32, g = lane / 32;
#if defined(__AMDGCN__) && defined(TILE_CDNA4)
  // v_mfma_f32_32x32x16_f16 (gfx950 only): lane l holds A[m][k + 8g + i] and B[k + 8g + i][m], i < 8.
  float16 c = as_vector(acc);
  for (int k = 0; k < A::cols; k += 16) {
    half8 fa, fb;
    for (int i = 0; i < 8; ++i) {
      fa[i] = a.at(m, k + 8 * g + i);
      fb[i] = b.at(k + 8 * g + i, m);
    }
    c = __builtin_amdgcn_mfma_f32_32x32x16_f16(fa, fb, c, 0, 0, 0);
  }
  from_vector(acc, c);
#elif defined(__AMDGCN__) && defined(TILE_CDNA3)
  // v_mfma_f32_32x32x8f16 (gfx90a, gfx942, gfx950): lane l holds A[m][k + 4g + i] and B[k + 4g + i][m], i < 4.
  float16 c = as_vector(acc);
  for (int k = 0; k < A::cols; k += 8) {
    half4 fa, fb;
    for (int i = 0; i < 4; ++i) {
      fa[i] = a.at(m, k + 4 * g + i);
      fb[i] = b.at(k + 4 * g + i, m);
    }
    c = __builtin_amdgcn_mfma_f32_32x32x8f16(fa, fb, c, 0, 0, 0);
  }
  from_vector(acc, c);
#elif defined(__AMDGCN__)
#error "tile/mma.h: define TILE_CDNA3 (gfx90a, gfx942) or TILE_CDNA4 (gfx950) for the target's matrix cores"
#else
  // No matrix cores: each lane computes the 16 elements it holds in the instructions' layout,
  // accumulating in f32 as they do (in another order: the manifest's tolerance says so).
  for (int j = 0; j < acc32x32::per_lane; ++j) {
    const int r = acc32x32::row_of(lane, j);
    float s = acc.v[j];
    for (int k = 0; k < A::cols; ++k) s += static_cast<float>(a.at(r, k)) * static_cast<float>(b.at(k, m));
    acc.v[j] = s;
  }
  (void)g;
#endif
}

}  // namespace tile
