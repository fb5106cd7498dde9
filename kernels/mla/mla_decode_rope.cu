// Absorbed MLA decode with rope on the query: one query token per sequence, H heads, against the
// sequence's tokens in a latent cache (engine and tiling: mla_tile.h).
//
//   mla_decode_rope(out, q_nope, q_pe, kv, cu_seqlens_kv, positions, cos_sin, H, scale)
//     q_nope [B, H, 512] bf16, q_pe [B, H, 64] bf16 (NOT yet rotated)
//     kv [num_tokens, 576] bf16: sequence b owns rows cu_seqlens_kv[b] .. cu_seqlens_kv[b+1]-1;
//        dims 0..511 latent (= V), 512..575 rope part, already rotated when it was cached
//     cu_seqlens_kv [B+1] i32; positions [B] i32: the query's position
//     cos_sin [max_pos, 64] f32: cos in columns 0..31, sin in 32..63
//     out [B, H, 512] bf16
//   The kernel rotates q_pe (neox halves, pairs (e, e+32)): at p = positions[b], with c = cos_sin[p, e],
//   s = cos_sin[p, 32+e]: q'[e] = q[e] c - q[e+32] s, q'[e+32] = q[e+32] c + q[e] s (in f32). Then
//   out[b, h] = softmax over the sequence's tokens of scale * [q_nope, q'_pe]·kv[t], applied to kv[t, :512].
//   An empty sequence gives out = 0.
// Grid: (ceil(H / 8), B); block: 256 threads; dynamic shared: 69,632 bytes (mla_tile.h).
#include "hkcheck.h"
#include "mla_tile.h"

using namespace hk_mla;

struct SeqTokens {
  long long first;
  HK_DEVICE long long operator()(int t) const { return first + t; }
};

HK_KERNEL void mla_decode_rope(bf16* out, const bf16* q_nope, const bf16* q_pe, const bf16* kv,
                               const i32* cu_seqlens_kv, const i32* positions, const f32* cos_sin,
                               i32 H, f32 scale) {
  HK_DYNAMIC_SHARED(bf16, smem);
  const int b = blockIdx.y, lane = hk::lane_id();
  const float qs = scale * hk_attn::kLog2e;
  const f32* cs = cos_sin + (long long)positions[b] * PE;
  Heads hd;
  assign_heads(hd);
  for (int i = 0; i < HPW; ++i) {
    const bool real = hd.head[i] < H;
    const long long row = (long long)b * H + hd.head[i];
    for (int k = 0; k < QPL; ++k) {
      const int d = lane + W * k;
      float x = 0.f;
      if (real && d < DV) {
        x = hk::to_f32(q_nope[row * DV + d]);
      } else if (real) {
        const int e = d - DV, e0 = e % (PE / 2);
        const float c = cs[e0], s = cs[PE / 2 + e0];
        const float lo = hk::to_f32(q_pe[row * PE + e0]), hi = hk::to_f32(q_pe[row * PE + e0 + PE / 2]);
        x = e < PE / 2 ? lo * c - hi * s : hi * c + lo * s;
      }
      hd.q[i][k] = x * qs;
    }
  }
  const int t0 = cu_seqlens_kv[b];
  attend(hd, smem, kv, SeqTokens{t0}, cu_seqlens_kv[b + 1] - t0);
  store(hd, out + (long long)b * H * DV, H);
}
