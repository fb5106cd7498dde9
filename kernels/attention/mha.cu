// Plain multi-head attention (Hq = Hkv = H), the eager-mode `mha` entry.
//
//   mha(out, q, k, v, Sq, Sk, H, scale, causal, dropout_p)
//     q [B, Sq, H, D], k/v [B, Sk, H, D], out [B, Sq, H, D] (T)
//     out[b, i, h] = sum_j softmax_j(scale * q[b, i, h]·k[b, j, h]) v[b, j, h]
//   scale <= 0 means 1/sqrt(D); causal (non-zero): bottom-right aligned (j <= i + Sk - Sq).
//   dropout_p must be 0 (inference): dropout is not implemented, and a non-zero value traps
//   rather than silently computing something else.
// The code is flash_attn_fwd's (fwd_block.h) with G = 1.
// Grid: (ceil(Sq / 32), H, B); block: 128 threads; shared memory: static, as flash_attn_fwd.
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void mha(T* out, const T* q, const T* k, const T* v, i32 Sq, i32 Sk, i32 H, f32 scale,
                   i32 causal, f32 dropout_p) {
  if (dropout_p != 0.f) __trap();
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, h = blockIdx.y;
  const long long kv_off = ((long long)b * Sk * H + h) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, (long long)H * HEAD_DIM};
  FwdSeq p;
  p.sq = Sq; p.sk = Sk; p.G = 1; p.hq0 = h;
  p.q_stride = (long long)H * HEAD_DIM;
  p.lse = nullptr;
  p.lse_hstride = 0;
  p.causal = causal != 0;
  p.qscale = softmax_qscale(scale);
  const long long q_off = (long long)b * Sq * p.q_stride;
  fwd_rows(s, out + q_off, q + q_off, src, p, blockIdx.x * FwdTile::BM);
}
