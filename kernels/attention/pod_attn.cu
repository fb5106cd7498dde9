// POD attention: one launch computes a causal prefill batch and a decode batch side by side;
// the first blocks of the grid take prefill tiles, the rest take decode (batch, kv head) pairs.
//
//   pod_attn(out_p, q_p, k_p, v_p, out_d, q_d, k_d, v_d, seq_lens_d, Bp, Sp, Bd, max_seq_d, Hq,
//            Hkv, scale)
//     prefill: q_p/out_p [Bp, Sp, Hq, D], k_p/v_p [Bp, Sp, Hkv, D] (T); causal, query i sees keys
//       j <= i (Sq = Sk = Sp)
//     decode: q_d/out_d [Bd, Hq, D] (one query per sequence), k_d/v_d [Bd, max_seq_d, Hkv, D]
//       (T), seq_lens_d [Bd] i32: the query sees keys j < seq_lens_d[b] (0 keys: out = 0)
//   Softmax attention, scale <= 0 means 1/sqrt(D); G = Hq / Hkv.
// Grid: (NP + Bd * Hkv) with NP = ceil(Sp * G / 32) * Hkv * Bp prefill tiles; block x < NP is
// prefill tile x % tiles of (kv head, batch) x / tiles; block NP + d is decode pair
// (b = d / Hkv, kv head d % Hkv), its G <= 32 query heads as the rows of one tile. Block: 128 threads;
// static shared memory as flash_attn_fwd (fwd_block.h), one tile type for both kinds of block.
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void pod_attn(T* out_p, const T* q_p, const T* k_p, const T* v_p, T* out_d,
                        const T* q_d, const T* k_d, const T* v_d, const i32* seq_lens_d, i32 Bp,
                        i32 Sp, i32 Bd, i32 max_seq_d, i32 Hq, i32 Hkv, f32 scale) {
  __shared__ FwdTile::Smem s;
  const int G = Hq / Hkv, tiles = hk::ceil_div(Sp * G, FwdTile::BM);
  const int NP = tiles * Hkv * Bp;
  FwdSeq p;
  p.G = G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = nullptr;
  p.lse_hstride = 0;
  p.qscale = softmax_qscale(scale);
  const long long kv_stride = (long long)Hkv * HEAD_DIM;
  if ((int)blockIdx.x < NP) {  // prefill tile
    const int x = blockIdx.x, hk = (x / tiles) % Hkv, b = x / tiles / Hkv;
    const long long kv_off = ((long long)b * Sp * Hkv + hk) * HEAD_DIM;
    p.sq = Sp; p.sk = Sp; p.hq0 = hk * G; p.causal = true;
    const long long q_off = (long long)b * Sp * p.q_stride;
    fwd_rows(s, out_p + q_off, q_p + q_off, ContigKV<T>{k_p + kv_off, v_p + kv_off, kv_stride}, p,
             (x % tiles) * FwdTile::BM);
  } else {  // decode pair
    const int d = blockIdx.x - NP, b = d / Hkv, hk = d % Hkv;
    const long long kv_off = ((long long)b * max_seq_d * Hkv + hk) * HEAD_DIM;
    p.sq = 1; p.sk = seq_lens_d[b]; p.hq0 = hk * G; p.causal = false;
    const long long q_off = (long long)b * p.q_stride;
    fwd_rows(s, out_d + q_off, q_d + q_off, ContigKV<T>{k_d + kv_off, v_d + kv_off, kv_stride}, p, 0);
  }
}
