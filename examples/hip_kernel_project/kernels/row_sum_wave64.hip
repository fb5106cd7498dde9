// Row sum as code written only for CDNA (64-lane wavefronts) writes it: the wave reduction starts
// at __shfl_xor(v, 32) and the per-wave partials are blockDim.x / 64 floats. Right on gfx9
// (MI200/MI300, wave64). Under 32-lane waves (RDNA's wave32, or the h100 host profile) the
// xor-32 step reads past the wave (its width is clamped to the wave: the lane reads its own value,
// doubling it), and only every other wave's lane 0 has (threadIdx.x & 63) == 0, so the odd
// waves' sums are lost: the row sum comes out wrong. The manifest declares that FAIL for sm_90.
//
// The fix is rms_norm.hip's: loop from warpSize / 2 and size the partials by warpSize.
#include <hip/hip_runtime.h>

template <int BlockSize>
__global__ void __launch_bounds__(BlockSize) row_sum_wave64(float* __restrict__ out, const float* __restrict__ x, int n) {
  HIP_DYNAMIC_SHARED(float, wave_partials)  // blockDim.x / 64 floats (the manifest's launch.shared)
  const float* row = x + static_cast<long long>(blockIdx.x) * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += BlockSize) acc += row[j];

  acc += __shfl_xor(acc, 32);  // wave64 assumed
  acc += __shfl_xor(acc, 16);
  acc += __shfl_xor(acc, 8);
  acc += __shfl_xor(acc, 4);
  acc += __shfl_xor(acc, 2);
  acc += __shfl_xor(acc, 1);
  if ((threadIdx.x & 63) == 0) wave_partials[threadIdx.x / 64] = acc;
  __syncthreads();

  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < BlockSize / 64; ++w) total += wave_partials[w];
    out[blockIdx.x] = total;
  }
}
