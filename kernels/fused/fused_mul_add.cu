// Element-wise multiply-add, computed in f32 with one fused rounding (fmaf), stored as T.
//   fused_mul_add_tensor: out = a * b + c        (all [n])
//   fused_mul_add_scalar: out = alpha * x + beta (x, out [n]; alpha, beta f32 scalars)
// Grid-stride loops, so any grid works; 16-byte vector loads when every pointer is 16-byte
// aligned, and a scalar loop for the tail (n not a multiple of the vector width).
#include "hkcheck.h"

constexpr int VEC = 16 / (int)sizeof(T);  // elements per 16-byte pack
struct alignas(16) Pack { T v[VEC]; };

HK_DEVICE bool aligned16(const void* p) { return ((unsigned long long)p) % 16 == 0; }

HK_KERNEL void fused_mul_add_tensor(T* out, const T* a, const T* b, const T* c, long long n) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const bool vec = aligned16(out) && aligned16(a) && aligned16(b) && aligned16(c);
  const long long nvec = vec ? n / VEC : 0;
  for (long long i = tid; i < nvec; i += stride) {
    const Pack pa = reinterpret_cast<const Pack*>(a)[i];
    const Pack pb = reinterpret_cast<const Pack*>(b)[i];
    const Pack pc = reinterpret_cast<const Pack*>(c)[i];
    Pack po;
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      po.v[j] = hk::from_f32<T>(fmaf(hk::to_f32(pa.v[j]), hk::to_f32(pb.v[j]), hk::to_f32(pc.v[j])));
    reinterpret_cast<Pack*>(out)[i] = po;
  }
  for (long long i = nvec * VEC + tid; i < n; i += stride)  // tail (or everything, unaligned)
    out[i] = hk::from_f32<T>(fmaf(hk::to_f32(a[i]), hk::to_f32(b[i]), hk::to_f32(c[i])));
}

HK_KERNEL void fused_mul_add_scalar(T* out, const T* x, float alpha, float beta, long long n) {
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const bool vec = aligned16(out) && aligned16(x);
  const long long nvec = vec ? n / VEC : 0;
  for (long long i = tid; i < nvec; i += stride) {
    const Pack px = reinterpret_cast<const Pack*>(x)[i];
    Pack po;
#pragma unroll
    for (int j = 0; j < VEC; ++j) po.v[j] = hk::from_f32<T>(fmaf(alpha, hk::to_f32(px.v[j]), beta));
    reinterpret_cast<Pack*>(out)[i] = po;
  }
  for (long long i = nvec * VEC + tid; i < n; i += stride)
    out[i] = hk::from_f32<T>(fmaf(alpha, hk::to_f32(x[i]), beta));
}
