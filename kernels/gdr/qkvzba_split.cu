// Split of the fused GDN input projection into q, k, v, z, b, a.
//
// Layout of one token's row of `fused` [Ttot, H * (2*Dk + 2*Dv) + 2*H]:
//   for each head h, at h * (2*Dk + 2*Dv):  q_h [Dk] | k_h [Dk] | v_h [Dv] | z_h [Dv]
//   then b [H] at H * (2*Dk + 2*Dv), then a [H] right after.
// Outputs: q, k [Ttot, H, Dk]; v, z [Ttot, H, Dv]; b, a [Ttot, H]; all of type T, exact copies.
// Grid: one block per token; block: any size (threads stride over the row).
#include "hkcheck.h"

HK_KERNEL void gdr_fused_qkvzba_split(T* __restrict__ q, T* __restrict__ k, T* __restrict__ v, T* __restrict__ z,
                                      T* __restrict__ b, T* __restrict__ a, const T* __restrict__ fused,
                                      i32 H, i32 Dk, i32 Dv) {
  const i64 t = blockIdx.x;
  const i32 G = 2 * Dk + 2 * Dv;  // one head's group
  const i32 W = H * G + 2 * H;    // the row
  const T* row = fused + t * W;
  for (i32 c = threadIdx.x; c < W; c += blockDim.x) {
    const T x = row[c];
    if (c >= H * G) {
      const i32 r = c - H * G;  // b then a
      if (r < H) b[t * H + r] = x;
      else a[t * H + (r - H)] = x;
      continue;
    }
    const i32 h = c / G, p = c % G;
    if (p < Dk) q[(t * H + h) * Dk + p] = x;
    else if (p < 2 * Dk) k[(t * H + h) * Dk + (p - Dk)] = x;
    else if (p < 2 * Dk + Dv) v[(t * H + h) * Dv + (p - 2 * Dk)] = x;
    else z[(t * H + h) * Dv + (p - 2 * Dk - Dv)] = x;
  }
}
