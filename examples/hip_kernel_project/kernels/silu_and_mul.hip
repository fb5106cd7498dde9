// The HIP port of silu_and_mul.cu: <hip/hip_bf16.h>, __hip_bfloat16 / __hip_bfloat162, the same
// loop. __hip_bfloat162's halves are read with __low2float / __high2float and made with
// __halves2bfloat162, which every hip_bf16.h has (ROCm 5's hipRTC stand-in included); CUDA's
// __floats2bfloat162_rn is not in ROCm 7's (compiling for gfx942 with it found that).
//
//   silu_and_mul(out, x, d):  x is [rows, 2d]; out[r, j] = silu(x[r, j]) * x[r, d + j]
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

__device__ __forceinline__ float silu(float v) { return v / (1.0f + __expf(-v)); }

__global__ void __launch_bounds__(256) silu_and_mul(__hip_bfloat16* __restrict__ out, const __hip_bfloat16* __restrict__ x, int d) {
  const long long row = blockIdx.x;
  const __hip_bfloat16* gate = x + row * 2 * d;
  const __hip_bfloat16* up = gate + d;
  __hip_bfloat16* dst = out + row * d;
  if ((d & 1) == 0) {
    const __hip_bfloat162* gate2 = reinterpret_cast<const __hip_bfloat162*>(gate);
    const __hip_bfloat162* up2 = reinterpret_cast<const __hip_bfloat162*>(up);
    __hip_bfloat162* dst2 = reinterpret_cast<__hip_bfloat162*>(dst);
    for (int j = threadIdx.x; j < d / 2; j += blockDim.x) {
      const __hip_bfloat162 g = gate2[j];
      const __hip_bfloat162 u = up2[j];
      dst2[j] = __halves2bfloat162(__float2bfloat16(silu(__low2float(g)) * __low2float(u)),
                                   __float2bfloat16(silu(__high2float(g)) * __high2float(u)));
    }
  } else {
    for (int j = threadIdx.x; j < d; j += blockDim.x)
      dst[j] = __float2bfloat16(silu(__bfloat162float(gate[j])) * __bfloat162float(up[j]));
  }
}
