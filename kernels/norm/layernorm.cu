// LayerNorm over the last dimension, one block per row.
//
//   layernorm(out, x, w, b, eps, D):
//     out[r, :] = (x[r, :] - mean) * rsqrt(var + eps) * w + b   (biased variance, as torch)
//   fused_add_layernorm(out, x, residual, w, b, eps, D):
//     residual[r, :] = x[r, :] + residual[r, :]        (in place, stored as T)
//     out[r, :]      = layernorm(residual[r, :]) * w + b (of the stored, i.e. rounded, residual)
//
// T (f32, bf16, f16) is the storage type; all math in f32. Grid: one block per row; block: any
// multiple of HK_WARP_SIZE up to 1024. The variance is computed in a second pass as
// mean((x - mean)^2), not as mean(x^2) - mean^2, which cancels badly when |mean| >> std.
// Later passes re-read the row from global memory (L1/L2 resident: the block just read it).
#include "hkcheck.h"

// Passes 2 and 3 over a row v (already summed into `sum`): variance, then the affine output.
HK_DEVICE void normalize_row(T* __restrict__ out, const T* __restrict__ v, const T* __restrict__ w,
                             const T* __restrict__ b, float sum, float eps, i32 D) {
  const float mean = sum / (float)D;

  float sq = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const float d = hk::to_f32(v[i]) - mean;
    sq += d * d;
  }
  sq = hk::block_sum(sq);
  const float inv_std = rsqrtf(sq / (float)D + eps);

  for (i32 i = threadIdx.x; i < D; i += blockDim.x)
    out[i] = hk::from_f32<T>((hk::to_f32(v[i]) - mean) * inv_std * hk::to_f32(w[i]) + hk::to_f32(b[i]));
}

HK_KERNEL void layernorm(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w,
                         const T* __restrict__ b, f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  const T* xr = x + off;

  float sum = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) sum += hk::to_f32(xr[i]);
  sum = hk::block_sum(sum);

  normalize_row(out + off, xr, w, b, sum, eps, D);
}

HK_KERNEL void fused_add_layernorm(T* __restrict__ out, const T* __restrict__ x, T* __restrict__ residual,
                                   const T* __restrict__ w, const T* __restrict__ b, f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  const T* xr = x + off;
  T* rr = residual + off;

  // Pass 1: update the residual; the statistics are of the value as stored (rounded to T).
  float sum = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const T s = hk::from_f32<T>(hk::to_f32(xr[i]) + hk::to_f32(rr[i]));
    rr[i] = s;
    sum += hk::to_f32(s);
  }
  sum = hk::block_sum(sum);

  // Later passes read back rr[i]; each thread reads only the elements it wrote (same i).
  normalize_row(out + off, rr, w, b, sum, eps, D);
}
