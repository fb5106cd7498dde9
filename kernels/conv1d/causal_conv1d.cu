#include "hkcheck.h"

// Causal depthwise 1-D convolution over time, channels-first x [B, C, L], weight [C, KSIZE]:
//   out[b,c,t] = sum_{k<KSIZE} w[c,k] * x[b,c,t-(KSIZE-1)+k]     (x = 0 at negative time)
// causal_conv1d_bias_silu_fwd adds bias[c] and applies SiLU(v) = v / (1 + exp(-v)).
// KSIZE (the conv width, 2..4) is a compile-time define so the tap loop unrolls.
// Launch: grid = [ceil_div(B*C*L, block)], block = any multiple of 64. One thread per output
// over the flattened [B*C, L]: consecutive threads take consecutive t, so loads and stores
// coalesce and the KSIZE-1 overlapping reads of neighbours hit L1. Flattening (rather than a
// block per row) keeps short sequences (L = 1, 17) from leaving most threads idle.

#ifndef KSIZE
#error "define KSIZE, the conv width"
#endif

namespace {

HK_DEVICE float silu(float v) { return v / (1.f + expf(-v)); }

// Convolution at time t of one channel's row xrow [L] with its taps wrow [KSIZE], in f32.
HK_DEVICE float conv_at(const T* __restrict__ xrow, const T* __restrict__ wrow, int t) {
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < KSIZE; ++k) {
    const int ti = t - (KSIZE - 1) + k;
    if (ti >= 0) acc += hk::to_f32(wrow[k]) * hk::to_f32(xrow[ti]);
  }
  return acc;
}

template <bool BIAS_SILU>
HK_DEVICE void conv_fwd(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                        const T* __restrict__ bias, int B, int C, int L) {
  const long long n = (long long)B * C * L;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long row = i / L;  // b * C + c
  const int t = (int)(i - row * L);
  const int c = (int)(row % C);
  float acc = conv_at(x + row * L, w + (long long)c * KSIZE, t);
  if (BIAS_SILU) acc = silu(acc + hk::to_f32(bias[c]));
  out[i] = hk::from_f32<T>(acc);
}

}  // namespace

HK_KERNEL void causal_conv1d_fwd(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                                 int B, int C, int L) {
  conv_fwd<false>(out, x, w, nullptr, B, C, L);
}

HK_KERNEL void causal_conv1d_bias_silu_fwd(T* __restrict__ out, const T* __restrict__ x,
                                           const T* __restrict__ w, const T* __restrict__ bias, int B,
                                           int C, int L) {
  conv_fwd<true>(out, x, w, bias, B, C, L);
}
