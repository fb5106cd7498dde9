// Row RMSNorm as AMD's kernel libraries write it: plain HIP, one workgroup per row, the wave
// reduction through mask-less __shfl_xor over warpSize lanes, the waves' partial sums meeting in
// HIP_DYNAMIC_SHARED memory (one float per wave: the manifest sizes it for 32-lane waves, the
// most waves a workgroup can have). Nothing assumes a wave size: right for wave32 and wave64.
//
//   rms_norm<T, BlockSize>(out, x, w, eps, n):  out[r, j] = x[r, j] / sqrt(mean_j(x[r, :]^2) + eps) * w[j]
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

template <typename T> __device__ __forceinline__ float to_f32(T v);
template <> __device__ __forceinline__ float to_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f32<__hip_bfloat16>(__hip_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __hip_bfloat16 from_f32<__hip_bfloat16>(float v) { return __float2bfloat16(v); }

// Butterfly over the whole wave: every lane ends with the wave's sum.
__device__ __forceinline__ float wave_reduce_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_xor(v, offset);
  return v;
}

// Sum over the workgroup; every thread gets the result. `partials` holds one float per wave.
template <int BlockSize>
__device__ __forceinline__ float block_reduce_sum(float v, float* partials) {
  const int lane = threadIdx.x % warpSize;
  const int wave = threadIdx.x / warpSize;
  const int num_waves = (BlockSize + warpSize - 1) / warpSize;
  v = wave_reduce_sum(v);
  if (lane == 0) partials[wave] = v;
  __syncthreads();
  float total = lane < num_waves ? partials[lane] : 0.0f;
  total = wave_reduce_sum(total);  // every wave reduces the partials itself: no second barrier
  return total;
}

template <typename T, int BlockSize>
__global__ void __launch_bounds__(BlockSize)
rms_norm(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ w, float eps, int n) {
  HIP_DYNAMIC_SHARED(float, wave_partials)
  const long long row = blockIdx.x;
  const T* in = x + row * n;
  float sumsq = 0.0f;
  for (int j = threadIdx.x; j < n; j += BlockSize) {
    const float v = to_f32(in[j]);
    sumsq += v * v;
  }
  sumsq = block_reduce_sum<BlockSize>(sumsq, wave_partials);
  const float inv_rms = rsqrtf(sumsq / static_cast<float>(n) + eps);
  for (int j = threadIdx.x; j < n; j += BlockSize)
    out[row * n + j] = from_f32<T>(to_f32(in[j]) * inv_rms * to_f32(w[j]));
}
