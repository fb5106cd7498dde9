// Absorbed multi-head latent attention (MLA) over a latent KV cache: the engine shared by
// mla_decode_rope.cu and sparse_mla.cu.
//
// Layouts (row-major): latent cache kv [num_tokens, 576] bf16 — dims 0..511 are the latent (also
// V), dims 512..575 the rope part (already rotated); a query row is 576 values (q_nope 512, then
// q_pe 64); out [B, H, 512] bf16. out[b, h] = sum_t softmax_t(scale * q·kv[tok_t]) kv[tok_t, :512].
//
// Tiling (as the tested kernel does): BN = 32 tokens per iteration through a bf16 shared buffer
// of 32 x (576 + 512) elements = 69,632 bytes of dynamic shared memory (no static __shared__):
// a K buffer [32][576] and a V buffer [32][512]. The two form a double buffer: the V buffer holds
// the current tile's latent dims for P·V while the next tile is loaded into the K buffer.
// A block is 256 threads and serves HB = 8 query heads of one query; each warp owns whole heads
// (8 / warps per block of them: 1 with 32-lane warps, 2 with 64-lane ones). A head's q (pre-scaled
// by scale * log2 e) and its 512 accumulators are spread over the warp's lanes (dims lane + W*k),
// so dot products are warp sums and no shared memory holds q or the probabilities.
#pragma once

#include "../attention/online_softmax.h"

namespace hk_mla {

using hk_attn::OnlineSoftmax;
using hk_attn::neg_inf;

constexpr int KV = 576, DV = 512, PE = 64, BN = 32, NT = 256, HB = 8;
constexpr int W = HK_WARP_SIZE, NW = NT / W, HPW = HB / NW;
constexpr int QPL = KV / W;  // q values per lane per head
constexpr int VPL = DV / W;  // output columns per lane per head
static_assert(NT % W == 0 && HB % NW == 0 && KV % W == 0 && DV % W == 0 && W >= BN, "tiling");

// The block's 8 heads: warp w owns heads hb0 + w + NW * i (i < HPW); head >= H is padding.
struct Heads {
  int head[HPW];
  float q[HPW][QPL];
  float acc[HPW][VPL];
  OnlineSoftmax sm[HPW];
};

// Row of the cache for entry t of the query's token list, or -1 (masked).
template <class Tok> HK_DEVICE long long row_of(const Tok& tok, int t, int n) {
  return t < n ? tok(t) : -1;
}

// K buffer <- latent rows of tokens j0 .. j0+31 (rows of masked tokens are zero).
template <class Tok>
HK_DEVICE void load_k(bf16* ks, const bf16* kv, const Tok& tok, int j0, int n) {
  for (int idx = threadIdx.x; idx < BN * KV; idx += NT) {
    const int t = idx / KV, d = idx % KV;
    const long long r = row_of(tok, j0 + t, n);
    ks[idx] = r >= 0 ? kv[r * KV + d] : hk::from_f32<bf16>(0.f);
  }
}

// Scores of the K buffer for head slot i; every lane returns the score of token lane % 32.
HK_DEVICE float tile_score(const Heads& hd, int i, const bf16* ks, bool valid_mine) {
  const int lane = hk::lane_id();
  float mine = neg_inf();
  for (int t = 0; t < BN; ++t) {
    float part = 0.f;
    for (int k = 0; k < QPL; ++k) part += hd.q[i][k] * hk::to_f32(ks[t * KV + lane + W * k]);
    const float s = hk::warp_sum(part);
    if ((lane % BN) == t) mine = s;
  }
  return valid_mine ? mine : neg_inf();
}

// Attention of the block's heads over the query's n listed tokens. Every thread calls.
template <class Tok>
HK_DEVICE void attend(Heads& hd, bf16* smem, const bf16* kv, const Tok& tok, int n) {
  bf16* ks = smem;
  bf16* vs = smem + BN * KV;
  const int lane = hk::lane_id();
  for (int i = 0; i < HPW; ++i) {
    hd.sm[i].init();
    for (int k = 0; k < VPL; ++k) hd.acc[i][k] = 0.f;
  }
  load_k(ks, kv, tok, 0, n);
  for (int j0 = 0; j0 < n; j0 += BN) {
    __syncthreads();  // K buffer holds tile j0; the previous P·V is done with the V buffer
    for (int idx = threadIdx.x; idx < BN * DV; idx += NT)
      vs[idx] = ks[(idx / DV) * KV + idx % DV];
    const bool valid = row_of(tok, j0 + lane % BN, n) >= 0;
    float p[HPW];
    for (int i = 0; i < HPW; ++i) {
      const float s = tile_score(hd, i, ks, valid);
      const float alpha = hd.sm[i].rescale(hk::warp_max(s));
      p[i] = hd.sm[i].prob(s);
      hd.sm[i].add(hk::warp_sum(lane < BN ? p[i] : 0.f));  // lanes >= 32 repeat lanes 0..31
      for (int k = 0; k < VPL; ++k) hd.acc[i][k] *= alpha;
    }
    __syncthreads();  // scores are done with the K buffer; the V buffer is complete
    if (j0 + BN < n) load_k(ks, kv, tok, j0 + BN, n);  // next tile, while P·V reads the V buffer
    for (int t = 0; t < BN; ++t)
      for (int i = 0; i < HPW; ++i) {
        const float pt = hk::shfl(p[i], t);
        for (int k = 0; k < VPL; ++k) hd.acc[i][k] += pt * hk::to_f32(vs[t * DV + lane + W * k]);
      }
  }
}

// out[h, :] for the warp's heads (out points at the query's [H, 512] block).
HK_DEVICE void store(const Heads& hd, bf16* out, int H) {
  const int lane = hk::lane_id();
  for (int i = 0; i < HPW; ++i) {
    if (hd.head[i] >= H) continue;
    const float inv = hd.sm[i].inv_sum();
    for (int k = 0; k < VPL; ++k)
      out[(long long)hd.head[i] * DV + lane + W * k] = hk::from_f32<bf16>(hd.acc[i][k] * inv);
  }
}

// The warp's head slots for block column blockIdx.x (8 heads per block).
HK_DEVICE void assign_heads(Heads& hd) {
  for (int i = 0; i < HPW; ++i) hd.head[i] = (int)blockIdx.x * HB + hk::warp_id() + NW * i;
}

}  // namespace hk_mla
