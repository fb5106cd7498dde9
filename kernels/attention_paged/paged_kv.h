// K/V sources for the paged attention kernels, and the row driver they share.
//
// Paged cache layout (row-major, element strides):
//   k_cache, v_cache [num_blocks, page_size, Hkv, D]; block_tables [B, max_blocks] i32.
//   Token j of sequence b is slot j % page_size of page block_tables[b, j / page_size].
//   Only the first ceil(seq_len / page_size) entries of a table row are read.
// Row driver: rows of a tile are (query token r / G, query head hq0 + r % G) of one sequence and
// one kv head, so the G query heads sharing a kv head read each K/V tile once (GQA/MQA).
// Masks are bottom-right causal (online_softmax.h): query i of sq sees keys j <= i + sk - sq.
#pragma once

#include "../attention/online_softmax.h"

namespace hk_paged {

using namespace hk_attn;

// Keys of one (sequence, kv head) read through its block table.
template <typename KT> struct PagedKV {
  const KT* k;          // k_cache + kv_head * D
  const KT* v;          // v_cache + kv_head * D
  const i32* table;     // block_tables + b * max_blocks
  int page;             // page_size
  long long slot;       // elements between slots of a page (Hkv * D)
  HK_DEVICE long long off(int j) const {
    return ((long long)table[j / page] * page + j % page) * slot;
  }
  HK_DEVICE const KT* k_row(int j) const { return k + off(j); }
  HK_DEVICE const KT* v_row(int j) const { return v + off(j); }
};

// Keys 0..ctx-1 from the paged cache (the prefix), keys ctx.. from contiguous new rows.
template <typename KT> struct PrefixNewKV {
  PagedKV<KT> cache;
  int ctx;
  ContigKV<KT> fresh;
  HK_DEVICE const KT* k_row(int j) const { return j < ctx ? cache.k_row(j) : fresh.k_row(j - ctx); }
  HK_DEVICE const KT* v_row(int j) const { return j < ctx ? cache.v_row(j) : fresh.v_row(j - ctx); }
};

// scale <= 0 means 1/sqrt(D); the tile works in the log2 domain.
HK_DEVICE float qscale_of(float scale, int D) {
  return (scale > 0.f ? scale : 1.f / sqrtf((float)D)) * kLog2e;
}

struct RowSeq {
  int sq, sk;          // queries and keys of this sequence
  int G, hq0;          // query heads per kv head; first query head of the kv head's group
  long long q_stride;  // elements between consecutive query tokens (Hq * D)
  bool causal;
  float qscale;
};

// Rows r0 .. r0 + BM - 1 (those < sq * G) of one sequence; q and out point at its token 0,
// head 0. Every thread of the block calls (the tile loop has barriers).
template <class TL, typename T, class KV>
HK_DEVICE void attend_rows(typename TL::Smem& s, T* out, const T* q, const KV& src, const RowSeq& p,
                           int r0) {
  TL t;
  const int nrows = p.sq * p.G;
  const int r = r0 + (int)threadIdx.x / TL::TPR;
  const bool valid = r < nrows;
  const int i = r / p.G, h = p.hq0 + r % p.G;
  const long long off = (long long)i * p.q_stride + (long long)h * TL::D;
  t.begin(s, valid ? q + off : (const T*)nullptr, p.qscale, causal_hi(i, p.sq, p.sk, p.causal));
  // The last row of the block sees the most keys (the causal bound grows with i).
  const int last = (r0 + TL::BM < nrows ? r0 + TL::BM : nrows) - 1;
  t.run(s, src, 0, causal_hi(last / p.G, p.sq, p.sk, p.causal));
  if (!valid) return;
  for (int k = 0; k < TL::DPT; ++k) out[off + t.col(k)] = hk::from_f32<T>(t.out(k));
}

}  // namespace hk_paged
