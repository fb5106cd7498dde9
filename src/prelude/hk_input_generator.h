// hkcheck's own kernel: a tensor's seeded input values made on the GPU, straight into their
// device bytes, with the arithmetic and rounding of the host generator (hk_input_values.h,
// hk_minifloat.h), so that a warm run neither generates gigabytes on the CPU nor uploads them.
// Compiled by src/worker/device_inputs.cpp after hkcheck.h, without fused multiply-adds; the host checks
// its bytes against its own generator before trusting it (device_inputs.h).
#pragma once

#include "hk_input_values.h"

// The generator kinds and dtypes, numbered as src/worker/device_inputs.cpp and dtype.h number them.
enum HkGenKind { HK_GEN_NORMAL = 0, HK_GEN_UNIFORM = 1, HK_GEN_INT = 2, HK_GEN_ARANGE = 3, HK_GEN_CONSTANT = 4 };
enum HkGenDtype {
  HK_GD_F32, HK_GD_F64, HK_GD_F16, HK_GD_BF16, HK_GD_E4M3, HK_GD_E5M2, HK_GD_I8, HK_GD_U8, HK_GD_I32, HK_GD_I64,
  HK_GD_U32, HK_GD_U64, HK_GD_FP4, HK_GD_E8M0, HK_GD_I16, HK_GD_U16
};

struct HkGenPlan {
  int kind, dtype;
  double a, b, c;  // normal: mean, std; uniform and int: low, high; arange: start, step, mod; constant: value
  int has_mod;     // arange: whether mod applies
};

// Elements i and i + 1 (i even), not yet rounded: what generator.cpp's fill_range gives.
__device__ inline void hk_gen_pair(const HkGenPlan& g, unsigned long long seed, long long i, double* v0, double* v1) {
  const unsigned long long k = static_cast<unsigned long long>(i);
  switch (g.kind) {
    case HK_GEN_NORMAL: {  // one Box-Muller pair from draws i and i + 1
      double a, b;
      hk_normal_pair(hk_uniform01_at(seed, k), hk_uniform01_at(seed, k + 1), &a, &b);
      *v0 = g.a + g.b * a;
      *v1 = g.a + g.b * b;
      return;
    }
    case HK_GEN_UNIFORM:
      *v0 = g.a + (g.b - g.a) * hk_uniform01_at(seed, k);
      *v1 = g.a + (g.b - g.a) * hk_uniform01_at(seed, k + 1);
      return;
    case HK_GEN_INT: {
      const double lo = ceil(g.a), hi = floor(g.b), span = hi - lo + 1;
      *v0 = lo + fmin(floor(hk_uniform01_at(seed, k) * span), span - 1);
      *v1 = lo + fmin(floor(hk_uniform01_at(seed, k + 1) * span), span - 1);
      return;
    }
    case HK_GEN_ARANGE: {
      double x = g.a + static_cast<double>(i) * g.b, y = g.a + static_cast<double>(i + 1) * g.b;
      if (g.has_mod && g.c != 0) x = fmod(x, g.c), y = fmod(y, g.c);
      *v0 = x, *v1 = y;
      return;
    }
    default: *v0 = *v1 = g.a; return;
  }
}

// Integers round to nearest even, then clamp to the type's range; NaN gives 0 (dtype.cpp).
__device__ inline double hk_gen_clamp(double v, double lo, double hi) {
  if (v != v) return 0;
  const double r = rint(v);
  return r < lo ? lo : (r > hi ? hi : r);
}

