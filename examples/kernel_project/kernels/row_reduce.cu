// Sum of squares of each row (the first half of an RMS norm), one block per row: each tile of
// 32 threads reduces with cooperative groups, and the tiles' partial sums meet in dynamic shared
// memory (one float per tile: the manifest's launch.shared).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <int Block>
__global__ void __launch_bounds__(Block) row_sumsq(float* __restrict__ out, const float* __restrict__ x, int n) {
  extern __shared__ float tile_sums[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const float* row = x + static_cast<long long>(blockIdx.x) * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += Block) acc += row[j] * row[j];
  acc = cg::reduce(tile, acc, cg::plus<float>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = acc;
  block.sync();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int t = 0; t < Block / 32; ++t) total += tile_sums[t];
    out[blockIdx.x] = total;
  }
}
