// Kernels that go wrong on purpose, one way each: the harness must give each its verdict and
// keep running. faults.json declares every verdict ("expect"), so a run is all XFAIL and PASS:
//   hkcheck --manifests tests/known_bad --out OUT && known_bad_check OUT/test_results.json tests/known_bad
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
  // Waits for an input to change, which it never does. The condition is read from memory
  // through a volatile pointer, so the compiler must keep the loop (an empty loop on a local is
  // optimised away). A clock-based condition is not safe: a kernel preempted and resumed on
  // another SM, as when several workers share the GPU, reads that SM's clock, which may be
  // behind; such a loop ended after 0.3 s on an H100.
  const volatile unsigned* p = reinterpret_cast<const volatile unsigned*>(x);
  const unsigned first = p[0];
  while (p[0] == first) {
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

// Per-head offset bug: the head's offset forgets the sequence length (head * dim instead of
// head * seq * dim), so head 0 is right and every other head reads the wrong rows.
HK_KERNEL void head_offset_bug(f32* out, const f32* x, int heads, int seq, int dim) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= heads * seq * dim) return;
  const int head = i / (seq * dim), within = i % (seq * dim);
  out[i] = x[head * dim + within];
}

// Off by one: "i <= n" writes one element past the end of out, into memory no tensor owns.
HK_KERNEL void write_past_end(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = x[i < n ? i : n - 1];
}

// A missing barrier (blockDim.x == 256): each thread publishes its element in the tile and
// writes out its partner's (t ^ 128) element, with no __syncthreads() between the two. A reader
// that comes before its partner has published sees what the tile held before: the previous
// block's scratch timestamps on this multiprocessor (or, on a CPU backend that runs a block's
// threads one after another, on this OS thread), and a reader that comes after its partner
// has already moved on sees the partner's timestamp. The second half also waits a
// clock-derived time before publishing, so which readers are early changes from launch to launch.
HK_KERNEL void race_missing_barrier(f32* out, const f32* x, int n) {
  __shared__ f32 tile[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * 256 + t;
  if (t >= 128) {
    const long long start = clock64();
    const long long wait = (start >> 3) & 4095;
    while (clock64() - start < wait) {
    }
  }
  tile[t] = i < n ? x[i] : 0.f;
  // Missing here: __syncthreads();
  const f32 partner = tile[t ^ 128];
  const int j = blockIdx.x * 256 + (t ^ 128);
  if (j < n) out[j] = partner;
  tile[t] = (f32)(clock64() & 0xffffff);  // the tile reused as scratch, again without a barrier
}

// NaN and Inf where the reference is finite: every 100th element from 7 is NaN, from 8 is Inf.
HK_KERNEL void nan_output(f32* out, const f32* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i % 100 == 7) out[i] = __int_as_float(0x7fc00000);
  else if (i % 100 == 8) out[i] = __int_as_float(0x7f800000);
  else out[i] = x[i];
}

// A grid-wide sum where the last block to finish adds up the blocks' partial sums, found with a
// ticket counter that is never reset: right on the first launch of the loaded program, and on
// every later launch no block draws the last ticket, so out[0] is never written. Alone in a
// fresh worker every case passes; after an earlier case of it in the same worker it fails (LEAK).
__device__ unsigned int kb_retired_blocks = 0;
__device__ f32 kb_block_partials[64];

HK_KERNEL void leaky_total(f32* out, const f32* x, int n) {
  f32 v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
  v = hk::block_sum(v);
  __shared__ int is_last;
  if (threadIdx.x == 0) {
    kb_block_partials[blockIdx.x] = v;
    __threadfence();
    is_last = atomicAdd(&kb_retired_blocks, 1u) == gridDim.x - 1;  // missing: reset by the last block
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    __threadfence();
    f32 total = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += static_cast<volatile f32*>(kb_block_partials)[b];
    out[0] = total;
  }
}

// Correct, but not bit-reproducible: each block adds its part of a row into out[row] with a float
// atomicAdd, so the order of the additions (and the last bits of the sum) varies between
// launches. Every launch is within tolerance: PASS, with a note that the launches differ.
HK_KERNEL void atomic_row_sum(f32* out, const f32* x, int cols) {
  const int row = blockIdx.y;
  const int chunk = (cols + gridDim.x - 1) / gridDim.x;
  const int begin = blockIdx.x * chunk, end = min(cols, begin + chunk);
  f32 v = 0.f;
  for (int j = begin + threadIdx.x; j < end; j += blockDim.x) v += x[(long long)row * cols + j];
  const f32 s = hk::block_sum(v);
  if (threadIdx.x == 0) atomicAdd(&out[row], s);
}
