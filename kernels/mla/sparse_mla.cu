// Sparse absorbed MLA decode: like mla_decode_rope, but each query attends only to the top-k
// cache rows listed for it (DeepSeek sparse attention), and q_pe comes already rotated.
//
//   sparse_mla(out, q_nope, q_pe, kv, indices, H, topk, scale)
//     q_nope [B, H, 512] bf16, q_pe [B, H, 64] bf16 (rotated; the kernel applies no rope)
//     kv [num_tokens, 576] bf16 (dims 0..511 latent = V, 512..575 rope part)
//     indices [B, topk] i32: rows of kv that query b attends; a negative entry is padding
//     (skipped); a row listed twice counts twice
//     out [B, H, 512] bf16: softmax over the listed rows of scale * [q_nope, q_pe]·kv[row],
//     applied to kv[row, :512]; no valid row gives out = 0.
// Grid: (ceil(H / 8), B); block: 256 threads; dynamic shared: 69,632 bytes (mla_tile.h).
#include "hkcheck.h"
#include "mla_tile.h"

using namespace hk_mla;

struct ListedTokens {
  const i32* idx;
  HK_DEVICE long long operator()(int t) const { return idx[t] < 0 ? -1 : (long long)idx[t]; }
};

HK_KERNEL void sparse_mla(bf16* out, const bf16* q_nope, const bf16* q_pe, const bf16* kv,
                          const i32* indices, i32 H, i32 topk, f32 scale) {
  HK_DYNAMIC_SHARED(bf16, smem);
  const int b = blockIdx.y, lane = hk::lane_id();
  const float qs = scale * hk_attn::kLog2e;
  Heads hd;
  assign_heads(hd);
  for (int i = 0; i < HPW; ++i) {
    const bool real = hd.head[i] < H;
    const long long row = (long long)b * H + hd.head[i];
    for (int k = 0; k < QPL; ++k) {
      const int d = lane + W * k;
      float x = 0.f;
      if (real) x = d < DV ? hk::to_f32(q_nope[row * DV + d]) : hk::to_f32(q_pe[row * PE + d - DV]);
      hd.q[i][k] = x * qs;
    }
  }
  attend(hd, smem, kv, ListedTokens{indices + (long long)b * topk}, topk);
  store(hd, out + (long long)b * H * DV, H);
}
