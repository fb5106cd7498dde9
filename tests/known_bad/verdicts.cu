// Kernels whose verdict depends on how hkcheck judges them (verdicts.json): a tie broken the
// other way from the reference, an index that selects the wrong value, a reduction whose race
// only a sanitizer sees, an output computed from unwritten memory, and a bug that only some
// inputs reach (tests/fixtures/seed_sweep).
#include "hkcheck.h"

// One thread per row of n <= 64: k rounds of "the largest not yet taken". With smaller_first a
// tie goes to the smaller index (the built-in topk reference takes the larger one); with
// min_index_first the first index of each row is that of the row's smallest element, a bug the
// values output does not show.
template <bool min_index_first>
__device__ void topk_row(f32* values, int* indices, const f32* x, int m, int n, int k) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  const f32* xr = x + (long long)row * n;
  unsigned long long taken = 0;
  for (int j = 0; j < k; ++j) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (!(taken >> i & 1ull) && (best < 0 || xr[i] > xr[best])) best = i;  // strict: ties keep the smaller index
    taken |= 1ull << best;
    values[row * k + j] = xr[best];
    indices[row * k + j] = best;
  }
  if (min_index_first) {
    int smallest = 0;
    for (int i = 1; i < n; ++i)
      if (xr[i] < xr[smallest]) smallest = i;
    indices[row * k] = smallest;
  }
}

HK_KERNEL void topk_smaller_index_first(f32* values, int* indices, const f32* x, int m, int n, int k) {
  topk_row<false>(values, indices, x, m, n, k);
}

HK_KERNEL void topk_min_index_first(f32* values, int* indices, const f32* x, int m, int n, int k) {
  topk_row<true>(values, indices, x, m, n, k);
}

// A block of 256 sums one row of 256 in shared memory. The steps across warps have their
// barriers; the last six run in warp 0 "warp-synchronously", with no __syncwarp() between them,
// so lane t reads tile[t + stride] while the lane that owns it may not have added into it yet.
// A warp that stays converged gets the sums right, so a GPU run passes and only racecheck
// reports the hazard. The host backend runs a warp's lanes one after another between
// barriers: lane 0 finishes before lane 16 starts, and the sums come out wrong.
HK_KERNEL void tree_sum_missing_barrier(f32* out, const f32* x) {
  __shared__ f32 tile[256];
  const int t = threadIdx.x;
  tile[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int stride = 128; stride >= 64; stride >>= 1) {
    if (t < stride) tile[t] += tile[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile f32* v = tile;  // volatile: every step reads shared memory, as such code is written
    for (int stride = 32; stride > 0; stride >>= 1) v[t] += v[t + stride];  // missing: __syncwarp()
  }
  if (t == 0) out[blockIdx.x] = tile[0];
}

// Right except for elements above 2.5, which it writes as 0: about one element in 160 of normal
// data, so some seeds' inputs reach the bug and others do not.
HK_KERNEL void rare_input_bug(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] > 2.5f ? 0.f : x[i];
}

// Adds into its output as if it were cleared: every element is computed from the poison
// hkcheck leaves in an output, so it must count as NaN (nonfinite), not unwritten, on the GPU
// and on the host alike. x is read through a pointer so the compiler keeps the arithmetic.
HK_KERNEL void accumulates_into_unwritten(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += x[i];
}
