// cub::BlockReduce on the host backend: each thread puts its value in the TempStorage, the block
// meets, and every thread folds the values in thread order (cub promises the result to thread 0;
// here every thread has it). The order is the threads', not cub's tree: a floating-point sum
// may round differently from the GPU's, within a tolerance that allows for the order.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage : hk_detail::Slots<T, kThreads> {};

  __device__ explicit BlockReduce(TempStorage& storage) : storage_(storage) {}

  template <class Op> __device__ T Reduce(T input, Op op, int num_valid = kThreads) {
    storage_[hk_detail::linear_tid()] = input;
    __syncthreads();
    T acc = storage_[0];
    for (int i = 1; i < num_valid && i < kThreads; ++i) acc = op(acc, storage_[i]);
    __syncthreads();  // the storage may be used again right after
    return acc;
  }
  template <int ITEMS, class Op> __device__ T Reduce(T (&inputs)[ITEMS], Op op) { return Reduce(hk_detail::fold(inputs, op), op); }

  __device__ T Sum(T input, int num_valid = kThreads) { return Reduce(input, ::cub::Sum(), num_valid); }
  template <int ITEMS> __device__ T Sum(T (&inputs)[ITEMS]) { return Reduce(inputs, ::cub::Sum()); }

 private:
  TempStorage& storage_;
};

}  // namespace cub
