// solve_tril: Ai = (I + A)^-1 for each chunk's strictly lower triangular A, by forward
// substitution (gdr_tril_inverse in gdr_common.h): X[i][j] = -sum_{m=j}^{i-1} A[i][m] X[m][j],
// X[i][i] = 1, X[i][j] = 0 for j > i.
//
//   gdr_solve_tril(Ai, A, cu_seqlens, N, H, C): A, Ai [Ttot, H, C] f32, row = token, column =
//   position in the token's chunk (chunks of C = 16, 32 or 64 tokens, local to each sequence).
//   Only the strictly lower part of A within the chunk is read (its diagonal and upper part may
//   hold anything); every one of the C columns of each row of Ai is written.
// Grid: (NT, H); block: any size (threads stride over columns). Shared: (C*C + C) floats.
#include "hkcheck.h"
#include "gdr_common.h"

HK_KERNEL void gdr_solve_tril(f32* __restrict__ Ai, const f32* __restrict__ A, const i32* __restrict__ cu_seqlens,
                              i32 N, i32 H, i32 C) {
  HK_DYNAMIC_SHARED(float, smem);
  float* M = smem;         // C x C
  float* tmp = M + C * C;  // C
  GdrChunk ch;
  if (!gdr_locate_chunk(cu_seqlens, N, C, blockIdx.x, ch)) return;
  const i32 h = blockIdx.y;
  for (i32 p = threadIdx.x; p < ch.len * C; p += blockDim.x)
    M[p] = A[((i64)(ch.bos + p / C) * H + h) * C + p % C];
  __syncthreads();
  gdr_tril_inverse(M, tmp, ch.len, C);
  for (i32 p = threadIdx.x; p < ch.len * C; p += blockDim.x)
    Ai[((i64)(ch.bos + p / C) * H + h) * C + p % C] = M[p];
}
