// 8-bit-activation MoE GEMMs over the routing layout of moe_layout.h (modules moe_a8w8,
// moe_a8w8_blockscale, moe_a8w4). Arguments, all kernels:
//   (x, w, x_scale, w_scale, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights,
//    out, topk, num_slots, N, H, mul_routed_weight)
//   out[t, k, n] = sum_h xd[t, h] * wd[e, n, h]  (times topk_weights[t, k] if mul_routed_weight),
//   rounded to bf16; xd, wd the dequantized values:
// moe_a8w8: x [T, H] TQ (i8 or fp8e4m3, define), x_scale [T] f32 (per token); w [E, N, H] TQ,
//   w_scale [E, N] f32 (per expert and channel). The raw 8-bit products are summed in f32 (exact
//   for int8 while partial sums stay below 2^24) and both scales applied once in the epilogue.
// moe_a8w8_blockscale: x [T, H] fp8e4m3, x_scale [T, ceil(H / 128)] f32 (per token and 128-wide
//   K block); w [E, N, H] fp8e4m3, w_scale [E, ceil(N / 128), ceil(H / 128)] f32 (per expert and
//   128 x 128 block). Scales vary along K, so values are dequantized (in f32) as they are staged.
// moe_a8w4: x [T, H] TQ with x_scale [T] f32; w signed int4 (-8..7) packed two per byte along H,
//   [E, N, H / 2] u8 (element h even in the low nibble), H even; w_scale [E, N, ceil(H / GROUP)]
//   f32, one per (expert, channel, group of GROUP = 32 or 128 along H, a define). The int4 value
//   times its group scale is staged; x's per-token scale is applied in the epilogue.
// Grid: (ceil(N / 64), NB); block 256; dynamic shared memory 33536 bytes (moe_layout.h).
#include "hkcheck.h"
#include "moe_layout.h"

#ifndef GROUP
#define GROUP 32
#endif

#define A8_ARGS(XT, WT)                                                                                      \
  const XT *__restrict__ x, const WT *__restrict__ w, const f32 *__restrict__ x_scale,                       \
      const f32 *__restrict__ w_scale, const i32 *__restrict__ sorted_token_ids,                             \
      const i32 *__restrict__ expert_ids, const i32 *__restrict__ num_tokens_post_padded,                    \
      const f32 *__restrict__ topk_weights, bf16 *__restrict__ out, int topk, int num_slots, int N, int H, \
      int mul_routed_weight

HK_KERNEL void moe_a8w8(A8_ARGS(TQ, TQ)) {
  MOE_BLOCK_OR_RETURN();
  const TQ* we = w + (i64)blk.expert * N * H;
  const f32* wse = w_scale + (i64)blk.expert * N;
  moe::mainloop(
      acc, smem, blk, N, H, [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) { return hk::to_f32(we[(i64)n * H + k]); });
  moe::epilogue(acc, blk, N, [&](int s, int n, float v) {
    v = v * x_scale[s / topk] * wse[n];
    if (mul_routed_weight) v *= topk_weights[s];
    out[(i64)s * N + n] = hk::from_f32<bf16>(v);
  });
}

HK_KERNEL void moe_a8w8_blockscale(A8_ARGS(fp8e4m3, fp8e4m3)) {
  MOE_BLOCK_OR_RETURN();
  const int KB = (H + 127) / 128, NB = (N + 127) / 128;
  const fp8e4m3* we = w + (i64)blk.expert * N * H;
  const f32* wse = w_scale + (i64)blk.expert * NB * KB;
  moe::mainloop(
      acc, smem, blk, N, H,
      [&](int m, int k) {
        const int t = blk.token(m, topk);
        return hk::to_f32(x[(i64)t * H + k]) * x_scale[(i64)t * KB + k / 128];
      },
      [&](int n, int k) { return hk::to_f32(we[(i64)n * H + k]) * wse[(n / 128) * KB + k / 128]; });
  moe::epilogue(acc, blk, N, [&](int s, int n, float v) {
    if (mul_routed_weight) v *= topk_weights[s];
    out[(i64)s * N + n] = hk::from_f32<bf16>(v);
  });
}

HK_DEVICE float int4_at(const u8* row, int k) {
  const int b = row[k / 2];
  const int q = (k & 1) ? (b >> 4) & 15 : b & 15;
  return (float)(q >= 8 ? q - 16 : q);
}

HK_KERNEL void moe_a8w4(A8_ARGS(TQ, u8)) {
  MOE_BLOCK_OR_RETURN();
  const int G = (H + GROUP - 1) / GROUP;
  const u8* we = w + (i64)blk.expert * N * (H / 2);
  const f32* wse = w_scale + (i64)blk.expert * N * G;
  moe::mainloop(
      acc, smem, blk, N, H, [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) { return int4_at(we + (i64)n * (H / 2), k) * wse[(i64)n * G + k / GROUP]; });
  moe::epilogue(acc, blk, N, [&](int s, int n, float v) {
    v *= x_scale[s / topk];
    if (mul_routed_weight) v *= topk_weights[s];
    out[(i64)s * N + n] = hk::from_f32<bf16>(v);
  });
}
