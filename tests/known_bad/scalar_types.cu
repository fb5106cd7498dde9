// Kernels whose parameters the manifest's scalars do not fit (scalar_types.json): the launch
// would read the wrong bytes, so each case must be an ERROR naming the argument, never a verdict
// on a kernel that never saw its inputs. A CUDA file only: HIP tells no parameter types or sizes,
// so on AMD targets these kernels are SKIP NOT_FOR_VENDOR.
#include "hkcheck.h"

// The manifest passes n as i32.
HK_KERNEL void copy_n_int64(f32* out, const f32* x, long long n) {
  const long long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

// The manifest passes scale as f64.
HK_KERNEL void copy_scaled(f32* out, const f32* x, int n, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * scale;
}

// The manifest passes a fourth argument.
HK_KERNEL void copy_three(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}
