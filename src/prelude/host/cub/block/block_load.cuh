// cub::BlockLoad on the host backend, and the direct loads it is made of (LoadDirectBlocked,
// LoadDirectStriped). Every algorithm but BLOCK_LOAD_STRIPED leaves the items in a blocked
// arrangement (thread t holds items t*ITEMS .. t*ITEMS+ITEMS-1 of the tile), as cub's do after
// their transposes; BLOCK_LOAD_STRIPED leaves them striped (item i of thread t is t + i*threads).
// A guarded load reads only the tile's first valid_items and leaves the rest as they were, or
// sets them to oob_default.
#pragma once
#include <cub/hk_cub_common.cuh>

namespace cub {

enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};

template <typename T, int ITEMS, typename It>
__device__ void LoadDirectBlocked(int linear_tid, It src, T (&items)[ITEMS]) {
  for (int i = 0; i < ITEMS; ++i) items[i] = src[linear_tid * ITEMS + i];
}
template <typename T, int ITEMS, typename It>
__device__ void LoadDirectBlocked(int linear_tid, It src, T (&items)[ITEMS], int valid_items) {
  for (int i = 0; i < ITEMS; ++i)
    if (linear_tid * ITEMS + i < valid_items) items[i] = src[linear_tid * ITEMS + i];
}
template <typename T, typename Default, int ITEMS, typename It>
__device__ void LoadDirectBlocked(int linear_tid, It src, T (&items)[ITEMS], int valid_items, Default oob_default) {
  for (int i = 0; i < ITEMS; ++i) items[i] = T(oob_default);
  LoadDirectBlocked(linear_tid, src, items, valid_items);
}

template <int BLOCK_THREADS, typename T, int ITEMS, typename It>
__device__ void LoadDirectStriped(int linear_tid, It src, T (&items)[ITEMS]) {
  for (int i = 0; i < ITEMS; ++i) items[i] = src[linear_tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, typename T, int ITEMS, typename It>
__device__ void LoadDirectStriped(int linear_tid, It src, T (&items)[ITEMS], int valid_items) {
  for (int i = 0; i < ITEMS; ++i)
    if (linear_tid + i * BLOCK_THREADS < valid_items) items[i] = src[linear_tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, typename T, typename Default, int ITEMS, typename It>
__device__ void LoadDirectStriped(int linear_tid, It src, T (&items)[ITEMS], int valid_items, Default oob_default) {
  for (int i = 0; i < ITEMS; ++i) items[i] = T(oob_default);
  LoadDirectStriped<BLOCK_THREADS>(linear_tid, src, items, valid_items);
}

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr bool kStriped = ALGORITHM == BLOCK_LOAD_STRIPED;

 public:
  // Nothing is exchanged through it on a CPU, but kernels declare it (often in a union).
  struct TempStorage : hk_detail::Slots<unsigned char, 1> {};

  __device__ BlockLoad() {}
  __device__ explicit BlockLoad(TempStorage&) {}

  template <typename It> __device__ void Load(It src, T (&items)[ITEMS_PER_THREAD]) {
    if (kStriped) LoadDirectStriped<kThreads>(hk_detail::linear_tid(), src, items);
    else LoadDirectBlocked(hk_detail::linear_tid(), src, items);
  }
  template <typename It> __device__ void Load(It src, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    if (kStriped) LoadDirectStriped<kThreads>(hk_detail::linear_tid(), src, items, valid_items);
    else LoadDirectBlocked(hk_detail::linear_tid(), src, items, valid_items);
  }
  template <typename It, typename Default>
  __device__ void Load(It src, T (&items)[ITEMS_PER_THREAD], int valid_items, Default oob_default) {
    if (kStriped) LoadDirectStriped<kThreads>(hk_detail::linear_tid(), src, items, valid_items, oob_default);
    else LoadDirectBlocked(hk_detail::linear_tid(), src, items, valid_items, oob_default);
  }
};

}  // namespace cub
