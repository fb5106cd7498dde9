// Plain device copy: out[i] = x[i] for i < n (f32, any n >= 1).
// Grid ceil_div(n, blockDim.x); one element per thread; 64-bit index so n may pass 2^31.
#include "hkcheck.h"

HK_KERNEL void buffer_copy(f32* __restrict__ out, const f32* __restrict__ x, i64 n) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}
