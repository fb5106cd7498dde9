#include "hkcheck.h"

// Causal depthwise conv + bias + SiLU over the fused q|k|v channels (C = Cq + Ck + Cv), with the
// result split into three separate outputs (channel c < Cq -> q, then k, then v).
// KSIZE (the conv width, 2..4) is a compile-time define so the tap loops unroll.
//
// causal_conv1d_update_split_qkv (decode, one new token):
//   x [B, C], conv_state [B, C, KSIZE-1] (inout), weight [C, KSIZE], bias [C]
//   window = [state[b,c,0..KSIZE-2], x[b,c]]; out = SiLU(sum_k w[c,k] * window[k] + bias[c])
//   afterwards state holds the last KSIZE-1 inputs: window[1..KSIZE-1].
//   Launch: grid = [ceil_div(B*C, block)], block = any multiple of 64; one thread per (b, c).
//
// causal_conv1d_fwd_split (prefill):
//   x [B, C, L] -> q [B, Cq, L], k [B, Ck, L], v [B, Cv, L]
//   out[b,c,t] = SiLU(bias[c] + sum_k w[c,k] * x[b,c,t-(KSIZE-1)+k])   (x = 0 at negative time)
//   Launch: grid = [ceil_div(B*C*L, block)], block = any multiple of 64; one thread per output,
//   consecutive threads on consecutive t so loads and stores coalesce.

#ifndef KSIZE
#error "define KSIZE, the conv width"
#endif

namespace {

HK_DEVICE float silu(float v) { return v / (1.f + expf(-v)); }

// Stores val for fused channel c of batch b at time t into q, k or v ([B, Cx, L] each).
HK_DEVICE void store_split(T* __restrict__ q, T* __restrict__ k, T* __restrict__ v, long long b, int c,
                           int Cq, int Ck, int Cv, int L, int t, float val) {
  const T o = hk::from_f32<T>(val);
  if (c < Cq) {
    q[(b * Cq + c) * L + t] = o;
  } else if (c < Cq + Ck) {
    k[(b * Ck + (c - Cq)) * L + t] = o;
  } else {
    v[(b * Cv + (c - Cq - Ck)) * L + t] = o;
  }
}

}  // namespace

HK_KERNEL void causal_conv1d_update_split_qkv(T* __restrict__ q, T* __restrict__ k, T* __restrict__ v,
                                              T* __restrict__ conv_state, const T* __restrict__ x,
                                              const T* __restrict__ w, const T* __restrict__ bias,
                                              int B, int Cq, int Ck, int Cv) {
  const int C = Cq + Ck + Cv;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // b * C + c
  if (i >= (long long)B * C) return;
  const long long b = i / C;
  const int c = (int)(i - b * C);

  // Load the whole window into registers before touching the state (it is shifted in place).
  T* st = conv_state + i * (KSIZE - 1);
  T win[KSIZE];
#pragma unroll
  for (int j = 0; j < KSIZE - 1; ++j) win[j] = st[j];
  win[KSIZE - 1] = x[i];

  const T* wr = w + (long long)c * KSIZE;
  float acc = hk::to_f32(bias[c]);
#pragma unroll
  for (int j = 0; j < KSIZE; ++j) acc += hk::to_f32(wr[j]) * hk::to_f32(win[j]);

  // Roll the window: drop the oldest input, keep the new token last (plain copies, no rounding).
#pragma unroll
  for (int j = 0; j < KSIZE - 1; ++j) st[j] = win[j + 1];

  store_split(q, k, v, b, c, Cq, Ck, Cv, 1, 0, silu(acc));
}

HK_KERNEL void causal_conv1d_fwd_split(T* __restrict__ q, T* __restrict__ k, T* __restrict__ v,
                                       const T* __restrict__ x, const T* __restrict__ w,
                                       const T* __restrict__ bias, int B, int Cq, int Ck, int Cv, int L) {
  const int C = Cq + Ck + Cv;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)B * C * L) return;
  const long long row = i / L;  // b * C + c
  const int t = (int)(i - row * L);
  const long long b = row / C;
  const int c = (int)(row - b * C);

  const T* xrow = x + row * L;
  const T* wr = w + (long long)c * KSIZE;
  float acc = hk::to_f32(bias[c]);
#pragma unroll
  for (int j = 0; j < KSIZE; ++j) {
    const int ti = t - (KSIZE - 1) + j;
    if (ti >= 0) acc += hk::to_f32(wr[j]) * hk::to_f32(xrow[ti]);
  }

  store_split(q, k, v, b, c, Cq, Ck, Cv, L, t, silu(acc));
}
