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
inline void sync(const thread_block& g) { g.sync(); }

// A tile of Size consecutive threads of the block, Size a power of two up to the warp size.
template <unsigned int Size>
class thread_block_tile {
  static_assert(Size > 0 && (Size & (Size - 1)) == 0 && Size <= HK_HOST_WARP_SIZE, "a tile is a power of two, at most a warp");

 public:
  void sync() const { __syncwarp(); }
  unsigned long long thread_rank() const { return this_thread_block().thread_rank() % Size; }
  unsigned long long size() const { return Size; }
  unsigned long long num_threads() const { return Size; }
  unsigned long long meta_group_rank() const { return this_thread_block().thread_rank() / Size; }
  unsigned long long meta_group_size() const { return (this_thread_block().num_threads() + Size - 1) / Size; }
  template <typename T> T shfl(T v, int src) const { return __shfl_sync(~0ull, v, src, Size); }
  template <typename T> T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(~0ull, v, d, Size); }
  template <typename T> T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(~0ull, v, d, Size); }
  template <typename T> T shfl_xor(T v, unsigned int m) const { return __shfl_xor_sync(~0ull, v, m, Size); }
  unsigned long long ballot(int pred) const {
    const unsigned long long all = __ballot_sync(~0ull, pred);
    const unsigned int first = (unsigned int)(hk_host_lane() / Size) * Size;  // this tile's lanes in the warp
    return (all >> first) & (Size == 64 ? ~0ull : ((1ull << Size) - 1));
  }
  int any(int pred) const { return ballot(pred) != 0; }
  int all(int pred) const { return ballot(!pred) == 0; }
};

template <unsigned int Size>
inline thread_block_tile<Size> tiled_partition(const thread_block&) { return thread_block_tile<Size>(); }

}  // namespace cooperative_groups
