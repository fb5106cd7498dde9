// OCP MX fp4 dequantization (module quant_moe): y = fp4 e2m1 value * e8m0 scale of its block.
//   q: [M, D] fp4e2m1 packed two per byte (element 2i low nibble), scale: [M, ceil(D / 32)] e8m0
//   y: [M, D] (T: bf16 or f32); a product of a 2-bit significand and a power of two is exact in
//   both unless it leaves the exponent range. A NaN scale (0xFF) gives NaN.
// D must be even (every row whole bytes).
// Launch: grid (ceil(M * D / 2 / block)), any block: one thread per byte (two elements).
#include "hkcheck.h"

HK_KERNEL void upcast_from_mxfp(T* y, const fp4e2m1x2* q, const e8m0* scale, int M, int D) {
  const long long nbytes = (long long)M * D / 2;
  const int nblocks = (D + 31) / 32;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nbytes;
       i += (long long)gridDim.x * blockDim.x) {
    const long long e = 2 * i;  // the first of the pair; both lie in one row and one block
    const long long row = e / D;
    const int col = (int)(e % D);
    const float s = hk::to_f32(scale[row * nblocks + col / 32]);
    const fp4e2m1x2 p = q[i];
    y[e] = hk::from_f32<T>(hk::fp4_lo(p) * s);
    y[e + 1] = hk::from_f32<T>(hk::fp4_hi(p) * s);
  }
}
