// One block's share of a forward attention: BM consecutive "rows" of one sequence and one kv
// head, where row r is (query token r / G, query head hq0 + r % G): the G query heads that share
// a kv head are packed into one tile, so each K/V tile is loaded once for all of them (GQA/MQA).
// Layouts are the family's (online_softmax.h): q/out rows of D elements, q_stride elements
// between tokens (Hq * D). Tile: BM = 32 rows, BN = 32 keys, 128 threads (TPR = 4 lanes per row).
#pragma once

#include "online_softmax.h"

namespace hk_attn {

constexpr int kFwdBM = 32, kFwdBN = 32, kFwdNT = 128;
using FwdTile = Tile<HEAD_DIM, kFwdBM, kFwdBN, kFwdNT>;
// Decode: few rows (the G heads of a kv group), long key ranges: 16 rows x 64 keys, 8 lanes per
// row; shared memory (16*(D+1) + 64*(D+1) + 16*64) * 4 = 45.3 KiB at D = 128.
using DecTile = Tile<HEAD_DIM, 16, 64, 128>;

// scale <= 0 means the default 1/sqrt(D).
HK_DEVICE float softmax_qscale(float scale) {
  return (scale > 0.f ? scale : 1.f / sqrtf((float)HEAD_DIM)) * kLog2e;
}

struct FwdSeq {
  int sq, sk;          // queries and keys of this sequence
  int G, hq0;          // query heads per kv head; first query head of the group
  long long q_stride;  // elements between consecutive tokens of q and out
  float* lse;          // lse of (head h, token i) at lse[h * lse_hstride + i]; nullptr: none
  long long lse_hstride;
  bool causal;
  float qscale;        // softmax_qscale(scale)
};

// q and out point at token 0, head 0 of the sequence; src reads its keys (0..sk-1) of the kv
// head. Rows r0 .. r0 + BM - 1 (those < sq * G). Every thread of the block calls.
template <typename T, class KV>
HK_DEVICE void fwd_rows(FwdTile::Smem& s, T* out, const T* q, const KV& src, const FwdSeq& p, int r0) {
  FwdTile t;
  const int nrows = p.sq * p.G;
  const int r = r0 + (int)threadIdx.x / FwdTile::TPR;
  const bool valid = r < nrows;
  const int i = r / p.G, h = p.hq0 + r % p.G;
  const long long off = (long long)i * p.q_stride + (long long)h * HEAD_DIM;
  t.begin(s, valid ? q + off : (const T*)nullptr, p.qscale, causal_hi(i, p.sq, p.sk, p.causal));
  // The block's last row sees the most keys (bottom-right causal grows with i).
  const int last = (r0 + FwdTile::BM < nrows ? r0 + FwdTile::BM : nrows) - 1;
  t.run(s, src, 0, causal_hi(last / p.G, p.sq, p.sk, p.causal));
  if (!valid) return;
  for (int k = 0; k < FwdTile::DPT; ++k) out[off + t.col(k)] = hk::from_f32<T>(t.out(k));
  if (p.lse && t.sub == 0) p.lse[h * p.lse_hstride + i] = t.sm.lse();
}

}  // namespace hk_attn
