// Reading OCP MX fp4 operands for the kernels/gemm loaders.
// An fp4e2m1 tensor [R, K] is stored packed, two elements per byte in flat (row-major) order:
// element i = r * K + k is the low nibble of byte i / 2 when i is even, the high one when odd
// (for even K: row r is bytes [r * K / 2, (r + 1) * K / 2), element 2j low, 2j + 1 high).
// Its e8m0 scales are [R, ceil(K / 32)]: one per 32 consecutive elements along K, value
// 2^(bits - 127). The dequantized element is e2m1(code) * scale, exact in f32.
#pragma once
#include "hkcheck.h"

namespace gemm {

constexpr int MX_BLOCK = 32;

HK_DEVICE float fp4_at(const fp4e2m1x2* __restrict__ q, i64 i) {
  const u8 byte = q[i >> 1].bits;
  return hk::fp4_decode((i & 1) ? (u8)(byte >> 4) : byte);
}

// Element (r, k) of an MX fp4 [R, K] matrix with scales s [R, ceil(K / 32)], dequantized.
HK_DEVICE float mx_fp4_at(const fp4e2m1x2* __restrict__ q, const e8m0* __restrict__ s, i64 r, int k, int K) {
  return fp4_at(q, r * K + k) * hk::to_f32(s[r * hk::ceil_div(K, MX_BLOCK) + k / MX_BLOCK]);
}

}  // namespace gemm
