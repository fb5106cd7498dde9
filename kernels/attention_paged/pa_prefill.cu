// Paged attention, prefill: the queries of several packed sequences attend causally to their own
// keys, all of which are already in the paged cache.
//
//   pa_prefill(out, q, k_cache, v_cache, block_tables, cu_seqlens_q, seq_lens, Hq, Hkv, page_size,
//              max_blocks, scale)
//     q, out        [total_q, Hq, D] (T), packed: sequence b owns tokens cu_seqlens_q[b] .. [b+1]-1
//     cu_seqlens_q  [B+1] i32
//     seq_lens      [B] i32: keys of sequence b (>= its query count; the queries are its LAST
//                   tokens, so query i sees keys j <= i + seq_len - sq, bottom-right causal)
//     k/v_cache     [num_blocks, page_size, Hkv, D] (T); block_tables [B, max_blocks] i32
//   scale <= 0 means 1/sqrt(D). D = HEAD_DIM, T the element type (defines).
// Grid: (ceil(max_q * G / 32), Hkv, B), G = Hq / Hkv, max_q the longest query count (blocks past a
// sequence's end exit); block: 128 threads = 32 rows (token, query head) x 4 lanes. Shared:
// static, (32*(D+1)*2 + 32*32) * 4 bytes (37.1 KiB at D = 128).
#include "hkcheck.h"
#include "paged_kv.h"

using namespace hk_paged;

using PrefillTile = Tile<HEAD_DIM, 32, 32, 128>;

HK_KERNEL void pa_prefill(T* out, const T* q, const T* k_cache, const T* v_cache,
                          const i32* block_tables, const i32* cu_seqlens_q, const i32* seq_lens,
                          i32 Hq, i32 Hkv, i32 page_size, i32 max_blocks, f32 scale) {
  __shared__ PrefillTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const int q0 = cu_seqlens_q[b];
  RowSeq p;
  p.sq = cu_seqlens_q[b + 1] - q0;
  if ((int)blockIdx.x * PrefillTile::BM >= p.sq * G) return;  // block-uniform
  p.sk = seq_lens[b]; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.causal = true;
  p.qscale = qscale_of(scale, HEAD_DIM);
  const PagedKV<T> src{k_cache + hk * HEAD_DIM, v_cache + hk * HEAD_DIM,
                       block_tables + (long long)b * max_blocks, page_size, (long long)Hkv * HEAD_DIM};
  const long long q_off = (long long)q0 * p.q_stride;
  attend_rows<PrefillTile>(s, out + q_off, q + q_off, src, p, blockIdx.x * PrefillTile::BM);
}
