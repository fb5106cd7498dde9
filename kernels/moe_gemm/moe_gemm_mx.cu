// OCP MX fp4 MoE GEMMs over the routing layout of moe_layout.h (modules moe_a4w4, moe_mxfp4,
// moe_mxfp4_silu_fused). fp4 e2m1 tensors are packed two per byte along H (flat element i in
// byte i / 2, low nibble for even i); each 32 consecutive elements along H of a row share one
// e8m0 scale, the last block of a row possibly shorter (KB = ceil(H / 32) scales per row).
//   moe_a4w4(x, x_scale, w, w_scale, sorted_token_ids, expert_ids, num_tokens_post_padded,
//            topk_weights, out, topk, num_slots, N, H, mul_routed_weight)
//     x [T, H] fp4 with x_scale [T, KB] e8m0; w [E, N, H] fp4 with w_scale [E, N, KB] e8m0
//   moe_mxfp4(x, w, w_scale, ...same tail...)              x [T, H] bf16
//   moe_mxfp4_silu_fused(x, w, w_scale, ...same tail...)   w [E, 2N, H] (gate rows, then up),
//     w_scale [E, 2N, KB]; out = silu(x . w_gate^T) * (x . w_up^T)
// out[t, k, n] (times topk_weights[t, k] if mul_routed_weight) rounded to bf16, [T, topk, N].
// Values are dequantized as staged: fp4 times a power of two is exact in f32, so the only
// rounding is the f32 sum. Grid: (ceil(N / 64), NB), or (ceil(N / 32), NB) for the SwiGLU one;
// block 256; dynamic shared memory 33536 bytes (moe_layout.h).
#include "hkcheck.h"
#include "moe_layout.h"

#define MX_TAIL                                                                                      \
  const i32 *__restrict__ sorted_token_ids, const i32 *__restrict__ expert_ids,                      \
      const i32 *__restrict__ num_tokens_post_padded, const f32 *__restrict__ topk_weights,          \
      bf16 *__restrict__ out, int topk, int num_slots, int N, int H, int mul_routed_weight

// Element (row, k) of an MX fp4 matrix with H columns, dequantized.
HK_DEVICE float mx_at(const fp4e2m1x2* q, const e8m0* scale, i64 row, int k, int H) {
  const i64 i = row * H + k;
  const fp4e2m1x2 p = q[i / 2];
  const float v = (i & 1) ? hk::fp4_hi(p) : hk::fp4_lo(p);
  return v * hk::to_f32(scale[row * ((H + 31) / 32) + k / 32]);
}

HK_DEVICE void store_out(bf16* out, const f32* topk_weights, int mul, int s, int n, int N, float v) {
  if (mul) v *= topk_weights[s];
  out[(i64)s * N + n] = hk::from_f32<bf16>(v);
}

HK_KERNEL void moe_a4w4(const fp4e2m1x2* __restrict__ x, const e8m0* __restrict__ x_scale,
                        const fp4e2m1x2* __restrict__ w, const e8m0* __restrict__ w_scale, MX_TAIL) {
  MOE_BLOCK_OR_RETURN();
  const i64 row0 = (i64)blk.expert * N;  // first weight row of the expert
  moe::mainloop(
      acc, smem, blk, N, H, [&](int m, int k) { return mx_at(x, x_scale, blk.token(m, topk), k, H); },
      [&](int n, int k) { return mx_at(w, w_scale, row0 + n, k, H); });
  moe::epilogue(acc, blk, N,
                [&](int s, int n, float v) { store_out(out, topk_weights, mul_routed_weight, s, n, N, v); });
}

HK_KERNEL void moe_mxfp4(const bf16* __restrict__ x, const fp4e2m1x2* __restrict__ w,
                         const e8m0* __restrict__ w_scale, MX_TAIL) {
  MOE_BLOCK_OR_RETURN();
  const i64 row0 = (i64)blk.expert * N;
  moe::mainloop(
      acc, smem, blk, N, H, [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) { return mx_at(w, w_scale, row0 + n, k, H); });
  moe::epilogue(acc, blk, N,
                [&](int s, int n, float v) { store_out(out, topk_weights, mul_routed_weight, s, n, N, v); });
}

HK_KERNEL void moe_mxfp4_silu_fused(const bf16* __restrict__ x, const fp4e2m1x2* __restrict__ w,
                                    const e8m0* __restrict__ w_scale, MX_TAIL) {
  MOE_BLOCK_OR_RETURN();
  const i64 row0 = (i64)blk.expert * 2 * N;
  moe::mainloop(
      acc, smem, blk, (blockIdx.x + 1) * moe::Tile::BN, H,
      [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) {
        const int row = moe::gated_row(n, N);
        return row < 0 ? 0.0f : mx_at(w, w_scale, row0 + row, k, H);
      });
  moe::gated_epilogue(acc, blk, N,
                      [&](int s, int n, float v) { store_out(out, topk_weights, mul_routed_weight, s, n, N, v); });
}
