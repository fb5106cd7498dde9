// A whole MoE layer in one launch (module moe_op_e2e), one block per token; correct, not fast:
//   moe_op_e2e(x, router_logits, w_up, w_down, out, H, I, E, topk, renormalize)
//   1. route: p = softmax(router_logits[t, :]) in f32; the topk experts of largest logit
//      (ties: lower expert id), weights p[e] (divided by their sum when renormalize != 0);
//   2. up (SwiGLU): h[i] = silu(x[t] . w_up[e, i]^T) * (x[t] . w_up[e, I + i]^T), rounded to
//      bf16 as a grouped GEMM's intermediate output would be;
//   3. down: y_e[j] = h . w_down[e, j]^T;
//   4. combine: out[t, j] = sum_k weight_k * y_{e_k}[j], rounded to bf16.
// x [T, H] bf16, router_logits [T, E] f32, w_up [E, 2I, H] bf16 (gate rows, then up rows),
// w_down [E, H, I] bf16, out [T, H] bf16. Dot products: one warp per output row, lanes strided
// over the reduction (coalesced), f32, combined with hk::warp_sum. E <= 256, topk <= 16.
// Grid: (T); block: any multiple of HK_WARP_SIZE (256). Dynamic shared memory:
// (2 * H + I) * 4 + 128 bytes (x and y rows, h), which must fit 64 KiB: H and I with 2H + I <= 16352.
#include "hkcheck.h"

HK_DEVICE float silu(float g) { return g / (1.0f + expf(-g)); }

// Thread 0 picks the experts and their weights into sel / selw.
HK_DEVICE void route(const f32* logits, int E, int topk, int renormalize, int* sel, float* selw) {
  float mx = logits[0];
  for (int e = 1; e < E; ++e) mx = fmaxf(mx, logits[e]);
  float sum = 0.0f;
  for (int e = 0; e < E; ++e) sum += expf(logits[e] - mx);
  float chosen = 0.0f;
  for (int k = 0; k < topk; ++k) {
    int best = -1;
    for (int e = 0; e < E; ++e) {
      bool taken = false;
      for (int j = 0; j < k; ++j) taken = taken || sel[j] == e;
      if (!taken && (best < 0 || logits[e] > logits[best])) best = e;
    }
    sel[k] = best;
    selw[k] = expf(logits[best] - mx) / sum;
    chosen += selw[k];
  }
  if (renormalize)
    for (int k = 0; k < topk; ++k) selw[k] /= chosen;
}

// Dot of a (f32, shared) with row b (bf16, global) of length n, by one warp; every lane gets it.
HK_DEVICE float warp_dot(const float* a, const bf16* b, int n) {
  float s = 0.0f;
  for (int i = hk::lane_id(); i < n; i += HK_WARP_SIZE) s += a[i] * hk::to_f32(b[i]);
  return hk::warp_sum(s);
}

HK_KERNEL void moe_op_e2e(const bf16* __restrict__ x, const f32* __restrict__ router_logits,
                          const bf16* __restrict__ w_up, const bf16* __restrict__ w_down, bf16* __restrict__ out,
                          int H, int I, int E, int topk, int renormalize) {
  HK_DYNAMIC_SHARED(float, smem);
  float* xs = smem;       // [H]
  float* y = xs + H;      // [H] combined output
  float* h = y + H;       // [I]
  int* sel = reinterpret_cast<int*>(h + I);  // [16]
  float* selw = reinterpret_cast<float*>(sel + 16);  // [16]
  const int t = blockIdx.x, nwarps = blockDim.x / HK_WARP_SIZE;
  for (int j = threadIdx.x; j < H; j += blockDim.x) {
    xs[j] = hk::to_f32(x[(i64)t * H + j]);
    y[j] = 0.0f;
  }
  if (threadIdx.x == 0) route(router_logits + (i64)t * E, E, topk, renormalize, sel, selw);
  __syncthreads();
  for (int k = 0; k < topk; ++k) {
    const int e = sel[k];
    const bf16* wu = w_up + (i64)e * 2 * I * H;
    const bf16* wd = w_down + (i64)e * H * I;
    for (int i = hk::warp_id(); i < I; i += nwarps) {
      const float g = warp_dot(xs, wu + (i64)i * H, H), u = warp_dot(xs, wu + (i64)(I + i) * H, H);
      if (hk::lane_id() == 0) h[i] = hk::to_f32(hk::from_f32<bf16>(silu(g) * u));
    }
    __syncthreads();
    for (int j = hk::warp_id(); j < H; j += nwarps) {
      const float d = warp_dot(h, wd + (i64)j * I, I);
      if (hk::lane_id() == 0) y[j] += selw[k] * d;
    }
    __syncthreads();  // h is rewritten by the next expert
  }
  for (int j = threadIdx.x; j < H; j += blockDim.x) out[(i64)t * H + j] = hk::from_f32<bf16>(y[j]);
}
