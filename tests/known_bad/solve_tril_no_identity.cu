// Known bad: solve_tril (kernels/gdr/solve_tril.cu) with the bug a test report found, "forgot the
// identity on the diagonal": the forward substitution that builds X = (I + A)^-1 starts each
// diagonal element at 0 instead of 1. Every X[i][j] is a sum of products through some X[m][j]
// that ends at the diagonal X[j][j], so the whole inverse comes out 0: the first mismatch is
// the diagonal element of the first row (got 0, expected 1), and every diagonal element fails.
//
// kb_solve_tril_no_identity(Ai, A, cu_seqlens, N, H, C): A, Ai [Ttot, H, C] f32, row = token,
// column = position in the token's chunk (C tokens, local to each sequence of cu_seqlens [N+1]).
// Grid: (NT, H); block: any size. Shared: (C*C + C) floats. Self-contained on purpose.
#include "hkcheck.h"

HK_KERNEL void kb_solve_tril_no_identity(f32* __restrict__ Ai, const f32* __restrict__ A,
                                         const i32* __restrict__ cu_seqlens, i32 N, i32 H, i32 C) {
  HK_DYNAMIC_SHARED(float, smem);
  float* M = smem;
  float* tmp = M + C * C;
  // This block's chunk: bos, len.
  i32 base = 0, bos = -1, len = 0;
  for (i32 n = 0; n < N && bos < 0; ++n) {
    const i32 L = cu_seqlens[n + 1] - cu_seqlens[n], nt = (L + C - 1) / C;
    if ((i32)blockIdx.x < base + nt) {
      const i32 c = blockIdx.x - base;
      bos = cu_seqlens[n] + c * C;
      len = min(C, L - c * C);
    }
    base += nt;
  }
  if (bos < 0) return;
  const i32 h = blockIdx.y;
  for (i32 p = threadIdx.x; p < len * C; p += blockDim.x) M[p] = A[((i64)(bos + p / C) * H + h) * C + p % C];
  __syncthreads();
  for (i32 i = 0; i < len; ++i) {
    for (i32 j = threadIdx.x; j < C; j += blockDim.x) {
      float x = 0.0f;
      if (j < i) {
        for (i32 m = j; m < i; ++m) x -= M[i * C + m] * M[m * C + j];
      } else if (j == i) {
        x = 0.0f;  // BUG: the identity's diagonal, should be 1.0f
      }
      tmp[j] = x;
    }
    __syncthreads();
    for (i32 j = threadIdx.x; j < C; j += blockDim.x) M[i * C + j] = tmp[j];
    __syncthreads();
  }
  for (i32 p = threadIdx.x; p < len * C; p += blockDim.x) Ai[((i64)(bos + p / C) * H + h) * C + p % C] = M[p];
}
