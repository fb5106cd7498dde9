// HSTU-style pointwise attention (no softmax): weights are silu of the scaled scores, divided by
// a fixed length instead of a normalizing sum.
//
//   hstu_attn(out, q, k, v, Sq, Sk, H, alpha, max_len, causal)
//     q [B, Sq, H, D], k/v [B, Sk, H, D], out [B, Sq, H, D] (T)
//     out[b, i, h] = sum_{j visible} silu(alpha * q[b, i, h]·k[b, j, h]) / n * v[b, j, h]
//     silu(x) = x / (1 + exp(-x)); n = max_len if max_len > 0, else Sk; visible: every j < Sk,
//     or with causal (non-zero) j <= i + Sk - Sq (bottom-right aligned). A row with no visible
//     key is 0. Hq = Hkv = H (HSTU has no grouped heads); the relative-position bias and the
//     u-gating of the full HSTU layer are not part of this kernel.
// Grid: (ceil(Sq / 32), H, B); block: 128 threads; shared memory: static, the Tile of fwd_block.h
// (the probability buffer holds the pointwise weights).
#include "hkcheck.h"
#include "fwd_block.h"

using namespace hk_attn;

HK_KERNEL void hstu_attn(T* out, const T* q, const T* k, const T* v, i32 Sq, i32 Sk, i32 H,
                         f32 alpha, i32 max_len, i32 causal) {
  __shared__ FwdTile::Smem s;
  const int b = blockIdx.z, h = blockIdx.y, r0 = blockIdx.x * FwdTile::BM;
  const long long stride = (long long)H * HEAD_DIM;
  const long long kv_off = ((long long)b * Sk * H + h) * HEAD_DIM;
  const ContigKV<T> src{k + kv_off, v + kv_off, stride};
  FwdTile t;
  const int i = r0 + (int)threadIdx.x / FwdTile::TPR;
  const bool valid = i < Sq;
  const long long off = ((long long)b * Sq + i) * stride + (long long)h * HEAD_DIM;
  t.begin(s, valid ? q + off : (const T*)nullptr, alpha, causal_hi(i, Sq, Sk, causal != 0));
  const int last = (r0 + FwdTile::BM < Sq ? r0 + FwdTile::BM : Sq) - 1;
  const int j_end = causal_hi(last, Sq, Sk, causal != 0);
  const float inv_n = 1.f / (float)(max_len > 0 ? max_len : Sk);
  for (int j0 = 0; j0 < j_end; j0 += FwdTile::BN) {
    __syncthreads();  // q stores / previous V tile reads are done
    FwdTile::load_kv(s, src, 0, j0, j_end);
    __syncthreads();
    float sc[FwdTile::CPT];
    t.scores(s, j0, j_end, sc);
    for (int c = 0; c < FwdTile::CPT; ++c) {
      const float x = sc[c];  // -inf: masked
      s.p[t.row * FwdTile::BN + t.col(c)] = x == neg_inf() ? 0.f : x / (1.f + expf(-x)) * inv_n;
    }
    __syncthreads();  // K tile reads are done, weights are visible
    FwdTile::load_kv(s, src, 1, j0, j_end);
    __syncthreads();
    t.pv(s);
  }
  if (!valid) return;
  for (int c = 0; c < FwdTile::DPT; ++c) out[off + t.col(c)] = hk::from_f32<T>(t.acc[c]);
}
