// Quantized GEMM whose columns are split into two outputs, the first concatenated with an extra
// input (modules fused_gemm_a8w8_blockscale_split_cat, fused_gemm_afp4wfp4_split_cat):
//   fused_gemm_a8w8_blockscale_split_cat(a, b, y, c1, c2, a_scale, b_scale, M, N1, N2, K, D)
//   fused_gemm_afp4wfp4_split_cat(a, b, y, c1, c2, a_scales, b_scales, M, N1, N2, K, D)
//     P = deq(a) deq(b)^T, [M, N1 + N2]
//     c1[m, :] = concat(P[m, 0:N1], y[m, 0:D])    c1: [M, N1 + D] bf16
//     c2[m, :] = P[m, N1:N1 + N2]                 c2: [M, N2] bf16
// a8w8_blockscale: a [M, K] fp8e4m3 with a_scale [M, ceil(K / 128)] f32, b [N1 + N2, K] fp8e4m3
// with b_scale [ceil((N1 + N2) / 128), ceil(K / 128)] f32. afp4wfp4: a [M, K], b [N1 + N2, K] MX
// fp4 with e8m0 scales [rows, ceil(K / 32)] (mx_fp4.h). y: [M, D] bf16, copied bit for bit.
// All row-major. Sums f32, one rounding to bf16.
// Grid: (ceil((N1 + N2) / 128), ceil(M / 128)); the blocks of column tile 0 also copy y for their
// 128 rows. Block: 256; dynamic shared memory: 160000 bytes (132096 used by gemm_tile.h's stages).
#include "hkcheck.h"
#include "gemm_tile.h"
#include "quant_operands.h"

using Tile = gemm::Default;

template <class LA, class LB>
HK_DEVICE void gemm_split_cat(float* smem, const LA& la, const LB& lb, const bf16* y, bf16* c1, bf16* c2, int M,
                              int N1, int N2, int K, int D) {
  const int ld1 = N1 + D;
  gemm::run<Tile>(smem, M, N1 + N2, K, la, lb, [&](int m, int n, float acc) {
    const bf16 v = hk::from_f32<bf16>(acc);
    if (n < N1)
      c1[(i64)m * ld1 + n] = v;
    else
      c2[(i64)m * N2 + (n - N1)] = v;
  });
  if (blockIdx.x != 0) return;
  const int m0 = blockIdx.y * Tile::BM, rows = min(Tile::BM, M - m0);
  for (int i = threadIdx.x; i < rows * D; i += blockDim.x) {
    const int m = m0 + i / D, d = i % D;
    c1[(i64)m * ld1 + N1 + d] = y[(i64)m * D + d];
  }
}

HK_KERNEL void fused_gemm_a8w8_blockscale_split_cat(const fp8e4m3* a, const fp8e4m3* b, const bf16* y, bf16* c1,
                                                    bf16* c2, const f32* a_scale, const f32* b_scale, int M, int N1,
                                                    int N2, int K, int D) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm_split_cat(smem, gemm::Fp8Block{a, a_scale, K, 1}, gemm::Fp8Block{b, b_scale, K, 128}, y, c1, c2, M, N1, N2, K,
                 D);
}

HK_KERNEL void fused_gemm_afp4wfp4_split_cat(const fp4e2m1x2* a, const fp4e2m1x2* b, const bf16* y, bf16* c1, bf16* c2,
                                             const e8m0* a_scales, const e8m0* b_scales, int M, int N1, int N2, int K,
                                             int D) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm_split_cat(smem, gemm::MxFp4{a, a_scales, K}, gemm::MxFp4{b, b_scales, K}, y, c1, c2, M, N1, N2, K, D);
}
