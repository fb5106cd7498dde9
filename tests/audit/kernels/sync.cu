// Misbehaving kernels for tests/audit/audit.py (part "kernels"): barriers and warps. The host
// backend runs a block's threads as fibers: a barrier that cannot open must be a CRASH
// ("divergent barrier" / "barrier deadlock"), never a hang. Each leaves `out` unwritten.
#include "hkcheck.h"

// Even threads wait at one __syncthreads, odd threads at another.
HK_KERNEL void audit_divergent_syncthreads(f32* out, const f32* x, int n, u64 p) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
}

// Thread 0 waits at a warp shuffle while the others wait at __syncthreads.
HK_KERNEL void audit_barrier_deadlock(f32* out, const f32* x, int n, u64 p) {
  f32 v = x[threadIdx.x];
  if (threadIdx.x == 0) {
    v = hk::shfl_xor(v, 1);
  } else {
    __syncthreads();
  }
  if (v == 12345.f) out[0] = v;
}

// Two barriers in opposite orders: the first half waits at A then B, the second at B then A.
HK_KERNEL void audit_barrier_order(f32* out, const f32* x, int n, u64 p) {
  if (threadIdx.x < blockDim.x / 2) {
    __syncthreads();  // A
    __syncthreads();  // B
  } else {
    __syncthreads();  // B'
    __syncthreads();  // A'
  }
}
