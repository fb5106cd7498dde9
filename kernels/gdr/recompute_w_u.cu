// recompute_w_u: per chunk (notation: gdr_common.h), with Ai = (I + A)^-1 given,
//   w_t = sum_{s <= t, s in t's chunk} Ai[t][s] * beta_s * exp(gc_s) * k_s     [Dk]
//   u_t = sum_{s <= t, s in t's chunk} Ai[t][s] * beta_s * v_s                  [Dv]
// gdr_recompute_w_u(w, u, k, v, beta, gc, Ai, cu_seqlens, N, H, Dk, Dv, C):
//   k, w [Ttot, H, Dk] and v, u [Ttot, H, Dv] of type T (w, u rounded once to T at the store);
//   beta, gc [Ttot, H] f32; Ai [Ttot, H, C] f32 (only s <= t within the chunk is read).
// Grid: (NT, H); block: any size, threads stride over the Dk + Dv output columns. f32 sums.
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_recompute_w_u(T* __restrict__ w, T* __restrict__ u, const T* __restrict__ k,
                                 const T* __restrict__ v, const f32* __restrict__ beta, const f32* __restrict__ gc,
                                 const f32* __restrict__ Ai, const i32* __restrict__ cu_seqlens, i32 N, i32 H,
                                 i32 Dk, i32 Dv, i32 C) {
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  for (i32 col = threadIdx.x; col < Dk + Dv; col += blockDim.x) {
    const bool is_w = col < Dk;
    const i32 d = is_w ? col : col - Dk;
    for (i32 r = 0; r < ch.len; ++r) {
      const i64 tr = (i64)(ch.bos + r) * H + h;
      float acc = 0.0f;
      for (i32 s = 0; s <= r; ++s) {
        const i64 ts = (i64)(ch.bos + s) * H + h;
        const float x = is_w ? hk::to_f32(k[ts * Dk + d]) * expf(gc[ts]) : hk::to_f32(v[ts * Dv + d]);
        acc += Ai[tr * C + s] * beta[ts] * x;
      }
      if (is_w) w[tr * Dk + d] = hk::from_f32<T>(acc);
      else u[tr * Dv + d] = hk::from_f32<T>(acc);
    }
  }
}
