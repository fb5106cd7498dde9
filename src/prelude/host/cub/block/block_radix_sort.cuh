// cub::BlockRadixSort on the host backend: each thread puts its keys (and values) in the
// TempStorage in blocked order, the block meets, thread 0 ranks the tile with a stable LSD radix
// sort over bits [begin_bit, end_bit) of the keys' radix patterns (hk_radix_key.cuh), the block
// meets again, and every thread takes the keys (and values) of its ranks: blocked (thread t gets
// ranks t*ITEMS ..) or, for the BlockedToStriped forms, striped (item i of thread t is rank
// t + i*threads). Equal keys keep their order, as in cub.
#pragma once
#include <cub/hk_cub_common.cuh>
#include <cub/hk_radix_key.cuh>
#include <cub/block/block_scan.cuh>

namespace cub {

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          int SMEM_CONFIG = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int kItems = kThreads * ITEMS_PER_THREAD;

 public:
  struct TempStorage {
    hk_detail::Slots<KeyT, kItems> keys;
    hk_detail::Slots<ValueT, kItems> values;
    unsigned long long bits[kItems];
    int order[kItems], spare[kItems];  // order[rank]: the blocked index of the item of that rank
  };

  __device__ BlockRadixSort() : storage_(private_storage()) {}
  __device__ explicit BlockRadixSort(TempStorage& storage) : storage_(storage) {}

  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort(keys, nullptr, begin_bit, end_bit, false, false);
  }
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                       int end_bit = sizeof(KeyT) * 8) {
    sort(keys, &values, begin_bit, end_bit, false, false);
  }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort(keys, nullptr, begin_bit, end_bit, true, false);
  }
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                                 int end_bit = sizeof(KeyT) * 8) {
    sort(keys, &values, begin_bit, end_bit, true, false);
  }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort(keys, nullptr, begin_bit, end_bit, false, true);
  }
  __device__ void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                                       int end_bit = sizeof(KeyT) * 8) {
    sort(keys, &values, begin_bit, end_bit, false, true);
  }
  __device__ void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort(keys, nullptr, begin_bit, end_bit, true, true);
  }
  __device__ void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort(keys, &values, begin_bit, end_bit, true, true);
  }

 private:
  static TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }

  void sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (*values)[ITEMS_PER_THREAD], int begin_bit, int end_bit, bool descending,
            bool to_striped) {
    const int tid = hk_detail::linear_tid();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      storage_.keys[tid * ITEMS_PER_THREAD + i] = keys[i];
      if (values) storage_.values[tid * ITEMS_PER_THREAD + i] = (*values)[i];
    }
    __syncthreads();
    if (tid == 0) rank(begin_bit, end_bit, descending);
    __syncthreads();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const int r = to_striped ? tid + i * kThreads : tid * ITEMS_PER_THREAD + i;
      keys[i] = storage_.keys[storage_.order[r]];
      if (values) (*values)[i] = storage_.values[storage_.order[r]];
    }
    __syncthreads();  // the storage may be used again right after
  }

  // Stable counting sorts over the selected bits, eight at a time, least significant first.
  void rank(int begin_bit, int end_bit, bool descending) {
    for (int i = 0; i < kItems; ++i) {
      const unsigned long long b = hk_detail::radix_bits(storage_.keys[i]);
      storage_.bits[i] = descending ? ~b : b;
      storage_.order[i] = i;
    }
    int* from = storage_.order;
    int* to = storage_.spare;
    for (int shift = begin_bit; shift < end_bit; shift += 8) {
      const int width = end_bit - shift < 8 ? end_bit - shift : 8;
      const unsigned long long mask = (1ull << width) - 1;
      int start[257] = {0};
      for (int i = 0; i < kItems; ++i) ++start[((storage_.bits[from[i]] >> shift) & mask) + 1];
      for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
      for (int i = 0; i < kItems; ++i) to[start[(storage_.bits[from[i]] >> shift) & mask]++] = from[i];
      int* t = from;
      from = to;
      to = t;
    }
    if (from != storage_.order)
      for (int i = 0; i < kItems; ++i) storage_.order[i] = from[i];
  }

  TempStorage& storage_;
};

}  // namespace cub
