// C = A * B with f16 inputs and f32 output, one 32x32 tile of C per workgroup of one 64-lane
// wavefront, through the tile layer (include/tile): A and B staged through shared memory in
// 32-deep slices, multiplied by the target's matrix cores (TILE_CDNA3 / TILE_CDNA4, set per
// target by the manifest) or, on the CPU backend, by the layer's portable path. M, N and K need
// not be multiples of 32: the slices are zero-filled past the edges.
#include <hip/hip_runtime.h>

#include <tile/tile.h>

template <tile::matrix_input T, int Depth>
__device__ void gemm_one_tile(float* c, const T* a, const T* b, int M, int N, int K) {
  __shared__ tile::st<T, 32, Depth> a_slice;
  __shared__ tile::st<T, Depth, 32> b_slice;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32, lane = threadIdx.x;
  tile::acc32x32 acc;
  acc.zero();
  for (int k0 = 0; k0 < K; k0 += Depth) {
    a_slice.load(a, K, row0, k0, M - row0, K - k0);
    b_slice.load(b, N, k0, col0, K - k0, N - col0);
    __syncthreads();
    tile::mma_AB(acc, a_slice, b_slice, lane);
    __syncthreads();
  }
  acc.store(c, N, row0, col0, M - row0, N - col0, lane);
}

extern "C" __global__ void __launch_bounds__(64)
tile_gemm_f16(float* c, const _Float16* a, const _Float16* b, int M, int N, int K) {
  gemm_one_tile<_Float16, 32>(c, a, b, M, N, K);
}
