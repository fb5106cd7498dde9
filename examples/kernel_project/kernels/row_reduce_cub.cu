// The same row sum of squares with cub's block reduction: NVRTC compiles it against the toolkit's
// cub, and the host backend runs it with its own stand-in of cub's block collectives.
#include <cub/block/block_reduce.cuh>

template <int Block>
__global__ void __launch_bounds__(Block) row_sumsq_cub(float* __restrict__ out, const float* __restrict__ x, int n) {
  using Reduce = cub::BlockReduce<float, Block>;
  __shared__ typename Reduce::TempStorage scratch;
  const float* row = x + static_cast<long long>(blockIdx.x) * n;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < n; j += Block) acc += row[j] * row[j];
  const float total = Reduce(scratch).Sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
