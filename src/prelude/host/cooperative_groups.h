// <cooperative_groups.h> on the host backend: the block and the statically sized tiles of a
// warp, built on the host dialect's barriers and shuffles (hk_host.h). Grid and multi-grid
// groups, coalesced groups and dynamic tiles are not provided.
#pragma once

namespace cooperative_groups {

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const { return (unsigned long long)blockDim.x * blockDim.y * blockDim.z; }
  dim3 group_index() const { return dim3(blockIdx); }
  dim3 thread_index() const { return dim3(threadIdx); }
  dim3 group_dim() const { return dim3(blockDim); }
};

inline thread_block this_thread_block() { return thread_block(); }
// The scratch CUDA's tiles wider than a warp keep in shared memory: the host needs none, but a
// kernel declares it (either template signature) and passes it to this_thread_block.
template <unsigned long long... HkSizes> struct block_tile_memory {};
template <unsigned long long... HkSizes>
inline thread_block this_thread_block(block_tile_memory<HkSizes...>&) { return thread_block(); }
inline void sync(const thread_block& g) { g.sync(); }

// A tile of Size consecutive threads of the block, Size a power of two up to the warp size.
template <unsigned int HkSize>
class thread_block_tile {
  static_assert(HkSize > 0 && (HkSize & (HkSize - 1)) == 0 && HkSize <= HK_HOST_WARP_SIZE, "a tile is a power of two, at most a warp");

 public:
  void sync() const { __syncwarp(); }
  unsigned long long thread_rank() const { return this_thread_block().thread_rank() % HkSize; }
  unsigned long long size() const { return HkSize; }
  unsigned long long num_threads() const { return HkSize; }
  unsigned long long meta_group_rank() const { return this_thread_block().thread_rank() / HkSize; }
  unsigned long long meta_group_size() const { return (this_thread_block().num_threads() + HkSize - 1) / HkSize; }
  // Values of any trivially copyable type, as CUDA's cooperative groups shuffle them (a raw
  // __shfl_sync moves at most 8 bytes).
  template <typename HkT> HkT shfl(HkT v, int src, HK_HOST_CALLER) const {
    return hk_host_exchange_any(v, hk_host_src_idx(hk_host_lane(), src, HkSize), hk_host_site{"shfl", hk_file, hk_line});
  }
  template <typename HkT> HkT shfl_down(HkT v, unsigned int d, HK_HOST_CALLER) const {
    return hk_host_exchange_any(v, hk_host_src_down(hk_host_lane(), (int)d, HkSize), hk_host_site{"shfl_down", hk_file, hk_line});
  }
  template <typename HkT> HkT shfl_up(HkT v, unsigned int d, HK_HOST_CALLER) const {
    return hk_host_exchange_any(v, hk_host_src_up(hk_host_lane(), (int)d, HkSize), hk_host_site{"shfl_up", hk_file, hk_line});
  }
  template <typename HkT> HkT shfl_xor(HkT v, unsigned int m, HK_HOST_CALLER) const {
    return hk_host_exchange_any(v, hk_host_src_xor(hk_host_lane(), (int)m, HkSize), hk_host_site{"shfl_xor", hk_file, hk_line});
  }
  unsigned long long ballot(int pred) const {
    const unsigned int first = (unsigned int)(hk_host_lane() / HkSize) * HkSize;  // this tile's lanes in the warp
    const unsigned long long lanes = HkSize == 64 ? ~0ull : ((1ull << HkSize) - 1);
    const unsigned long long all = __ballot_sync(lanes << first, pred);
    return (all >> first) & lanes;
  }
  int any(int pred) const { return ballot(pred) != 0; }
  int all(int pred) const { return ballot(!pred) == 0; }
};

template <unsigned int HkSize>
inline thread_block_tile<HkSize> tiled_partition(const thread_block&) { return thread_block_tile<HkSize>(); }

}  // namespace cooperative_groups
