// chunk_fwd_o: the output of the chunked GDN forward (notation: gdr_common.h). For token t in chunk c:
//   o_t = scale * (exp(gc_t) h_c^T q_t + sum_{s <= t, s in the chunk} exp(gc_t - gc_s) (q_t . k_s) v_new_s)
// gdr_chunk_fwd_o(o, q, k, v_new, h, gc, cu_seqlens, N, H, Dk, Dv, C, scale):
//   q, k [Ttot, H, Dk] T; v_new [Ttot, H, Dv] f32; h [NT, H, Dk, Dv] f32; gc [Ttot, H] f32;
//   o [Ttot, H, Dv] T.
// Grid: (NT, H); block: any size (threads stride over Dv). Shared: C*C floats, the chunk's
// decayed, causally masked q.k products P[t][s].
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_chunk_fwd_o(T* __restrict__ o, const T* __restrict__ q, const T* __restrict__ k,
                               const f32* __restrict__ v_new, const f32* __restrict__ hs, const f32* __restrict__ gc,
                               const i32* __restrict__ cu_seqlens, i32 N, i32 H, i32 Dk, i32 Dv, i32 C, f32 scale) {
  HK_DYNAMIC_SHARED(float, P);
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  for (i32 p = threadIdx.x; p < ch.len * ch.len; p += blockDim.x) {
    const i32 r = p / ch.len, c = p % ch.len;
    const i64 tr = (i64)(ch.bos + r) * H + h, tc = (i64)(ch.bos + c) * H + h;
    P[r * C + c] = c <= r ? gdr_dot(q + tr * Dk, k + tc * Dk, Dk) * expf(gc[tr] - gc[tc]) : 0.0f;
  }
  __syncthreads();
  const f32* hc = hs + ((i64)blockIdx.x * H + h) * Dk * Dv;
  for (i32 j = threadIdx.x; j < Dv; j += blockDim.x) {
    for (i32 r = 0; r < ch.len; ++r) {
      const i64 tr = (i64)(ch.bos + r) * H + h;
      float qh = 0.0f;
      for (i32 i = 0; i < Dk; ++i) qh += hk::to_f32(q[tr * Dk + i]) * hc[(i64)i * Dv + j];
      float acc = qh * expf(gc[tr]);
      for (i32 c = 0; c <= r; ++c) acc += P[r * C + c] * v_new[((i64)(ch.bos + c) * H + h) * Dv + j];
      o[tr * Dv + j] = hk::from_f32<T>(acc * scale);
    }
  }
}
