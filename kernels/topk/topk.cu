// Top-K per row: the K largest values of each row of x [M, N] in descending order, and their
// indices.
//
//   topk(values [M, K] T, indices [M, K] i32, x [M, N] T, N, K)
//
// Order: value descending, ties broken by the smaller index first, so the result is fully
// determined even when a row repeats a value. NaN inputs are not supported. Requires K <= N
// (a round with nothing left writes index -1 and value -inf).
//
// Algorithm: K rounds of block-wide argmax, with no shared row buffer and no marking of the
// (read-only) input. Thread j owns the strided elements j, j + B, j + 2B, ... (B = blockDim.x)
// and keeps its best not-yet-taken element as its candidate. Each round the block reduces the
// candidates to the winner, thread 0 writes it, and only the winner's owner rescans its own
// elements for the best one ordered strictly after the one just taken. So a row costs one read
// of N elements up front plus, per round, one block reduction and N/B reads by one thread (from
// L1/L2). Values are copied from x, so they are bit-exact.
// Grid: one block per row; block: any multiple of HK_WARP_SIZE up to 1024; any N, K <= N.
#include "hkcheck.h"

namespace {

constexpr i32 kNone = 0x7fffffff;  // index of "no candidate": ordered after every real element

// True when (av, ai) comes before (bv, bi): larger value first, then smaller index.
HK_DEVICE bool before(float av, i32 ai, float bv, i32 bi) { return av > bv || (av == bv && ai < bi); }

// This thread's best element among those ordered strictly after (lv, li).
HK_DEVICE void best_after(const T* __restrict__ xr, i32 N, float lv, i32 li, float& bv, i32& bi) {
  bv = -__int_as_float(0x7f800000);
  bi = kNone;
  for (i32 j = threadIdx.x; j < N; j += blockDim.x) {
    const float v = hk::to_f32(xr[j]);
    if (before(lv, li, v, j) && before(v, j, bv, bi)) {
      bv = v;
      bi = j;
    }
  }
}

// Block-wide argmax of the (value, index) candidates under before(); every thread gets it.
HK_DEVICE void block_best(float& v, i32& i) {
  __shared__ float pv[1024 / 32];
  __shared__ i32 pi[1024 / 32];
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) {
    const float ov = hk::shfl_xor(v, m);
    const i32 oi = hk::shfl_xor(i, m);
    if (before(ov, oi, v, i)) { v = ov; i = oi; }
  }
  const int nwarps = (int)((blockDim.x + HK_WARP_SIZE - 1) / HK_WARP_SIZE);
  __syncthreads();  // pv/pi may still be read by the previous round
  if (hk::lane_id() == 0) { pv[hk::warp_id()] = v; pi[hk::warp_id()] = i; }
  __syncthreads();
  v = hk::lane_id() < nwarps ? pv[hk::lane_id()] : -__int_as_float(0x7f800000);
  i = hk::lane_id() < nwarps ? pi[hk::lane_id()] : kNone;
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) {
    const float ov = hk::shfl_xor(v, m);
    const i32 oi = hk::shfl_xor(i, m);
    if (before(ov, oi, v, i)) { v = ov; i = oi; }
  }
}

}  // namespace

HK_KERNEL void topk(T* __restrict__ values, i32* __restrict__ indices, const T* __restrict__ x, i32 N, i32 K) {
  const T* xr = x + (i64)blockIdx.x * N;
  T* vr = values + (i64)blockIdx.x * K;
  i32* ir = indices + (i64)blockIdx.x * K;

  // Initial candidate: the best of all own elements (everything is after (+inf, -1)).
  float cv;
  i32 ci;
  best_after(xr, N, __int_as_float(0x7f800000), -1, cv, ci);

  for (i32 r = 0; r < K; ++r) {
    float wv = cv;
    i32 wi = ci;
    block_best(wv, wi);
    if (threadIdx.x == 0) {
      vr[r] = wi == kNone ? hk::from_f32<T>(wv) : xr[wi];
      ir[r] = wi == kNone ? -1 : wi;
    }
    // The winner was its owner's candidate: only that thread moves on to its next element.
    if (wi != kNone && wi % (i32)blockDim.x == (i32)threadIdx.x) best_after(xr, N, wv, wi, cv, ci);
  }
}
