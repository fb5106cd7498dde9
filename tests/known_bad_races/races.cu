// Races that the host backend's outputs cannot show (its fibers never interleave between a load
// and a store, and its blocks rarely overlap), each beside a correct control: run with --races
// (docs/host_backend.md). Every index and flag comes from memory, so the compiler cannot fold a
// race away.
#include "hkcheck.h"

// Every thread adds its element to out[0] with a plain read-modify-write: on a GPU, updates are lost.
HK_KERNEL void race_global_sum(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[0] += x[i];
}
HK_KERNEL void atomic_global_sum(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

// 32 threads reduce a 32-column chunk of a row in shared memory (correctly), then thread 0 adds
// the chunk's sum to the row's output, which every block of that row shares.
template <bool Atomic>
__device__ void row_chunks(const float* x, float* out, int cols) {
  __shared__ float s[32];
  const int r = blockIdx.y, c = blockIdx.x * 32 + threadIdx.x;
  s[threadIdx.x] = c < cols ? x[r * cols + c] : 0.f;
  __syncthreads();
  for (int w = 16; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  if (Atomic) atomicAdd(&out[r], s[0]);
  else out[r] += s[0];
}
HK_KERNEL void race_row_chunks(const float* x, float* out, int cols) { row_chunks<false>(x, out, cols); }
HK_KERNEL void atomic_row_chunks(const float* x, float* out, int cols) { row_chunks<true>(x, out, cols); }

// Last block done: each block writes its partial sum, counts itself in with atomicInc, and the
// block that counts last adds the partials. Without __threadfence() between the partial and the
// count, the last block may read a partial that is not yet visible.
template <bool Fenced>
__device__ void last_block_total(const float* x, float* partial, unsigned* count, float* out, int n) {
  __shared__ float s[32];
  __shared__ bool last;
  const int i = blockIdx.x * 32 + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  for (int w = 16; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    if (Fenced) __threadfence();
    // Wraps to 0 after the last block: ready for the next launch.
    last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    out[0] = total;
  }
}
HK_KERNEL void race_last_block_no_fence(const float* x, float* partial, unsigned* count, float* out, int n) {
  last_block_total<false>(x, partial, count, out, n);
}
HK_KERNEL void last_block_fenced(const float* x, float* partial, unsigned* count, float* out, int n) {
  last_block_total<true>(x, partial, count, out, n);
}

// One block per row: every thread stores its element in shared memory, then the last thread sums
// them. Without the barrier it reads elements other threads may not have stored yet.
template <bool Barrier>
__device__ void shared_row_sum(const float* x, float* out) {
  __shared__ float s[256];
  const int r = blockIdx.x, t = threadIdx.x, n = blockDim.x;
  s[t] = x[r * n + t];
  if (Barrier) __syncthreads();
  if (t != n - 1) return;
  float total = 0.f;
  for (int j = 0; j < n; ++j) total += s[j];
  out[r] = total;
}
HK_KERNEL void race_shared_no_barrier(const float* x, float* out) { shared_row_sum<false>(x, out); }
HK_KERNEL void shared_with_barrier(const float* x, float* out) { shared_row_sum<true>(x, out); }
