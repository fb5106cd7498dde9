// Flash attention backward, deterministic: one launch whose blocks take one of two roles. Blocks
// 0 .. nK-1 own a key tile and write its dk/dv (summing the G query heads of the kv group in the
// block, no atomics); the following blocks own a (query head, 16-row tile) and write its dq. Both
// recompute P from q, k and lse; every block computes delta = rowsum(dout * out) for its rows.
//
//   flash_attn_bwd(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal)
//   Layouts and math: bwd_tile.h (q/out/dout [B,Sq,Hq,D] T, k/v [B,Sk,Hkv,D] T, lse [B,Hq,Sq] f32,
//   dq/dk/dv f32 in the layouts of q/k/v). scale <= 0 means 1/sqrt(D); causal bottom-right.
//   Rows that see no key get dq = 0; keys no row sees get dk = dv = 0.
// Grid: (nK + nQ * G, Hkv, B), nK = ceil(Sk / 16), nQ = ceil(Sq / 16), G = Hq / Hkv; block: 128.
// Shared: static, bwd_tile.h's Smem (35.1 KiB at D = 128).
#include "hkcheck.h"
#include "bwd_tile.h"

using namespace hk_bwd;

// dq of rows i0.. of query head h, over every key tile they can see. Every thread calls.
template <typename TT> HK_DEVICE void query_tile(Smem& s, const Prob<TT>& P, int b, int h, int i0) {
  load_rows(s, P, b, h, i0);
  float acc[QD];
  for (int t = 0; t < QD; ++t) acc[t] = 0.f;
  const int last = (i0 + BM < P.Sq ? i0 + BM : P.Sq) - 1;
  const int j_end = P.hi(last);
  for (int j0 = 0; j0 < j_end; j0 += BN) {
    __syncthreads();  // rows are stored; the previous key tile is consumed
    load_keys(s, P, b, h / P.G, j0);
    __syncthreads();
    tile_p_ds(s, P, i0, j0);
    __syncthreads();
    float part[QD];
    dq_part(s, P.scale, part);
    for (int t = 0; t < QD; ++t) acc[t] += part[t];
  }
  for (int t = 0; t < QD; ++t) {
    const int idx = threadIdx.x + NT * t, i = i0 + idx / D;
    if (i < P.Sq) P.dq[P.qoff(b, i, h) + idx % D] = acc[t];
  }
}

HK_KERNEL void flash_attn_bwd(f32* dq, f32* dk, f32* dv, const T* q, const T* k, const T* v,
                              const T* out, const T* dout, const f32* lse, i32 Sq, i32 Sk, i32 Hq,
                              i32 Hkv, f32 scale, i32 causal) {
  __shared__ Smem s;
  const Prob<T> P = make_prob(dq, dk, dv, q, k, v, out, dout, lse, Sq, Sk, Hq, Hkv, scale, causal);
  const int b = blockIdx.z, hk = blockIdx.y, nK = hk::ceil_div(Sk, BN), nQ = hk::ceil_div(Sq, BM);
  const int x = blockIdx.x;
  if (x < nK) {
    key_tile<kDqNone>(s, P, b, hk, x * BN);
  } else {
    const int g = (x - nK) / nQ, i0 = ((x - nK) % nQ) * BM;
    query_tile(s, P, b, hk * P.G + g, i0);
  }
}
