// Count of the positive elements of each row, as a port from CUDA's 32-bit warp masks writes it:
// __ballot's 64-bit mask is kept in an `unsigned int` and counted with __popc. Under 32-lane
// waves (the h100 host profile, RDNA's wave32) that is every lane; under 64-lane waves
// (gfx9: MI200/MI300, the mi325x host profile) lanes 32-63 are cut off and their elements are
// never counted: the counts come out low. The manifest declares that FAIL for gfx942.
//
// The fix: `unsigned long long mask = __ballot(pred);` and `__popcll(mask)`.
#include <hip/hip_runtime.h>

__global__ void __launch_bounds__(256) count_positive(int* __restrict__ counts, const float* __restrict__ x, int n) {
  __shared__ int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();

  const float* row = x + static_cast<long long>(blockIdx.x) * n;
  int wave_count = 0;
  for (int base = 0; base < n; base += blockDim.x) {
    const int j = base + threadIdx.x;
    const bool positive = j < n && row[j] > 0.0f;
    const unsigned int mask = __ballot(positive);  // 64-bit ballot truncated to 32 lanes
    wave_count += __popc(mask);
  }
  if (__lane_id() == 0) atomicAdd(&block_count, wave_count);
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = block_count;
}
