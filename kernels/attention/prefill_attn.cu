// Causal prefill attention: every sequence of the batch has S queries and the same S keys.
//
//   prefill_attn(out, q, k, v, S, Hq, Hkv, scale)
//     q [B, S, Hq, D], k/v [B, S, Hkv, D], out [B, S, Hq, D] (T)
//     out[b, i, h] = sum_{j <= i} softmax_j(scale * q[b, i, h]·k[b, j, h/G]) v[b, j, h/G]
//   G = Hq / Hkv; scale <= 0 means 1/sqrt(D). No lse output (flash_attn_fwd has one).
// The code is flash_attn_fwd's (fwd_block.h) with Sq = Sk = S and causal fixed.
// Grid: (ceil(S * G / 32), Hkv, B); block: 128 threads; shared memory: static, as flash_attn_fwd.
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void prefill_attn(T* out, const T* q, const T* k, const T* v, i32 S, i32 Hq, i32 Hkv,
                            f32 scale) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const long long kv_off = ((long long)b * S * Hkv + hk) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, (long long)Hkv * HEAD_DIM};
  FwdSeq p;
  p.sq = S; p.sk = S; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = nullptr;
  p.lse_hstride = 0;
  p.causal = true;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)b * S * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, blockIdx.x * FwdTile::BM);
}
