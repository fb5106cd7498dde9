// Dynamic per-token (per-row) symmetric int8 quantization.
//   x: [M, D] (T),  scale: [M] f32 = max|x_row| / 127,  q: [M, D] i8 = clamp(rint(x / scale), -127, 127)
// rint rounds half to even. An all-zero row gets scale 0 and q 0.
// Launch: grid (M), block a multiple of 64 (<= 1024): one block per row, two passes over the
// row (amax, then quantize; the second pass mostly hits cache). 16-byte loads when D is a
// multiple of the vector width and the pointers are aligned; otherwise element by element.
#include "hkcheck.h"

constexpr int VEC = 16 / (int)sizeof(T);    // input elements per 16-byte load
struct alignas(16) Pack { T v[VEC]; };
struct alignas(VEC) QPack { i8 v[VEC]; };  // the matching VEC-byte store of q

HK_DEVICE i8 quantize(float x, float scale) {
  if (scale == 0.f) return 0;
  const float r = rintf(x / scale);  // IEEE f32 division, then round half to even
  return (i8)fminf(fmaxf(r, -127.f), 127.f);
}

HK_KERNEL void per_token_quant_fwd(i8* q, f32* scale, const T* x, int D) {
  const long long row = blockIdx.x;
  const T* xr = x + row * D;
  i8* qr = q + row * D;
  const bool vec = D % VEC == 0 && ((unsigned long long)x) % 16 == 0 &&
                   ((unsigned long long)q) % VEC == 0;
  const int nvec = vec ? D / VEC : 0;  // when vec, the whole row is packs (no tail)

  float amax = 0.f;
  for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
    const Pack p = reinterpret_cast<const Pack*>(xr)[i];
#pragma unroll
    for (int j = 0; j < VEC; ++j) amax = fmaxf(amax, fabsf(hk::to_f32(p.v[j])));
  }
  for (int i = nvec * VEC + threadIdx.x; i < D; i += blockDim.x)
    amax = fmaxf(amax, fabsf(hk::to_f32(xr[i])));
  amax = hk::block_max(amax);

  const float s = amax / 127.f;
  if (threadIdx.x == 0) scale[row] = s;

  for (int i = threadIdx.x; i < nvec; i += blockDim.x) {
    const Pack p = reinterpret_cast<const Pack*>(xr)[i];
    QPack o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.v[j] = quantize(hk::to_f32(p.v[j]), s);
    reinterpret_cast<QPack*>(qr)[i] = o;
  }
  for (int i = nvec * VEC + threadIdx.x; i < D; i += blockDim.x) qr[i] = quantize(hk::to_f32(xr[i]), s);
}
