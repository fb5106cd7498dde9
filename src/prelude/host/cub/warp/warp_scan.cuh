// cub::WarpScan on the host backend: each lane of the logical warp puts its value in the
// TempStorage (one per logical warp, as cub asks), the warp meets, and every lane folds the values
// of the lanes before it in lane order. Exclusive scans without an initial value leave lane 0's
// output as it was, as cub leaves it undefined.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
 public:
  struct TempStorage : hk_detail::Slots<T, LOGICAL_WARP_THREADS> {};

  __device__ explicit WarpScan(TempStorage& storage) : storage_(storage) {}

  __device__ void InclusiveSum(T input, T& inclusive) { InclusiveScan(input, inclusive, ::cub::Sum()); }
  __device__ void InclusiveSum(T input, T& inclusive, T& aggregate) { InclusiveScan(input, inclusive, ::cub::Sum(), aggregate); }
  __device__ void ExclusiveSum(T input, T& exclusive) { ExclusiveScan(input, exclusive, T(0), ::cub::Sum()); }
  __device__ void ExclusiveSum(T input, T& exclusive, T& aggregate) { ExclusiveScan(input, exclusive, T(0), ::cub::Sum(), aggregate); }

  template <class Op> __device__ void InclusiveScan(T input, T& inclusive, Op op) { T a; InclusiveScan(input, inclusive, op, a); }
  template <class Op> __device__ void InclusiveScan(T input, T& inclusive, Op op, T& aggregate) {
    T before;
    inclusive = scan(input, &before, aggregate, op) ? op(before, input) : input;
  }
  template <class Op> __device__ void InclusiveScan(T input, T& inclusive, T initial, Op op) { T a; InclusiveScan(input, inclusive, initial, op, a); }
  template <class Op> __device__ void InclusiveScan(T input, T& inclusive, T initial, Op op, T& aggregate) {
    T before;
    inclusive = scan(input, &before, aggregate, op) ? op(op(initial, before), input) : op(initial, input);
  }
  template <class Op> __device__ void ExclusiveScan(T input, T& exclusive, Op op) { T a; ExclusiveScan(input, exclusive, op, a); }
  template <class Op> __device__ void ExclusiveScan(T input, T& exclusive, Op op, T& aggregate) {
    T before;
    if (scan(input, &before, aggregate, op)) exclusive = before;
  }
  template <class Op> __device__ void ExclusiveScan(T input, T& exclusive, T initial, Op op) { T a; ExclusiveScan(input, exclusive, initial, op, a); }
  template <class Op> __device__ void ExclusiveScan(T input, T& exclusive, T initial, Op op, T& aggregate) {
    T before;
    exclusive = scan(input, &before, aggregate, op) ? op(initial, before) : initial;
  }
  template <class Op> __device__ void Scan(T input, T& inclusive, T& exclusive, Op op) {
    T before, aggregate;
    const bool has_before = scan(input, &before, aggregate, op);
    inclusive = has_before ? op(before, input) : input;
    if (has_before) exclusive = before;
  }
  template <class Op> __device__ void Scan(T input, T& inclusive, T& exclusive, T initial, Op op) {
    T before, aggregate;
    const bool has_before = scan(input, &before, aggregate, op);
    exclusive = has_before ? op(initial, before) : initial;
    inclusive = op(exclusive, input);
  }

  // The value of lane src_lane of this logical warp, in every lane.
  __device__ T Broadcast(T input, unsigned int src_lane) {
    storage_[lane()] = input;
    __syncwarp();
    const T v = storage_[static_cast<int>(src_lane)];
    __syncwarp();  // the storage may be used again right after
    return v;
  }

 private:
  static int lane() { return hk_detail::linear_tid() % LOGICAL_WARP_THREADS; }

  // The fold of the lanes before this one (false for lane 0, before untouched) and of the whole
  // logical warp (aggregate).
  template <class Op> bool scan(T input, T* before, T& aggregate, Op op) {
    const int me = lane();
    storage_[me] = input;
    __syncwarp();
    aggregate = hk_detail::fold_before_and_all(storage_, me, LOGICAL_WARP_THREADS, op, before);
    __syncwarp();  // the storage may be used again right after
    return me > 0;
  }

  TempStorage& storage_;
};

}  // namespace cub
