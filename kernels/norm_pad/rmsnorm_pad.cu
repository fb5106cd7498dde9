#include "hkcheck.h"

// RMSNorm whose output row is wider than the input row: out is [M, Dpad], Dpad >= D.
//   out[:, :D]    = x * rsqrt(mean(x^2) + eps) * w
//   out[:, D:Dpad] = 0            (the pad is always written: the buffer may hold garbage)
// fused_add_rmsnorm_pad first updates residual = x + residual (stored in T), then normalises
// the stored (rounded) residual, so out is exactly rmsnorm(new residual) * w.
// Launch: grid = [M], block = any multiple of HK_WARP_SIZE up to 1024. One block per row; the
// sum of squares is reduced in f32 with hk::block_sum; all math in f32, one rounding per store.

// Writes one padded output row from the normalised source row src (length D).
HK_DEVICE void store_padded_row(T* __restrict__ orow, const T* src, const T* __restrict__ w, float r,
                                int D, int Dpad) {
  for (int i = threadIdx.x; i < Dpad; i += blockDim.x) {
    const float v = i < D ? hk::to_f32(src[i]) * r * hk::to_f32(w[i]) : 0.f;
    orow[i] = hk::from_f32<T>(v);
  }
}

HK_KERNEL void rmsnorm_pad(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                           float eps, int D, int Dpad) {
  const T* xr = x + (long long)blockIdx.x * D;
  T* orow = out + (long long)blockIdx.x * Dpad;

  float ss = 0.f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = hk::to_f32(xr[i]);
    ss += v * v;
  }
  ss = hk::block_sum(ss);
  const float r = rsqrtf(ss / (float)D + eps);

  store_padded_row(orow, xr, w, r, D, Dpad);
}

HK_KERNEL void fused_add_rmsnorm_pad(T* __restrict__ out, T* residual, const T* __restrict__ x,
                                     const T* __restrict__ w, float eps, int D, int Dpad) {
  T* rr = residual + (long long)blockIdx.x * D;
  const T* xr = x + (long long)blockIdx.x * D;
  T* orow = out + (long long)blockIdx.x * Dpad;

  // Pass 1: residual += x, stored in T; the sum of squares uses the stored (rounded) value so
  // the norm matches what pass 2 reads back.
  float ss = 0.f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const T z = hk::from_f32<T>(hk::to_f32(xr[i]) + hk::to_f32(rr[i]));
    rr[i] = z;
    const float zf = hk::to_f32(z);
    ss += zf * zf;
  }
  ss = hk::block_sum(ss);  // its __syncthreads also orders pass 1's stores before pass 2's loads
  const float r = rsqrtf(ss / (float)D + eps);

  // Pass 2 uses the same i -> thread mapping, so each thread rereads what it wrote itself.
  store_padded_row(orow, rr, w, r, D, Dpad);
}
