// Two independent GEMMs in one launch (modules fused_gemm_a8w8_blockscale_a16w16,
// fused_gemm_afp4wfp4_a16w16): a quantized one and a bf16 one over the same M rows.
//   fused_gemm_a8w8_blockscale_a16w16(a_q, b_q, c_q, a_scale, b_scale, a_bf16, b_bf16, c_bf16,
//                                     M, Nq, Kq, N16, K16)
//     c_q = (a_q * a_scale) (b_q * b_scale)^T: a_q [M, Kq] fp8e4m3, a_scale [M, ceil(Kq / 128)] f32,
//           b_q [Nq, Kq] fp8e4m3, b_scale [ceil(Nq / 128), ceil(Kq / 128)] f32 (128 x 128 blocks)
//   fused_gemm_afp4wfp4_a16w16(a_q, b_q, c_q, a_scales, b_scales, a_bf16, b_bf16, c_bf16,
//                              M, Nq, Kq, N16, K16)
//     c_q = deq(a_q) deq(b_q)^T: MX fp4 a_q [M, Kq], b_q [Nq, Kq], e8m0 scales [rows, ceil(Kq / 32)]
//   and in both  c_bf16 = a_bf16 b_bf16^T: a_bf16 [M, K16], b_bf16 [N16, K16] bf16.
// c_q [M, Nq] and c_bf16 [M, N16] are bf16; all row-major, B operands in weight layout [N, K].
// Grid: (ceil(Nq / 128) + ceil(N16 / 128), ceil(M / 128)): blocks x < ceil(Nq / 128) take tiles of
// the quantized GEMM, the others of the bf16 one (a block-uniform choice, so barriers are safe).
// Block: 256; dynamic shared memory: 160000 bytes (132096 used by gemm_tile.h's stages).
#include "hkcheck.h"
#include "gemm_tile.h"
#include "quant_operands.h"

using Tile = gemm::Default;

template <class LA, class LB>
HK_DEVICE void tile_to_bf16(float* smem, int n_tile, int M, int N, int K, const LA& la, const LB& lb, bf16* C) {
  const int m0 = blockIdx.y * Tile::BM, n0 = n_tile * Tile::BN;
  float acc[Tile::TM][Tile::TN];
  gemm::mainloop<Tile>(acc, smem, m0, n0, M, N, 0, K, la, lb);
  gemm::epilogue<Tile>(acc, m0, n0, M, N, [&](int m, int n, float v) { C[(i64)m * N + n] = hk::from_f32<bf16>(v); });
}

// The tile of this block: quantized GEMM (with loaders la, lb) or the bf16 one.
template <class LA, class LB>
HK_DEVICE void pair_tile(float* smem, const LA& la, const LB& lb, bf16* c_q, const bf16* a16, const bf16* b16,
                         bf16* c16, int M, int Nq, int Kq, int N16, int K16) {
  const int tiles_q = hk::ceil_div(Nq, Tile::BN);
  if ((int)blockIdx.x < tiles_q)
    tile_to_bf16(smem, blockIdx.x, M, Nq, Kq, la, lb, c_q);
  else
    tile_to_bf16(smem, blockIdx.x - tiles_q, M, N16, K16, gemm::Plain<bf16>{a16, K16}, gemm::Plain<bf16>{b16, K16},
                 c16);
}

HK_KERNEL void fused_gemm_a8w8_blockscale_a16w16(const fp8e4m3* a_q, const fp8e4m3* b_q, bf16* c_q, const f32* a_scale,
                                                 const f32* b_scale, const bf16* a_bf16, const bf16* b_bf16,
                                                 bf16* c_bf16, int M, int Nq, int Kq, int N16, int K16) {
  HK_DYNAMIC_SHARED(float, smem);
  pair_tile(smem, gemm::Fp8Block{a_q, a_scale, Kq, 1}, gemm::Fp8Block{b_q, b_scale, Kq, 128}, c_q, a_bf16, b_bf16,
            c_bf16, M, Nq, Kq, N16, K16);
}

HK_KERNEL void fused_gemm_afp4wfp4_a16w16(const fp4e2m1x2* a_q, const fp4e2m1x2* b_q, bf16* c_q, const e8m0* a_scales,
                                          const e8m0* b_scales, const bf16* a_bf16, const bf16* b_bf16, bf16* c_bf16,
                                          int M, int Nq, int Kq, int N16, int K16) {
  HK_DYNAMIC_SHARED(float, smem);
  pair_tile(smem, gemm::MxFp4{a_q, a_scales, Kq}, gemm::MxFp4{b_q, b_scales, Kq}, c_q, a_bf16, b_bf16, c_bf16, M, Nq,
            Kq, N16, K16);
}
