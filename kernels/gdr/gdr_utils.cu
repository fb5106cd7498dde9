// Small elementwise and reduction helpers of the GDN kernels.
//
//   gdr_abs_diff(out, a, b, n):      out[i] = |a[i] - b[i]|           (T in, T out)
//   gdr_squared_diff(out, a, b, n):  out[i] = (a[i] - b[i])^2         (T in, T out)
//   gdr_max_reduce(out, x, D):       out[r] = max_c x[r, c]           (x [R, D] T, out [R] f32)
//   gdr_sum_reduce(out, x, D):       out[r] = sum_c x[r, c]           (x [R, D] T, out [R] f32)
//   gdr_bf16_to_float(out, x, n):    out[i] = x[i]                    (bf16 -> f32, exact)
//   gdr_float_to_bf16(out, x, n):    out[i] = bf16(x[i])              (f32 -> bf16, round to nearest even)
//   gdr_l2_normalize(out, x, eps, D): out[r, :] = x[r, :] / sqrt(sum_c x[r, c]^2 + eps)  (T in, T out)
//
// Elementwise kernels: 1-D grid-stride loop, any grid and block. Reductions: one block per row,
// blockDim.x a multiple of HK_WARP_SIZE (hk::block_sum / block_max), threads stride over D.
// All arithmetic in f32.
#include "hkcheck.h"

HK_KERNEL void gdr_abs_diff(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
    out[i] = hk::from_f32<T>(fabsf(hk::to_f32(a[i]) - hk::to_f32(b[i])));
}

HK_KERNEL void gdr_squared_diff(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
    const float d = hk::to_f32(a[i]) - hk::to_f32(b[i]);
    out[i] = hk::from_f32<T>(d * d);
  }
}

HK_KERNEL void gdr_max_reduce(f32* __restrict__ out, const T* __restrict__ x, i32 D) {
  const T* row = x + (i64)blockIdx.x * D;
  float m = -__int_as_float(0x7f800000);  // -inf
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) m = fmaxf(m, hk::to_f32(row[i]));
  m = hk::block_max(m);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

HK_KERNEL void gdr_sum_reduce(f32* __restrict__ out, const T* __restrict__ x, i32 D) {
  const T* row = x + (i64)blockIdx.x * D;
  float s = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) s += hk::to_f32(row[i]);
  s = hk::block_sum(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

HK_KERNEL void gdr_bf16_to_float(f32* __restrict__ out, const bf16* __restrict__ x, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
    out[i] = hk::to_f32(x[i]);
}

HK_KERNEL void gdr_float_to_bf16(bf16* __restrict__ out, const f32* __restrict__ x, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
    out[i] = hk::from_f32<bf16>(x[i]);
}

HK_KERNEL void gdr_l2_normalize(T* __restrict__ out, const T* __restrict__ x, f32 eps, i32 D) {
  const i64 off = (i64)blockIdx.x * D;
  float ss = 0.0f;
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) {
    const float v = hk::to_f32(x[off + i]);
    ss += v * v;
  }
  const float inv = rsqrtf(hk::block_sum(ss) + eps);
  for (i32 i = threadIdx.x; i < D; i += blockDim.x) out[off + i] = hk::from_f32<T>(hk::to_f32(x[off + i]) * inv);
}
