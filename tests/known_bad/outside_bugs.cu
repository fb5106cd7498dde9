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

// A full-mask warp sum after an early return: one block per row of `cols` < blockDim columns,
// the threads past the row return first, and the lanes beside them read their values from lanes
// that are gone (undefined on a GPU; often the right sum there, since the hardware keeps the
// last value). The twin keeps every thread and gives the extra ones 0.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC_RTC__)
#define OUTSIDE_BUGS_SHFL_XOR(v, m) __shfl_xor(v, m)  // every hipRTC has it; ROCm 5's lacks the _sync forms
#else
#define OUTSIDE_BUGS_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, v, m)
#endif
template <bool kEarlyReturn>
__device__ void row_sum_of_cols(f32* out, const f32* x, int cols) {
  __shared__ float warp_sums[1024 / 32];
  const int c = static_cast<int>(threadIdx.x);
  if (kEarlyReturn && c >= cols) return;  // the bug: these lanes miss the shuffles below
  float v = c < cols ? x[blockIdx.x * cols + c] : 0.f;
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) v += OUTSIDE_BUGS_SHFL_XOR(v, m);
  if (c % HK_WARP_SIZE == 0) warp_sums[c / HK_WARP_SIZE] = v;
  __syncthreads();
  if (c == 0) {
    float s = 0.f;
    for (int w = 0; w < (cols + HK_WARP_SIZE - 1) / HK_WARP_SIZE; ++w) s += warp_sums[w];
    out[blockIdx.x] = s;
  }
}

HK_KERNEL void row_sum_shuffles_after_return(f32* out, const f32* x, int cols) { row_sum_of_cols<true>(out, x, cols); }
HK_KERNEL void row_sum_every_lane_shuffles(f32* out, const f32* x, int cols) { row_sum_of_cols<false>(out, x, cols); }
