// Known bad, for 64-lane wavefronts only: sparse absorbed MLA decode, the contract of
// kernels/mla/sparse_mla.cu with its tiling (256 threads, 8 heads per block, 32 tokens a tile
// through 69,632 bytes of dynamic shared memory), written out in one file.
//
// The bug: each lane holds the probability of token lane % 32 of the tile, so with 64 lanes
// lanes 32..63 hold a second copy of tokens 0..31. The softmax denominator is a sum over the
// whole wavefront, which counts every token twice there: every output comes out half of what it
// should be. With 32-lane warps there is one copy and the kernel is right. Its shared memory is
// over gfx942's 64 KiB, so only a 160 KiB target (gfx950) runs it with 64 lanes.
#include "hkcheck.h"

namespace kb_mla {

constexpr int KV = 576, DV = 512, PE = 64, BN = 32, NT = 256, HB = 8;
constexpr int W = HK_WARP_SIZE, NW = NT / W, HPW = HB / NW;
constexpr int QPL = KV / W, VPL = DV / W;  // q values and output columns per lane per head
constexpr float kLog2e = 1.4426950408889634f;
static_assert(NT % W == 0 && HB % NW == 0 && W >= BN, "tiling");

HK_DEVICE float neg_inf() { return -__int_as_float(0x7f800000); }

// One head slot of a warp: its pre-scaled q, the online-softmax state and the accumulator.
struct Head {
  int head;
  float q[QPL], acc[VPL], m, l;
};

// Tile rows j0 .. j0+31 of the query's index list into ks [32][576] and vs [32][512] (0 when masked).
HK_DEVICE void load_tile(bf16* ks, bf16* vs, const bf16* kv, const i32* idx, int j0, int topk) {
  for (int e = threadIdx.x; e < BN * KV; e += NT) {
    const int t = e / KV, d = e % KV;
    const int r = j0 + t < topk ? idx[j0 + t] : -1;
    const bf16 x = r >= 0 ? kv[(long long)r * KV + d] : hk::from_f32<bf16>(0.f);
    ks[e] = x;
    if (d < DV) vs[t * DV + d] = x;
  }
}

// The score of token lane % 32 of the tile (-inf when masked); every lane of the warp calls.
HK_DEVICE float tile_score(const Head& h, const bf16* ks, bool valid) {
  const int lane = hk::lane_id();
  float mine = neg_inf();
  for (int t = 0; t < BN; ++t) {
    float part = 0.f;
    for (int k = 0; k < QPL; ++k) part += h.q[k] * hk::to_f32(ks[t * KV + lane + W * k]);
    const float s = hk::warp_sum(part);
    if (lane % BN == t && valid) mine = s;
  }
  return mine;
}

HK_DEVICE void attend_tile(Head& h, const bf16* ks, const bf16* vs, bool valid) {
  const int lane = hk::lane_id();
  const float s = tile_score(h, ks, valid);
  const float m_new = fmaxf(h.m, hk::warp_max(s));
  const float alpha = m_new == neg_inf() ? 1.f : exp2f(h.m - m_new);
  const float p = m_new == neg_inf() ? 0.f : exp2f(s - m_new);
  h.m = m_new;
  h.l = h.l * alpha + hk::warp_sum(p);  // BUG: lanes >= 32 repeat tokens 0..31 (needs lane < BN ? p : 0)
  for (int k = 0; k < VPL; ++k) h.acc[k] *= alpha;
  for (int t = 0; t < BN; ++t) {
    const float pt = hk::shfl(p, t);
    for (int k = 0; k < VPL; ++k) h.acc[k] += pt * hk::to_f32(vs[t * DV + lane + W * k]);
  }
}

}  // namespace kb_mla

using namespace kb_mla;

HK_KERNEL void sparse_mla_wave64_denominator(bf16* out, const bf16* q_nope, const bf16* q_pe, const bf16* kv,
                                             const i32* indices, i32 H, i32 topk, f32 scale) {
  HK_DYNAMIC_SHARED(bf16, smem);
  bf16* ks = smem;
  bf16* vs = smem + BN * KV;
  const int b = blockIdx.y, lane = hk::lane_id();
  const i32* idx = indices + (long long)b * topk;
  Head hd[HPW];
  for (int i = 0; i < HPW; ++i) {
    Head& h = hd[i];
    h.head = (int)blockIdx.x * HB + hk::warp_id() + NW * i;
    const long long row = (long long)b * H + h.head;
    for (int k = 0; k < QPL; ++k) {
      const int d = lane + W * k;
      float x = 0.f;
      if (h.head < H) x = d < DV ? hk::to_f32(q_nope[row * DV + d]) : hk::to_f32(q_pe[row * PE + d - DV]);
      h.q[k] = x * scale * kLog2e;
    }
    for (int k = 0; k < VPL; ++k) h.acc[k] = 0.f;
    h.m = neg_inf(), h.l = 0.f;
  }
  for (int j0 = 0; j0 < topk; j0 += BN) {
    __syncthreads();  // the previous tile's P·V is done with both buffers
    load_tile(ks, vs, kv, idx, j0, topk);
    __syncthreads();
    const int t = j0 + lane % BN;
    const bool valid = t < topk && idx[t] >= 0;
    for (int i = 0; i < HPW; ++i) attend_tile(hd[i], ks, vs, valid);
  }
  for (int i = 0; i < HPW; ++i) {
    if (hd[i].head >= H) continue;
    const float inv = hd[i].l > 0.f ? 1.f / hd[i].l : 0.f;
    for (int k = 0; k < VPL; ++k)
      out[((long long)b * H + hd[i].head) * DV + lane + W * k] = hk::from_f32<bf16>(hd[i].acc[k] * inv);
  }
}
