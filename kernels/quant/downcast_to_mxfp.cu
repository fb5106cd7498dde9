// OCP MX fp4 quantization along the last dim (module quant_moe).
//   x: [M, D] (T: f32 or bf16)
//   per block of 32 consecutive x of a row: scale = e8m0 2^(floor(log2 max|x|) - 2) (OCP MX rule,
//   2 = emax of fp4 e2m1); q = fp4 e2m1(x / scale), RNE, saturating to +-6.
//   q: [M, D] fp4e2m1 packed two per byte (element 2i low nibble), scale: [M, ceil(D / 32)] e8m0.
// D must be even (every row whole bytes); the last block of a row may be short.
// Launch: grid (ceil(ceil(D / 32) / (block / 32)), M), block a multiple of 32 (<= 1024): each
// group of 32 lanes quantizes one MX block; the block max is a shuffle within the 32 lanes.
#include "hkcheck.h"

HK_DEVICE float max_over_32_lanes(float v) {
  for (int m = 16; m > 0; m /= 2) v = fmaxf(v, hk::shfl_xor(v, m));
  return v;
}

HK_KERNEL void downcast_to_mxfp(fp4e2m1x2* q, e8m0* scale, const T* x, int D) {
  const long long row = blockIdx.y;
  const int nblocks = (D + 31) / 32;
  const int lane = (int)(threadIdx.x % 32);
  const int b = (int)(blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
  if (b >= nblocks) return;  // a whole group of 32 leaves together
  const int col = b * 32 + lane;
  const bool in_row = col < D;
  const float v = in_row ? hk::to_f32(x[row * D + col]) : 0.f;
  const e8m0 s = hk::mx_scale_fp4(max_over_32_lanes(fabsf(v)));
  if (lane == 0) scale[row * nblocks + b] = s;
  const int code = hk::fp4_encode(ldexpf(v, 127 - (int)s.bits));  // v / scale, exact
  const int high = hk::shfl_xor(code, 1);
  if (in_row && lane % 2 == 0) {
    fp4e2m1x2 p;
    p.bits = (u8)(code | (high << 4));
    q[row * (D / 2) + col / 2] = p;
  }
}
