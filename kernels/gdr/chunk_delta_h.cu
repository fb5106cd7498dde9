// chunk_delta_h_fwd: the inter-chunk state recurrence (notation: gdr_common.h). Per sequence n,
// head h, chunk c (in order), with h_0 = h0[n, h]:
//   h[chunk]  = the state entering the chunk
//   v_new_t   = u_t - h_c^T w_t                                            (t in the chunk)
//   h_{c+1}   = exp(gc_last) h_c + sum_t exp(gc_last - gc_t) k_t v_new_t^T  (gc_last: the chunk's last token)
//   ht[n, h]  = the state after the sequence's last chunk
// gdr_chunk_delta_h_fwd(h, v_new, ht, k, w, u, gc, h0, cu_seqlens, N, H, Dv, C):
//   k, w [Ttot, H, DK] T; u [Ttot, H, Dv] T; gc [Ttot, H] f32; h [NT, H, DK, Dv] f32;
//   v_new [Ttot, H, Dv] f32; h0, ht [N, H, DK, Dv] f32.
// Grid: (H, N); block: Dv threads, thread j owns column j of the state (DK registers, DK a define).
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_chunk_delta_h_fwd(f32* __restrict__ hs, f32* __restrict__ v_new, f32* __restrict__ ht,
                                     const T* __restrict__ k, const T* __restrict__ w, const T* __restrict__ u,
                                     const f32* __restrict__ gc, const f32* __restrict__ h0,
                                     const i32* __restrict__ cu_seqlens, i32 N, i32 H, i32 Dv, i32 C) {
  const i32 h = blockIdx.x, n = blockIdx.y, j = threadIdx.x;
  const i64 state = ((i64)n * H + h) * DK * Dv;
  float s[DK];
  for (i32 i = 0; i < DK; ++i) s[i] = h0[state + (i64)i * Dv + j];
  i32 chunk = gdr_chunk_offset(cu_seqlens, n, C);
  for (i32 bos = cu_seqlens[n]; bos < cu_seqlens[n + 1]; bos += C, ++chunk) {
    const i32 len = min(C, cu_seqlens[n + 1] - bos);
    const i64 hc = ((i64)chunk * H + h) * DK * Dv;
    for (i32 i = 0; i < DK; ++i) hs[hc + (i64)i * Dv + j] = s[i];
    for (i32 r = 0; r < len; ++r) {
      const i64 t = (i64)(bos + r) * H + h;
      float wh = 0.0f;
      for (i32 i = 0; i < DK; ++i) wh += hk::to_f32(w[t * DK + i]) * s[i];
      v_new[t * Dv + j] = hk::to_f32(u[t * Dv + j]) - wh;
    }
    const float g_last = gc[(i64)(bos + len - 1) * H + h];
    for (i32 i = 0; i < DK; ++i) s[i] *= expf(g_last);
    for (i32 r = 0; r < len; ++r) {  // v_new: this thread's own column, written above
      const i64 t = (i64)(bos + r) * H + h;
      const float vd = v_new[t * Dv + j] * expf(g_last - gc[t]);
      for (i32 i = 0; i < DK; ++i) s[i] += hk::to_f32(k[t * DK + i]) * vd;
    }
  }
  for (i32 i = 0; i < DK; ++i) ht[state + (i64)i * Dv + j] = s[i];
}
