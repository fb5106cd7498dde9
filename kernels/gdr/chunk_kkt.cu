// Intra-chunk products of the chunked GDN forward (notation: gdr_common.h).
//
//   gdr_chunk_scaled_dot_kkt(A, k, beta, gc, cu_seqlens, N, H, Dk, C):
//     A[t, h, s - bos] = beta_t (k_t . k_s) exp(gc_t - gc_s) for s < t in t's chunk, 0 for the other
//     C columns of row t (diagonal, upper part, past the chunk's end). gc: chunk-local cumsum of g.
//   gdr_fused_cumsum_kkt(gc, A, g, k, beta, ...): the same, computing gc from the raw g first
//     (gc[t, h] = sum of g over t's chunk up to t, in token order) and writing it out too.
//   gdr_chunk_compute_A(Ai, k, beta, gc, ...): Ai = (I + A)^-1 per chunk (A as above, inverted in
//     shared memory by forward substitution, gdr_tril_inverse).
// Layouts: k [Ttot, H, Dk] T; beta, g, gc [Ttot, H] f32; A, Ai [Ttot, H, C] f32.
// Grid: (NT, H), NT = total chunks; block: any size (threads stride over rows / pairs).
// Shared: chunk_compute_A (C*C + 2*C) floats (A, gc, one scratch row); the others C floats (gc).
#include "hkcheck.h"
#include "gdr_common.h"

// gcs[r] (r < len) <- gc of the chunk's tokens, from memory or as the cumsum of g.
HK_DEVICE void gdr_load_gc(float* gcs, const f32* src, bool cumsum, const GdrChunk& ch, i32 H, i32 h) {
  for (i32 r = threadIdx.x; r < ch.len; r += blockDim.x) {
    float s = 0.0f;
    if (cumsum) {
      for (i32 p = 0; p <= r; ++p) s += src[(i64)(ch.bos + p) * H + h];
    } else {
      s = src[(i64)(ch.bos + r) * H + h];
    }
    gcs[r] = s;
  }
  __syncthreads();
}

// The chunk's A entry (r, c), r and c < len.
HK_DEVICE float gdr_kkt_entry(const T* k, const f32* beta, const float* gcs, const GdrChunk& ch, i32 H, i32 h,
                              i32 Dk, i32 r, i32 c) {
  if (c >= r) return 0.0f;
  const i64 tr = (i64)(ch.bos + r) * H + h, tc = (i64)(ch.bos + c) * H + h;
  return beta[tr] * gdr_dot(k + tr * Dk, k + tc * Dk, Dk) * expf(gcs[r] - gcs[c]);
}

// Writes A rows of the chunk to global memory (all C columns of each of its len rows).
HK_DEVICE void gdr_write_kkt(f32* A, const T* k, const f32* beta, const float* gcs, const GdrChunk& ch, i32 H,
                             i32 Dk, i32 C) {
  const i32 h = blockIdx.y;
  for (i32 p = threadIdx.x; p < ch.len * C; p += blockDim.x) {
    const i32 r = p / C, c = p % C;
    const float x = c < ch.len ? gdr_kkt_entry(k, beta, gcs, ch, H, h, Dk, r, c) : 0.0f;
    A[((i64)(ch.bos + r) * H + h) * C + c] = x;
  }
}

HK_KERNEL void gdr_chunk_scaled_dot_kkt(f32* __restrict__ A, const T* __restrict__ k, const f32* __restrict__ beta,
                                        const f32* __restrict__ gc, const i32* __restrict__ cu_seqlens, i32 N, i32 H,
                                        i32 Dk, i32 C) {
  HK_DYNAMIC_SHARED(float, gcs);
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  gdr_load_gc(gcs, gc, false, ch, H, blockIdx.y);
  gdr_write_kkt(A, k, beta, gcs, ch, H, Dk, C);
}

HK_KERNEL void gdr_fused_cumsum_kkt(f32* __restrict__ gc, f32* __restrict__ A, const f32* __restrict__ g,
                                    const T* __restrict__ k, const f32* __restrict__ beta,
                                    const i32* __restrict__ cu_seqlens, i32 N, i32 H, i32 Dk, i32 C) {
  HK_DYNAMIC_SHARED(float, gcs);
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  gdr_load_gc(gcs, g, true, ch, H, h);
  for (i32 r = threadIdx.x; r < ch.len; r += blockDim.x) gc[(i64)(ch.bos + r) * H + h] = gcs[r];
  gdr_write_kkt(A, k, beta, gcs, ch, H, Dk, C);
}

HK_KERNEL void gdr_chunk_compute_A(f32* __restrict__ Ai, const T* __restrict__ k, const f32* __restrict__ beta,
                                   const f32* __restrict__ gc, const i32* __restrict__ cu_seqlens, i32 N, i32 H,
                                   i32 Dk, i32 C) {
  HK_DYNAMIC_SHARED(float, smem);
  float* M = smem;              // C x C
  float* gcs = M + C * C;       // C
  float* tmp = gcs + C;         // C
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  gdr_load_gc(gcs, gc, false, ch, H, h);
  for (i32 p = threadIdx.x; p < ch.len * C; p += blockDim.x) {
    const i32 r = p / C, c = p % C;
    M[p] = c < ch.len ? gdr_kkt_entry(k, beta, gcs, ch, H, h, Dk, r, c) : 0.0f;
  }
  __syncthreads();
  gdr_tril_inverse(M, tmp, ch.len, C);
  for (i32 p = threadIdx.x; p < ch.len * C; p += blockDim.x)
    Ai[((i64)(ch.bos + p / C) * H + h) * C + p % C] = M[p];
}
