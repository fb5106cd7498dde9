#include <cmath>

// Two kernels in one file, one of them broken on purpose: it calls a helper that does not exist.
// The file does not compile as a whole, so hkcheck compiles each kernel alone: row_max is
// COMPILE_ERROR with its own error ("does not compile ... compiled alone"), and scale_rows,
// which has no error of its own, compiles and runs.

__global__ void scale_rows(float* out, const float* x, const float* scale, int n) {
  const int row = blockIdx.x;
  for (int j = threadIdx.x; j < n; j += blockDim.x) out[row * n + j] = x[row * n + j] * scale[row];
}

__global__ void row_max(float* out, const float* x, int n) {
  float m = -INFINITY;
  for (int j = threadIdx.x; j < n; j += blockDim.x) m = fmaxf(m, x[blockIdx.x * n + j]);
  m = warp_max(m);  // the helper was never written
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}
