// Attention backward fused into one block per (batch, kv head): the block walks every key tile,
// writes its dk/dv, and accumulates dq of all G query heads of the group in place. It is the only
// writer of those dq rows, and each (row, dim) pair is always updated by the same thread, so no
// atomics are needed and the result is deterministic. delta = rowsum(dout * out) is computed
// inside, for every row tile it visits.
//
//   mha_fused_bwd(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal)
//   Layouts and math: bwd_tile.h (dq/dk/dv f32). scale <= 0 means 1/sqrt(D); causal bottom-right.
// Grid: (Hkv, B); block: 128. Shared: static, bwd_tile.h's Smem (35.1 KiB at D = 128).
// Little parallelism (B * Hkv blocks): the simple, fully fused form, for checking the others.
#include "hkcheck.h"
#include "bwd_tile.h"

using namespace hk_bwd;

HK_KERNEL void mha_fused_bwd(f32* dq, f32* dk, f32* dv, const T* q, const T* k, const T* v,
                             const T* out, const T* dout, const f32* lse, i32 Sq, i32 Sk, i32 Hq,
                             i32 Hkv, f32 scale, i32 causal) {
  __shared__ Smem s;
  const Prob<T> P = make_prob(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal);
  const int b = blockIdx.y, hk = blockIdx.x;
  // Zero the group's dq rows (key_tile's first barrier orders this before the updates).
  for (int g = 0; g < P.G; ++g)
    for (long long idx = threadIdx.x; idx < (long long)Sq * D; idx += NT)
      dq[P.qoff(b, (int)(idx / D), hk * P.G + g) + idx % D] = 0.f;
  for (int j0 = 0; j0 < Sk; j0 += BN) key_tile<kDqOwned>(s, P, b, hk, j0);
}
