// Loader hooks (gemm_tile.h) for the quantized operands shared by the fused GEMMs:
//   Fp8Block:  fp8 e4m3 [R, K] with f32 scales s[(r / row_block) * ceil(K / 128) + k / 128]
//              (row_block 1: per (row, 128-wide K block), as a_scale [M, ceil(K / 128)];
//               row_block 128: per 128 x 128 block, as b_scale [ceil(N / 128), ceil(K / 128)])
//   MxFp4:     OCP MX fp4 [R, K] with e8m0 scales [R, ceil(K / 32)] (mx_fp4.h)
//   Plain<T>:  a 16-bit [R, K] matrix, unscaled
// Each is a small struct whose operator()(r, k) returns the dequantized f32 element.
#pragma once
#include "hkcheck.h"
#include "mx_fp4.h"

namespace gemm {

struct Fp8Block {
  const fp8e4m3* q;
  const f32* s;
  int K, row_block;
  HK_DEVICE float operator()(int r, int k) const {
    return hk::to_f32(q[(i64)r * K + k]) * s[(i64)(r / row_block) * hk::ceil_div(K, 128) + k / 128];
  }
};

struct MxFp4 {
  const fp4e2m1x2* q;
  const e8m0* s;
  int K;
  HK_DEVICE float operator()(int r, int k) const { return mx_fp4_at(q, s, r, k, K); }
};

template <class T16>
struct Plain {
  const T16* x;
  int K;
  HK_DEVICE float operator()(int r, int k) const { return hk::to_f32(x[(i64)r * K + k]); }
};

}  // namespace gemm
