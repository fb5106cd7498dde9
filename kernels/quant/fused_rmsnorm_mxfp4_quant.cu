// RMSNorm fused with OCP MX fp4 quantization (module fused_mxfp4_quant).
//   x: [M, D] (T), w: [D] (T)
//   y = (x * w) * rsqrt(mean(x^2) + eps)                          (f32, never stored)
//   per block of 32 consecutive y of a row: scale = e8m0 2^(floor(log2 max|y|) - 2), the OCP MX
//   rule (2 is emax of fp4 e2m1); q = fp4 e2m1(y / scale), RNE, saturating to +-6.
//   q: [M, D] fp4e2m1 packed two per byte (element 2i low nibble), scale: [M, ceil(D / 32)] e8m0.
// D must be even so that every row is whole bytes; the last block of a row may be short.
// Launch: grid (M), block a multiple of 32 (<= 1024). Pass 1 sums x^2 over the row; pass 2
// gives each group of 32 lanes one MX block at a time: the block max by shuffles within the
// 32 lanes (also right on 64-wide AMD wavefronts), then even lanes pack their pair.
#include "hkcheck.h"

HK_DEVICE float max_over_32_lanes(float v) {
  for (int m = 16; m > 0; m /= 2) v = fmaxf(v, hk::shfl_xor(v, m));
  return v;
}

HK_KERNEL void fused_rmsnorm_mxfp4_quant_fwd(fp4e2m1x2* q, e8m0* scale, const T* x, const T* w,
                                             float eps, int D) {
  const long long row = blockIdx.x;
  const T* xr = x + row * D;
  const int nblocks = (D + 31) / 32;
  fp4e2m1x2* qr = q + row * (D / 2);
  e8m0* sr = scale + row * nblocks;

  float ss = 0.f;
  for (int i = threadIdx.x; i < D; i += blockDim.x) {
    const float xv = hk::to_f32(xr[i]);
    ss += xv * xv;
  }
  ss = hk::block_sum(ss);
  const float rstd = rsqrtf(ss / (float)D + eps);

  const int lane = (int)(threadIdx.x % 32), group = (int)(threadIdx.x / 32);
  const int ngroups = (int)(blockDim.x / 32);
  for (int b = group; b < nblocks; b += ngroups) {  // every lane of a group takes each step
    const int col = b * 32 + lane;
    const bool in_row = col < D;
    const float y = in_row ? (hk::to_f32(xr[col]) * hk::to_f32(w[col])) * rstd : 0.f;
    const e8m0 s = hk::mx_scale_fp4(max_over_32_lanes(fabsf(y)));
    if (lane == 0) sr[b] = s;
    const int code = hk::fp4_encode(ldexpf(y, 127 - (int)s.bits));  // y / scale, exact
    const int high = hk::shfl_xor(code, 1);
    if (in_row && lane % 2 == 0) {
      fp4e2m1x2 p;
      p.bits = (u8)(code | (high << 4));
      qr[col / 2] = p;
    }
  }
}
