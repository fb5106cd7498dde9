// What cub's block and warp collectives share on the host backend: the operators, the algorithm
// names (which change nothing on a CPU), NullType and a typed view of a TempStorage's bytes.
#pragma once

namespace cub {

struct Sum {
  template <class T> __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
struct Max {
  template <class T> __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <class T> __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

// The value type of a sort without values.
struct NullType {};

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

namespace hk_detail {

inline int linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// N values of T in shared memory, as raw bytes so that T needs no default constructor.
template <class T, int N>
struct Slots {
  alignas(T) unsigned char bytes[sizeof(T) * N];
  T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
};

// What a scan reads between the barriers around its slots: the fold of slots [0, me) into
// *before (set for me > 0 only) and the fold of [0, n), returned; each in order.
template <class T, class S, class Op>
T fold_before_and_all(S& slots, int me, int n, Op op, T* before) {
  T acc = slots[0];
  for (int i = 1; i < me; ++i) acc = op(acc, slots[i]);
  if (me > 0) *before = acc;
  T all = slots[0];
  for (int i = 1; i < n; ++i) all = op(all, slots[i]);
  return all;
}

// Folds items[0..n) with op, in order.
template <class T, int N, class Op>
T fold(const T (&items)[N], Op op) {
  T acc = items[0];
  for (int i = 1; i < N; ++i) acc = op(acc, items[i]);
  return acc;
}

}  // namespace hk_detail
}  // namespace cub
