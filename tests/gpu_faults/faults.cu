// Kernels that go wrong on purpose, one way each: the harness must give each its verdict and
// keep running. Run with: hkcheck --manifests tests/gpu_faults --all
#include "hkcheck.h"

HK_KERNEL void copy_ok(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

HK_KERNEL void illegal_address(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  f32* wild = reinterpret_cast<f32*>(0x10);  // never a valid device address
  if (i < n) wild[i] = x[i];
  if (i < n) out[i] = x[i];
}

HK_KERNEL void trap(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) __trap();
  if (i < n) out[i] = x[i];
}

HK_KERNEL void endless(f32* out, const f32* x, int n) {
  // The clock never runs backwards, so this never ends; reading it is a side effect the
  // compiler cannot remove (an empty loop on a local may be optimised away).
  const long long start = clock64();
  while (clock64() - start >= 0) {
  }
  out[0] = x[0] + n;
}

HK_KERNEL void tail_unwritten(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (n / 256) * 256) out[i] = x[i];  // rounds the grid's work down: the tail stays poisoned
}

HK_KERNEL void big_shared(f32* out, const f32* x, int n) {
  HK_DYNAMIC_SHARED(f32, buf);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = buf[threadIdx.x];
}
