#include "hkcheck.h"

// Row-wise L2 normalisation over the last dimension of a row-major [M, D] tensor.
//   fwd: y  = x * r,                       r = 1 / sqrt(sum(x^2) + eps)
//   bwd: dx = (dy - y * sum(dy * y)) * r   (y recomputed from x)
// Derivation: dy_i/dx_j = delta_ij * r - x_i * x_j * r^3, so
//   dx_j = sum_i dy_i (delta_ij r - x_i x_j r^3) = r * (dy_j - y_j * sum_i dy_i y_i).
// Launch: grid = [M], block = any multiple of HK_WARP_SIZE up to 1024. Each block strides over
// one row (coalesced), reduces in f32 with hk::block_sum, and writes in a second pass; the second
// read of the row comes from L1/L2.

HK_KERNEL void l2norm_fwd(T* __restrict__ y, const T* __restrict__ x, float eps, int D) {
  const long long base = (long long)blockIdx.x * D;
  const T* xr = x + base;
  T* yr = y + base;

  float ss = 0.f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = hk::to_f32(xr[i]);
    ss += v * v;
  }
  ss = hk::block_sum(ss);
  const float r = rsqrtf(ss + eps);

  for (int i = threadIdx.x; i < D; i += blockDim.x) yr[i] = hk::from_f32<T>(hk::to_f32(xr[i]) * r);
}

HK_KERNEL void l2norm_bwd(T* __restrict__ dx, const T* __restrict__ x, const T* __restrict__ dy,
                          float eps, int D) {
  const long long base = (long long)blockIdx.x * D;
  const T* xr = x + base;
  const T* dyr = dy + base;
  T* dxr = dx + base;

  // One pass for both sums: sum(dy * y) = r * sum(dy * x), so y is never materialised.
  float ss = 0.f, dot = 0.f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float xv = hk::to_f32(xr[i]);
    ss += xv * xv;
    dot += hk::to_f32(dyr[i]) * xv;
  }
  ss = hk::block_sum(ss);
  dot = hk::block_sum(dot);
  const float r = rsqrtf(ss + eps);
  const float c = dot * r * r;  // y_j * sum(dy*y) == x_j * c

  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float xv = hk::to_f32(xr[i]);
    dxr[i] = hk::from_f32<T>((hk::to_f32(dyr[i]) - xv * c) * r);
  }
}
