// CPU reference of the tile project's kernels, in double precision (hkcheck's reference.h).
#include "reference.h"

// c = a * b: a [M, K], b [K, N] (f16 values, read as doubles), c [M, N].
HK_REFERENCE(tile_gemm) {
  const int64_t M = ctx.integer("M"), N = ctx.integer("N"), K = ctx.integer("K");
  ctx.matrix("c", M, N) = ctx.matrix("a", M, K) * ctx.matrix("b", K, N);
}
