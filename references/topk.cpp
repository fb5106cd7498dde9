// CPU reference for kernels/topk/topk.cu: per row of x [M, N], the K largest values in
// descending order ("values", same dtype as x) and their indices ("indices", i32).
//
// How results are judged: exactly. values are copies of input elements and indices select
// them, so the manifest gives both {"atol": 0, "rtol": 0, "ulps": 0}.
//
// Ties: the main cases have none by construction, using the "permutation" generator
// (start + i*step, shuffled) with values that are exact in the tensor's dtype, so rounding to
// the dtype cannot merge two of them:
//   - f32: start -N/2, step 1 (or 0.75): integers (or multiples of 0.25) far below 2^24, exact.
//   - bf16: 8 significant bits, so every integer n with |n| <= 256 is exact, but above 256 only
//     some are: an arithmetic progression of distinct exact bf16 values has at most ~512
//     elements. bf16 distinct cases therefore use N <= 512 with start -N/2, step 1 (values in
//     [-256, 255]), or step 1/8 with N <= 256 (multiples of 1/8 below 16 in magnitude, still at
//     most 8 significant bits). bf16 with N = 1000..4096 cannot be tie-free this way.
//   - f16: 11 significant bits, every integer with |n| <= 2048 is exact: N = 4096 with start
//     -2048, step 1 is tie-free.
// Ties: the manifest judges "indices" by the values of x they select (rule "indices"), so a
// kernel may break a tie either way. This reference takes the larger index first, the opposite
// of kernels/topk/topk.cu, and the "ties" cases (bf16 normal data with N up to 4096, small-range
// integers, all-equal rows) prove that the rule, not a shared tie order, makes them pass.
#include <algorithm>
#include <numeric>
#include <vector>

#include "reference.h"

HK_REFERENCE(topk) {
  auto x = ctx.matrix("x");
  const int64_t K = ctx.integer("K");
  auto values = ctx.matrix("values", x.rows(), K);
  auto indices = ctx.matrix("indices", x.rows(), K);
  std::vector<int64_t> order(static_cast<size_t>(x.cols()));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    std::iota(order.begin(), order.end(), int64_t{0});
    std::partial_sort(order.begin(), order.begin() + K, order.end(), [&](int64_t a, int64_t b) {
      return x(r, a) > x(r, b) || (x(r, a) == x(r, b) && a > b);
    });
    for (int64_t j = 0; j < K; ++j) {
      values(r, j) = x(r, order[j]);
      indices(r, j) = static_cast<double>(order[j]);
    }
  }
}
