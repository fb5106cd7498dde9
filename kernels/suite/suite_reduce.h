// Block reductions through shared memory for the suite kernels, correct for any warp size.
//
// The suite's kernels run blocks of 32 threads: a full warp on NVIDIA but half a wavefront on
// AMD CDNA (64 lanes), where hk::block_sum (blockDim a multiple of HK_WARP_SIZE) and butterfly
// shuffles over a whole warp do not apply. These reduce through a shared buffer of blockDim.x
// floats instead, so only __syncthreads() is needed. Any blockDim.x works (not only powers of
// two); the tree's shape, hence the rounding, is the same on every vendor.
#pragma once
#include "hkcheck.h"

namespace suite {

struct Sum { HK_DEVICE float operator()(float a, float b) const { return a + b; } };
struct Max { HK_DEVICE float operator()(float a, float b) const { return a > b ? a : b; } };

// Every thread of the block calls it with its value; every thread gets the result. `buf` holds
// at least blockDim.x floats; it may be reused right after the call (the last barrier sees to it).
template <typename Op>
HK_DEVICE float block_reduce(float v, float* buf, Op op) {
  const int t = (int)threadIdx.x, n = (int)blockDim.x;
  buf[t] = v;
  __syncthreads();
  int half = 1;
  while (half * 2 < n) half *= 2;  // largest power of two below n (n > 1)
  for (; half > 0; half /= 2) {
    if (t < half && t + half < n) buf[t] = op(buf[t], buf[t + half]);
    __syncthreads();
  }
  const float r = buf[0];
  __syncthreads();  // everyone has read buf[0] before anyone writes buf again
  return r;
}

HK_DEVICE float block_sum(float v, float* buf) { return block_reduce(v, buf, Sum()); }
HK_DEVICE float block_max(float v, float* buf) { return block_reduce(v, buf, Max()); }

}  // namespace suite
