// Gated delta rule, token by token (decode / reference form). Notation and the exact recurrence:
// gdr_common.h. Per token t of sequence n, head h:
//   a = exp(g_t); u = beta_t (v_t - a S^T k_t); S = a S + k_t u^T; o_t = scale S^T q_t
//
//   gdr_fused_recurrent_fwd(o, ht, q, k, v, g, beta, h0, cu_seqlens, scale, H, Dv, qk_l2norm)
//   gdr_fused_sigmoid_gating_recurrent(o, ht, q, k, v, a, b, A_log, dt_bias, h0, cu_seqlens,
//                                      scale, H, Dv, qk_l2norm)
//     the same with g_t = -exp(A_log[h]) * softplus(a[t,h] + dt_bias[h]) and beta_t = sigmoid(b[t,h])
//     computed inside (softplus(x) = x for x > 20).
// Layouts: q, k [Ttot, H, DK]; v, o [Ttot, H, Dv] (type T); g, beta [Ttot, H] f32; a, b [Ttot, H] T;
// A_log, dt_bias [H] f32; h0, ht [N, H, DK, Dv] f32 (initial / final state per sequence).
// Grid: (H, N); block: Dv threads, thread j owns column j of S (DK floats in registers; DK is a
// compile-time define). q_t, k_t are staged in shared memory, normalized there when qk_l2norm = 1.
// Shared: (2 * DK + 2) floats.
#include "hkcheck.h"
#include "gdr_common.h"

// One sequence and head; gate(t) returns (g_t, beta_t) for global token t.
template <typename Gate>
HK_DEVICE void gdr_recurrence(T* o, f32* ht, const T* q, const T* k, const T* v, const f32* h0,
                              const i32* cu_seqlens, f32 scale, i32 H, i32 Dv, i32 qk_l2norm, Gate gate) {
  HK_DYNAMIC_SHARED(float, smem);  // qs [DK], ks [DK], norms [2]: dynamic, so no function-local static
  float* qs = smem;
  float* ks = smem + DK;
  float* norms = smem + 2 * DK;
  const i32 h = blockIdx.x, n = blockIdx.y, j = threadIdx.x;
  const i64 state = ((i64)n * H + h) * DK * Dv;
  float s[DK];
  for (i32 i = 0; i < DK; ++i) s[i] = h0[state + (i64)i * Dv + j];

  for (i32 t = cu_seqlens[n]; t < cu_seqlens[n + 1]; ++t) {
    const i64 th = (i64)t * H + h;
    __syncthreads();  // the previous token is done with qs, ks, norms
    for (i32 i = j; i < DK; i += blockDim.x) {
      qs[i] = hk::to_f32(q[th * DK + i]);
      ks[i] = hk::to_f32(k[th * DK + i]);
    }
    __syncthreads();
    if (j == 0) {
      float qq = 0.0f, kk = 0.0f;
      for (i32 i = 0; i < DK; ++i) { qq += qs[i] * qs[i]; kk += ks[i] * ks[i]; }
      norms[0] = qk_l2norm ? rsqrtf(qq + 1e-6f) : 1.0f;
      norms[1] = qk_l2norm ? rsqrtf(kk + 1e-6f) : 1.0f;
    }
    __syncthreads();
    const float qn = norms[0], kn = norms[1];
    float g, beta;
    gate(th, h, g, beta);
    const float decay = expf(g);

    float kv = 0.0f;
    for (i32 i = 0; i < DK; ++i) {
      s[i] *= decay;
      kv += s[i] * (ks[i] * kn);
    }
    const float u = beta * (hk::to_f32(v[th * Dv + j]) - kv);
    float acc = 0.0f;
    for (i32 i = 0; i < DK; ++i) {
      s[i] += (ks[i] * kn) * u;
      acc += s[i] * (qs[i] * qn);
    }
    o[th * Dv + j] = hk::from_f32<T>(acc * scale);
  }
  for (i32 i = 0; i < DK; ++i) ht[state + (i64)i * Dv + j] = s[i];
}

struct GdrGivenGate {
  const f32* g;
  const f32* beta;
  HK_DEVICE void operator()(i64 th, i32, float& gt, float& bt) const { gt = g[th]; bt = beta[th]; }
};

struct GdrSigmoidGate {
  const T* a;
  const T* b;
  const f32* A_log;
  const f32* dt_bias;
  HK_DEVICE void operator()(i64 th, i32 h, float& gt, float& bt) const {
    gt = gdr_gate(hk::to_f32(a[th]), A_log[h], dt_bias[h]);
    bt = gdr_sigmoid(hk::to_f32(b[th]));
  }
};

HK_KERNEL void gdr_fused_recurrent_fwd(T* __restrict__ o, f32* __restrict__ ht, const T* __restrict__ q,
                                       const T* __restrict__ k, const T* __restrict__ v, const f32* __restrict__ g,
                                       const f32* __restrict__ beta, const f32* __restrict__ h0,
                                       const i32* __restrict__ cu_seqlens, f32 scale, i32 H, i32 Dv, i32 qk_l2norm) {
  gdr_recurrence(o, ht, q, k, v, h0, cu_seqlens, scale, H, Dv, qk_l2norm, GdrGivenGate{g, beta});
}

HK_KERNEL void gdr_fused_sigmoid_gating_recurrent(T* __restrict__ o, f32* __restrict__ ht, const T* __restrict__ q,
                                                  const T* __restrict__ k, const T* __restrict__ v,
                                                  const T* __restrict__ a, const T* __restrict__ b,
                                                  const f32* __restrict__ A_log, const f32* __restrict__ dt_bias,
                                                  const f32* __restrict__ h0, const i32* __restrict__ cu_seqlens,
                                                  f32 scale, i32 H, i32 Dv, i32 qk_l2norm) {
  gdr_recurrence(o, ht, q, k, v, h0, cu_seqlens, scale, H, Dv, qk_l2norm, GdrSigmoidGate{a, b, A_log, dt_bias});
}
