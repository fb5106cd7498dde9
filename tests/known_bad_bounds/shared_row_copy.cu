// Copies a row of n floats through n floats of dynamic shared memory, one block per row.
// shared_row_copy_overrun clears one float more than the launch gives it (d <= n): on a GPU that
// float is another variable's or another block's; on the host backend it lands in the guard after
// the block's dynamic shared memory, and the launch ends naming the block and the offsets.
// shared_row_copy is the control.
#include "hkcheck.h"

HK_DEVICE void row_copy(float* out, const float* x, int n, int clear) {
  HK_DYNAMIC_SHARED(float, row);
  const long long base = (long long)blockIdx.x * n;
  for (int d = threadIdx.x; d < clear; d += blockDim.x) row[d] = 0.f;
  __syncthreads();
  for (int d = threadIdx.x; d < n; d += blockDim.x) row[d] += x[base + d];
  __syncthreads();
  for (int d = threadIdx.x; d < n; d += blockDim.x) out[base + d] = row[d];
}

HK_KERNEL void shared_row_copy(float* out, const float* x, int n) { row_copy(out, x, n, n); }

HK_KERNEL void shared_row_copy_overrun(float* out, const float* x, int n) { row_copy(out, x, n, n + 1); }
