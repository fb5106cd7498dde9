// Paged attention, decode: one new query token per sequence against its paged K/V cache.
//
//   pa_decode(out, q, k_cache, v_cache, block_tables, seq_lens, Hq, Hkv, page_size, max_blocks, scale)
//     q, out        [B, Hq, D] (T)
//     k/v_cache     [num_blocks, page_size, Hkv, D] (T)
//     block_tables  [B, max_blocks] i32: page of token j of sequence b is block_tables[b, j / page_size]
//     seq_lens      [B] i32: keys 0 .. seq_lens[b]-1 are attended (no mask otherwise)
//   out[b, h] = sum_j softmax_j(scale * q[b, h]·k[j]) v[j], kv head h / (Hq / Hkv); scale <= 0
//   means 1/sqrt(D); seq_lens[b] = 0 gives out = 0. D = HEAD_DIM, T the element type (defines).
// Grid: (ceil(G / 8), Hkv, B), G = Hq / Hkv; block: 128 threads, 8 rows (query heads of one kv
// head) x 16 lanes per row. Shared: static, (8*(D+1) + 64*(D+1) + 8*64) * 4 bytes (39.2 KiB at
// D = 128): one 64-key K or V tile in f32.
#include "hkcheck.h"
#include "paged_kv.h"

using namespace hk_paged;

using DecodeTile = Tile<HEAD_DIM, 8, 64, 128>;

HK_KERNEL void pa_decode(T* out, const T* q, const T* k_cache, const T* v_cache,
                         const i32* block_tables, const i32* seq_lens, i32 Hq, i32 Hkv,
                         i32 page_size, i32 max_blocks, f32 scale) {
  __shared__ DecodeTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const long long slot = (long long)Hkv * HEAD_DIM;
  const PagedKV<T> src{k_cache + hk * HEAD_DIM, v_cache + hk * HEAD_DIM,
                       block_tables + (long long)b * max_blocks, page_size, slot};
  RowSeq p;
  p.sq = 1; p.sk = seq_lens[b]; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.causal = false;
  p.qscale = qscale_of(scale, HEAD_DIM);
  const long long q_off = (long long)b * Hq * HEAD_DIM;
  attend_rows<DecodeTile>(s, out + q_off, q + q_off, src, p, blockIdx.x * DecodeTile::BM);
}
