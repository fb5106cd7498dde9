// A 32x32 tile of C = A * B per wavefront through the CDNA matrix core (v_mfma_f32_32x32x8f16,
// gfx90a / gfx942), as AMD's GEMM kernels call it: one 64-lane wave, A [M, K] and B [K, N] in
// f16 row-major, C [M, N] in f32, K a multiple of 8. The host backend cannot run an MFMA
// built-in (it refuses it by name), so the manifest marks the kernel gpu_only; hipRTC compiles it.
//
// Operand layout of v_mfma_f32_32x32x8f16 (wave64; lane l, g = l / 32):
//   A: lane l holds A[row0 + l % 32][k0 + 4g + i],  i = 0..3
//   B: lane l holds B[k0 + 4g + i][col0 + l % 32],  i = 0..3
//   C: lane l holds C[row0 + 8 * (j / 4) + 4g + j % 4][col0 + l % 32],  j = 0..15
// Written from that layout; not yet run on an AMD GPU (none was at hand).
#include <hip/hip_runtime.h>

typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));

__global__ void __launch_bounds__(64)
mfma_gemm_f16(float* __restrict__ c, const _Float16* __restrict__ a, const _Float16* __restrict__ b, int M, int N, int K) {
  const int lane = threadIdx.x;  // one wave of 64 per workgroup
  const int g = lane / 32;
  const int row0 = blockIdx.y * 32;
  const int col0 = blockIdx.x * 32;
  float16_t acc = {};
  for (int k0 = 0; k0 < K; k0 += 8) {
    half4_t a_frag, b_frag;
    for (int i = 0; i < 4; ++i) {
      a_frag[i] = a[static_cast<long long>(row0 + lane % 32) * K + k0 + 4 * g + i];
      b_frag[i] = b[static_cast<long long>(k0 + 4 * g + i) * N + col0 + lane % 32];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a_frag, b_frag, acc, 0, 0, 0);
  }
  for (int j = 0; j < 16; ++j) {
    const int row = row0 + 8 * (j / 4) + 4 * g + j % 4;
    c[static_cast<long long>(row) * N + col0 + lane % 32] = acc[j];
  }
}
