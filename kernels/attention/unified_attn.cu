// Unified attention: one launch over a batch that mixes decode sequences (1 new token) and
// prefill / chunked-prefill sequences (many new tokens), all reading a KV cache that already
// holds their new tokens.
//
//   unified_attn(out, q, k_cache, v_cache, cu_seqlens_q, seq_lens, B, Hq, Hkv, max_seq, scale)
//     q [total_q, Hq, D], out [total_q, Hq, D] (T): packed new tokens; cu_seqlens_q [B+1] i32,
//       sequence b's queries are tokens cu[b] .. cu[b+1]-1 (q_b = cu[b+1] - cu[b], may be 0)
//     k_cache/v_cache [B, max_seq, Hkv, D] (T); seq_lens [B] i32: keys of sequence b (its context
//       including its new tokens, q_b <= seq_lens[b] <= max_seq)
//   query i of sequence b sees keys j <= i + seq_lens[b] - q_b (bottom-right causal); softmax
//   attention, scale <= 0 means 1/sqrt(D); G = Hq / Hkv.
// Grid: (ceil(total_q * G / 32) + B, Hkv): a flat list of tiles; block x walks the sequences to
//   find its (b, tile) — sequence b has ceil(q_b * G / 32) tiles — so a decode row costs one
//   tile and a long prefill many, in the same launch; blocks past the last tile exit.
// Block: 128 threads; shared memory: static, as flash_attn_fwd (fwd_block.h).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void unified_attn(T* out, const T* q, const T* k_cache, const T* v_cache,
                            const i32* cu_seqlens_q, const i32* seq_lens, i32 B, i32 Hq, i32 Hkv,
                            i32 max_seq, f32 scale) {
  __shared__ FwdTile::Smem s;
  const int hk = blockIdx.y, G = Hq / Hkv;
  // Find this block's sequence and tile (the same for every thread: block-uniform exit).
  int b = 0, tile = (int)blockIdx.x;
  for (; b < B; ++b) {
    const int tiles = hk::ceil_div((cu_seqlens_q[b + 1] - cu_seqlens_q[b]) * G, FwdTile::BM);
    if (tile < tiles) break;
    tile -= tiles;
  }
  if (b == B) return;
  const int q0 = cu_seqlens_q[b];
  const long long kv_off = ((long long)b * max_seq * Hkv + hk) * HEAD_DIM;
  const ContigKV<T> src{k_cache + kv_off, v_cache + kv_off, (long long)Hkv * HEAD_DIM};
  FwdSeq p;
  p.sq = cu_seqlens_q[b + 1] - q0; p.sk = seq_lens[b]; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = nullptr;
  p.lse_hstride = 0;
  p.causal = true;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)q0 * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, tile * FwdTile::BM);
}
