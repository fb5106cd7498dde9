// Extend attention: each sequence's new tokens attend to its cached prefix and, causally, to
// themselves (prefix caching / chunked prefill).
//
//   extend_attn(out, q, k_new, v_new, k_cache, v_cache, cu_seqlens_q, prefix_lens, Hq, Hkv,
//               max_prefix, scale)
//     q [total_new, Hq, D], k_new/v_new [total_new, Hkv, D], out [total_new, Hq, D] (T): packed
//       new tokens; cu_seqlens_q [B+1] i32, sequence b owns tokens cu[b] .. cu[b+1]-1 (n_b of them)
//     k_cache/v_cache [B, max_prefix, Hkv, D] (T): contiguous cache; prefix_lens [B] i32 (P_b <=
//       max_prefix) keys of the prefix of sequence b
//   Keys of sequence b: j < P_b is k_cache[b, j], j >= P_b is k_new[cu[b] + j - P_b]; new token i
//   (0-based) sees keys j <= P_b + i (bottom-right causal over Sk = P_b + n_b). Softmax attention,
//   scale <= 0 means 1/sqrt(D); G = Hq / Hkv.
// Grid: (ceil(max_new * G / 32), Hkv, B), max_new >= every n_b (extra blocks exit); block: 128
// threads; shared memory: static, as flash_attn_fwd (fwd_block.h).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

// Keys 0..P-1 from the cache, P.. from the new tokens.
template <typename KT> struct PrefixThenNewKV {
  ContigKV<KT> cache, fresh;
  int P;
  HK_DEVICE const KT* k_row(int j) const { return j < P ? cache.k_row(j) : fresh.k_row(j - P); }
  HK_DEVICE const KT* v_row(int j) const { return j < P ? cache.v_row(j) : fresh.v_row(j - P); }
};

HK_KERNEL void extend_attn(T* out, const T* q, const T* k_new, const T* v_new, const T* k_cache,
                           const T* v_cache, const i32* cu_seqlens_q, const i32* prefix_lens,
                           i32 Hq, i32 Hkv, i32 max_prefix, f32 scale) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const int q0 = cu_seqlens_q[b], n = cu_seqlens_q[b + 1] - q0, P = prefix_lens[b];
  if ((int)blockIdx.x * FwdTile::BM >= n * G) return;  // block-uniform: past this sequence
  const long long kv_stride = (long long)Hkv * HEAD_DIM;
  const long long c_off = ((long long)b * max_prefix * Hkv + hk) * HEAD_DIM;
  const long long n_off = ((long long)q0 * Hkv + hk) * HEAD_DIM;
  PrefixThenNewKV<T> src;
  src.cache = ContigKV<T>{k_cache + c_off, v_cache + c_off, kv_stride};
  src.fresh = ContigKV<T>{k_new + n_off, v_new + n_off, kv_stride};
  src.P = P;
  FwdSeq p;
  p.sq = n; p.sk = P + n; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = nullptr;
  p.lse_hstride = 0;
  p.causal = true;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)q0 * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, blockIdx.x * FwdTile::BM);
}
