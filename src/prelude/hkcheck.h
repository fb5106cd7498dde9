// hkcheck device prelude: handed to the run-time compiler (NVRTC or hipRTC) as the in-memory
// header "hkcheck.h" and included before every kernel source. It gives one dialect for both
// vendors and the CPU; documented in kernels/README.md. The build defines exactly one of
// HK_BACKEND_CUDA, HK_BACKEND_HIP, HK_BACKEND_HOST.
#pragma once

#if defined(HK_BACKEND_HOST)
#include "hk_host.h"
#endif

#define HK_HD __host__ __device__
#define HK_KERNEL extern "C" __global__
#define HK_DEVICE __device__ __forceinline__

typedef float f32;
typedef double f64;
typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

#if defined(HK_BACKEND_CUDA)
#define HK_WARP_SIZE 32
#elif defined(HK_BACKEND_HOST)
#define HK_WARP_SIZE HK_HOST_WARP_SIZE
#elif defined(HK_BACKEND_HIP)
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define HK_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define HK_WARP_SIZE 64
#endif
// CUDA's __trap() (found missing by --compile-only for gfx90a): HIP spells it __builtin_trap().
__device__ inline void __trap() { __builtin_trap(); }
#else
#error "hkcheck prelude: no backend macro defined"
#endif

// Dynamic shared memory, sized by the manifest's launch.shared: HK_DYNAMIC_SHARED(float, buf);
#if defined(HK_BACKEND_HOST)
#define HK_DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(hk_host_rt->current()->dynamic_shared)
#else
#define HK_DYNAMIC_SHARED(type, name)                       \
  extern __shared__ __attribute__((aligned(16))) unsigned char hk_dyn_smem_[]; \
  type* name = reinterpret_cast<type*>(hk_dyn_smem_)
#endif

#include "hk_minifloat.h"

// Storage types: plain bit containers; arithmetic is done in f32 after hk::to_f32.
struct f16 { u16 bits; };
struct bf16 { u16 bits; };
struct fp8e4m3 { u8 bits; };
struct fp8e5m2 { u8 bits; };
// OCP MX: fp4 e2m1 packed two per byte (element 2i in the low nibble, 2i+1 in the high one), so
// a tensor of N fp4 elements is ceil(N/2) of these; e8m0 is a shared scale 2^(bits - 127).
struct fp4e2m1x2 { u8 bits; };
struct e8m0 { u8 bits; };

namespace hk {

HK_DEVICE float to_f32(float x) { return x; }
HK_DEVICE float to_f32(double x) { return (float)x; }
HK_DEVICE float to_f32(bf16 x) { return __uint_as_float((u32)x.bits << 16); }
HK_DEVICE float to_f32(f16 x) { return hk_decode_float<float>(x.bits, HK_FMT_F16); }
HK_DEVICE float to_f32(fp8e4m3 x) { return hk_decode_float<float>(x.bits, HK_FMT_E4M3); }
HK_DEVICE float to_f32(fp8e5m2 x) { return hk_decode_float<float>(x.bits, HK_FMT_E5M2); }
HK_DEVICE float to_f32(i8 x) { return (float)x; }
HK_DEVICE float to_f32(u8 x) { return (float)x; }
HK_DEVICE float to_f32(i32 x) { return (float)x; }
HK_DEVICE float to_f32(i64 x) { return (float)x; }

// from_f32<T>(v): round-to-nearest-even into T (fp8 e4m3 saturates to +-448; e5m2 overflows to Inf).
template <typename HkT> HK_DEVICE HkT from_f32(float v);
template <> HK_DEVICE float from_f32<float>(float v) { return v; }
template <> HK_DEVICE double from_f32<double>(float v) { return v; }
template <> HK_DEVICE bf16 from_f32<bf16>(float v) {
  u32 u = __float_as_uint(v);
  bf16 r;
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) { r.bits = (u16)((u >> 16) | 0x40u); return r; }  // quiet NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  r.bits = (u16)(u >> 16);
  return r;
}
template <> HK_DEVICE f16 from_f32<f16>(float v) { f16 r; r.bits = (u16)hk_encode_float(v, HK_FMT_F16); return r; }
template <> HK_DEVICE fp8e4m3 from_f32<fp8e4m3>(float v) { fp8e4m3 r; r.bits = (u8)hk_encode_float(v, HK_FMT_E4M3); return r; }
template <> HK_DEVICE fp8e5m2 from_f32<fp8e5m2>(float v) { fp8e5m2 r; r.bits = (u8)hk_encode_float(v, HK_FMT_E5M2); return r; }
template <> HK_DEVICE i32 from_f32<i32>(float v) { return (i32)rintf(v); }
// e8m0 rounds toward zero to a power of two (0 and tiny -> 2^-127, huge/Inf -> 2^127, NaN and
// negative -> 0xFF NaN); see hk_encode_e8m0.
template <> HK_DEVICE e8m0 from_f32<e8m0>(float v) { e8m0 r; r.bits = (u8)hk_encode_e8m0(v); return r; }
HK_DEVICE float to_f32(e8m0 x) { return hk_decode_e8m0<float>(x.bits); }

// from_f32_rz<T>(v): round toward zero into T (bf16, f16, fp8). No kernel should want it: it is
// the store `hkcheck mutate` swaps in for from_f32 (docs/mutate.md), a bug the checks must catch.
// A sign-magnitude code one step smaller in magnitude is the next value toward zero.
template <typename HkT> HK_DEVICE HkT from_f32_rz(float v) {
  HkT r = from_f32<HkT>(v);
  const float back = to_f32(r);
  if (v == v && (back < 0 ? -back : back) > (v < 0 ? -v : v)) r.bits -= 1;
  return r;
}
template <> HK_DEVICE float from_f32_rz<float>(float v) { return v; }
template <> HK_DEVICE double from_f32_rz<double>(float v) { return v; }
template <> HK_DEVICE i32 from_f32_rz<i32>(float v) { return (i32)v; }

