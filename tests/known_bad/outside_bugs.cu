// Bugs of kinds that pass when memory around a tensor or in shared memory holds harmless bytes,
// each beside its correct twin (outside_bugs.json declares every verdict):
//   - a linear resampler that reads one past its input at the last sample, times a weight of 0;
//   - a two-level block sum whose second level reads a slot per lane, of which blockDim / warp
//     size were written.
#include "hkcheck.h"

// n_out samples of x at evenly spaced positions; with n_out == n_in each position is a whole
// index, so the weight of the right neighbour is 0 everywhere: out == x.
HK_KERNEL void resample_reads_one_past(f32* out, const f32* x, int n_in, int n_out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  const float pos = n_out > 1 ? static_cast<float>(i) * static_cast<float>(n_in - 1) / static_cast<float>(n_out - 1) : 0.f;
  const int i0 = static_cast<int>(pos);
  const float w = pos - static_cast<float>(i0);
  out[i] = x[i0] * (1.f - w) + x[i0 + 1] * w;  // the bug: i0 + 1 == n_in at the last sample
}

HK_KERNEL void resample_clamped(f32* out, const f32* x, int n_in, int n_out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_out) return;
  const float pos = n_out > 1 ? static_cast<float>(i) * static_cast<float>(n_in - 1) / static_cast<float>(n_out - 1) : 0.f;
  const int i0 = static_cast<int>(pos);
  const int i1 = i0 + 1 < n_in ? i0 + 1 : n_in - 1;
  const float w = pos - static_cast<float>(i0);
  out[i] = x[i0] * (1.f - w) + x[i1] * w;
}

// One block per row of 128 columns: each warp sums its lanes' columns, lane 0 stores the warp's
// sum, warp 0 sums the stored ones: one slot per lane, of which 128 / warp size were written.
template <bool kGuarded>
__device__ void two_level_row_sum(f32* out, const f32* x) {
  __shared__ float warp_sums[HK_WARP_SIZE];
  const int lane = hk::lane_id(), warp = hk::warp_id(), warps = static_cast<int>(blockDim.x) / HK_WARP_SIZE;
  const float v = hk::warp_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    // The bug: every slot is read, and only `warps` of them were written.
    const float s = hk::warp_sum(kGuarded ? (lane < warps ? warp_sums[lane] : 0.f) : warp_sums[lane]);
    if (lane == 0) out[blockIdx.x] = s;
  }
}

HK_KERNEL void row_sum_reads_unwritten_slots(f32* out, const f32* x) { two_level_row_sum<false>(out, x); }
HK_KERNEL void row_sum_written_slots_only(f32* out, const f32* x) { two_level_row_sum<true>(out, x); }
