// Quantized GEMM with a multiply-add epilogue (modules fused_gemm_a8w8_blockscale_mul_add,
// fused_gemm_afp4wfp4_mul_add):
//   fused_gemm_a8w8_blockscale_mul_add(a, b, c, a_scale, b_scale, c_a, c_b, M, N, K, ca_stride, cb_stride)
//   fused_gemm_afp4wfp4_mul_add(a, b, c, a_scales, b_scales, c_a, c_b, M, N, K, ca_stride, cb_stride)
//     c[m, n] = c_a[m * ca_stride + n] * sum_k deq(a)[m, k] deq(b)[n, k] + c_b[m * cb_stride + n]
// a8w8_blockscale: a [M, K] fp8e4m3 with a_scale [M, ceil(K / 128)] f32, b [N, K] fp8e4m3 with
// b_scale [ceil(N / 128), ceil(K / 128)] f32. afp4wfp4: a [M, K], b [N, K] MX fp4 with e8m0 scales
// [rows, ceil(K / 32)] (mx_fp4.h). c_a, c_b: bf16, [M, N] (stride N) or one row [N] broadcast over
// the rows (stride 0), each independently. c: [M, N] bf16. The epilogue is f32 (one fmaf), then
// one rounding to bf16.
// Grid: (ceil(N / 128), ceil(M / 128)); block: 256; dynamic shared memory: 160000 bytes (132096
// used by gemm_tile.h's stages).
#include "hkcheck.h"
#include "gemm_tile.h"
#include "quant_operands.h"

using Tile = gemm::Default;

template <class LA, class LB>
HK_DEVICE void gemm_mul_add(float* smem, const LA& la, const LB& lb, bf16* c, const bf16* c_a, const bf16* c_b, int M,
                            int N, int K, int ca_stride, int cb_stride) {
  gemm::run<Tile>(smem, M, N, K, la, lb, [&](int m, int n, float acc) {
    const float mul = hk::to_f32(c_a[(i64)m * ca_stride + n]), add = hk::to_f32(c_b[(i64)m * cb_stride + n]);
    c[(i64)m * N + n] = hk::from_f32<bf16>(fmaf(mul, acc, add));
  });
}

HK_KERNEL void fused_gemm_a8w8_blockscale_mul_add(const fp8e4m3* a, const fp8e4m3* b, bf16* c, const f32* a_scale,
                                                  const f32* b_scale, const bf16* c_a, const bf16* c_b, int M, int N,
                                                  int K, int ca_stride, int cb_stride) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm_mul_add(smem, gemm::Fp8Block{a, a_scale, K, 1}, gemm::Fp8Block{b, b_scale, K, 128}, c, c_a, c_b, M, N, K,
               ca_stride, cb_stride);
}

HK_KERNEL void fused_gemm_afp4wfp4_mul_add(const fp4e2m1x2* a, const fp4e2m1x2* b, bf16* c, const e8m0* a_scales,
                                           const e8m0* b_scales, const bf16* c_a, const bf16* c_b, int M, int N, int K,
                                           int ca_stride, int cb_stride) {
  HK_DYNAMIC_SHARED(float, smem);
  gemm_mul_add(smem, gemm::MxFp4{a, a_scales, K}, gemm::MxFp4{b, b_scales, K}, c, c_a, c_b, M, N, K, ca_stride,
               cb_stride);
}