// fp4 e2m1 codes (4 bits): RNE, saturating to +-6, NaN -> +6.
HK_DEVICE u8 fp4_encode(float v) { return (u8)hk_encode_float(v, HK_FMT_E2M1); }
HK_DEVICE float fp4_decode(u8 code) { return hk_decode_float<float>(code & 0xFu, HK_FMT_E2M1); }
HK_DEVICE fp4e2m1x2 pack_fp4x2(float lo, float hi) {
  fp4e2m1x2 r;
  r.bits = (u8)(fp4_encode(lo) | (fp4_encode(hi) << 4));
  return r;
}
HK_DEVICE float fp4_lo(fp4e2m1x2 p) { return fp4_decode(p.bits); }
HK_DEVICE float fp4_hi(fp4e2m1x2 p) { return fp4_decode((u8)(p.bits >> 4)); }

// OCP MX shared scale of a block whose largest magnitude is amax: 2^(floor(log2 amax) - 2)
// (2 is emax of fp4 e2m1), clamped to e8m0's range; amax 0 gives the smallest scale 2^-127,
// a NaN amax the NaN scale. Values are then fp4(x / scale), exact division by a power of two.
HK_DEVICE e8m0 mx_scale_fp4(float amax) {
  e8m0 r;
  if (amax != amax) { r.bits = 0xFFu; return r; }
  if (amax == 0.f) { r.bits = 0; return r; }
  if (amax - amax != 0.f) { r.bits = 0xFEu; return r; }  // Inf
  int e = 0;
  frexpf(amax, &e);
  int biased = (e - 1) - 2 + 127;
  r.bits = (u8)(biased < 0 ? 0 : (biased > 254 ? 254 : biased));
  return r;
}

template <typename HkT> HK_DEVICE HkT ceil_div(HkT a, HkT b) { return (a + b - 1) / b; }
HK_DEVICE int lane_id() { return (int)(threadIdx.x % HK_WARP_SIZE); }
HK_DEVICE int warp_id() { return (int)(threadIdx.x / HK_WARP_SIZE); }

// Warp shuffles over the full warp (all lanes must take part).
#if defined(HK_BACKEND_CUDA) || defined(HK_BACKEND_HOST)
template <typename HkT> HK_DEVICE HkT shfl_xor(HkT v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
template <typename HkT> HK_DEVICE HkT shfl(HkT v, int src) { return __shfl_sync(0xffffffffu, v, src); }
template <typename HkT> HK_DEVICE HkT shfl_down(HkT v, int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
HK_DEVICE void sync_warp() { __syncwarp(); }
HK_DEVICE u64 ballot(int pred) { return (u64)__ballot_sync(0xffffffffu, pred); }
#else
template <typename HkT> HK_DEVICE HkT shfl_xor(HkT v, int mask) { return __shfl_xor(v, mask); }
template <typename HkT> HK_DEVICE HkT shfl(HkT v, int src) { return __shfl(v, src); }
template <typename HkT> HK_DEVICE HkT shfl_down(HkT v, int delta) { return __shfl_down(v, delta); }
HK_DEVICE void sync_warp() {}
HK_DEVICE u64 ballot(int pred) { return (u64)__ballot(pred); }
#endif

// Butterfly reductions: every lane gets the result.
template <typename HkT> HK_DEVICE HkT warp_sum(HkT v) {
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) v += shfl_xor(v, m);
  return v;
}
template <typename HkT> HK_DEVICE HkT warp_max(HkT v) {
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) { HkT o = shfl_xor(v, m); v = o > v ? o : v; }
  return v;
}
template <typename HkT> HK_DEVICE HkT warp_min(HkT v) {
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) { HkT o = shfl_xor(v, m); v = o < v ? o : v; }
  return v;
}

// Block reductions: every thread of the block must call; every thread gets the result.
// blockDim.x must be a multiple of HK_WARP_SIZE and at most 1024.
template <typename HkT, typename HkOp> HK_DEVICE HkT block_reduce(HkT v, HkOp op, HkT identity) {
  __shared__ HkT partial[1024 / 32];
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) v = op(v, shfl_xor(v, m));
  const int nwarps = (int)((blockDim.x + HK_WARP_SIZE - 1) / HK_WARP_SIZE);
  __syncthreads();  // partial[] may still be read by a previous call
  if (lane_id() == 0) partial[warp_id()] = v;
  __syncthreads();
  HkT r = lane_id() < nwarps ? partial[lane_id()] : identity;
  for (int m = HK_WARP_SIZE / 2; m > 0; m /= 2) r = op(r, shfl_xor(r, m));
  return r;
}
struct SumOp { template <typename HkT> HK_DEVICE HkT operator()(HkT a, HkT b) const { return a + b; } };
struct MaxOp { template <typename HkT> HK_DEVICE HkT operator()(HkT a, HkT b) const { return a > b ? a : b; } };
template <typename HkT> HK_DEVICE HkT block_sum(HkT v) { return block_reduce(v, SumOp(), HkT(0)); }
HK_DEVICE float block_max(float v) { return block_reduce(v, MaxOp(), -__int_as_float(0x7f800000)); }

}  // namespace hk
