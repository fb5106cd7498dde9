// Flash attention forward (online softmax over K/V tiles), dense and varlen.
//
//   flash_attn_fwd(out, lse, q, k, v, Sq, Sk, Hq, Hkv, scale, causal, write_lse)
//     q [B, Sq, Hq, D], k/v [B, Sk, Hkv, D], out [B, Sq, Hq, D] (T), lse [B, Hq, Sq] f32
//   flash_attn_varlen_fwd(out, lse, q, k, v, cu_seqlens_q, cu_seqlens_k, Hq, Hkv, scale, causal,
//                         write_lse)
//     packed tokens: q [total_q, Hq, D], k/v [total_k, Hkv, D], out [total_q, Hq, D],
//     cu_seqlens_q/k [B+1] i32 (sequence b is tokens cu[b] .. cu[b+1]-1), lse [Hq, total_q] f32.
//
// out[i, h] = sum_j softmax_j(scale * q[i, h]·k[j, h/G]) v[j, h/G], G = Hq / Hkv; scale <= 0 means
// 1/sqrt(D); causal (non-zero) masks keys j > i + Sk - Sq (bottom-right aligned, see
// online_softmax.h); rows that see no key get out = 0, lse = -inf. write_lse = 0: lse is not
// touched (pass an empty tensor). D = HEAD_DIM (define), T the element type (define).
// Grid: (ceil(Sq * G / 32), Hkv, B) — for varlen Sq is the longest sequence, extra blocks exit;
// block: 128 threads. Shared memory: static, (32*(D+1)*2 + 32*32) * 4 bytes (37.1 KiB at D=128).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void flash_attn_fwd(T* out, f32* lse, const T* q, const T* k, const T* v, i32 Sq, i32 Sk,
                              i32 Hq, i32 Hkv, f32 scale, i32 causal, i32 write_lse) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const long long kv_off = ((long long)b * Sk * Hkv + hk) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, (long long)Hkv * HEAD_DIM};
  FwdSeq p;
  p.sq = Sq; p.sk = Sk; p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = write_lse ? lse + (long long)b * Hq * Sq : nullptr;
  p.lse_hstride = Sq;
  p.causal = causal != 0;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)b * Sq * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, blockIdx.x * FwdTile::BM);
}

HK_KERNEL void flash_attn_varlen_fwd(T* out, f32* lse, const T* q, const T* k, const T* v,
                                     const i32* cu_seqlens_q, const i32* cu_seqlens_k, i32 Hq,
                                     i32 Hkv, f32 scale, i32 causal, i32 write_lse) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, hk = blockIdx.y, G = Hq / Hkv;
  const int q0 = cu_seqlens_q[b], k0 = cu_seqlens_k[b];
  FwdSeq p;
  p.sq = cu_seqlens_q[b + 1] - q0;
  p.sk = cu_seqlens_k[b + 1] - k0;
  if ((int)blockIdx.x * FwdTile::BM >= p.sq * G) return;  // block-uniform: past this sequence
  const long long kv_off = ((long long)k0 * Hkv + hk) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, (long long)Hkv * HEAD_DIM};
  const int total_q = cu_seqlens_q[gridDim.z];
  p.G = G; p.hq0 = hk * G;
  p.q_stride = (long long)Hq * HEAD_DIM;
  p.lse = write_lse ? lse + q0 : nullptr;
  p.lse_hstride = total_q;
  p.causal = causal != 0;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)q0 * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, blockIdx.x * FwdTile::BM);
}
