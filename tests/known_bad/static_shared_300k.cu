// Known bad: a copy through 300 KB of static __shared__ memory. No GPU hkcheck targets has that
// much per block (H100: 48 KiB static, 227 KiB with dynamic opt-in; MI325X 64 KiB; MI355X 160
// KiB): NVRTC's ptxas and hipRTC refuse it, and so does the host backend under each profile.
#include "hkcheck.h"

HK_KERNEL void static_shared_300k(float* out, const float* x, int n) {
  __shared__ float staging[76800];  // 307,200 bytes
  for (int i = threadIdx.x; i < n; i += blockDim.x) staging[i % 76800] = x[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = staging[i % 76800];
}
