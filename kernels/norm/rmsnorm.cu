// RMSNorm over the last dimension, one block per row.
//
//   rmsnorm(out, x, w, eps, D):
//     out[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * w
//   fused_add_rmsnorm(out, x, residual, w, eps, D):
//     residual[r, :] = x[r, :] + residual[r, :]      (in place, stored as T)
//     out[r, :]      = rmsnorm(residual[r, :]) * w    (of the stored, i.e. rounded, residual)
//
// T (f32, bf16, f16) is the storage type; sums and scaling are in f32. Grid: one block per row;
// block: any multiple of HK_WARP_SIZE up to 1024 (threads stride over D, so any D works).
// The second pass re-reads the row from global memory: a row is at most a few tens of KiB and
// was just read by the same block, so it is served by L1/L2 and no shared-memory buffer (with
// its size limit on D) is needed.
#include "hkcheck.h"

// Pass 2, shared by both kernels: out = v * inv_rms * w.
HK_DEVICE void scale_row(T* __restrict__ out, const T* __restrict__ v, const T* __restrict__ w,
                         float inv_rms, i32 D) {
  for (i32 i = threadIdx.x; i < D; i += blockDim.x)
    out[i] = hk::from_f32<T>(hk::to_f32(v[i]) * inv_rms * hk::to_f32(w[i]));
}

HK_KERNEL void rmsnorm(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                       f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  const T* xr = x + off;

  float ss = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = hk::to_f32(xr[i]);
    ss += v * v;
  }
  ss = hk::block_sum(ss);
  const float inv_rms = rsqrtf(ss / (float)D + eps);

  scale_row(out + off, xr, w, inv_rms, D);
}

HK_KERNEL void fused_add_rmsnorm(T* __restrict__ out, const T* __restrict__ x, T* __restrict__ residual,
                                 const T* __restrict__ w, f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  const T* xr = x + off;
  T* rr = residual + off;

  // Pass 1: update the residual and accumulate the sum of squares of the value as stored (rounded
  // to T), so that out is exactly rmsnorm of what the next layer will read from residual.
  float ss = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const T s = hk::from_f32<T>(hk::to_f32(xr[i]) + hk::to_f32(rr[i]));
    rr[i] = s;
    const float v = hk::to_f32(s);
    ss += v * v;
  }
  ss = hk::block_sum(ss);
  const float inv_rms = rsqrtf(ss / (float)D + eps);

  // Pass 2 reads back rr[i]: each thread reads only the elements it wrote itself (same i), so
  // program order suffices.
  scale_row(out + off, rr, w, inv_rms, D);
}
