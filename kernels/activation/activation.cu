// Elementwise activations and the gated "act_and_mul" forms used by MLP blocks.
//
//   act_<f>(out, x, n):           out[i] = f(x[i]) for i < n
//   <f>_and_mul(out, x, M, D):    x is [M, 2*D]; out[m, j] = f(x[m, j]) * x[m, D + j]
//
// T (f32, bf16, f16) is the storage type; all math is done in f32 and rounded once on store.
// Entry names of the unary kernels carry an "act_" prefix because extern "C" names such as
// `tanh` would collide with the math library.
#include "hkcheck.h"

#ifndef UNROLL
#define UNROLL 4  // elements per thread per sweep of the unary kernels; the manifest's grid uses it
#endif

// ---- Activation functors (f32 in, f32 out) -------------------------------------------------

struct Silu {
  HK_DEVICE float operator()(float x) const { return x / (1.0f + expf(-x)); }
};

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))). Written with erfc(-x / sqrt(2)), which is the
// same function but keeps full relative accuracy in the negative tail, where 1 + erf cancels.
struct Gelu {
  HK_DEVICE float operator()(float x) const { return 0.5f * x * erfcf(-x * 0.70710678118654752f); }
};

// Tanh-approximated GELU: 0.5 * x * (1 + tanh(z)), z = sqrt(2/pi) * (x + 0.044715 x^3).
// Uses the identity 0.5 * (1 + tanh(z)) = 1 / (1 + exp(-2z)), which avoids the cancellation of
// 1 + tanh(z) for negative x and saturates cleanly (exp -> inf gives -0, exp -> 0 gives x).
struct GeluTanh {
  HK_DEVICE float operator()(float x) const {
    const float z = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x / (1.0f + expf(-2.0f * z));
  }
};

// Written as "x < 0 ? 0 : x" so that NaN propagates like torch.relu.
struct Relu {
  HK_DEVICE float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};

struct Tanh {
  HK_DEVICE float operator()(float x) const { return tanhf(x); }
};

// ---- Unary: grid-stride over tiles of blockDim.x * UNROLL elements ---------------------------
// Each of the UNROLL steps is a fully coalesced sweep of blockDim.x consecutive elements; the
// loads of all steps are issued before any store so that several requests are in flight per
// thread. Any grid size is correct (the outer loop covers the rest).
template <typename Act>
HK_DEVICE void unary(T* __restrict__ out, const T* __restrict__ x, i64 n) {
  const i64 bdim = (i64)blockDim.x;
  const i64 tile = bdim * UNROLL;
  for (i64 base = (i64)blockIdx.x * tile + threadIdx.x; base < n; base += (i64)gridDim.x * tile) {
    float v[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const i64 i = base + k * bdim;
      v[k] = i < n ? hk::to_f32(x[i]) : 0.0f;  // tail of the last tile
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const i64 i = base + k * bdim;
      if (i < n) out[i] = hk::from_f32<T>(Act()(v[k]));
    }
  }
}

HK_KERNEL void act_silu(T* __restrict__ out, const T* __restrict__ x, i64 n) { unary<Silu>(out, x, n); }
HK_KERNEL void act_gelu(T* __restrict__ out, const T* __restrict__ x, i64 n) { unary<Gelu>(out, x, n); }
HK_KERNEL void act_gelu_tanh(T* __restrict__ out, const T* __restrict__ x, i64 n) { unary<GeluTanh>(out, x, n); }
HK_KERNEL void act_relu(T* __restrict__ out, const T* __restrict__ x, i64 n) { unary<Relu>(out, x, n); }
HK_KERNEL void act_tanh(T* __restrict__ out, const T* __restrict__ x, i64 n) { unary<Tanh>(out, x, n); }

// ---- Gated: out[m, :] = act(x[m, :D]) * x[m, D:] ---------------------------------------------
// Grid: x = rows (M, up to 2^31 - 1), y = column chunks of blockDim.x, with a stride loop so a
// capped grid.y still covers any D. The activation stays in f32 (no intermediate rounding to T).
template <typename Act>
HK_DEVICE void act_and_mul(T* __restrict__ out, const T* __restrict__ x, i32 M, i32 D) {
  const i64 row = blockIdx.x;
  if (row >= M) return;
  const T* gate = x + row * 2 * (i64)D;
  const T* up = gate + D;
  T* o = out + row * (i64)D;
  for (i64 c = (i64)blockIdx.y * blockDim.x + threadIdx.x; c < D; c += (i64)gridDim.y * blockDim.x)
    o[c] = hk::from_f32<T>(Act()(hk::to_f32(gate[c])) * hk::to_f32(up[c]));
}

HK_KERNEL void silu_and_mul(T* __restrict__ out, const T* __restrict__ x, i32 M, i32 D) {
  act_and_mul<Silu>(out, x, M, D);
}
HK_KERNEL void gelu_and_mul(T* __restrict__ out, const T* __restrict__ x, i32 M, i32 D) {
  act_and_mul<Gelu>(out, x, M, D);
}
