// Attention backward in one launch, parallel over key tiles: each block owns a key tile of one kv
// head, writes its dk/dv (the G query heads of the group summed in the block), and adds its
// share of dq with f32 atomics. delta = rowsum(dout * out) is computed inside.
//
//   mha_onekernel_bwd(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal)
//   Layouts and math: bwd_tile.h. dq (f32) must hold zeros on entry (the caller clears it, as
//   for any atomic accumulation); the order of the atomic adds varies, so dq's last bits may differ
//   from run to run. scale <= 0 means 1/sqrt(D); causal bottom-right.
// Grid: (ceil(Sk / 16), Hkv, B); block: 128. Shared: static, bwd_tile.h's Smem (35.1 KiB at D=128).
#include "hkcheck.h"
#include "bwd_tile.h"

using namespace hk_bwd;

HK_KERNEL void mha_onekernel_bwd(f32* dq, f32* dk, f32* dv, const T* q, const T* k, const T* v,
                                 const T* out, const T* dout, const f32* lse, i32 Sq, i32 Sk,
                                 i32 Hq, i32 Hkv, f32 scale, i32 causal) {
  __shared__ Smem s;
  const Prob<T> P = make_prob(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal);
  key_tile<kDqAtomic>(s, P, blockIdx.z, blockIdx.y, blockIdx.x * BN);
}
