// cub::BlockStore on the host backend, and the direct stores it is made of (StoreDirectBlocked,
// StoreDirectStriped). Every algorithm but BLOCK_STORE_STRIPED takes the items in a blocked
// arrangement (thread t holds items t*ITEMS .. t*ITEMS+ITEMS-1 of the tile), as cub's do before
// their transposes; BLOCK_STORE_STRIPED takes them striped (item i of thread t is t + i*threads).
// A guarded store writes only the tile's first valid_items.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

template <typename T, int ITEMS, typename It>
__device__ void StoreDirectBlocked(int linear_tid, It dst, T (&items)[ITEMS]) {
  for (int i = 0; i < ITEMS; ++i) dst[linear_tid * ITEMS + i] = items[i];
}
template <typename T, int ITEMS, typename It>
__device__ void StoreDirectBlocked(int linear_tid, It dst, T (&items)[ITEMS], int valid_items) {
  for (int i = 0; i < ITEMS; ++i)
    if (linear_tid * ITEMS + i < valid_items) dst[linear_tid * ITEMS + i] = items[i];
}

template <int BLOCK_THREADS, typename T, int ITEMS, typename It>
__device__ void StoreDirectStriped(int linear_tid, It dst, T (&items)[ITEMS]) {
  for (int i = 0; i < ITEMS; ++i) dst[linear_tid + i * BLOCK_THREADS] = items[i];
}
template <int BLOCK_THREADS, typename T, int ITEMS, typename It>
__device__ void StoreDirectStriped(int linear_tid, It dst, T (&items)[ITEMS], int valid_items) {
  for (int i = 0; i < ITEMS; ++i)
    if (linear_tid + i * BLOCK_THREADS < valid_items) dst[linear_tid + i * BLOCK_THREADS] = items[i];
}

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr bool kStriped = ALGORITHM == BLOCK_STORE_STRIPED;

 public:
  // Nothing is exchanged through it on a CPU, but kernels declare it (often in a union).
  struct TempStorage : hk_detail::Slots<unsigned char, 1> {};

  __device__ BlockStore() {}
  __device__ explicit BlockStore(TempStorage&) {}

  template <typename It> __device__ void Store(It dst, T (&items)[ITEMS_PER_THREAD]) {
    if (kStriped) StoreDirectStriped<kThreads>(hk_detail::linear_tid(), dst, items);
    else StoreDirectBlocked(hk_detail::linear_tid(), dst, items);
  }
  template <typename It> __device__ void Store(It dst, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    if (kStriped) StoreDirectStriped<kThreads>(hk_detail::linear_tid(), dst, items, valid_items);
    else StoreDirectBlocked(hk_detail::linear_tid(), dst, items, valid_items);
  }
};

}  // namespace cub
