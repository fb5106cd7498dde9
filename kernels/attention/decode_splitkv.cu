// Split-KV decode attention, two kernels (two manifest entries, each checked on its own):
//
//   flash_attn_fwd_decode_split(o_part, lse_part, q, k, v, cache_seqlens, Sq, Hq, Hkv, max_seq,
//                               num_splits, scale)
//     q [B, Sq, Hq, D] (T; Sq small: 1 for decode, a few for speculative decoding)
//     k/v [B, max_seq, Hkv, D] (T), cache_seqlens [B] i32: L_b keys of sequence b
//     o_part [B, Sq, Hq, NS, D] f32, lse_part [B, Sq, Hq, NS] f32 (NS = num_splits)
//     Split s of sequence b covers keys [s*c, min(L_b, (s+1)*c)), c = ceil(L_b / NS); query i sees
//     keys j <= i + L_b - Sq (bottom-right causal). o_part is that split's softmax-normalized
//     output, lse_part its natural-log logsumexp of scale * q·k; a split with no visible key
//     has o_part = 0 and lse_part = -inf.
//   flash_attn_fwd_decode_combine(out, lse, o_part, lse_part, Sq, Hq, num_splits)
//     out [B, Sq, Hq, D] (T), lse [B, Hq, Sq] f32:
//     out = sum_s exp(lse_s - M) o_s / sum_s exp(lse_s - M), lse = M + ln sum_s exp(lse_s - M),
//     M = max_s lse_s (hk_attn::LseMerge); splits with lse -inf weigh 0.
// scale <= 0 means 1/sqrt(D); G = Hq / Hkv.
// Split grid: (NS * ceil(Sq * G / 16), Hkv, B), block 128 threads, static shared memory
//   (DecTile, 45.3 KiB at D = 128). Rows are (token, head of the group) as in fwd_block.h.
// Combine grid: (Sq * Hq, B), block 64 threads (each thread merges its own columns d).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void flash_attn_fwd_decode_split(f32* o_part, f32* lse_part, const T* q, const T* k,
                                           const T* v, const i32* cache_seqlens, i32 Sq, i32 Hq,
                                           i32 Hkv, i32 max_seq, i32 num_splits, f32 scale) {
  __shared__ DecTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv, NS = num_splits;
  const int split = (int)blockIdx.x % NS, r0 = ((int)blockIdx.x / NS) * DecTile::BM;
  const int L = cache_seqlens[b], chunk = hk::ceil_div(L, NS);
  const int j_begin = split * chunk < L ? split * chunk : L;
  const int j_stop = (split + 1) * chunk < L ? (split + 1) * chunk : L;
  const long long kv_off = ((long long)b * max_seq * Hkv + hk) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, (long long)Hkv * HEAD_DIM};

  DecTile t;
  const int nrows = Sq * G, r = r0 + (int)threadIdx.x / DecTile::TPR;
  const bool valid = r < nrows;
  const int i = r / G, h = hk * G + r % G;
  const long long row = ((long long)b * Sq + i) * Hq + h;  // (b, i, h) index
  t.begin(s, valid ? q + row * HEAD_DIM : (const T*)nullptr, softmax_qscale(scale),
          causal_hi(i, Sq, L, true));
  const int last = (r0 + DecTile::BM < nrows ? r0 + DecTile::BM : nrows) - 1;
  const int hi = causal_hi(last / G, Sq, L, true);
  t.run(s, src, j_begin, j_stop < hi ? j_stop : hi);
  if (!valid) return;
  f32* o = o_part + (row * NS + split) * HEAD_DIM;
  for (int c = 0; c < DecTile::DPT; ++c) o[t.col(c)] = t.out(c);
  if (t.sub == 0) lse_part[row * NS + split] = t.sm.lse();
}

HK_KERNEL void flash_attn_fwd_decode_combine(T* out, f32* lse, const f32* o_part,
                                             const f32* lse_part, i32 Sq, i32 Hq, i32 num_splits) {
  const int b = blockIdx.y, i = (int)blockIdx.x / Hq, h = (int)blockIdx.x % Hq;
  const long long row = ((long long)b * Sq + i) * Hq + h;
  const f32* lp = lse_part + row * num_splits;
  const f32* op = o_part + row * num_splits * HEAD_DIM;
  for (int d = threadIdx.x; d < HEAD_DIM; d += blockDim.x) {
    LseMerge mg;
    mg.init();
    float acc = 0.f;
    for (int sp = 0; sp < num_splits; ++sp) {
      float w;
      const float alpha = mg.add(lp[sp], &w);
      acc = acc * alpha + (w > 0.f ? w * op[sp * HEAD_DIM + d] : 0.f);
    }
    out[row * HEAD_DIM + d] = hk::from_f32<T>(acc * mg.inv_sum());
    if (d == 0) lse[((long long)b * Hq + h) * Sq + i] = mg.lse();
  }
}
