// bf16 MoE GEMMs over the routing layout of moe_layout.h (modules moe_gemm, moe_gelu,
// moe_silu_fused):
//   moe_gemm(x, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out,
//            topk, num_slots, N, H, mul_routed_weight)
//     out[t, k, n] = x[t] . w[e, n]^T                     (e the expert of slot s = t * topk + k)
//   moe_gelu(...same...)        out = gelu_erf(x[t] . w[e, n]^T)
//   moe_silu_fused(...same...)  w is [E, 2N, H] (rows [0, N) gate, [N, 2N) up):
//     out[t, k, n] = silu(x[t] . w[e, n]^T) * (x[t] . w[e, N + n]^T)
// Each times topk_weights[t, k] when mul_routed_weight != 0 (after the activation), then rounded
// to bf16. x [T, H] bf16, w [E, N or 2N, H] bf16, out [T, topk, N] bf16; f32 products and sums.
// Grid: (ceil(N / 64), NB) for moe_gemm / moe_gelu, (ceil(N / 32), NB) for moe_silu_fused;
// block 256; dynamic shared memory 33536 bytes (moe_layout.h).
#include "hkcheck.h"
#include "moe_layout.h"

#define MOE_ARGS                                                                                          \
  const bf16 *__restrict__ x, const bf16 *__restrict__ w, const i32 *__restrict__ sorted_token_ids,       \
      const i32 *__restrict__ expert_ids, const i32 *__restrict__ num_tokens_post_padded,                 \
      const f32 *__restrict__ topk_weights, bf16 *__restrict__ out, int topk, int num_slots, int N, int H, \
      int mul_routed_weight

// act 0: none, 1: gelu (erf).
template <int ACT>
HK_DEVICE void moe_bf16_plain(MOE_ARGS) {
  MOE_BLOCK_OR_RETURN();
  const bf16* we = w + (i64)blk.expert * N * H;
  moe::mainloop(
      acc, smem, blk, N, H, [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) { return hk::to_f32(we[(i64)n * H + k]); });
  moe::epilogue(acc, blk, N, [&](int s, int n, float v) {
    if (ACT == 1) v = moe::gelu_erf(v);
    if (mul_routed_weight) v *= topk_weights[s];
    out[(i64)s * N + n] = hk::from_f32<bf16>(v);
  });
}

HK_KERNEL void moe_gemm(MOE_ARGS) {
  moe_bf16_plain<0>(x, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out, topk,
                    num_slots, N, H, mul_routed_weight);
}

HK_KERNEL void moe_gelu(MOE_ARGS) {
  moe_bf16_plain<1>(x, w, sorted_token_ids, expert_ids, num_tokens_post_padded, topk_weights, out, topk,
                    num_slots, N, H, mul_routed_weight);
}

HK_KERNEL void moe_silu_fused(MOE_ARGS) {
  MOE_BLOCK_OR_RETURN();
  const bf16* we = w + (i64)blk.expert * 2 * N * H;
  moe::mainloop(
      acc, smem, blk, (blockIdx.x + 1) * moe::Tile::BN, H,
      [&](int m, int k) { return hk::to_f32(x[(i64)blk.token(m, topk) * H + k]); },
      [&](int n, int k) {
        const int row = moe::gated_row(n, N);
        return row < 0 ? 0.0f : hk::to_f32(we[(i64)row * H + k]);
      });
  moe::gated_epilogue(acc, blk, N, [&](int s, int n, float v) {
    if (mul_routed_weight) v *= topk_weights[s];
    out[(i64)s * N + n] = hk::from_f32<bf16>(v);
  });
}
