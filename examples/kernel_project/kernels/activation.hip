// The HIP port of activation.cu, as a port to AMD GPUs writes it: bf16 from <hip/hip_bf16.h>
// (__hip_bfloat16), the rest unchanged. The manifest gives both files under one entry
// ("source": {"cuda": ..., "hip": ...}): each vendor's targets compile their own.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>

// The manifest names the instantiation as the CUDA file spells it, act_and_mul<__nv_bfloat16, ...>:
// the port keeps CUDA's name for HIP's type, as ports' compatibility headers do.
typedef __hip_bfloat16 __nv_bfloat16;

template <typename T> __device__ __forceinline__ float load_f32(const T* p);
template <> __device__ __forceinline__ float load_f32<float>(const float* p) { return *p; }
template <> __device__ __forceinline__ float load_f32<__nv_bfloat16>(const __nv_bfloat16* p) { return __bfloat162float(*p); }

template <typename T> __device__ __forceinline__ void store_f32(T* p, float v);
template <> __device__ __forceinline__ void store_f32<float>(float* p, float v) { *p = v; }
template <> __device__ __forceinline__ void store_f32<__nv_bfloat16>(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

struct Silu {
  __device__ float operator()(float x) const { return x / (1.0f + expf(-x)); }
};

// Tanh GELU through 0.5 * (1 + tanh(z)) = 1 / (1 + exp(-2z)): no cancellation for negative x.
struct GeluTanh {
  __device__ float operator()(float x) const {
    const float z = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x / (1.0f + expf(-2.0f * z));
  }
};

template <typename T, typename Op, bool Gated>
__global__ void __launch_bounds__(256) act_and_mul(T* __restrict__ out, const T* __restrict__ x, int d) {
  const long long row = blockIdx.x;
  const T* in = x + row * (Gated ? 2 * d : d);
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    float v = Op()(load_f32(in + j));
    if (Gated) v *= load_f32(in + d + j);
    store_f32(out + row * d + j, v);
  }
}