// Element i of value v into the tensor's bytes (fp4 elements come in pairs: hk_gen_fp4_pair).
__device__ inline void hk_gen_store(unsigned char* out, int dtype, long long i, double v) {
  switch (dtype) {
    case HK_GD_F32: reinterpret_cast<float*>(out)[i] = static_cast<float>(v); return;
    case HK_GD_F64: reinterpret_cast<double*>(out)[i] = v; return;
    case HK_GD_F16: reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(hk_encode_float<double>(v, HK_FMT_F16)); return;
    case HK_GD_BF16: reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(hk_encode_float<double>(v, HK_FMT_BF16)); return;
    case HK_GD_E4M3: out[i] = static_cast<unsigned char>(hk_encode_float<double>(v, HK_FMT_E4M3)); return;
    case HK_GD_E5M2: out[i] = static_cast<unsigned char>(hk_encode_float<double>(v, HK_FMT_E5M2)); return;
    case HK_GD_E8M0: out[i] = static_cast<unsigned char>(hk_encode_e8m0<double>(v)); return;
    case HK_GD_I8: reinterpret_cast<signed char*>(out)[i] = static_cast<signed char>(hk_gen_clamp(v, -128.0, 127.0)); return;
    case HK_GD_U8: out[i] = static_cast<unsigned char>(hk_gen_clamp(v, 0.0, 255.0)); return;
    case HK_GD_I16: reinterpret_cast<short*>(out)[i] = static_cast<short>(hk_gen_clamp(v, -32768.0, 32767.0)); return;
    case HK_GD_U16: reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(hk_gen_clamp(v, 0.0, 65535.0)); return;
    case HK_GD_I32: reinterpret_cast<int*>(out)[i] = static_cast<int>(hk_gen_clamp(v, -2147483648.0, 2147483647.0)); return;
    case HK_GD_U32: reinterpret_cast<unsigned int*>(out)[i] = static_cast<unsigned int>(hk_gen_clamp(v, 0.0, 4294967295.0)); return;
    case HK_GD_I64: {  // 2^63 is past the largest i64: kept in range, as dtype.cpp does
      const double c = hk_gen_clamp(v, -9223372036854775808.0, 9223372036854775808.0);
      reinterpret_cast<long long*>(out)[i] = c >= 9223372036854775808.0 ? 9223372036854775807ll : static_cast<long long>(c);
      return;
    }
    case HK_GD_U64: {
      const double c = hk_gen_clamp(v, 0.0, 18446744073709551616.0);
      reinterpret_cast<unsigned long long*>(out)[i] = c >= 18446744073709551616.0 ? 18446744073709551615ull : static_cast<unsigned long long>(c);
      return;
    }
    default: return;
  }
}

// Elements [0, n) of the plan for seed into out: each thread makes element pairs (2p, 2p + 1),
// so a Box-Muller pair and an fp4 byte stay whole; an odd n leaves the last fp4 nibble 0.
extern "C" __global__ void hk_generate_inputs(unsigned char* out, long long n, unsigned long long seed, int kind, int dtype, double a,
                                              double b, double c, int has_mod) {
  const HkGenPlan g{kind, dtype, a, b, c, has_mod};
  const long long pairs = (n + 1) / 2;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; p < pairs; p += stride) {
    const long long i = 2 * p;
    double v0, v1;
    hk_gen_pair(g, seed, i, &v0, &v1);
    const bool second = i + 1 < n;
    if (dtype == HK_GD_FP4) {
      const unsigned lo = hk_encode_float<double>(v0, HK_FMT_E2M1), hi = second ? hk_encode_float<double>(v1, HK_FMT_E2M1) : 0u;
      out[p] = static_cast<unsigned char>(lo | (hi << 4));
    } else {
      hk_gen_store(out, dtype, i, v0);
      if (second) hk_gen_store(out, dtype, i + 1, v1);
    }
  }
}

// Every unit of `unit` bytes (1, 2, 4 or 8) of out set to the low bytes of bits: an output's
// poison (dtype.h's poison_bits), laid on the device instead of uploaded.
extern "C" __global__ void hk_fill_units(unsigned char* out, long long units, unsigned long long bits, int unit) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long u = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; u < units; u += stride) {
    switch (unit) {
      case 1: out[u] = static_cast<unsigned char>(bits); break;
      case 2: reinterpret_cast<unsigned short*>(out)[u] = static_cast<unsigned short>(bits); break;
      case 4: reinterpret_cast<unsigned int*>(out)[u] = static_cast<unsigned int>(bits); break;
      default: reinterpret_cast<unsigned long long*>(out)[u] = bits; break;
    }
  }
}
