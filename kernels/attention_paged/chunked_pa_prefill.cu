// Chunked prefill over a paged prefix: a chunk of new query tokens per sequence attends to the
// sequence's cached prefix (paged) and, causally, to the chunk's own new keys (contiguous).
//
//   chunked_pa_prefill(out, q, k, v, k_cache, v_cache, block_tables, cu_seqlens_q, ctx_lens, Hq, Hkv,
//                      page_size, max_blocks, scale)
//     q, out        [total_q, Hq, D] (T), packed: chunk b is tokens cu_seqlens_q[b] .. [b+1]-1
//     k, v          [total_q, Hkv, D] (T): the chunk's new keys/values, packed like q
//     cu_seqlens_q  [B+1] i32; ctx_lens [B] i32: prefix length of sequence b (may be 0)
//     k/v_cache     [num_blocks, page_size, Hkv, D] (T); block_tables [B, max_blocks] i32: the
//                   prefix, token j < ctx_lens[b] at page block_tables[b, j / page_size]
//   Key j of sequence b is the prefix token j (j < ctx) or new token j - ctx; new query i sees keys
//   j <= ctx + i (bottom-right causal over sk = ctx + sq). scale <= 0 means 1/sqrt(D).
// Grid: (ceil(max_q * G / 32), Hkv, B) (blocks past a chunk's end exit); block: 128 threads = 32
// rows x 4 lanes. Shared: static, (32*(D+1)*2 + 32*32) * 4 bytes (37.1 KiB at D = 128).
#include "hkcheck.h"
#include "paged_kv.h"

using namespace hk_paged;

using ChunkTile = Tile<HEAD_DIM, 32, 32, 128>;

HK_KERNEL void chunked_pa_prefill(T* out, const T* q, const T* k, const T* v, const T* k_cache,
                                  const T* v_cache, const i32* block_tables,
                                  const i32* cu_seqlens_q, const i32* ctx_lens, i32 Hq, i32 Hkv,
                                  i32 page_size, i32 max_blocks, f32 scale) {
  __shared__ ChunkTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const int q0 = cu_seqlens_q[b];
  RowSeq p;
  p.sq = cu_seqlens_q[b + 1] - q0;
  if ((int)blockIdx.x * ChunkTile::BM >= p.sq * G) return;  // block-uniform
  const int ctx = ctx_lens[b];
  p.sk = ctx + p.sq; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.causal = true;
  p.qscale = qscale_of(scale, HEAD_DIM);
  const long long slot = (long long)Hkv * HEAD_DIM;
  const long long kv_off = (long long)q0 * slot + hk * HEAD_DIM;
  const PrefixNewKV<T> src{
      {k_cache + hk * HEAD_DIM, v_cache + hk * HEAD_DIM, block_tables + (long long)b * max_blocks,
       page_size, slot},
      ctx,
      {k + kv_off, v + kv_off, slot}};
  const long long q_off = (long long)q0 * p.q_stride;
  attend_rows<ChunkTile>(s, out + q_off, q + q_off, src, p, blockIdx.x * ChunkTile::BM);
}
