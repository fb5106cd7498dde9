// Chunk-local cumulative sums (chunks of C tokens, local to each sequence of cu_seqlens [N + 1]).
//
//   gdr_cumsum_scalar(out, g, cu_seqlens, N, H, C, reverse):   g, out [Ttot, H] f32
//     forward: out[t, h] = sum of g[s, h] for s in t's chunk with s <= t; reverse: s >= t.
//   gdr_cumsum_vector(out, x, cu_seqlens, N, H, D, C, reverse): x [Ttot, H, D] T, out f32
//     the same per element d.
// Grid: (NT, H) with NT the total number of chunks (a block past the last chunk does nothing).
// Block: scalar: C threads (thread r owns token r of the chunk); vector: any size, threads stride
// over D, each walks the chunk's tokens in order. Sums in f32, in token order.
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_cumsum_scalar(f32* __restrict__ out, const f32* __restrict__ g, const i32* __restrict__ cu_seqlens,
                                 i32 N, i32 H, i32 C, i32 reverse) {
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  for (i32 r = threadIdx.x; r < ch.len; r += blockDim.x) {
    float s = 0.0f;
    if (!reverse) {
      for (i32 p = 0; p <= r; ++p) s += g[(i64)(ch.bos + p) * H + h];
    } else {
      for (i32 p = ch.len - 1; p >= r; --p) s += g[(i64)(ch.bos + p) * H + h];
    }
    out[(i64)(ch.bos + r) * H + h] = s;
  }
}

HK_KERNEL void gdr_cumsum_vector(f32* __restrict__ out, const T* __restrict__ x, const i32* __restrict__ cu_seqlens,
                                 i32 N, i32 H, i32 D, i32 C, i32 reverse) {
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  for (i32 d = threadIdx.x; d < D; d += blockDim.x) {
    float s = 0.0f;
    for (i32 p = 0; p < ch.len; ++p) {
      const i64 at = ((i64)(ch.bos + (reverse ? ch.len - 1 - p : p)) * H + h) * D + d;
      s += hk::to_f32(x[at]);
      out[at] = s;
    }
  }
}
