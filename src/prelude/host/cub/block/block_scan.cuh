// cub::BlockScan on the host backend: each thread puts its value in the TempStorage, the block
// meets, and every thread folds the values before its own in thread order. The order matches a
// scan's definition; a floating-point prefix may round differently from the GPU's.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockScan {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage : hk_detail::Slots<T, kThreads> {};

  __device__ explicit BlockScan(TempStorage& storage) : storage_(storage) {}

  // One item per thread.
  template <class Op> __device__ void InclusiveScan(T input, T& output, Op op) { T a; scan(input, nullptr, &output, a, op); }
  template <class Op> __device__ void InclusiveScan(T input, T& output, Op op, T& aggregate) { scan(input, nullptr, &output, aggregate, op); }
  template <class Op> __device__ void ExclusiveScan(T input, T& output, T initial, Op op) { T a; ExclusiveScan(input, output, initial, op, a); }
  template <class Op> __device__ void ExclusiveScan(T input, T& output, T initial, Op op, T& aggregate) {
    T before = initial;
    const bool has_before = scan(input, &before, nullptr, aggregate, op);
    output = has_before ? op(initial, before) : initial;
  }
  template <class Op> __device__ void ExclusiveScan(T input, T& output, Op op) {  // thread 0's output is undefined, as in cub
    T a;
    scan(input, &output, nullptr, a, op);
  }
  __device__ void InclusiveSum(T input, T& output) { InclusiveScan(input, output, ::cub::Sum()); }
  __device__ void InclusiveSum(T input, T& output, T& aggregate) { InclusiveScan(input, output, ::cub::Sum(), aggregate); }
  __device__ void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(0), ::cub::Sum()); }
  __device__ void ExclusiveSum(T input, T& output, T& aggregate) { ExclusiveScan(input, output, T(0), ::cub::Sum(), aggregate); }

  // Several consecutive items per thread: the thread's total is scanned across the block, then
  // its items within the thread.
  template <int N, class Op> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], Op op) {
    T before, aggregate;
    const bool has_before = scan(hk_detail::fold(input, op), &before, nullptr, aggregate, op);
    for (int i = 0; i < N; ++i) output[i] = i == 0 ? (has_before ? op(before, input[0]) : input[0]) : op(output[i - 1], input[i]);
  }
  template <int N, class Op> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial, Op op) {
    T before, aggregate;
    const bool has_before = scan(hk_detail::fold(input, op), &before, nullptr, aggregate, op);
    T running = has_before ? op(initial, before) : initial;
    for (int i = 0; i < N; ++i) {  // input and output may be the same array, as in cub
      const T item = input[i];
      output[i] = running;
      running = op(running, item);
    }
  }
  template <int N> __device__ void InclusiveSum(T (&input)[N], T (&output)[N]) { InclusiveScan(input, output, ::cub::Sum()); }
  template <int N> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N]) { ExclusiveScan(input, output, T(0), ::cub::Sum()); }

 private:
  // The fold of the threads before this one (exclusive, false for thread 0) and up to this one
  // (inclusive), and of the whole block (aggregate).
  template <class Op> bool scan(T input, T* exclusive, T* inclusive, T& aggregate, Op op) {
    const int tid = hk_detail::linear_tid();
    storage_[tid] = input;
    __syncthreads();
    T before;
    aggregate = hk_detail::fold_before_and_all(storage_, tid, kThreads, op, &before);
    if (exclusive && tid > 0) *exclusive = before;
    if (inclusive) *inclusive = tid == 0 ? input : op(before, input);
    __syncthreads();  // the storage may be used again right after
    return tid > 0;
  }

  TempStorage& storage_;
};

}  // namespace cub
