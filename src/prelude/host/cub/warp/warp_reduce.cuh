// cub::WarpReduce on the host backend: each lane of the logical warp puts its value in the
// TempStorage (one per logical warp, as cub asks), the warp meets, and lane 0 folds the values in
// lane order; cub promises the result to lane 0 only, and so does this.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
 public:
  struct TempStorage : hk_detail::Slots<T, LOGICAL_WARP_THREADS> {};

  __device__ explicit WarpReduce(TempStorage& storage) : storage_(storage) {}

  template <class Op> __device__ T Reduce(T input, Op op, int valid_items = LOGICAL_WARP_THREADS) {
    const int lane = hk_detail::linear_tid() % LOGICAL_WARP_THREADS;
    storage_[lane] = input;
    __syncwarp();
    T acc = input;
    if (lane == 0)
      for (int i = 1; i < valid_items && i < LOGICAL_WARP_THREADS; ++i) acc = op(acc, storage_[i]);
    __syncwarp();  // the storage may be used again right after
    return acc;
  }
  __device__ T Sum(T input, int valid_items = LOGICAL_WARP_THREADS) { return Reduce(input, ::cub::Sum(), valid_items); }

 private:
  TempStorage& storage_;
};

}  // namespace cub
