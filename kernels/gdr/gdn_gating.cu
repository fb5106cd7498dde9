// GDN gating from raw projections: per token t and head h,
//   g[t, h]    = -exp(A_log[h]) * softplus(a[t, h] + dt_bias[h])    (softplus(x) = x for x > 20)
//   beta[t, h] = sigmoid(b[t, h])
// gdr_fused_gdn_gating(g, beta, a, b, A_log, dt_bias, n, H): a, b [Ttot, H] T; A_log, dt_bias [H] f32;
// g, beta [Ttot, H] f32 (n = Ttot * H). Grid and block: any (grid-stride loop). f32 arithmetic.
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_fused_gdn_gating(f32* __restrict__ g, f32* __restrict__ beta, const T* __restrict__ a,
                                    const T* __restrict__ b, const f32* __restrict__ A_log,
                                    const f32* __restrict__ dt_bias, i64 n, i32 H) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    const i32 h = (i32)(i % H);
    g[i] = gdr_gate(hk::to_f32(a[i]), A_log[h], dt_bias[h]);
    beta[i] = gdr_sigmoid(hk::to_f32(b[i]));
  }
}
